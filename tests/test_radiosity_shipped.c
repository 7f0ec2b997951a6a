// test_radiosity_shipped.c — issue 31 item 6: every shipped scene lit by
// radiosity (scenes/*.json and one folder down, those with a "radiosity"
// block) reaches the converged answer with its own settings and the
// defaults, within 2%.
//
// Per scene, compiled as the world compiles it (cs_world_radiosity_create:
// the scene's patch_size, the cluster tree, a level's faces and lights):
//   - bounces: the frame gathers min(bounces, the count at which the
//     reflected light grows by under `tolerance`); the double solver with
//     that count against the same solver run until the reflected power
//     changes by under 1e-9 (the converged answer on the same patches).
//     Compared is the reflected light B - E: its total power (area-weighted,
//     rgb), and per patch the area-weighted relative RMSE.
//   - the path tracer, where it can see the light (emissive triangles; it
//     has no punctual or area lights): its per-triangle probes against the
//     frame's radiosity (area-weighted over each triangle's patches), the
//     total reflected power within 2% once its noise (3 standard errors of
//     the total, traced until they are under 1% of it) is allowed for
//     (mesh_scene: 3%, its one patch a triangle is 2.5% under the tracer
//     even converged; see discretisation_limits). The Cornell box's
//     converged radiosity is 1.6% under the tracer (mean of 20 seeds,
//     llvmpipe; 1.8% before the far field's second-order form factors),
//     so its margin is the noise allowance, about 1%, and 0.4%.
//   - the GPU: one world frame against the double solver with the same
//     bounces, every patch within 1e-3 of the peak (the gathers' float sums).
// Before issue 31 the shipped scenes set 2 or 3 bounces: the Cornell box
// reflected 85% of the path tracer's light and this test failed.
// ctest labels: slow,gpu -- 225 at load 8 (720 at load 20; 86 s CPU): every shipped radiosity scene: bounces, path tracer, a GPU frame
#include "test_util.h"

#include "pathtrace.h"
#include "radiosity_gpu.h"
#include "scene.h"
#include "world_radiosity.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REFLECTED_ERROR 0.02
// The converged answer: bounced until the reflected power changes by under
// this share (the Cornell box: about 40 bounces).
#define REFERENCE_TOLERANCE 1e-9
#define REFERENCE_MAX_BOUNCES 1000u
// The path tracer traces rounds of PROBE_ROUND_SPP paths a probe lane (64
// lanes a triangle) until three standard errors of the total reflected
// power are under PROBE_NOISE_TARGET of it, or PROBE_MAX_SPP a lane. The
// Cornell box's 38 triangles need 80 a lane (5120 a triangle); the mesh
// scene's 1958 triangles meet it in the first round.
#define PROBE_ROUND_SPP 16u
#define PROBE_MAX_SPP 256u
#define PROBE_NOISE_TARGET 0.01
#define MAX_SCENES 64

// Scenes whose converged radiosity is itself further from the path tracer
// than MAX_REFLECTED_ERROR: the discretisation, not the bounces, which the
// check against the converged answer above holds to 2% for them too.
static const struct {
    const char *scene;
    double limit;
    const char *why;
} discretisation_limits[] = {
    {"mesh_scene.json", 0.03,
     "one patch a triangle: converged -2.5% (llvmpipe), most of it the wall triangles the terrain cuts, whose "
     "centroid is below it (docs/light.md)"},
};

// The scene files: scenes/*.json and scenes/*/*.json, sorted.
static uint32_t list_scenes(char paths[][512])
{
    uint32_t n = 0;
    DIR *top = opendir(CS_SOURCE_DIR "/scenes");
    CS_ASSERT(top, "cannot open %s", CS_SOURCE_DIR "/scenes");
    for (struct dirent *e; (e = readdir(top));) {
        if (e->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/scenes/%s", CS_SOURCE_DIR, e->d_name);
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".json") == 0) {
            CS_ASSERT(n < MAX_SCENES, "more than %d scenes", MAX_SCENES);
            snprintf(paths[n++], 512, "%s", path);
            continue;
        }
        DIR *sub = opendir(path);
        if (!sub)
            continue;
        for (struct dirent *f; (f = readdir(sub));) {
            size_t l = strlen(f->d_name);
            if (l > 5 && strcmp(f->d_name + l - 5, ".json") == 0) {
                CS_ASSERT(n < MAX_SCENES, "more than %d scenes", MAX_SCENES);
                snprintf(paths[n++], 512, "%s/%s", path, f->d_name);
            }
        }
        closedir(sub);
    }
    closedir(top);
    qsort(paths, n, 512, (int (*)(const void *, const void *))strcmp);
    return n;
}

