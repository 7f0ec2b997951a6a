// test_geometry.c — the scene's static geometry (host/scene/geometry.c) and
// the BVH over it (pipelines/trace/bvh.c), on the CPU:
//   - scenes/cornell_box.json: triangle count, areas of the published data
//     (floor, light), every normal facing into the room's air;
//   - boxes (outward and inward), an OBJ mesh with scale and translate;
//   - refusals that name the element and the file: zero-area and sliver
//     triangles, a NaN vertex in a mesh, a mesh that does not parse, a
//     missing file, two shapes in one element, a face index past the
//     vertex list (or negative), an emission past 1e9;
//   - BVH casts (nearest hit, shadow rays) against brute force over every
//     triangle, random rays (seed printed).
// ctest labels: quick -- 0.1
#define _POSIX_C_SOURCE 200809L // mkdtemp

#include "test_util.h"

#include "bvh.h"
#include "geometry.h"
#include "scene.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h> // mkfifo
#include <unistd.h>

static char tmp_dir[64];

static void write_text(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "w");
    CS_ASSERT(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

// A world scene around `geometry` (the JSON array's text), parsed as if it
// were tmp_dir/scene.json.
static bool parse_with_geometry(const char *geometry, cs_scene *scene, cs_error *err)
{
    char text[8192], path[128];
    snprintf(text, sizeof text,
             "{\"dim\": 3, \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"geometry\": %s,"
             " \"fluids\": [{\"solver\": \"pbf\", \"particle_spacing\": 0.1, \"smoothing_radius\": 0.2,"
             " \"materials\": [{\"name\": \"w\", \"rest_density\": 1000, \"mass\": 1}],"
             " \"blocks\": [{\"min\": [0,0,0], \"max\": [0.2,0.2,0.2], \"material\": \"w\"}], \"pbf\": {}}]}",
             geometry);
    snprintf(path, sizeof path, "%s/scene.json", tmp_dir);
    return cs_scene_parse(text, strlen(text), path, scene, err);
}

static void tri_normal(const cs_tri *t, double n[3])
{
    double e1[3] = {t->v1.x - t->v0.x, t->v1.y - t->v0.y, t->v1.z - t->v0.z};
    double e2[3] = {t->v2.x - t->v0.x, t->v2.y - t->v0.y, t->v2.z - t->v0.z};
    n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        n[k] /= len;
}

static void centroid(const cs_tri *t, double c[3])
{
    c[0] = (t->v0.x + t->v1.x + t->v2.x) / 3.0;
    c[1] = (t->v0.y + t->v1.y + t->v2.y) / 3.0;
    c[2] = (t->v0.z + t->v1.z + t->v2.z) / 3.0;
}

static void test_cornell(void)
{
    cs_scene scene;
    cs_error err = {0};
    bool ok = cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err);
    CHECK(ok, "cornell_box.json: %s", err.msg);
    if (!ok)
        return;
    const cs_geometry *g = scene.geometry;
    CHECK(g && g->element_count == 19 && g->tri_count == 38, "elements %u triangles %u (want 19, 38)",
          g ? g->element_count : 0, g ? g->tri_count : 0);
    // Light: 0.130 x 0.105 m; floor: the published quad (not quite a
    // rectangle), shoelace area of its x-z polygon.
    double light = 0.0, floor_area = 0.0;
    double floor_want = 0.5 * fabs((0.5528 * 0.0 - 0.0 * 0.0) + (0.0 * 0.5592 - 0.0 * 0.0) +
                                   (0.0 * 0.5592 - 0.5496 * 0.5592) + (0.5496 * 0.0 - 0.5528 * 0.5592));
    for (uint32_t i = 0; i < g->tri_count; i++) {
        const cs_tri *t = &g->tris[i];
        cs_geometry single = {.tris = (cs_tri *)t, .tri_count = 1};
        if (t->emission.x > 0)
            light += cs_geometry_area(&single);
        if (t->info.x == 0)
            floor_area += cs_geometry_area(&single);
        // Every face looks into the air of the room: a step of 1 mm along
        // its normal from its centroid stays inside the room and outside
        // the blocks' bounding boxes' interiors is too strict for slanted
        // blocks, so check the room only, and that the blocks' faces look
        // away from their own centroid.
        double n[3], c[3];
        tri_normal(t, n);
        centroid(t, c);
        double p[3] = {c[0] + 1e-3 * n[0], c[1] + 1e-3 * n[1], c[2] + 1e-3 * n[2]};
        CHECK(p[0] > 0 && p[0] < 0.556 && p[1] > 0 && p[1] < 0.5488 && p[2] > 0 && p[2] < 0.5592,
              "triangle %u (element %u) faces out of the room", i, t->info.x);
        if (t->info.x >= 9) {
            bool tall = t->info.x >= 14;
            double block[3] = {tall ? 0.3685 : 0.186, tall ? 0.165 : 0.0825, tall ? 0.3515 : 0.1685};
            double out = n[0] * (c[0] - block[0]) + n[1] * (c[1] - block[1]) + n[2] * (c[2] - block[2]);
            CHECK(out > 0, "block triangle %u (element %u) faces into its block", i, t->info.x);
        }
    }
    CHECK(fabs(light - 0.130 * 0.105) < 1e-6, "light area %.8f, want %.8f", light, 0.130 * 0.105);
    CHECK(fabs(floor_area - floor_want) < 1e-6, "floor area %.8f, want %.8f", floor_area, floor_want);
    cs_scene_free(&scene);
}

