// test_vorton_spin.c — vortons next to a spinning body, through the world:
//   - vorton_spin_3d (a sphere spinning in still air): the no-slip band of
//     one core outside the sphere gives the still vortons vorticity, so the
//     flow moves after the first frame (regression: the contact query's
//     broad phase stopped at the sphere's bounding radius, every vorton
//     outside the sphere was "far", and the scene reported max speed 0).
#include "test_util.h"

#include "vorton.h"
#include "world.h"

#include <string.h>

typedef struct world_run {
    cs_scene scene;
    cs_world world;
    cs_recorder rec;
    bool ok;
} world_run;

static bool world_open(cs_context *ctx, const char *name, const char *text, world_run *r)
{
    cs_error err = {{0}};
    memset(r, 0, sizeof *r);
    bool parsed = text ? cs_scene_parse(text, strlen(text), name, &r->scene, &err) : cs_scene_load(name, &r->scene, &err);
    if (!parsed) {
        CHECK(false, "%s: %s", name, err.msg);
        return false;
    }
    if (!cs_world_create(ctx, &r->scene, &r->world, &err)) {
        CHECK(false, "world of %s: %s", name, err.msg);
        cs_scene_free(&r->scene);
        return false;
    }
    cs_recorder_create(ctx, name, &r->rec);
    r->ok = true;
    return true;
}

static void world_frames(world_run *r, uint32_t frames)
{
    for (uint32_t f = 0; f < frames; f++) {
        cs_recorder_begin(&r->rec);
        cs_world_record_frame(&r->world, &r->rec);
        cs_recorder_submit_wait(&r->rec);
    }
}

static void world_close(world_run *r)
{
    if (!r->ok)
        return;
    cs_recorder_destroy(&r->rec);
    cs_world_destroy(&r->world);
    cs_scene_free(&r->scene);
    r->ok = false;
}

static double norm3(const float *v) { return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]); }

// The shipped scene: sphere of radius R spinning at Omega about y in still
// air. After two frames (four steps) the vortons within one core of its
// surface carry the wall layer's vorticity ~ Omega R / sigma and the
// flow they induce is a fraction of the surface speed Omega R.
static void test_spin_scene(cs_context *ctx)
{
    world_run r;
    if (!world_open(ctx, "vorton_spin_3d", NULL, &r))
        return;
    world_frames(&r, 2);
    cs_vorton *v = r.world.fluids[0].state;
    cs_sim_stats stats;
    cs_world_stats(&r.world, &stats, NULL);
    const cs_body *sphere = &r.scene.bodies[0];
    double omega = norm3(sphere->angular_velocity), radius = sphere->radius;
    float *pos = calloc(v->count + 1u, 16), *vort = calloc(v->count + 1u, 16);
    cs_vorton_download(v, pos, vort);
    double band_vorticity = 0.0;
    for (uint32_t i = 0; i < v->count; i++) {
        double d = norm3(&pos[i * 4]) - radius; // the sphere starts at the origin
        if (d < 2.0 * pos[i * 4 + 3])
            band_vorticity = fmax(band_vorticity, norm3(&vort[i * 4]));
    }
    double surface_speed = omega * radius;
    printf("vorton_spin_3d, 2 frames: max speed %.4g m/s (surface %.3g m/s), max |omega| within two cores of "
           "the sphere %.4g 1/s, %u non-finite\n",
           stats.max_speed, surface_speed, band_vorticity, stats.non_finite);
    CHECK(stats.non_finite == 0, "%u non-finite particles", stats.non_finite);
    CHECK(band_vorticity > omega, "the spinning sphere gave the vortons beside it |omega| %.3g <= Omega %.3g",
          band_vorticity, omega);
    CHECK(stats.max_speed > 0.05 * surface_speed && stats.max_speed < 2.0 * surface_speed,
          "max speed %.4g m/s is not a fraction of the surface speed %.3g m/s", stats.max_speed, surface_speed);
    free(pos);
    free(vort);
    world_close(&r);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_spin_scene(&ctx);
    return test_finish(&ctx);
}
