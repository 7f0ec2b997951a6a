// test_bodies_momentum.c — issue 14's momentum check: in a closed box with
// no gravity, fluid + moving bodies keep their total linear momentum within
// 1e-4 of |P| (relative) over 1000 substeps.
//
// A small WCSPH blob at rest in the middle of the box; a box (turning) and a
// sphere are thrown into it from both sides at different speeds, so the
// total is not zero and both bodies trade momentum with the fluid (and
// possibly with each other) all run long.
//
// Walls excluded from the sum: nothing may touch them. The box is large
// enough that after every frame (20 substeps) no particle is within h of a
// domain face (the WCSPH wall share reaches h; the collisions act at half a
// spacing) and no body's bounding sphere reaches a face (integrate's wall
// contacts test the contact points past the faces). The test checks both
// after every frame and fails if either happens, since the walls would then
// take momentum the sum does not see. Body-body contacts hand equal and
// opposite impulses, so they are inside the sum.
//
// The sum: fluid m v over the particles (double, on the host) plus every
// body's momentum (its state). Measured on llvmpipe: 1.0e-6 of |P| over
// 1000 substeps (343 particles, ~6 s). It fails when a body's share of the
// exchange is dropped (tried: forces.comp handing the body none of the
// wall pressure it gives a particle: 0.20 of |P|; collide.comp handing it
// none of -m dv: 2.05 of |P|, and the blob then reaches a wall).
// ctest labels: slow,gpu -- ~6 (1000 substeps, 343 particles)
#include "test_util.h"

#include "bodies.h"
#include "world.h"

#define FRAMES 50 // of SUBSTEPS substeps: 1000
#define SUBSTEPS 20
#define BODIES 2

#define THROW "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[1.8,1.6,1.6]},\"dt\":0.002,\"substeps\":20," \
    "\"gravity\":[0,0,0],\"bodies\":[" \
    "{\"shape\":\"box\",\"size\":[0.12,0.12,0.12],\"density\":800,\"position\":[0.57,0.8,0.82]," \
    "\"velocity\":[0.6,0,0],\"angular_velocity\":[0,0,2]}," \
    "{\"shape\":\"sphere\",\"radius\":0.06,\"density\":1500,\"position\":[1.23,0.77,0.75],\"velocity\":[-0.25,0.05,0]}]," \
    "\"fluids\":[{\"solver\":\"wcsph\",\"wcsph\":{},\"particle_spacing\":0.04," \
    "\"materials\":[{\"rest_density\":1000,\"mass\":0.064}],\"blocks\":[{\"min\":[0.76,0.65,0.65],\"max\":[1.04,0.95,0.95]}]}]}"