static void test_shapes(void)
{
    cs_scene scene;
    cs_error err = {0};
    bool ok = parse_with_geometry("[{\"box\": {\"min\": [0,0,0], \"max\": [1,2,3]}},"
                                  " {\"box\": {\"min\": [0,0,0], \"max\": [1,2,3], \"inward\": true}}]",
                                  &scene, &err);
    CHECK(ok, "boxes: %s", err.msg);
    if (ok) {
        const cs_geometry *g = scene.geometry;
        CHECK(g->tri_count == 24, "boxes: %u triangles", g->tri_count);
        CHECK(fabs(cs_geometry_area(g) - 2 * 22.0) < 1e-5, "boxes: area %g, want 44", cs_geometry_area(g));
        for (uint32_t i = 0; i < g->tri_count; i++) {
            double n[3], c[3];
            tri_normal(&g->tris[i], n);
            centroid(&g->tris[i], c);
            double out = n[0] * (c[0] - 0.5) + n[1] * (c[1] - 1.0) + n[2] * (c[2] - 1.5);
            bool inward = g->tris[i].info.x == 1;
            CHECK(inward ? out < 0 : out > 0, "box %u triangle %u faces the wrong way", g->tris[i].info.x, i);
            CHECK(g->tris[i].albedo.x == 0.5f, "default albedo %g", g->tris[i].albedo.x);
        }
        cs_scene_free(&scene);
    }
    // An OBJ quad of 2 triangles, scaled and moved.
    write_text("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n");
    ok = parse_with_geometry("[{\"mesh\": {\"file\": \"quad.obj\", \"scale\": 2, \"translate\": [0, 0, 5]},"
                             " \"albedo\": [0.1, 0.2, 0.3], \"emission\": [1, 2, 3]}]",
                             &scene, &err);
    CHECK(ok, "obj: %s", err.msg);
    if (ok) {
        const cs_geometry *g = scene.geometry;
        CHECK(g->tri_count == 2, "obj: %u triangles", g->tri_count);
        CHECK(fabs(cs_geometry_area(g) - 4.0) < 1e-6, "obj: area %g, want 4", cs_geometry_area(g));
        CHECK(g->tris[0].v0.z == 5.0f && g->tris[0].albedo.z == 0.3f && g->tris[1].emission.y == 2.0f,
              "obj: placement or material lost");
        cs_scene_free(&scene);
    }
}