// Reflected power sum A (B - E) over patches and channels.
static double reflected(const cs_radiosity_compiled *c, const double *b)
{
    double p = 0.0;
    for (uint32_t i = 0; i < c->patch_count; i++) {
        const float *e = &c->patches[i].emission.x;
        for (int k = 0; k < 3; k++)
            p += (double)c->patches[i].center_area.w * (b[3 * i + k] - e[k]);
    }
    return p;
}

// The path tracer's reflected power (sum over triangles of A (B - E), rgb),
// its standard error and the paths a triangle traced; false when the scene
// emits nothing it can see.
static bool traced_reflected(cs_context *ctx, const cs_world_radiosity *part, uint32_t seed, double *power,
                             double *std_error, uint32_t *paths)
{
    const cs_geometry *g = part->geometry;
    bool emits = false;
    for (uint32_t t = 0; t < g->tri_count; t++)
        emits |= g->tris[t].emission.x > 0 || g->tris[t].emission.y > 0 || g->tris[t].emission.z > 0;
    if (!emits)
        return false;
    cs_pt_settings s = cs_pt_settings_default(1, 1);
    s.seed = seed;
    s.position[2] = -1.0; // the camera is unused; it only has to be valid
    cs_pathtracer pt;
    cs_error err;
    CS_ASSERT(cs_pt_create(ctx, &part->bvh, &s, &pt, &err), "%s", err.msg);
    uint32_t n = part->bvh.tri_count;
    cs_pt_probe_result *probe = calloc(n, sizeof *probe);
    double *area = malloc(n * sizeof *area);
    CS_ASSERT(probe && area, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const cs_tri *t = &g->tris[part->bvh.tri_source[i]];
        double e1[3] = {t->v1.x - t->v0.x, t->v1.y - t->v0.y, t->v1.z - t->v0.z};
        double e2[3] = {t->v2.x - t->v0.x, t->v2.y - t->v0.y, t->v2.z - t->v0.z};
        double cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        area[i] = 0.5 * sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]);
    }
    double p = 0.0, var = 0.0;
    uint32_t spp = 0;
    while (spp < PROBE_MAX_SPP && (spp == 0 || !(3.0 * sqrt(var) <= PROBE_NOISE_TARGET * fabs(p)))) {
        cs_recorder rec;
        cs_recorder_create(ctx, "shipped probes", &rec);
        cs_recorder_begin(&rec);
        cs_pt_record_probe(&rec, &pt, PROBE_ROUND_SPP); // adds to the paths already traced
        cs_recorder_submit_wait(&rec);
        cs_recorder_destroy(&rec);
        spp += PROBE_ROUND_SPP;
        cs_pt_read_probe(ctx, &pt, probe);
        p = 0.0, var = 0.0;
        for (uint32_t i = 0; i < n; i++) {
            // The three channels come from the same paths, so their errors
            // are correlated and add, not in quadrature: the channel sum's
            // standard error is at most the sum of theirs (equal when the
            // channels move together). Quadrature read the total's noise
            // 1.33 x too low on the Cornell box (40 seeds), and a seed at
            // 5 of those "standard errors" failed CI.
            double tri_error = 0.0;
            const float *e = &g->tris[part->bvh.tri_source[i]].emission.x;
            for (int k = 0; k < 3; k++) {
                CHECK(isfinite(probe[i].radiosity[k]), "path tracer: triangle %u channel %d is %g", i, k,
                      probe[i].radiosity[k]);
                p += area[i] * (probe[i].radiosity[k] - e[k]);
                tri_error += area[i] * probe[i].std_error[k];
            }
            var += tri_error * tri_error;
        }
    }
    *paths = spp * CS_PT_PROBE_LANES;
    free(probe);
    free(area);
    cs_pt_destroy(ctx, &pt);
    *power = p;
    *std_error = sqrt(var);
    return true;
}

