// test_radiosity_hierarchy.c — the k-means cluster hierarchy of radiosity
// (pipelines/light/radiosity_cluster.c), on the CPU in double:
//   - the tree: every patch and cluster but the roots is the child of
//     exactly one cluster, the children's area shares sum to 1, parents
//     come after their children;
//   - accuracy against the full-link solver (cs_radiosity_compile, every
//     pair linked) on the Cornell box at patch_size 0.1 and 0.07, both with
//     CPU visibility and 24 bounces of the box's emissive light: per patch,
//     the relative error of the reflected part, |dB| / |B| over rgb, mean
//     <= MAX_MEAN_ERROR and max <= MAX_PATCH_ERROR (chosen from the measured
//     figures, docs/light.md "Cluster hierarchy");
//   - a broken rule (clusters linked at radius / distance < 2 whatever
//     their normal spread) must fail those bounds, so the check can fail;
//   - the furnace: a closed unit cube, rho 0.5, a uniform direct
//     irradiance H = 2, 40 bounces: B = rho H / (1 - rho) = 2 within 1%;
//   - links grow about as N (receiver clusters): the exponent of a
//     least-squares fit of log links against log patches over four sizes
//     (988 to 7330 patches, links before visibility, which the rule alone
//     decides) is below MAX_LINK_EXPONENT (the flat compile's is 2; with
//     every receiver a patch it was 1.49);
//   - determinism: two compiles give the same bytes;
//   - a link limit (cs_hierarchy_options.max_links; the world's is what one
//     storage buffer of the device holds): a compile keeping exactly that
//     many links passes, one more than the limit is refused with a message
//     that says what to change (patch_size);
//   - the k-means grid assignment builds the same tree as comparing every
//     node with every centre: the Cornell box at 0.05 and random triangles
//     (seed printed).
// ctest labels: slow -- 12 at load 2.4 (30-55 at load 7)
#include "test_util.h"

#include "bvh.h"
#include "radiosity_cluster.h"
#include "geometry.h"
#include "scene.h"

#include <stdlib.h>
#include <string.h>

#define BOUNCES 24u
#define MAX_MEAN_ERROR 0.02
#define MAX_PATCH_ERROR 0.10
#define MAX_LINK_EXPONENT 1.15

static void compile_hierarchy(const cs_tri *tris, uint32_t count, double patch_size, const cs_bvh *bvh,
                              const cs_hierarchy_options *o, cs_radiosity_compiled *c)
{
    cs_error err = {0};
    CS_ASSERT(cs_radiosity_compile_hierarchy(NULL, tris, count, patch_size, bvh, o, c, &err), "%s", err.msg);
}

static void check_tree(const cs_radiosity_compiled *c, const char *what)
{
    uint32_t n = c->patch_count, nodes = n + c->cluster_count, bad = 0;
    uint32_t *parents = calloc(nodes, sizeof *parents);
    CS_ASSERT(parents, "out of memory");
    for (uint32_t k = 0; k < c->cluster_count; k++) {
        double share = 0.0;
        for (uint32_t l = c->child_start[k]; l < c->child_start[k + 1]; l++) {
            uint32_t child = c->children[l].target;
            share += c->children[l].factor;
            if (child >= n + k)
                bad++; // a parent before its child
            else
                parents[child]++;
        }
        if (fabs(share - 1.0) > 1e-5)
            bad++;
    }
    uint32_t roots = 0;
    for (uint32_t v = 0; v < nodes; v++) {
        roots += parents[v] == 0;
        bad += parents[v] > 1;
    }
    printf("%s: %u patches, %u clusters in %u rounds, %u roots, %u links (%.1f a patch)\n", what, n,
           c->cluster_count, c->level_count, roots, c->link_count, (double)c->link_count / n);
    CHECK(bad == 0, "%s: %u broken tree entries", what, bad);
    CHECK(roots >= 1 && roots <= CS_CLUSTER_ROOTS, "%s: %u roots", what, roots);
    free(parents);
}

// Mean and max over patches of |dB| / |B| (rgb) of the reflected part.
static void compare(const cs_radiosity_compiled *flat, const double *want, const double *got, double *mean,
                    double *max)
{
    double sum = 0.0;
    *max = 0.0;
    for (uint32_t i = 0; i < flat->patch_count; i++) {
        const float e[3] = {flat->patches[i].emission.x, flat->patches[i].emission.y, flat->patches[i].emission.z};
        double d2 = 0.0, b2 = 0.0;
        for (int k = 0; k < 3; k++) {
            double d = got[3 * i + k] - want[3 * i + k], b = want[3 * i + k] - e[k];
            d2 += d * d, b2 += b * b;
        }
        double rel = sqrt(d2 / fmax(b2, 1e-30));
        sum += rel;
        *max = !(rel <= *max) ? rel : *max;
    }
    *mean = sum / flat->patch_count;
}

