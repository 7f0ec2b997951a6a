// test_cornell_radiosity.c — issue 11's cross-check: on scenes/cornell_box.json
// (its light an emissive quad) the radiosity solution (pipelines/light/radiosity.c,
// the double CPU solver, bounced until it stops changing) against the path
// tracer's converged per-triangle radiosity (probe mode, lavapipe, validation
// on). Per scene triangle: radiosity's area-weighted mean over the triangle's
// patches against the probe's B = pi L. Compared is the reflected part
// B - E (the light's own emission E is exact in both and, 60 times brighter
// than any wall, would hide every error):
//     relative RMSE = sqrt(sum_t A_t |dB_t|^2 / sum_t A_t |B_t|^2)
// over rgb, B_t the radiosity's. The probes' noise adds sum_t A_t |se_t|^2 to
// the numerator on average, so the bias alone is estimated as
// sqrt(RMSE^2 - noise^2); it must be within 5%, and the noise small enough
// (under 2.5%) that the figure means something. Expected error sources:
// radiosity's piecewise-constant patches, Wallace's disc form factors and
// one visibility ray per patch pair (soft shadow edges land on whole
// patches); the path tracer has none of them. Measured (llvmpipe): 1.5%
// (noise 1.2%, radiosity about 0.8%); the scene's own 2 bounces give 30%,
// patches of 0.28 m 5.7%: both fail.
// ctest labels: quick,gpu -- 2
#include "test_util.h"

#include "bvh.h"
#include "geometry.h"
#include "pathtrace.h"
#include "radiosity.h"
#include "scene.h"

#include <stdlib.h>
#include <string.h>

// Patches of about 0.07 m (12 x 12 a wall triangle; 2038 in all): O(N^2)
// compilation in about a second on one core (0.14: 2.1% error, 0.28: 5.7%).
#define PATCH_SIZE 0.07
// Each probe lane traces PROBE_SPP paths: 64 x 64 = 4096 a triangle.
#define PROBE_SPP 64u
#define MAX_RELATIVE_RMSE 0.05
#define MAX_NOISE 0.025

// Jacobi bounces until no patch changes by more than `tolerance` relative
// to the brightest: returns the bounces it took (0: it did not converge).
static uint32_t solve_converged(const cs_radiosity_compiled *c, double tolerance, double *radiosity)
{
    size_t bytes = (size_t)c->patch_count * 3 * sizeof(double);
    double *next = malloc(bytes);
    CS_ASSERT(next, "out of memory");
    cs_radiosity_solve(c, NULL, 0, radiosity);
    uint32_t bounces = 0;
    for (uint32_t k = 1; k <= 400; k++) {
        // One more bounce from the current state: E + rho sum F B.
        for (uint32_t i = 0; i < c->patch_count; i++) {
            double gathered[3] = {0, 0, 0};
            for (uint32_t l = c->link_start[i]; l < c->link_start[i + 1]; l++)
                for (int ch = 0; ch < 3; ch++)
                    gathered[ch] += (double)c->links[l].factor * radiosity[3 * c->links[l].target + ch];
            const float rho[3] = {c->patches[i].albedo.x, c->patches[i].albedo.y, c->patches[i].albedo.z};
            const float e[3] = {c->patches[i].emission.x, c->patches[i].emission.y, c->patches[i].emission.z};
            for (int ch = 0; ch < 3; ch++)
                next[3 * i + ch] = e[ch] + rho[ch] * gathered[ch];
        }
        double change = 0.0, peak = 0.0;
        for (size_t v = 0; v < (size_t)c->patch_count * 3; v++) {
            change = fmax(change, fabs(next[v] - radiosity[v]));
            peak = fmax(peak, fabs(next[v]));
        }
        memcpy(radiosity, next, bytes);
        if (change <= tolerance * peak) {
            bounces = k;
            break;
        }
    }
    free(next);
    return bounces;
}