// Refused, and the message holds every one of `needles`.
static void expect_refused(const char *geometry, const char *const *needles, uint32_t count)
{
    cs_scene scene;
    cs_error err = {0};
    bool ok = parse_with_geometry(geometry, &scene, &err);
    CHECK(!ok, "accepted: %s", geometry);
    if (ok) {
        cs_scene_free(&scene);
        return;
    }
    printf("refused: %s\n", err.msg);
    for (uint32_t i = 0; i < count; i++)
        CHECK(strstr(err.msg, needles[i]), "message \"%s\" lacks \"%s\"", err.msg, needles[i]);
}

static void test_refusals(void)
{
    const char *zero[] = {"geometry[1].quad.vertices", "zero area"};
    expect_refused("[{\"box\": {\"min\": [0,0,0], \"max\": [1,1,1]}},"
                   " {\"quad\": {\"vertices\": [[0,0,0], [1,0,0], [2,0,0], [0,1,0]]}}]",
                   zero, 2);
    const char *sliver[] = {"geometry[0].quad.vertices", "degenerate"};
    expect_refused("[{\"quad\": {\"vertices\": [[0,0,0], [1,0,0], [0.5,1e-8,0], [0,1,0]]}}]", sliver, 2);
    write_text("nan.obj", "v 0 0 0\nv 1 0 0\nv nan 1 0\nf 1 2 3\n");
    const char *nan_vertex[] = {"geometry[0].mesh.file", "nan.obj", "not a finite number"};
    expect_refused("[{\"mesh\": {\"file\": \"nan.obj\"}}]", nan_vertex, 3);
    write_text("zero.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 2 0 0\nf 1 2 3\nf 1 2 4\n");
    const char *zero_mesh[] = {"geometry[0].mesh.file", "zero.obj", "triangle 1", "zero area"};
    expect_refused("[{\"mesh\": {\"file\": \"zero.obj\"}}]", zero_mesh, 4);
    write_text("junk.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1 2\n");
    const char *junk[] = {"geometry[0].mesh.file", "junk.ply", "does not parse"};
    expect_refused("[{\"mesh\": {\"file\": \"junk.ply\"}}]", junk, 3);
    const char *missing[] = {"geometry[0].mesh.file", "absent.obj", "cannot be read"};
    expect_refused("[{\"mesh\": {\"file\": \"absent.obj\"}}]", missing, 3);
    const char *two[] = {"geometry[0]", "exactly one shape"};
    expect_refused("[{\"box\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"mesh\": {\"file\": \"quad.obj\"}}]", two, 2);
    // Face indices past the vertex list (or negative, read as unsigned)
    // were read from the heap: a crash, or a triangle of garbage accepted.
    const char *const bad_indices[] = {"3", "1000000", "-5"};
    for (size_t i = 0; i < CS_ARRAY_COUNT(bad_indices); i++) {
        char ply[512];
        snprintf(ply, sizeof ply,
                 "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                 "element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n"
                 "3 0 1 2\n3 0 1 %s\n",
                 bad_indices[i]);
        write_text("index.ply", ply);
        const char *index[] = {"geometry[0].mesh.file", "index.ply", "face 1", "has 3 vertices"};
        expect_refused("[{\"mesh\": {\"file\": \"index.ply\"}}]", index, 4);
    }
    // 1e38 W/m^2 was accepted: the light sums overflowed to infinity.
    const char *emission[] = {"geometry[0].emission", "0 to 1e+09", "1e+38"};
    expect_refused("[{\"box\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"emission\": [0, 1e38, 0]}]", emission, 3);
    const char *albedo[] = {"geometry[0].albedo", "[0, 1]"};
    expect_refused("[{\"box\": {\"min\": [0,0,0], \"max\": [1,1,1]}, \"albedo\": [1.5, 0, 0]}]", albedo, 2);
}

static void write_bytes(const char *name, const void *data, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    FILE *f = fopen(path, "wb");
    CS_ASSERT(f, "cannot write %s", path);
    fwrite(data, 1, size, f);
    fclose(f);
}