// One world frame on the GPU against the double solver with its bounces.
static void check_gpu_frame(cs_context *ctx, cs_world_radiosity *part, const double *expected, const char *name)
{
    cs_recorder rec;
    cs_recorder_create(ctx, "shipped frame", &rec);
    cs_recorder_begin(&rec);
    cs_world_radiosity_record(part, &rec, 0.0);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    uint32_t n = part->compiled.patch_count;
    float *got = malloc((size_t)n * 16);
    CS_ASSERT(got, "out of memory");
    cs_buffer_download(ctx, cs_radiosity_gpu_result(&part->gpu), got, (VkDeviceSize)n * 16, 0);
    double peak = 0.0, worst = 0.0;
    for (size_t v = 0; v < (size_t)n * 3; v++)
        peak = fmax(peak, fabs(expected[v]));
    uint32_t off = 0;
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++) {
            double d = fabs(got[4 * i + k] - expected[3 * i + k]) / fmax(peak, 1e-30);
            if (!(d <= 1e-3))
                off++;
            worst = isfinite(d) ? fmax(worst, d) : INFINITY;
        }
    printf("  GPU frame against the double solver: worst %.2g of the peak, %u values off\n", worst, off);
    CHECK(off == 0, "%s: %u GPU values more than 1e-3 of the peak from the double solver (worst %.2g)", name, off,
          worst);
    free(got);
}

