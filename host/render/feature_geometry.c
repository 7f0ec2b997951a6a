// feature_geometry.c — the scene's static geometry lit by the world's
// radiosity (world_radiosity.h), drawn opaque with depth before the
// fluids. One triangle per patch; corners shared by patches of the same
// element facing the same way are welded, and each weld's colour is the
// area-weighted mean of its patches' radiosity (summed in the vertex
// shader from the frame's radiosity buffer), so the light varies smoothly
// across a wall instead of showing the patch grid. The welds are built
// once on the host per compiled geometry. Formula and tone map:
// shaders/render/geometry_shared.h.
//
// A level lit by radiosity (part->has_level, the frame's level given) is
// drawn textured instead, by a second program that culls back faces as the
// level feature does (coplanar faces of two rooms, a ceiling and the floor
// above, would fight otherwise): each patch corner gets the texture
// coordinates of its point on the level face it was cut from, and the
// light is B / albedo (geometry_shared.h).
#include "feature.h"

#include "world_radiosity.h"

#include "../../shaders/render/geometry_shared.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

// Corners closer than this (m) in every coordinate are one weld.
#define WELD_QUANTUM 1e-5
// Normals are compared at this resolution (about 1 degree).
#define NORMAL_QUANTUM 0.02

typedef struct geometry_feature {
    cs_program_id program, level_program;
    cs_buffer corners, weld_start, welds;
    uint32_t corner_count, weld_count;
    const cs_radiosity_compiled *built; // what the buffers were built from
    // The textured level: per corner its texture, per patch 1 / albedo, the
    // level's texels; built for `level_generation` (0: none).
    cs_buffer textures, inverse_albedo, texels, anim;
    uint64_t level_generation;
} geometry_feature;

// A corner's weld key: position and normal quantized, and its element.
typedef struct corner_key {
    int64_t position[3];
    int32_t normal[3];
    uint32_t element;
    uint32_t corner;          // patch * 3 + k, carried along the sort
} corner_key;

static int compare_keys(const void *pa, const void *pb)
{
    const corner_key *a = pa, *b = pb;
    for (int k = 0; k < 3; k++) {
        if (a->position[k] != b->position[k])
            return a->position[k] < b->position[k] ? -1 : 1;
    }
    for (int k = 0; k < 3; k++) {
        if (a->normal[k] != b->normal[k])
            return a->normal[k] < b->normal[k] ? -1 : 1;
    }
    if (a->element != b->element)
        return a->element < b->element ? -1 : 1;
    return a->corner < b->corner ? -1 : a->corner > b->corner;
}

static bool same_weld(const corner_key *a, const corner_key *b)
{
    return memcmp(a->position, b->position, sizeof a->position) == 0 &&
           memcmp(a->normal, b->normal, sizeof a->normal) == 0 && a->element == b->element;
}

static void upload(cs_renderer *r, cs_buffer *buf, const char *name, const void *data, VkDeviceSize size)
{
    if (buf->buffer) {
        vkDeviceWaitIdle(r->ctx->device); // an earlier frame may still draw from it
        cs_buffer_destroy(r->ctx, buf);
    }
    cs_error err;
    bool ok = cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = name, .size = size > 0 ? size : 16}, buf, &err);
    CS_ASSERT(ok, "%s", ok ? "" : err.msg);
    if (size > 0)
        cs_buffer_upload(r->ctx, buf, data, size, 0);
}