// Refused (needle in the message) or, when needle is NULL, accepted; either
// within `seconds`. Today's failures were crashes and hangs of the whole
// process, so reaching the check at all is half of it.
static void expect_quick(const char *what, const char *geometry, const char *needle, double seconds)
{
    double start = cs_now_seconds();
    cs_scene scene;
    cs_error err = {0};
    bool ok = parse_with_geometry(geometry, &scene, &err);
    double took = cs_now_seconds() - start;
    printf("%s: %s in %.2f s: %s\n", what, ok ? "accepted" : "refused", took, ok ? "" : err.msg);
    if (needle)
        CHECK(!ok && strstr(err.msg, needle), "%s: want a refusal with \"%s\": %s", what, needle,
              ok ? "accepted" : err.msg);
    else
        CHECK(ok, "%s: want it accepted: %s", what, err.msg);
    if (ok)
        cs_scene_free(&scene);
    CHECK(took < seconds, "%s: took %.1f s (want under %g)", what, took, seconds);
}

// Issue 28's audit, 4.2: small files that crashed or hung the importer.
// Each now ends in a refusal naming the file, within seconds.
static void test_hostile_meshes(void)
{
    // A PLY without end_header (21 bytes): never returned.
    write_text("no_end.ply", "ply\nformat ascii 1.0\n");
    expect_quick("ply without end_header", "[{\"mesh\": {\"file\": \"no_end.ply\"}}]", "without end_header", 5);
    // A 22-byte .glb whose JSON chunk claims 0xFFFFFF00 bytes: 202 s, 4.2 GB.
    const uint8_t glb[22] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 22, 0, 0, 0, 0x00, 0xff, 0xff, 0xff,
                             'J', 'S', 'O', 'N', '{', '}'};
    write_bytes("chunk.glb", glb, sizeof glb);
    expect_quick("glb chunk length 0xFFFFFF00", "[{\"mesh\": {\"file\": \"chunk.glb\"}}]", "chunk.glb", 30);
    // A truncated binary PLY (a face list past the end): SIGSEGV.
    char ply[512];
    int n = snprintf(ply, sizeof ply, "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
                                      "property float y\nproperty float z\nelement face 2\n"
                                      "property list uchar int vertex_indices\nend_header\n");
    float v[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    memcpy(ply + n, v, sizeof v);
    n += (int)sizeof v;
    ply[n++] = 3; // the first face's count, then its indices cut short
    write_bytes("truncated.ply", ply, (size_t)n + 2);
    expect_quick("truncated binary ply", "[{\"mesh\": {\"file\": \"truncated.ply\"}}]", "truncated.ply", 30);
    // A glTF whose nodes are a chain 30 000 deep: stack overflow.
    uint32_t depth = 30000;
    size_t cap = (size_t)depth * 24 + 256, at = 0;
    char *gltf = malloc(cap);
    at += (size_t)snprintf(gltf + at, cap - at, "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, "
                                                "\"scenes\": [{\"nodes\": [0]}], \"nodes\": [");
    for (uint32_t i = 0; i < depth; i++)
        at += (size_t)snprintf(gltf + at, cap - at, i + 1 < depth ? "{\"children\": [%u]}," : "{}", i + 1);
    at += (size_t)snprintf(gltf + at, cap - at, "]}");
    write_bytes("deep.gltf", gltf, at);
    free(gltf);
    expect_quick("gltf node chain 30000 deep", "[{\"mesh\": {\"file\": \"deep.gltf\"}}]", "deep.gltf", 30);
    // A glTF naming a 1 GB .bin (sparse here): 988 MB read.
    char path[256];
    snprintf(path, sizeof path, "%s/big.bin", tmp_dir);
    FILE *big = fopen(path, "wb");
    CS_ASSERT(big && ftruncate(fileno(big), 1000000000) == 0, "cannot make %s", path);
    fclose(big);
    write_text("big.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}], "
                           "\"nodes\": [{\"mesh\": 0}], \"meshes\": [{\"primitives\": [{\"attributes\": "
                           "{\"POSITION\": 0}}]}], \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, "
                           "\"count\": 3, \"type\": \"VEC3\", \"min\": [0,0,0], \"max\": [1,1,0]}], "
                           "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36}], "
                           "\"buffers\": [{\"uri\": \"big.bin\", \"byteLength\": 1000000000}]}");
    expect_quick("gltf naming a 1 GB bin", "[{\"mesh\": {\"file\": \"big.gltf\"}}]", "big.bin", 30);
    // An mtllib naming a FIFO (no writer): blocked for ever. The material
    // is refused at once; the triangle stays.
    snprintf(path, sizeof path, "%s/fifo.mtl", tmp_dir);
    CS_ASSERT(mkfifo(path, 0600) == 0, "cannot make the FIFO %s", path);
    write_text("fifo.obj", "mtllib fifo.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    expect_quick("obj mtllib naming a FIFO", "[{\"mesh\": {\"file\": \"fifo.obj\"}}]", NULL, 10);
    snprintf(path, sizeof path, "%s/fifo.bin", tmp_dir);
    CS_ASSERT(mkfifo(path, 0600) == 0, "cannot make the FIFO %s", path);
    write_text("fifo.gltf", "{\"asset\": {\"version\": \"2.0\"}, \"scene\": 0, \"scenes\": [{\"nodes\": [0]}], "
                            "\"nodes\": [{\"mesh\": 0}], \"meshes\": [{\"primitives\": [{\"attributes\": "
                            "{\"POSITION\": 0}}]}], \"accessors\": [{\"bufferView\": 0, \"componentType\": 5126, "
                            "\"count\": 3, \"type\": \"VEC3\", \"min\": [0,0,0], \"max\": [1,1,0]}], "
                            "\"bufferViews\": [{\"buffer\": 0, \"byteLength\": 36}], "
                            "\"buffers\": [{\"uri\": \"fifo.bin\", \"byteLength\": 36}]}");
    expect_quick("gltf buffer naming a FIFO", "[{\"mesh\": {\"file\": \"fifo.gltf\"}}]", "fifo.bin", 10);
}

// Brute force: nearest hit over every triangle with the same intersection.
static cs_ray_hit brute_cast(const cs_bvh *bvh, const double o[3], const double d[3], double t_max)
{
    cs_ray_hit best = {.hit = false, .t = t_max};
    for (uint32_t i = 0; i < bvh->tri_count; i++) {
        cs_bvh one = {.nodes = &(cs_bvh_node){.lo = {-1e30f, -1e30f, -1e30f, 0}, .hi = {1e30f, 1e30f, 1e30f, 0},
                                              .link = {i, 1, 0, 0}},
                      .node_count = 1, .tris = bvh->tris, .tri_count = bvh->tri_count};
        cs_ray_hit h = cs_bvh_cast(&one, o, d, 0.0, best.t);
        if (h.hit)
            best = h;
    }
    return best;
}

static void test_bvh(void)
{
    cs_scene scene;
    cs_error err = {0};
    if (!cs_scene_load(CS_SOURCE_DIR "/scenes/cornell_box.json", &scene, &err))
        return;
    // The room plus a cloud of small random triangles, so the tree is deep.
    uint32_t extra = 2000, count = scene.geometry->tri_count + extra;
    cs_tri *tris = calloc(count, sizeof *tris);
    memcpy(tris, scene.geometry->tris, scene.geometry->tri_count * sizeof *tris);
    for (uint32_t i = scene.geometry->tri_count; i < count; i++) {
        float c[3] = {(float)(0.5 * test_rand_unit()), (float)(0.5 * test_rand_unit()), (float)(0.5 * test_rand_unit())};
        vec4 *v[3] = {&tris[i].v0, &tris[i].v1, &tris[i].v2};
        for (int j = 0; j < 3; j++)
            *v[j] = (vec4){c[0] + 0.03f * (float)test_rand_unit(), c[1] + 0.03f * (float)test_rand_unit(),
                           c[2] + 0.03f * (float)test_rand_unit(), 0};
        tris[i].info.x = i;
    }
    cs_bvh bvh;
    CHECK(cs_bvh_build(tris, count, &bvh, &err), "build: %s", err.msg);
    printf("bvh: %u triangles, %u nodes, depth %u\n", bvh.tri_count, bvh.node_count, bvh.depth);
    CHECK(bvh.depth + 1 <= CS_BVH_STACK, "depth %u", bvh.depth);
    // Every triangle in exactly one leaf, inside its leaf's box.
    uint32_t *seen = calloc(count, sizeof *seen);
    for (uint32_t n = 0; n < bvh.node_count; n++) {
        const cs_bvh_node *node = &bvh.nodes[n];
        for (uint32_t i = node->link.x; node->link.y && i < node->link.x + node->link.y; i++) {
            seen[bvh.tri_source[i]]++;
            const vec4 *v[3] = {&bvh.tris[i].v0, &bvh.tris[i].v1, &bvh.tris[i].v2};
            for (int j = 0; j < 3; j++)
                CHECK(v[j]->x >= node->lo.x && v[j]->y >= node->lo.y && v[j]->z >= node->lo.z &&
                          v[j]->x <= node->hi.x && v[j]->y <= node->hi.y && v[j]->z <= node->hi.z,
                      "leaf %u does not hold triangle %u", n, i);
        }
    }
    for (uint32_t i = 0; i < count; i++)
        CHECK(seen[i] == 1, "triangle %u in %u leaves", i, seen[i]);
    uint32_t hits = 0, rays = 3000;
    for (uint32_t r = 0; r < rays; r++) {
        double o[3] = {0.556 * test_rand_unit(), 0.5488 * test_rand_unit(), 0.5592 * test_rand_unit()};
        double d[3] = {test_rand_unit() - 0.5, test_rand_unit() - 0.5, test_rand_unit() - 0.5};
        double t_max = 0.5 + test_rand_unit();
        cs_ray_hit a = cs_bvh_cast(&bvh, o, d, 0.0, t_max), b = brute_cast(&bvh, o, d, t_max);
        hits += a.hit;
        CHECK(a.hit == b.hit && (!a.hit || (a.t == b.t && a.tri == b.tri)),
              "ray %u: bvh %d t %.9g tri %u, brute force %d t %.9g tri %u", r, a.hit, a.t, a.tri, b.hit, b.t, b.tri);
        CHECK(cs_bvh_unoccluded(&bvh, o, d, 0.0, t_max) == !b.hit, "ray %u: shadow ray disagrees", r);
    }
    printf("bvh: %u of %u rays hit; all match brute force\n", hits, rays);
    CHECK(hits > rays / 10 && hits < rays, "hits %u of %u: the test rays miss or hit everything", hits, rays);
    free(seen);
    free(tris);
    cs_bvh_free(&bvh);
    // No triangles: one empty leaf that every ray misses.
    CHECK(cs_bvh_build(NULL, 0, &bvh, &err), "empty build");
    CHECK(!cs_bvh_cast(&bvh, (double[3]){0, 0, 0}, (double[3]){1, 0, 0}, 0, 1e30).hit, "empty bvh hit");
    cs_bvh_free(&bvh);
    cs_scene_free(&scene);
}

int main(void)
{
    test_seed();
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/cistern_geometry_XXXXXX");
    CS_ASSERT(mkdtemp(tmp_dir), "mkdtemp failed");
    test_cornell();
    test_shapes();
    test_refusals();
    test_hostile_meshes();
    test_bvh();
    const char *names[] = {"quad.obj",      "nan.obj",   "zero.obj",  "junk.ply", "index.ply", "no_end.ply",
                           "chunk.glb",     "deep.gltf", "big.gltf",  "big.bin",  "fifo.mtl",  "fifo.obj",
                           "truncated.ply", "fifo.bin",  "fifo.gltf"};
    for (size_t i = 0; i < CS_ARRAY_COUNT(names); i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/%s", tmp_dir, names[i]);
        unlink(path);
    }
    rmdir(tmp_dir);
    if (test_failures)
        fprintf(stderr, "%d check(s) failed\n", test_failures);
    return test_failures ? 1 : 0;
}