static void check_scene(cs_context *ctx, const char *path, uint32_t seed, uint32_t *checked)
{
    cs_scene scene;
    cs_error err = {0};
    CS_ASSERT(cs_scene_load(path, &scene, &err), "%s", err.msg);
    if (!scene.geometry || !scene.geometry->lighting.radiosity_given) {
        cs_scene_free(&scene);
        return;
    }
    (*checked)++;
    cs_world_radiosity part;
    CS_ASSERT(cs_world_radiosity_create(ctx, &scene, &part, &err), "%s", err.msg);
    const cs_radiosity_compiled *c = &part.compiled;
    uint32_t bounces = cs_world_radiosity_bounces(&part);
    size_t values = (size_t)c->patch_count * 3;
    double *direct = malloc(values * sizeof *direct), *frame = malloc(values * sizeof *frame),
           *converged = malloc(values * sizeof *converged);
    CS_ASSERT(direct && frame && converged, "out of memory");
    cs_light lights[CS_MAX_SCENE_LIGHTS];
    cs_area_light areas[CS_MAX_SCENE_LIGHTS];
    uint32_t count, area_count;
    cs_world_radiosity_lights_at(part.lighting, 0.0, lights, &count, areas, &area_count);
    cs_radiosity_direct_cpu(c, &part.bvh, lights, count, areas, area_count, part.lighting->area_samples, direct);
    cs_radiosity_solve(c, direct, bounces, frame);
    uint32_t reference_bounces =
        cs_radiosity_solve_to(c, direct, REFERENCE_TOLERANCE, REFERENCE_MAX_BOUNCES, converged);
    double p_frame = reflected(c, frame), p_converged = reflected(c, converged);
    double d2 = 0.0, n2 = 0.0;
    for (uint32_t i = 0; i < c->patch_count; i++) {
        const float *e = &c->patches[i].emission.x;
        for (int k = 0; k < 3; k++) {
            double want = converged[3 * i + k] - e[k], d = frame[3 * i + k] - converged[3 * i + k];
            d2 += c->patches[i].center_area.w * d * d;
            n2 += c->patches[i].center_area.w * want * want;
        }
    }
    double rmse = sqrt(d2 / fmax(n2, 1e-300)), power_error = p_frame / p_converged - 1.0;
    const char *name = strrchr(path, '/') + 1;
    printf("%s: %u patches, %u links; tolerance %g, bounces at most %u: a frame gathers %u (converged: %u); "
           "reflected power %.2f%% off the converged, per-patch RMSE %.2f%%\n",
           name, c->patch_count, c->link_count, part.lighting->tolerance, part.lighting->bounces, bounces,
           reference_bounces, 100 * power_error, 100 * rmse);
    CHECK(reference_bounces < REFERENCE_MAX_BOUNCES, "%s: the reference did not converge in %u bounces", name,
          REFERENCE_MAX_BOUNCES);
    CHECK(isfinite(power_error) && fabs(power_error) <= MAX_REFLECTED_ERROR,
          "%s: the frame's reflected power is %.2f%% off the converged answer (limit %.0f%%): raise "
          "radiosity.bounces or lower radiosity.tolerance",
          name, 100 * power_error, 100 * MAX_REFLECTED_ERROR);
    CHECK(isfinite(rmse) && rmse <= MAX_REFLECTED_ERROR,
          "%s: the frame's reflected light is %.2f%% (per-patch RMSE) off the converged answer (limit %.0f%%)",
          name, 100 * rmse, 100 * MAX_REFLECTED_ERROR);

    double traced, traced_se;
    uint32_t paths;
    if (traced_reflected(ctx, &part, seed, &traced, &traced_se, &paths)) {
        double limit = MAX_REFLECTED_ERROR;
        for (size_t k = 0; k < CS_ARRAY_COUNT(discretisation_limits); k++)
            if (strcmp(name, discretisation_limits[k].scene) == 0) {
                limit = discretisation_limits[k].limit;
                printf("  path tracer limit %.0f%% for this scene (%s)\n", 100 * limit, discretisation_limits[k].why);
            }
        double traced_error = p_frame / traced - 1.0, allowed = limit + 3 * traced_se / traced;
        printf("  path tracer (%u paths a triangle): reflected power %.5g ± %.2g; the frame's %.2f%% off, "
               "the converged %.2f%% off (allowed %.2f%%)\n",
               paths, traced, traced_se, 100 * traced_error,
               100 * (p_converged / traced - 1.0), 100 * allowed);
        CHECK(isfinite(traced_error) && fabs(traced_error) <= allowed,
              "%s: the frame reflects %.2f%% of the path tracer's light's difference (allowed %.2f%%)", name,
              100 * traced_error, 100 * allowed);
    } else {
        printf("  path tracer: no emissive triangles (the scene's lights are punctual or area lights, which it "
               "does not trace): the converged radiosity is the reference\n");
    }
    check_gpu_frame(ctx, &part, frame, name);
    free(direct);
    free(frame);
    free(converged);
    cs_world_radiosity_destroy(ctx, &part);
    cs_scene_free(&scene);
}

int main(int argc, char **argv)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    uint32_t seed = test_rand_u32();
    static char paths[MAX_SCENES][512];
    uint32_t n = list_scenes(paths), checked = 0;
    // One scene by name (a substring of its path) when asked.
    for (uint32_t i = 0; i < n; i++)
        if (argc < 2 || strstr(paths[i], argv[1]))
            check_scene(&ctx, paths[i], seed, &checked);
    // The path tracer's seed that failed CI (reported noise too low then,
    // the Cornell box's frame -3.89% off the tracer), kept as a case.
    const uint32_t kept_seed = 300648012u;
    const char *kept_scene = CS_SOURCE_DIR "/scenes/cornell_box.json";
    if (argc < 2 || strstr(kept_scene, argv[1])) { // the same filter as the scenes above
        printf("kept seed %u:\n", kept_seed);
        uint32_t kept_checked = 0;
        check_scene(&ctx, kept_scene, kept_seed, &kept_checked);
    }
    printf("%u shipped scenes lit by radiosity checked, seed %u\n", checked, seed);
    CHECK(checked > 0, "no shipped scene with a \"radiosity\" block was found");
    return test_finish(&ctx);
}