// The corners (vec4: position, weld index as bits) and the welds' patch
// lists (CSR) of the part's compiled patches, uploaded.
static void build(cs_renderer *r, geometry_feature *g, const cs_world_radiosity *part)
{
    const cs_radiosity_compiled *c = &part->compiled;
    uint32_t n = c->patch_count * 3;
    corner_key *keys = malloc((size_t)CS_MAX(n, 1u) * sizeof *keys);
    vec4 *corners = malloc((size_t)CS_MAX(n, 1u) * sizeof *corners);
    uint32_t *weld_start = malloc(((size_t)n + 1) * sizeof *weld_start);
    cs_weld_entry *welds = malloc((size_t)CS_MAX(n, 1u) * sizeof *welds);
    CS_ASSERT(keys && corners && weld_start && welds, "out of memory for %u patch corners", n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t patch = i / 3;
        const float *p = c->corners[patch][i % 3];
        const vec4 *nrm = &c->patches[patch].normal;
        corner_key *k = &keys[i];
        // Welds join the triangles of one element (a quad's two halves),
        // not different elements that touch.
        *k = (corner_key){.element = part->geometry->tris[c->patch_tri[patch]].info.x, .corner = i};
        for (int a = 0; a < 3; a++)
            k->position[a] = (int64_t)llround(p[a] / WELD_QUANTUM);
        k->normal[0] = (int32_t)lround(nrm->x / NORMAL_QUANTUM);
        k->normal[1] = (int32_t)lround(nrm->y / NORMAL_QUANTUM);
        k->normal[2] = (int32_t)lround(nrm->z / NORMAL_QUANTUM);
        corners[i] = (vec4){p[0], p[1], p[2], 0.0f};
    }
    qsort(keys, n, sizeof *keys, compare_keys);
    uint32_t welds_made = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        double area = 0.0;
        while (j < n && same_weld(&keys[i], &keys[j]))
            area += c->patches[keys[j++].corner / 3].center_area.w;
        weld_start[welds_made] = i;
        for (uint32_t m = i; m < j; m++) {
            uint32_t patch = keys[m].corner / 3;
            welds[m] = (cs_weld_entry){.patch_index = patch, .weight = (float)(c->patches[patch].center_area.w / area)};
            uint32_t bits = welds_made;
            memcpy(&corners[keys[m].corner].w, &bits, sizeof bits);
        }
        welds_made++;
        i = j;
    }
    weld_start[welds_made] = n;
    upload(r, &g->corners, "render geometry corners", corners, (VkDeviceSize)n * sizeof *corners);
    upload(r, &g->weld_start, "render geometry weld starts", weld_start,
           (VkDeviceSize)(welds_made + 1) * sizeof *weld_start);
    upload(r, &g->welds, "render geometry welds", welds, (VkDeviceSize)n * sizeof *welds);
    g->corner_count = n;
    g->weld_count = welds_made;
    g->built = c;
    free(keys);
    free(corners);
    free(weld_start);
    free(welds);
}

// Barycentric weights of p in triangle (a, b, c), in double.
static void barycentric(const float a[3], const float b[3], const float c[3], const float p[3], double out[3])
{
    double e0[3], e1[3], e2[3];
    for (int k = 0; k < 3; k++)
        e0[k] = (double)b[k] - a[k], e1[k] = (double)c[k] - a[k], e2[k] = (double)p[k] - a[k];
    double d00 = 0, d01 = 0, d11 = 0, d20 = 0, d21 = 0;
    for (int k = 0; k < 3; k++) {
        d00 += e0[k] * e0[k], d01 += e0[k] * e1[k], d11 += e1[k] * e1[k];
        d20 += e2[k] * e0[k], d21 += e2[k] * e1[k];
    }
    double det = d00 * d11 - d01 * d01;
    double v = det != 0.0 ? (d11 * d20 - d01 * d21) / det : 0.0;
    double w = det != 0.0 ? (d00 * d21 - d01 * d20) / det : 0.0;
    out[0] = 1.0 - v - w, out[1] = v, out[2] = w;
}

// The textured level's buffers: each patch corner's texture coordinates
// (its point on the level face its triangle came from), each patch's
// 1 / albedo, the level's texels. Triangles not from the level show B:
// white colour, 1 / albedo = 1.
static void build_level(cs_renderer *r, geometry_feature *g, const cs_world_radiosity *part,
                        const cs_level_mesh *mesh)
{
    const cs_radiosity_compiled *c = &part->compiled;
    uint32_t n = c->patch_count * 3;
    cs_geometry_level_corner *textures = malloc((size_t)CS_MAX(n, 1u) * sizeof *textures);
    vec4 *inverse = malloc((size_t)CS_MAX(c->patch_count, 1u) * sizeof *inverse);
    CS_ASSERT(textures && inverse, "out of memory for %u patch corners", n);
    for (uint32_t patch = 0; patch < c->patch_count; patch++) {
        const cs_tri *tri = &part->geometry->tris[c->patch_tri[patch]];
        uint32_t first = tri->info.y;
        bool from_level = first > 0 && first - 1 + 3 <= mesh->vertex_count;
        const float *albedo = part->scene_albedo[patch];
        inverse[patch] = (vec4){1.0f, 1.0f, 1.0f, 0.0f};
        for (int k = 0; from_level && k < 3; k++)
            (&inverse[patch].x)[k] = albedo[k] > 0.0f ? 1.0f / albedo[k] : 0.0f;
        for (int k = 0; k < 3; k++) {
            cs_geometry_level_corner *t = &textures[3 * patch + k];
            if (!from_level) {
                t->uv_tile_flags = (vec4){0.0f, 0.0f, (float)0xffffffu, (float)CS_LEVEL_VERTEX_COLOUR};
                t->anim = (vec4){0};
                continue;
            }
            const cs_level_vertex *v = &mesh->vertices[first - 1];
            double w[3];
            barycentric(v[0].position, v[1].position, v[2].position, c->corners[patch][k], w);
            float u = (float)(w[0] * v[0].uv[0] + w[1] * v[1].uv[0] + w[2] * v[2].uv[0]);
            float vv = (float)(w[0] * v[0].uv[1] + w[1] * v[1].uv[1] + w[2] * v[2].uv[1]);
            t->uv_tile_flags = (vec4){u, vv, v[0].tile, v[0].flags};
            // Level faces are fanned from one object texture: the three
            // vertices share the face's animated entry.
            uint32_t corners = (uint32_t)v[0].anim[1] | (uint32_t)v[1].anim[1] << 2 | (uint32_t)v[2].anim[1] << 4;
            t->anim = (vec4){v[0].anim[0], (float)corners, (float)w[1], (float)w[2]};
        }
    }
    upload(r, &g->textures, "render level corner textures", textures, (VkDeviceSize)n * sizeof *textures);
    upload(r, &g->inverse_albedo, "render level inverse albedo", inverse,
           (VkDeviceSize)c->patch_count * sizeof *inverse);
    upload(r, &g->texels, "render level texels (radiosity)", mesh->texels,
           (VkDeviceSize)mesh->tile_count * 65536u * 4u);
    upload(r, &g->anim, "render level animated textures (radiosity)", mesh->anim,
           (VkDeviceSize)mesh->anim_count * sizeof *mesh->anim);
    g->level_generation = mesh->generation;
    free(textures);
    free(inverse);
}