// The path tracer's probes, per scene triangle (scene order).
static void trace_probes(cs_context *ctx, const cs_bvh *bvh, uint32_t seed, cs_pt_probe_result *by_scene_tri)
{
    cs_pt_settings s = cs_pt_settings_default(1, 1);
    s.seed = seed;
    s.position[2] = -1.0; // the camera is unused; it only has to be valid
    cs_pathtracer pt;
    cs_error err;
    CS_ASSERT(cs_pt_create(ctx, bvh, &s, &pt, &err), "%s", err.msg);
    cs_recorder rec;
    cs_recorder_create(ctx, "cornell probes", &rec);
    cs_recorder_begin(&rec);
    // At most 64 paths per lane per dispatch (docs/light.md, lavapipe).
    for (uint32_t done = 0; done < PROBE_SPP; done += 64)
        cs_pt_record_probe(&rec, &pt, PROBE_SPP - done < 64 ? PROBE_SPP - done : 64);
    cs_recorder_submit_wait(&rec);
    printf("path tracer probes: %u paths a triangle, %.0f ms on the GPU\n", PROBE_SPP * CS_PT_PROBE_LANES,
           cs_recorder_pass_ms(&rec, "pathtrace: probe"));
    cs_recorder_destroy(&rec);
    cs_pt_probe_result *by_bvh = calloc(bvh->tri_count, sizeof *by_bvh);
    CS_ASSERT(by_bvh, "out of memory");
    cs_pt_read_probe(ctx, &pt, by_bvh);
    for (uint32_t i = 0; i < bvh->tri_count; i++)
        by_scene_tri[bvh->tri_source[i]] = by_bvh[i];
    free(by_bvh);
    cs_pt_destroy(ctx, &pt);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    uint32_t seed = test_rand_u32();
    cs_scene scene;
    cs_error err = {0};
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err), "%s", err.msg);
    const cs_tri *tris = scene.geometry->tris;
    uint32_t tri_count = scene.geometry->tri_count;
    cs_bvh bvh;
    CS_ASSERT(cs_bvh_build(tris, tri_count, &bvh, &err), "%s", err.msg);

    cs_radiosity_compiled c;
    CS_ASSERT(cs_radiosity_compile(tris, tri_count, PATCH_SIZE, &bvh, &c, &err), "%s", err.msg);
    double *patch_b = malloc((size_t)c.patch_count * 3 * sizeof *patch_b);
    CS_ASSERT(patch_b, "out of memory");
    uint32_t bounces = solve_converged(&c, 1e-7, patch_b);
    printf("radiosity: patch_size %.2f, %u patches, %u links, compiled in %.2f s, converged after %u bounces\n",
           PATCH_SIZE, c.patch_count, c.link_count, c.compile_seconds, bounces);
    CHECK(bounces > 0, "radiosity did not converge in 400 bounces");

    // Area-weighted mean radiosity of each triangle's patches, and its
    // reflected part (B - E).
    double *tri_b = calloc((size_t)tri_count * 3, sizeof *tri_b), *tri_area = calloc(tri_count, sizeof *tri_area);
    CS_ASSERT(tri_b && tri_area, "out of memory");
    for (uint32_t i = 0; i < c.patch_count; i++) {
        uint32_t t = c.patch_tri[i];
        double a = c.patches[i].center_area.w;
        tri_area[t] += a;
        for (int ch = 0; ch < 3; ch++)
            tri_b[3 * t + ch] += a * patch_b[3 * i + ch];
    }
    cs_pt_probe_result *probe = calloc(tri_count, sizeof *probe);
    CS_ASSERT(probe, "out of memory");
    trace_probes(&ctx, &bvh, seed, probe);

    double diff2 = 0.0, noise2 = 0.0, norm2 = 0.0, worst = 0.0;
    uint32_t worst_tri = 0;
    printf("  tri elem   area m2   radiosity B-E (rgb)          path tracer B-E (rgb)          SE (rgb)\n");
    for (uint32_t t = 0; t < tri_count; t++) {
        const float e[3] = {tris[t].emission.x, tris[t].emission.y, tris[t].emission.z};
        double a = tri_area[t], rad[3], pt[3], tri_d2 = 0.0, tri_n2 = 0.0;
        for (int ch = 0; ch < 3; ch++) {
            rad[ch] = tri_b[3 * t + ch] / a - e[ch];
            pt[ch] = probe[t].radiosity[ch] - e[ch];
            double d = pt[ch] - rad[ch];
            tri_d2 += d * d;
            tri_n2 += rad[ch] * rad[ch];
            diff2 += a * d * d;
            noise2 += a * probe[t].std_error[ch] * probe[t].std_error[ch];
            norm2 += a * rad[ch] * rad[ch];
            CHECK(isfinite(pt[ch]) && isfinite(rad[ch]), "triangle %u channel %d: path tracer %g, radiosity %g", t,
                  ch, pt[ch], rad[ch]);
        }
        double rel = sqrt(tri_d2 / fmax(tri_n2, 1e-30));
        if (!(rel <= worst))
            worst = rel, worst_tri = t;
        printf("  %3u %4u  %.5f  %.4f %.4f %.4f   %.4f %.4f %.4f   %.4f %.4f %.4f\n", t, tris[t].info.x, a, rad[0],
               rad[1], rad[2], pt[0], pt[1], pt[2], probe[t].std_error[0], probe[t].std_error[1],
               probe[t].std_error[2]);
    }
    double rmse = sqrt(diff2 / norm2), noise = sqrt(noise2 / norm2);
    double bias = sqrt(fmax(rmse * rmse - noise * noise, 0.0));
    printf("cornell box, seed %u: relative RMSE (area-weighted, rgb, B - E) %.2f%%, of which the probes' noise "
           "%.2f%%; radiosity's own error about %.2f%% (limit %.0f%%); worst triangle %u (element %u) %.1f%%\n",
           seed, 100 * rmse, 100 * noise, 100 * bias, 100 * MAX_RELATIVE_RMSE, worst_tri, tris[worst_tri].info.x,
           100 * worst);
    CHECK(noise < MAX_NOISE, "probe noise %.2f%% is too large for the check to mean anything", 100 * noise);
    CHECK(bias <= MAX_RELATIVE_RMSE, "radiosity vs path tracer: relative RMSE %.2f%% (noise %.2f%%) over %.0f%%",
          100 * rmse, 100 * noise, 100 * MAX_RELATIVE_RMSE);

    free(probe);
    free(tri_b);
    free(tri_area);
    free(patch_b);
    cs_radiosity_free(&c);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    return test_finish(&ctx);
}