static double *solve(const cs_radiosity_compiled *c, uint32_t bounces)
{
    double *b = malloc((size_t)c->patch_count * 3 * sizeof *b);
    CS_ASSERT(b, "out of memory");
    cs_radiosity_solve(c, NULL, bounces, b);
    return b;
}

static void test_cornell(const cs_scene *scene, const cs_bvh *bvh, double patch_size)
{
    const cs_tri *tris = scene->geometry->tris;
    uint32_t count = scene->geometry->tri_count;
    cs_error err = {0};
    cs_radiosity_compiled flat, tree, broken;
    CS_ASSERT(cs_radiosity_compile(tris, count, patch_size, bvh, &flat, &err), "%s", err.msg);
    cs_hierarchy_options o = cs_hierarchy_options_default();
    compile_hierarchy(tris, count, patch_size, bvh, &o, &tree);
    cs_hierarchy_options bad = o;
    bad.ratio = 2.0;
    bad.receiver_ratio = 2.0;
    bad.max_spread = 3.2;
    compile_hierarchy(tris, count, patch_size, bvh, &bad, &broken);
    char what[64];
    snprintf(what, sizeof what, "cornell box at %.2f", patch_size);
    check_tree(&tree, what);
    CHECK(tree.patch_count == flat.patch_count, "patch counts differ");
    double *want = solve(&flat, BOUNCES), *got = solve(&tree, BOUNCES), *wrong = solve(&broken, BOUNCES);
    double mean, max, broken_mean, broken_max;
    compare(&flat, want, got, &mean, &max);
    compare(&flat, want, wrong, &broken_mean, &broken_max);
    printf("%s: flat %u links (%.2f s), hierarchy %u links (%.2f s, %.1f%%): per-patch error of B - E mean %.2f%%, "
           "max %.2f%% (limits %.0f%%, %.0f%%); broken rule (ratio 2, any spread): %u links, mean %.2f%%, max %.2f%%\n",
           what, flat.link_count, flat.compile_seconds, tree.link_count, tree.compile_seconds,
           100.0 * tree.link_count / flat.link_count, 100 * mean, 100 * max, 100 * MAX_MEAN_ERROR,
           100 * MAX_PATCH_ERROR, broken.link_count, 100 * broken_mean, 100 * broken_max);
    CHECK(mean <= MAX_MEAN_ERROR && max <= MAX_PATCH_ERROR, "%s: hierarchy error mean %.2f%%, max %.2f%%", what,
          100 * mean, 100 * max);
    CHECK(broken_mean > MAX_MEAN_ERROR || broken_max > MAX_PATCH_ERROR,
          "%s: the broken rule passes the bounds (mean %.2f%%, max %.2f%%): the check cannot fail", what,
          100 * broken_mean, 100 * broken_max);
    free(want), free(got), free(wrong);
    cs_radiosity_free(&flat);
    cs_radiosity_free(&tree);
    cs_radiosity_free(&broken);
}

static void test_link_growth(const cs_scene *scene)
{
    const double sizes[] = {0.1, 0.07, 0.05, 0.035};
    enum { SIZES = sizeof sizes / sizeof sizes[0] };
    double x[SIZES], y[SIZES];
    cs_hierarchy_options o = cs_hierarchy_options_default();
    for (int s = 0; s < SIZES; s++) {
        cs_radiosity_compiled c;
        compile_hierarchy(scene->geometry->tris, scene->geometry->tri_count, sizes[s], NULL, &o, &c);
        printf("link growth: patch_size %.2f: %u patches, %u links, %.2f s\n", sizes[s], c.patch_count, c.link_count,
               c.compile_seconds);
        x[s] = log((double)c.patch_count);
        y[s] = log((double)c.link_count);
        cs_radiosity_free(&c);
    }
    double mx = 0, my = 0, sxy = 0, sxx = 0;
    for (int s = 0; s < SIZES; s++)
        mx += x[s] / SIZES, my += y[s] / SIZES;
    for (int s = 0; s < SIZES; s++)
        sxy += (x[s] - mx) * (y[s] - my), sxx += (x[s] - mx) * (x[s] - mx);
    double exponent = sxy / sxx;
    printf("link growth: links ~ patches^%.3f (limit %.2f; N log N over this range: about 1.1-1.2, N^2: 2)\n",
           exponent, MAX_LINK_EXPONENT);
    CHECK(exponent < MAX_LINK_EXPONENT, "links grow as patches^%.3f", exponent);
}