// Fluid + body momentum now (double), and how close anything came to a wall:
// *particle_gap = the smallest particle distance to a face, *body_gap = the
// smallest distance of a bounding sphere to a face.
static void total_momentum(cs_context *ctx, cs_world *world, const cs_scene *scene, double mass, float *vel, float *pos,
                           double p[3], double *particle_gap, double *body_gap)
{
    cs_particle_view v;
    world->fluids[0].ops->particles(world->fluids[0].state, &v);
    cs_buffer_download(ctx, v.velocities, vel, (size_t)v.count * 16, 0);
    cs_buffer_download(ctx, v.positions, pos, (size_t)v.count * 16, 0);
    cs_body_state st[BODIES];
    cs_bodies_download(&world->bodies, st);
    for (int a = 0; a < 3; a++)
        p[a] = 0.0;
    *particle_gap = *body_gap = 1e30;
    for (uint32_t j = 0; j < v.count; j++)
        for (int a = 0; a < 3; a++) {
            p[a] += mass * vel[4 * j + a];
            double x = pos[4 * j + a];
            *particle_gap = fmin(*particle_gap, fmin(x - scene->domain_min[a], scene->domain_max[a] - x));
        }
    for (uint32_t b = 0; b < BODIES; b++) {
        cs_body_props props;
        cs_body_props_compute(scene, b, &props);
        for (int a = 0; a < 3; a++) {
            double x = (&st[b].position.x)[a];
            p[a] += (&st[b].momentum.x)[a];
            *body_gap = fmin(*body_gap, fmin(x - scene->domain_min[a], scene->domain_max[a] - x) - props.radius);
        }
    }
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed(); // nothing random here; printed for the record
    cs_scene scene;
    cs_world world;
    bool ok = test_world_from_json(&ctx, THROW, "throw.json", &scene, &world);
    if (!ok)
        return test_finish(&ctx);
    cs_recorder rec;
    cs_recorder_create(&ctx, "momentum", &rec);
    cs_particle_view v;
    world.fluids[0].ops->particles(world.fluids[0].state, &v);
    float *vel = malloc((size_t)v.count * 16), *pos = malloc((size_t)v.count * 16);
    cs_sim_stats stats;
    cs_world_stats(&world, &stats, NULL);
    double m = stats.total_mass / stats.particles, h = scene.fluids[0].smoothing_radius;
    double p0[3], p[3], particle_gap, body_gap, worst = 0.0, closest_particle = 1e30, closest_body = 1e30;
    double fluid_took = 0.0;
    total_momentum(&ctx, &world, &scene, m, vel, pos, p0, &particle_gap, &body_gap);
    double scale = sqrt(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
    CHECK(scene.substeps == SUBSTEPS, "the scene runs %u substeps a frame, not %d", scene.substeps, SUBSTEPS);
    for (uint32_t f = 1; f <= FRAMES; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
        total_momentum(&ctx, &world, &scene, m, vel, pos, p, &particle_gap, &body_gap);
        closest_particle = fmin(closest_particle, particle_gap);
        closest_body = fmin(closest_body, body_gap);
        double err2 = 0.0, fluid = 0.0;
        for (int a = 0; a < 3; a++)
            err2 += (p[a] - p0[a]) * (p[a] - p0[a]);
        for (uint32_t j = 0; j < v.count; j++)
            fluid += m * vel[4 * j];
        fluid_took = fmax(fluid_took, fabs(fluid));
        worst = fmax(worst, sqrt(err2));
        if (getenv("CS_TEST_VERBOSE")) {
            double fastest = 0.0;
            for (uint32_t j = 0; j < v.count; j++)
                fastest = fmax(fastest, sqrt(vel[4 * j] * vel[4 * j] + vel[4 * j + 1] * vel[4 * j + 1] +
                                             vel[4 * j + 2] * vel[4 * j + 2]));
            printf("  substep %u: change %.3g, particle gap %.3f h, body gap %.4f m, fastest particle %.3f m/s\n",
                   f * SUBSTEPS, sqrt(err2) / scale, particle_gap / h, body_gap, fastest);
        }
    }
    printf("momentum over %d substeps (%u particles, %d bodies): |P| %.6g, the fluid took up to %.4g in x, largest "
           "change %.3g (relative %.3g); closest to a wall: particle %.3f h, body %.4f m\n",
           FRAMES * SUBSTEPS, v.count, BODIES, scale, fluid_took, worst, worst / scale, closest_particle / h, closest_body);
    CHECK(fluid_took > 0.1 * scale, "the bodies gave the fluid only %g of |P| %g: no coupling", fluid_took, scale);
    CHECK(closest_particle > h, "a particle came within %g h of a wall: the walls would take momentum", closest_particle / h);
    CHECK(closest_body > 0.0, "a body's bounding sphere reached a wall (%g m): the walls would take momentum", closest_body);
    CHECK(worst <= 1e-4 * scale, "fluid + bodies momentum changed by %g (relative %g > 1e-4)", worst, worst / scale);
    free(vel), free(pos);
    cs_recorder_destroy(&rec);
    cs_world_destroy(&world);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