static bool create(cs_renderer *r, void **state, cs_error *err)
{
    geometry_feature *g = calloc(1, sizeof *g);
    CS_ASSERT(g, "out of memory");
    *state = g;
    return cs_render_program(r, "render geometry", "render/geometry.vert", "render/geometry.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS, VK_CULL_MODE_NONE,
                             &g->program, err) &&
           cs_render_program(r, "render geometry level", "render/geometry_level.vert", "render/geometry_level.frag",
                             VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST, true, true, VK_COMPARE_OP_LESS,
                             VK_CULL_MODE_BACK_BIT, &g->level_program, err);
}

static void destroy(cs_renderer *r, void *state)
{
    geometry_feature *g = state;
    if (g->program.value)
        cs_program_destroy(r->ctx, &g->program);
    if (g->level_program.value)
        cs_program_destroy(r->ctx, &g->level_program);
    cs_buffer *buffers[] = {&g->corners, &g->weld_start, &g->welds, &g->textures, &g->inverse_albedo, &g->texels, &g->anim};
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers); i++) {
        if (buffers[i]->buffer)
            cs_buffer_destroy(r->ctx, buffers[i]);
    }
    free(g);
}

static void record(cs_renderer *r, void *state, cs_recorder *rec, const cs_render_view *view)
{
    geometry_feature *g = state;
    cs_world_radiosity *part = cs_render_first(view, CS_DRAWABLE_RADIOSITY);
    const cs_render_level *level = cs_render_first(view, CS_DRAWABLE_LEVEL);
    if (!part || part->compiled.patch_count == 0)
        return;
    // A level shown with its baked light is the level feature's; the part
    // still lights the fluids through its probes.
    if (part->has_level && level && level->baked)
        return;
    bool rebuilt = g->built != &part->compiled;
    if (rebuilt)
        build(r, g, part);
    const cs_level_mesh *mesh = part->has_level && level ? level->mesh : NULL;
    if (mesh && (rebuilt || g->level_generation != mesh->generation))
        build_level(r, g, part, mesh);
    cs_render_geometry_push push = {
        .view_x = view->view_rows[0], .view_y = view->view_rows[1], .view_z = view->view_rows[2],
        .proj = view->proj,
        .fog = view->fog,
        .misc = {view->fog_start, (float)part->lighting->exposure, 0, 0},
        .modes = {view->flags, part->compiled.patch_count, g->weld_count,
                  mesh ? cs_level_anim_step(level->time) : 0},
    };
    if (mesh) {
        cs_draw(rec, g->level_program, &(cs_draw_desc){
            .buffers = {&g->corners, &g->weld_start, &g->welds, cs_radiosity_gpu_result(&part->gpu),
                        &g->inverse_albedo, &g->textures, &g->texels, &g->anim},
            .push = &push, .push_size = sizeof push,
            .vertex_count = g->corner_count});
        return;
    }
    cs_draw(rec, g->program, &(cs_draw_desc){
        .buffers = {&g->corners, &g->weld_start, &g->welds, cs_radiosity_gpu_result(&part->gpu)},
        .push = &push, .push_size = sizeof push,
        .vertex_count = g->corner_count});
}

const cs_render_feature cs_feature_geometry = {
    .name = "geometry",
    .draws = CS_DRAWABLE_BIT(CS_DRAWABLE_RADIOSITY) | CS_DRAWABLE_BIT(CS_DRAWABLE_LEVEL),
    .create = create, .destroy = destroy, .record = record,
};