// A unit cube's six faces, fronts inside, as 12 triangles.
static uint32_t closed_box(cs_tri *tris, float albedo, float emission)
{
    static const float corner[6][3] = {{0, 0, 0}, {0, 0, 1}, {0, 0, 0}, {0, 1, 0}, {0, 0, 0}, {1, 0, 0}};
    static const float u[6][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    static const float v[6][3] = {{0, 1, 0}, {1, 0, 0}, {1, 0, 0}, {0, 0, 1}, {0, 0, 1}, {0, 1, 0}};
    uint32_t n = 0;
    for (int f = 0; f < 6; f++) {
        float p[4][3];
        for (int k = 0; k < 3; k++) {
            p[0][k] = corner[f][k];
            p[1][k] = corner[f][k] + u[f][k];
            p[2][k] = corner[f][k] + u[f][k] + v[f][k];
            p[3][k] = corner[f][k] + v[f][k];
        }
        const int order[2][3] = {{0, 1, 2}, {0, 2, 3}};
        for (int t = 0; t < 2; t++, n++) {
            tris[n] = (cs_tri){.albedo = {albedo, albedo, albedo, 0},
                               .emission = {emission, emission, emission, 0},
                               .info = {n, 0, 0, 0}};
            vec4 *corners[3] = {&tris[n].v0, &tris[n].v1, &tris[n].v2};
            for (int i = 0; i < 3; i++)
                *corners[i] = (vec4){p[order[t][i]][0], p[order[t][i]][1], p[order[t][i]][2], 0};
        }
    }
    return n;
}

// The source is a uniform direct irradiance H rather than emission (an
// emitting cluster is always refined to its patches, which would make this
// the flat compile): B = rho H / (1 - rho) everywhere.
static void test_furnace(void)
{
    const float rho = 0.5f, irradiance = 2.0f;
    cs_tri tris[12];
    uint32_t n = closed_box(tris, rho, 0.0f);
    cs_bvh bvh;
    cs_error err = {0};
    CS_ASSERT(cs_bvh_build(tris, n, &bvh, &err), "%s", err.msg);
    cs_radiosity_compiled c;
    cs_hierarchy_options o = cs_hierarchy_options_default();
    compile_hierarchy(tris, n, 0.1, &bvh, &o, &c);
    check_tree(&c, "closed unit cube at 0.1");
    double *h = malloc((size_t)c.patch_count * 3 * sizeof *h), *b = malloc((size_t)c.patch_count * 3 * sizeof *b);
    CS_ASSERT(h && b, "out of memory");
    for (uint32_t i = 0; i < 3 * c.patch_count; i++)
        h[i] = irradiance;
    cs_radiosity_solve(&c, h, 40, b);
    double want = rho * irradiance / (1.0 - rho), worst = 0.0;
    for (uint32_t i = 0; i < 3 * c.patch_count; i++)
        worst = !(fabs(b[i] - want) / want <= worst) ? fabs(b[i] - want) / want : worst;
    printf("furnace with the hierarchy: rho %.2f, H %.2f: B within %.3g of rho H / (1 - rho) = %.3f\n", rho,
           irradiance, worst, want);
    CHECK(worst < 0.01, "furnace off by %.3g", worst);
    free(b), free(h);
    cs_radiosity_free(&c);
    cs_bvh_free(&bvh);
}

static void test_determinism(const cs_scene *scene, const cs_bvh *bvh)
{
    cs_hierarchy_options o = cs_hierarchy_options_default();
    cs_radiosity_compiled a, b;
    compile_hierarchy(scene->geometry->tris, scene->geometry->tri_count, 0.1, bvh, &o, &a);
    compile_hierarchy(scene->geometry->tris, scene->geometry->tri_count, 0.1, bvh, &o, &b);
    bool same = a.patch_count == b.patch_count && a.cluster_count == b.cluster_count &&
                a.link_count == b.link_count && a.level_count == b.level_count &&
                memcmp(a.level_start, b.level_start, sizeof a.level_start) == 0 &&
                memcmp(a.link_start, b.link_start, ((size_t)a.patch_count + 1) * 4) == 0 &&
                memcmp(a.links, b.links, (size_t)a.link_count * sizeof *a.links) == 0 &&
                memcmp(a.clusters, b.clusters, (size_t)a.cluster_count * sizeof *a.clusters) == 0 &&
                memcmp(a.child_start, b.child_start, ((size_t)a.cluster_count + 1) * 4) == 0 &&
                memcmp(a.children, b.children, (size_t)a.child_start[a.cluster_count] * sizeof *a.children) == 0;
    printf("determinism: two compiles at 0.1 %s\n", same ? "are the same bytes" : "DIFFER");
    CHECK(same, "two compiles differ");
    cs_radiosity_free(&a);
    cs_radiosity_free(&b);
}

static void test_link_limit(const cs_scene *scene, const cs_bvh *bvh)
{
    cs_hierarchy_options o = cs_hierarchy_options_default();
    cs_radiosity_compiled full, limited;
    compile_hierarchy(scene->geometry->tris, scene->geometry->tri_count, 0.1, bvh, &o, &full);
    o.max_links = full.link_count;
    compile_hierarchy(scene->geometry->tris, scene->geometry->tri_count, 0.1, bvh, &o, &limited);
    CHECK(limited.link_count == full.link_count, "at a limit of %u: %u links", o.max_links, limited.link_count);
    cs_radiosity_free(&limited);
    o.max_links = full.link_count - 1;
    cs_error err = {0};
    bool made = cs_radiosity_compile_hierarchy(NULL, scene->geometry->tris, scene->geometry->tri_count, 0.1, bvh, &o,
                                               &limited, &err);
    printf("link limit: %u links at 0.1; a limit of %u: %s\n", full.link_count, o.max_links,
           made ? "COMPILED" : err.msg);
    CHECK(!made && strstr(err.msg, "more links than") && strstr(err.msg, "patch_size"),
          "a compile over its link limit must be refused, saying what to change: %s", made ? "compiled" : err.msg);
    if (made)
        cs_radiosity_free(&limited);
    cs_radiosity_free(&full);
}

static bool same_tree(const cs_radiosity_compiled *a, const cs_radiosity_compiled *b)
{
    return a->cluster_count == b->cluster_count && a->level_count == b->level_count &&
           memcmp(a->level_start, b->level_start, sizeof a->level_start) == 0 &&
           memcmp(a->clusters, b->clusters, (size_t)a->cluster_count * sizeof *a->clusters) == 0 &&
           memcmp(a->child_start, b->child_start, ((size_t)a->cluster_count + 1) * 4) == 0 &&
           memcmp(a->children, b->children, (size_t)a->child_start[a->cluster_count] * sizeof *a->children) == 0;
}

// The grid assignment against the brute force on one geometry.
static void check_assignment(const cs_tri *tris, uint32_t count, double patch_size, const char *what)
{
    cs_hierarchy_options grid = cs_hierarchy_options_default(), brute = grid;
    brute.brute_force_assign = true;
    cs_radiosity_compiled a, b;
    compile_hierarchy(tris, count, patch_size, NULL, &grid, &a);
    compile_hierarchy(tris, count, patch_size, NULL, &brute, &b);
    bool same = same_tree(&a, &b);
    printf("k-means assignment, %s: %u patches, %u clusters: grid %.2f s, every centre %.2f s (whole compiles): %s\n",
           what, a.patch_count, a.cluster_count, a.compile_seconds, b.compile_seconds,
           same ? "the same tree" : "TREES DIFFER");
    CHECK(same, "%s: the grid assignment and the brute force build different trees", what);
    cs_radiosity_free(&a);
    cs_radiosity_free(&b);
}

// Random triangles in a unit box (both orientations, a few emitting), so
// the centres are not on a box's walls.
static void test_assignment(const cs_scene *scene)
{
    check_assignment(scene->geometry->tris, scene->geometry->tri_count, 0.05, "cornell box at 0.05");
    enum { TRIS = 60 };
    cs_tri tris[TRIS];
    for (uint32_t t = 0; t < TRIS; t++) {
        float c[3], e = test_rand_unit() < 0.1 ? 5.0f : 0.0f;
        for (int k = 0; k < 3; k++)
            c[k] = (float)test_rand_unit();
        tris[t] = (cs_tri){.albedo = {(float)test_rand_unit(), 0.5f, 0.5f, 0}, .emission = {e, e, e, 0},
                           .info = {t, 0, 0, 0}};
        vec4 *corners[3] = {&tris[t].v0, &tris[t].v1, &tris[t].v2};
        for (int v = 0; v < 3; v++)
            *corners[v] = (vec4){c[0] + 0.3f * (float)(test_rand_unit() - 0.5),
                                 c[1] + 0.3f * (float)(test_rand_unit() - 0.5),
                                 c[2] + 0.3f * (float)(test_rand_unit() - 0.5), 0};
    }
    check_assignment(tris, TRIS, 0.02, "60 random triangles");
}

int main(void)
{
    test_seed();
    cs_scene scene;
    cs_error err = {0};
    CS_ASSERT(cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err), "%s", err.msg);
    cs_bvh bvh;
    CS_ASSERT(cs_bvh_build(scene.geometry->tris, scene.geometry->tri_count, &bvh, &err), "%s", err.msg);
    test_cornell(&scene, &bvh, 0.1);
    test_cornell(&scene, &bvh, 0.07);
    test_furnace();
    test_link_growth(&scene);
    test_determinism(&scene, &bvh);
    test_link_limit(&scene, &bvh);
    test_assignment(&scene);
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
    if (test_failures)
        fprintf(stderr, "%d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
