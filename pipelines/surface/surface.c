// surface.c — see surface.h; algorithm and figures in docs/surface.md.
#include "surface.h"

#include "file_io.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>

// ---- the case table ------------------------------------------------------

static uint32_t case_table[256 * CS_SURFACE_TABLE_STRIDE];
static pthread_once_t case_table_once = PTHREAD_ONCE_INIT;

static int corner_bit(int c, int axis) { return (c >> axis) & 1; }

// Local edge id of the cube edge between corners a and b (one axis apart).
static int edge_between(int a, int b)
{
    int axis = (a ^ b) == 1 ? 0 : (a ^ b) == 2 ? 1 : 2;
    int m = a & b;
    return axis * 4 + (corner_bit(m, (axis + 1) % 3) | corner_bit(m, (axis + 2) % 3) << 1);
}

static void edge_midpoint(int e, double p[3])
{
    int axis = e / 4;
    p[axis] = 0.5;
    p[(axis + 1) % 3] = e & 1;
    p[(axis + 2) % 3] = (e >> 1) & 1;
}

// The two faces (axis * 2 + side) an edge lies in.
static bool edges_share_face(int e0, int e1)
{
    for (int d = 0; d < 3; d++) {
        if (d == e0 / 4 || d == e1 / 4)
            continue;
        double p0[3], p1[3];
        edge_midpoint(e0, p0);
        edge_midpoint(e1, p1);
        if (p0[d] == p1[d])
            return true;
    }
    return false;
}

// Builds every case from the contour on the cube's faces. Each face is
// walked counter-clockwise seen from outside (corners c0..c3, edge i from
// c_i to c_i+1). An edge is "leaving" when c_i is inside and c_i+1 is not,
// "entering" the other way. Every leaving edge is joined to the nearest
// entering edge behind it: a segment that cuts off the inside arc between
// them. On an ambiguous face (two inside corners on a diagonal) that cuts
// off each inside corner alone: inside corners are separated. The rule
// looks only at the face's four corners, so the two cells sharing a face
// draw the same segments, and the surface has no holes (the classic
// table's complement symmetry breaks exactly this). Each crossed edge is
// leaving on one of its two faces, so the segments chain into loops; each
// loop becomes a triangle fan, from a start vertex whose diagonals never
// join two edges of one face (such a diagonal could also be a diagonal of
// the neighbour cell and then belong to four triangles).
static void build_table(void)
{
    for (int cs = 0; cs < 256; cs++) {
        bool in[8];
        for (int c = 0; c < 8; c++)
            in[c] = (cs >> c) & 1;
        int next[12];
        for (int e = 0; e < 12; e++)
            next[e] = -1;
        for (int d = 0; d < 3; d++) {
            int u = (d + 1) % 3, v = (d + 2) % 3;
            for (int s = 0; s < 2; s++) {
                // (u, v) = (0,0) (1,0) (1,1) (0,1) is counter-clockwise seen
                // from +d (u x v = d): the outside of side 1. Side 0 reversed.
                static const int uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
                int cyc[4];
                for (int i = 0; i < 4; i++) {
                    int k = s ? i : 3 - i;
                    cyc[i] = s << d | uv[k][0] << u | uv[k][1] << v;
                }
                for (int i = 0; i < 4; i++) {
                    if (!(in[cyc[i]] && !in[cyc[(i + 1) % 4]]))
                        continue;
                    for (int k = 1; k < 4; k++) {
                        int j = (i - k + 4) % 4;
                        if (!in[cyc[j]] && in[cyc[(j + 1) % 4]]) {
                            int from = edge_between(cyc[i], cyc[(i + 1) % 4]);
                            CS_ASSERT(next[from] < 0, "case %d: edge %d leaves twice", cs, from);
                            next[from] = edge_between(cyc[j], cyc[(j + 1) % 4]);
                            break;
                        }
                    }
                }
            }
        }
        uint32_t *row = &case_table[cs * CS_SURFACE_TABLE_STRIDE];
        bool seen[12] = {0};
        uint32_t tris = 0;
        for (int e0 = 0; e0 < 12; e0++) {
            if (next[e0] < 0 || seen[e0])
                continue;
            int loop[12], m = 0;
            for (int e = e0; !seen[e]; e = next[e]) {
                CS_ASSERT(next[e] >= 0, "case %d: loop through edge %d is open", cs, e);
                seen[e] = true;
                loop[m++] = e;
            }
            CS_ASSERT(m >= 3 && loop[0] == next[loop[m - 1]], "case %d: loop from edge %d does not close", cs, e0);
            int start = -1;
            for (int s = 0; s < m && start < 0; s++) {
                bool ok = true;
                for (int k = 2; k < m - 1; k++)
                    ok = ok && !edges_share_face(loop[s], loop[(s + k) % m]);
                if (ok)
                    start = s;
            }
            CS_ASSERT(start >= 0, "case %d: no fan start without a face diagonal (loop of %d)", cs, m);
            for (int k = 1; k + 1 < m; k++) {
                CS_ASSERT(tris < CS_SURFACE_MAX_TRIS, "case %d: more than %d triangles", cs, CS_SURFACE_MAX_TRIS);
                row[1 + 3 * tris + 0] = (uint32_t)loop[start];
                row[1 + 3 * tris + 1] = (uint32_t)loop[(start + k) % m];
                row[1 + 3 * tris + 2] = (uint32_t)loop[(start + k + 1) % m];
                tris++;
            }
        }
        row[0] = tris;
    }
    // Winding: the loops run with the inside on their left seen from outside
    // the cube; check with case 1 (corner 0 inside) that this is
    // counter-clockwise seen from outside the surface, else turn them all.
    const uint32_t *r = &case_table[1 * CS_SURFACE_TABLE_STRIDE];
    double a[3], b[3], c[3];
    edge_midpoint((int)r[1], a);
    edge_midpoint((int)r[2], b);
    edge_midpoint((int)r[3], c);
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]};
    if (n[0] + n[1] + n[2] < 0) {
        for (int cs = 0; cs < 256; cs++) {
            uint32_t *row = &case_table[cs * CS_SURFACE_TABLE_STRIDE];
            for (uint32_t t = 0; t < row[0]; t++) {
                uint32_t tmp = row[1 + 3 * t + 1];
                row[1 + 3 * t + 1] = row[1 + 3 * t + 2];
                row[1 + 3 * t + 2] = tmp;
            }
        }
    }
}

const uint32_t *cs_surface_table(void)
{
    pthread_once(&case_table_once, build_table);
    return case_table;
}

// ---- pipeline ------------------------------------------------------------

// Words of the inside bit field: one bit per field node (at least one word).
static VkDeviceSize inside_words(const cs_surface *surf)
{
    uint64_t nodes = (uint64_t)surf->dims[0] * surf->dims[1] * surf->dims[2];
    return CS_MAX((VkDeviceSize)CS_DIV_UP(nodes, 32), 1);
}

// Segments of CS_SURFACE_SEG padded nodes along the padded rows.
static uint32_t segment_count(const cs_surface *surf)
{
    uint32_t row = surf->dims[0] + 2;
    return (uint32_t)CS_DIV_UP(row, CS_SURFACE_SEG) * (surf->padded_count / row);
}

static bool node_buffer(cs_context *ctx, cs_surface *surf, const char *what, cs_buffer *buf, cs_error *err)
{
    char name[96];
    snprintf(name, sizeof name, "%s %s", surf->name, what);
    return cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = (VkDeviceSize)surf->padded_count * 4}, buf,
                            err);
}

bool cs_surface_create(cs_context *ctx, const cs_surface_desc *desc, cs_surface *surf, cs_error *err)
{
    memset(surf, 0, sizeof *surf);
    snprintf(surf->name, sizeof surf->name, "%s", desc->name ? desc->name : "surface");
    uint64_t padded = 1;
    for (int a = 0; a < 3; a++) {
        surf->dims[a] = desc->dims[a];
        padded *= (uint64_t)desc->dims[a] + 2;
    }
    // Every count the scans add up must fit a u32: at most MAX_TRIS
    // triangles per padded node (3 vertices per node is fewer).
    if (padded * CS_SURFACE_MAX_TRIS > UINT32_MAX)
        return cs_fail(err, "%s: a field of %u x %u x %u nodes is too large for 32-bit mesh counts (at most %u padded "
                            "nodes); use a coarser grid", surf->name, desc->dims[0], desc->dims[1], desc->dims[2],
                       UINT32_MAX / CS_SURFACE_MAX_TRIS);
    surf->padded_count = (uint32_t)padded;
    // Check the node arrays up front, so a grid that cannot be held is
    // refused with one message before anything is allocated.
    char name[96];
    snprintf(name, sizeof name, "%s node arrays", surf->name);
    if (!cs_buffer_check_size(ctx, name, (VkDeviceSize)padded * 4, err))
        return false;
    snprintf(name, sizeof name, "%s inside bits", surf->name);
    bool ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = "surface case table",
                                                      .size = sizeof case_table + 256 * 8}, &surf->table, err) &&
              node_buffer(ctx, surf, "info", &surf->info, err) && node_buffer(ctx, surf, "vcount", &surf->vcount, err) &&
              node_buffer(ctx, surf, "tcount", &surf->tcount, err) &&
              node_buffer(ctx, surf, "active", &surf->active, err) &&
              node_buffer(ctx, surf, "vbase", &surf->vbase, err) && node_buffer(ctx, surf, "tbase", &surf->tbase, err) &&
              node_buffer(ctx, surf, "abase", &surf->abase, err) && node_buffer(ctx, surf, "list", &surf->list, err) &&
              cs_buffer_create(ctx, &(cs_buffer_desc){.name = name,
                                                      .size = inside_words(surf) * 4}, &surf->bits, err) &&
              cs_scan_create(ctx, surf->padded_count, &surf->scan, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/bits.comp"}, &surf->bits_program, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/classify.comp"}, &surf->classify, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/compact.comp"}, &surf->compact, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/emit.comp"}, &surf->emit, err);
    for (int i = 0; ok && i < 3; i++) {
        static const char *what[3] = {"vertex total", "triangle total", "active total"};
        snprintf(name, sizeof name, "%s %s", surf->name, what[i]);
        ok = cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = 16, .host_visible = true},
                              &surf->totals[i], err);
    }
    if (!ok) {
        cs_surface_destroy(ctx, surf);
        return false;
    }
    cs_buffer_upload(ctx, &surf->table, cs_surface_table(), sizeof case_table, 0);
    // The packed copy emit reads (surface_shared.h).
    uint32_t packed[256 * 2] = {0};
    for (int cs = 0; cs < 256; cs++) {
        const uint32_t *row = &case_table[cs * CS_SURFACE_TABLE_STRIDE];
        uint64_t bits = row[0];
        for (uint32_t k = 0; k < 3 * row[0]; k++)
            bits |= (uint64_t)row[1 + k] << (4 + 4 * k);
        packed[2 * cs] = (uint32_t)bits;
        packed[2 * cs + 1] = (uint32_t)(bits >> 32);
    }
    cs_buffer_upload(ctx, &surf->table, packed, sizeof packed, sizeof case_table);
    return true;
}

uint64_t cs_surface_max_nodes(const cs_context *ctx)
{
    uint64_t most = UINT32_MAX / CS_SURFACE_MAX_TRIS;
    most = CS_MIN(most, (uint64_t)ctx->props.limits.maxStorageBufferRange / 4);
    VkDeviceSize heap = 0;
    for (uint32_t h = 0; h < ctx->memory_props.memoryHeapCount; h++)
        heap = CS_MAX(heap, ctx->memory_props.memoryHeaps[h].size);
    VkDeviceSize left = heap > ctx->bytes_allocated ? heap - ctx->bytes_allocated : 0;
    return CS_MIN(most, (uint64_t)(left / CS_SURFACE_BYTES_PER_NODE));
}

void cs_surface_destroy(cs_context *ctx, cs_surface *surf)
{
    cs_buffer *bufs[] = {&surf->table, &surf->bits, &surf->info, &surf->vcount, &surf->tcount, &surf->active, &surf->vbase,
                         &surf->tbase, &surf->abase, &surf->list, &surf->totals[0], &surf->totals[1],
                         &surf->totals[2], &surf->positions, &surf->normals, &surf->indices};
    for (size_t i = 0; i < CS_ARRAY_COUNT(bufs); i++)
        cs_buffer_destroy(ctx, bufs[i]);
    cs_scan_destroy(ctx, &surf->scan);
    cs_program_destroy(ctx, &surf->bits_program);
    cs_program_destroy(ctx, &surf->classify);
    cs_program_destroy(ctx, &surf->compact);
    cs_program_destroy(ctx, &surf->emit);
    memset(surf, 0, sizeof *surf);
}

static struct cs_surface_push surface_push(const cs_surface *surf, uint32_t threads)
{
    const cs_surface_params *p = &surf->params;
    return (struct cs_surface_push){
        .origin = {p->origin[0], p->origin[1], p->origin[2], p->spacing},
        .dims = {surf->dims[0], surf->dims[1], surf->dims[2], threads},
        .iso = p->iso,
        .padded_count = surf->padded_count,
        .flags = p->open_border ? CS_SURFACE_OPEN_BORDER : 0,
    };
}

void cs_surface_record_count(cs_recorder *rec, cs_surface *surf, cs_buffer *field, const cs_surface_params *params)
{
    uint64_t nodes = (uint64_t)surf->dims[0] * surf->dims[1] * surf->dims[2];
    CS_ASSERT(field->size >= nodes * 4, "%s: field '%s' holds %llu bytes, the grid needs %llu", surf->name,
              field->name, (unsigned long long)field->size, (unsigned long long)nodes * 4);
    surf->params = *params;
    // Classify: the inside bits (one invocation per 32 field nodes), then per
    // segment the counts of its vertices, triangles and active nodes.
    uint32_t words = (uint32_t)CS_DIV_UP(nodes, 32), segs = segment_count(surf);
    struct cs_surface_push pc = surface_push(surf, words);
    cs_pass_begin(rec, "surface: classify");
    if (words > 0) {
        cs_dispatch(rec, surf->bits_program, &(cs_dispatch_desc){
            .buffers = {field, &surf->bits}, .push = &pc, .push_size = sizeof pc, .threads = {words}});
        cs_barrier_compute(rec);
    }
    // One invocation per padded row walks its segments (neighbouring
    // segments share a word of each row's bits).
    uint32_t rows = surf->padded_count / (surf->dims[0] + 2);
    pc = surface_push(surf, rows);
    cs_dispatch(rec, surf->classify, &(cs_dispatch_desc){
        .buffers = {&surf->bits, &surf->table, &surf->vcount, &surf->tcount, &surf->active},
        .push = &pc, .push_size = sizeof pc, .threads = {rows}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
    // The segment counts scanned in place: each segment's first offsets.
    cs_pass_begin(rec, "surface: scan");
    cs_scan_record(rec, &surf->scan, &surf->vcount, &surf->vcount, segs, &surf->totals[0]);
    cs_scan_record(rec, &surf->scan, &surf->tcount, &surf->tcount, segs, &surf->totals[1]);
    cs_scan_record(rec, &surf->scan, &surf->active, &surf->active, segs, &surf->totals[2]);
    cs_pass_end(rec);
    cs_pass_begin(rec, "surface: compact");
    cs_dispatch(rec, surf->compact, &(cs_dispatch_desc){
        .buffers = {&surf->bits, &surf->table, &surf->vcount, &surf->tcount, &surf->active, &surf->info,
                    &surf->vbase, &surf->tbase, &surf->list},
        .push = &pc, .push_size = sizeof pc, .threads = {rows}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

static bool grow(cs_context *ctx, cs_surface *surf, const char *what, cs_buffer *buf, uint64_t bytes,
                 VkBufferUsageFlags usage, cs_error *err)
{
    char name[96];
    snprintf(name, sizeof name, "%s %s", surf->name, what);
    cs_buffer_destroy(ctx, buf);
    cs_error why;
    if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = bytes, .extra_usage = usage}, buf, &why))
        return cs_fail(err, "%s: cannot hold the mesh of %u vertices and %u triangles: %s", surf->name,
                       surf->vertex_count, surf->triangle_count, why.msg);
    return true;
}

bool cs_surface_prepare_emit(cs_context *ctx, cs_surface *surf, cs_error *err)
{
    surf->vertex_count = *(const uint32_t *)surf->totals[0].mapped;
    surf->triangle_count = *(const uint32_t *)surf->totals[1].mapped;
    surf->active_count = *(const uint32_t *)surf->totals[2].mapped;
    CS_ASSERT(surf->vertex_count <= 3ull * surf->padded_count && surf->active_count <= surf->padded_count &&
                  surf->triangle_count <= (uint64_t)CS_SURFACE_MAX_TRIS * surf->padded_count,
              "%s: impossible totals %u %u %u", surf->name, surf->vertex_count, surf->triangle_count,
              surf->active_count);
    // Grow by half again, so a surface that grows slowly does not
    // reallocate every frame; never shrink.
    VkBufferUsageFlags vertex = VK_BUFFER_USAGE_VERTEX_BUFFER_BIT;
    if (surf->vertex_count > surf->vertex_capacity || !surf->positions.buffer) {
        uint64_t cap = CS_MAX((uint64_t)surf->vertex_count, (uint64_t)surf->vertex_capacity * 3 / 2);
        cap = CS_MIN(cap, 3ull * surf->padded_count);
        surf->vertex_capacity = 0;
        if (!grow(ctx, surf, "positions", &surf->positions, cap * 16, vertex, err) ||
            !grow(ctx, surf, "normals", &surf->normals, cap * 16, vertex, err))
            return false;
        surf->vertex_capacity = (uint32_t)cap;
    }
    if (surf->triangle_count > surf->triangle_capacity || !surf->indices.buffer) {
        uint64_t cap = CS_MAX((uint64_t)surf->triangle_count, (uint64_t)surf->triangle_capacity * 3 / 2);
        cap = CS_MIN(cap, (uint64_t)CS_SURFACE_MAX_TRIS * surf->padded_count);
        surf->triangle_capacity = 0;
        if (!grow(ctx, surf, "indices", &surf->indices, cap * 12, VK_BUFFER_USAGE_INDEX_BUFFER_BIT, err))
            return false;
        surf->triangle_capacity = (uint32_t)cap;
    }
    return true;
}

void cs_surface_record_emit(cs_recorder *rec, cs_surface *surf, cs_buffer *field)
{
    CS_ASSERT(surf->vertex_count <= surf->vertex_capacity && surf->triangle_count <= surf->triangle_capacity,
              "%s: emit without cs_surface_prepare_emit", surf->name);
    struct cs_surface_push pc = surface_push(surf, surf->active_count);
    cs_pass_begin(rec, "surface: emit");
    if (surf->active_count > 0)
        cs_dispatch(rec, surf->emit, &(cs_dispatch_desc){
            .buffers = {field, &surf->table, &surf->info, &surf->vbase, &surf->tbase, &surf->list,
                        &surf->positions, &surf->normals, &surf->indices},
            .push = &pc, .push_size = sizeof pc, .threads = {surf->active_count}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

bool cs_surface_extract(cs_recorder *rec, cs_surface *surf, cs_buffer *field, const cs_surface_params *params,
                        cs_error *err)
{
    if (!(params->spacing > 0) || !isfinite(params->spacing))
        return cs_fail(err, "%s: node spacing %g must be a positive number", surf->name, params->spacing);
    cs_recorder_begin(rec);
    cs_surface_record_count(rec, surf, field, params);
    cs_recorder_submit_wait(rec);
    if (!cs_surface_prepare_emit(rec->ctx, surf, err))
        return false;
    cs_recorder_begin(rec);
    cs_surface_record_emit(rec, surf, field);
    cs_recorder_submit_wait(rec);
    return true;
}

void cs_surface_download(cs_context *ctx, const cs_surface *surf, float *positions, float *normals,
                         uint32_t *indices)
{
    uint32_t v = surf->vertex_count, t = surf->triangle_count;
    float *tmp = malloc((size_t)CS_MAX(v, 1) * 16);
    CS_ASSERT(tmp, "out of host memory for %u vertices", v);
    const cs_buffer *src[2] = {&surf->positions, &surf->normals};
    float *dst[2] = {positions, normals};
    for (int b = 0; b < 2; b++) {
        if (!dst[b] || v == 0)
            continue;
        cs_buffer_download(ctx, src[b], tmp, (VkDeviceSize)v * 16, 0);
        for (uint32_t i = 0; i < v; i++)
            memcpy(&dst[b][3 * (size_t)i], &tmp[4 * (size_t)i], 12);
    }
    free(tmp);
    if (indices && t > 0)
        cs_buffer_download(ctx, &surf->indices, indices, (VkDeviceSize)t * 12, 0);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

// Both writers go through the checked writer (file_io.h), atomically: a
// failed write (disk full, file size limit) leaves no file and says why.
bool cs_surface_write_ply(const char *path, const float *positions, const float *normals, uint32_t vertex_count,
                          const uint32_t *indices, uint32_t triangle_count, cs_error *err)
{
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    cs_out_printf(&out, "ply\nformat binary_little_endian 1.0\ncomment cistern surface\nelement vertex %u\n"
                        "property float x\nproperty float y\nproperty float z\n"
                        "property float nx\nproperty float ny\nproperty float nz\n"
                        "element face %u\nproperty list uchar uint vertex_indices\nend_header\n",
                  vertex_count, triangle_count);
    // Byte by byte, so the file is little endian on any host.
    for (uint32_t i = 0; i < vertex_count && !out.error; i++) {
        uint8_t rec[24];
        for (int k = 0; k < 6; k++) {
            float x = k < 3 ? positions[3 * (size_t)i + k] : normals[3 * (size_t)i + k - 3];
            uint32_t bits;
            memcpy(&bits, &x, 4);
            put_u32(rec + 4 * k, bits);
        }
        cs_out_write(&out, rec, sizeof rec);
    }
    for (uint32_t t = 0; t < triangle_count && !out.error; t++) {
        uint8_t rec[13] = {3};
        for (int k = 0; k < 3; k++)
            put_u32(rec + 1 + 4 * k, indices[3 * (size_t)t + k]);
        cs_out_write(&out, rec, sizeof rec);
    }
    return cs_out_close(&out, err);
}

bool cs_surface_write_obj(const char *path, const char *comment, const float *positions, const float *normals,
                          uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count, cs_error *err)
{
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    // %.9g: every float reads back to the same bits.
    cs_out_printf(&out, "# %s\n# %u vertices, %u triangles\n", comment ? comment : "cistern surface", vertex_count,
                  triangle_count);
    for (uint32_t i = 0; i < vertex_count && !out.error; i++) {
        const float *p = &positions[3 * (size_t)i], *n = &normals[3 * (size_t)i];
        cs_out_printf(&out, "v %.9g %.9g %.9g\nvn %.9g %.9g %.9g\n", p[0], p[1], p[2], n[0], n[1], n[2]);
    }
    for (uint32_t t = 0; t < triangle_count && !out.error; t++) {
        const uint32_t *v = &indices[3 * (size_t)t];
        cs_out_printf(&out, "f %u//%u %u//%u %u//%u\n", v[0] + 1, v[0] + 1, v[1] + 1, v[1] + 1, v[2] + 1,
                      v[2] + 1);
    }
    return cs_out_close(&out, err);
}

// ---- particle splat ----------------------------------------------------------

bool cs_splat_create(cs_context *ctx, cs_splat *splat, cs_error *err)
{
    memset(splat, 0, sizeof *splat);
    bool ok = cs_program_create(ctx, &(cs_program_desc){.path = "surface/splat.comp"}, &splat->splat, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/cells.comp"}, &splat->cells_to_field,
                                err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/splat_kernels.comp"}, &splat->kernels,
                                err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/splat_cells.comp"}, &splat->cells, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "surface/splat_field.comp"}, &splat->field, err);
    if (!ok)
        cs_splat_destroy(ctx, splat);
    return ok;
}

void cs_splat_destroy(cs_context *ctx, cs_splat *splat)
{
    cs_program_destroy(ctx, &splat->splat);
    cs_program_destroy(ctx, &splat->cells_to_field);
    cs_program_destroy(ctx, &splat->kernels);
    cs_program_destroy(ctx, &splat->cells);
    cs_program_destroy(ctx, &splat->field);
    cs_buffer_destroy(ctx, &splat->centres);
    cs_buffer_destroy(ctx, &splat->covariance);
    cs_buffer_destroy(ctx, &splat->matrices);
    cs_buffer_destroy(ctx, &splat->cell_reach);
    cs_buffer_destroy(ctx, &splat->max_reach);
    cs_reduce_destroy(ctx, &splat->reduce);
    memset(splat, 0, sizeof *splat);
}

bool cs_splat_reserve(cs_context *ctx, cs_splat *splat, const cs_grid *grid, cs_error *err)
{
    if (grid->capacity <= splat->capacity && grid->cell_count <= splat->cell_capacity && splat->centres.buffer)
        return true;
    uint32_t cap = CS_MAX(grid->capacity, splat->capacity), cells = CS_MAX(grid->cell_count, splat->cell_capacity);
    struct { cs_buffer *buf; const char *name; VkDeviceSize size; } arrays[] = {
        {&splat->centres, "splat centres", (VkDeviceSize)CS_MAX(cap, 1u) * 16},
        {&splat->covariance, "splat covariance", (VkDeviceSize)CS_MAX(cap, 1u) * 32},
        {&splat->matrices, "splat kernel matrices", (VkDeviceSize)CS_MAX(cap, 1u) * 32},
        {&splat->cell_reach, "splat cell reach", (VkDeviceSize)CS_MAX(cells, 1u) * 4},
    };
    // Checked together first, so a refusal leaves the old arrays in place.
    VkDeviceSize total = 0;
    for (size_t i = 0; i < CS_ARRAY_COUNT(arrays); i++) {
        total += arrays[i].size;
        if (!cs_buffer_check_size(ctx, arrays[i].name, arrays[i].size, err))
            return false;
    }
    if (!cs_buffer_check_size(ctx, "splat arrays (together)", total, err))
        return false;
    splat->capacity = splat->cell_capacity = 0;
    for (size_t i = 0; i < CS_ARRAY_COUNT(arrays); i++) {
        cs_buffer_destroy(ctx, arrays[i].buf);
        if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = arrays[i].name, .size = arrays[i].size}, arrays[i].buf,
                              err))
            return false;
    }
    cs_reduce_destroy(ctx, &splat->reduce);
    if (!splat->max_reach.buffer &&
        !cs_buffer_create(ctx, &(cs_buffer_desc){.name = "splat max reach", .size = 16}, &splat->max_reach, err))
        return false;
    if (!cs_reduce_create(ctx, CS_MAX(cells, 1u), &splat->reduce, err))
        return false;
    splat->capacity = cap;
    splat->cell_capacity = cells;
    return true;
}

// The anisotropic parameters with the defaults applied.
static void aniso_params(const cs_splat_params *p, float *neighbour_radius, float *smoothing, float *max_ratio,
                         uint32_t *min_neighbours)
{
    *neighbour_radius = p->neighbour_radius > 0 ? p->neighbour_radius : 2 * p->radius;
    *smoothing = p->smoothing > 0 ? CS_MIN(p->smoothing, 1.0f) : p->smoothing < 0 ? 0.0f
                                                                                  : CS_SPLAT_DEFAULT_SMOOTHING;
    *max_ratio = p->max_ratio > 0 ? CS_MAX(p->max_ratio, 1.0f) : CS_SPLAT_DEFAULT_MAX_RATIO;
    *min_neighbours = p->min_neighbours > 0 ? p->min_neighbours : CS_SPLAT_DEFAULT_MIN_NEIGHBOURS;
}

float cs_splat_reach(const cs_splat_params *p)
{
    float rn, lambda, kr;
    uint32_t n_eps;
    aniso_params(p, &rn, &lambda, &kr, &n_eps);
    // Longest semi-axis: eigenvalues s1 >= s2, s3 >= s1 / k_r scaled to
    // s1 s2 s3 = 1 give s1 <= k_r^(2/3) (s2 = s3 = s1 / k_r). A smoothed
    // centre is x + lambda * (a weighted mean of points within r_n of x).
    // Padded for float rounding.
    return (float)((1.0 + 1e-3) * (p->radius * cbrt((double)kr * kr) + lambda * rn));
}

void cs_splat_record_cells(cs_recorder *rec, cs_splat *splat, cs_buffer *cells, uint32_t stride_floats,
                           uint32_t component, uint32_t count, cs_buffer *field)
{
    CS_ASSERT(component < stride_floats && cells->size >= (uint64_t)count * stride_floats * 4 &&
                  field->size >= (uint64_t)count * 4,
              "surface field of %u cells (%u floats each) from '%s' into '%s'", count, stride_floats, cells->name,
              field->name);
    struct cs_cells_push pc = {.count = count, .stride = stride_floats, .component = component};
    cs_pass_begin(rec, "surface: field");
    cs_dispatch(rec, splat->cells_to_field, &(cs_dispatch_desc){.buffers = {cells, field}, .push = &pc,
                                                        .push_size = sizeof pc, .threads = {count}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}

void cs_splat_record(cs_recorder *rec, cs_splat *splat, const cs_grid *grid, cs_buffer *positions,
                     cs_buffer *field, const cs_splat_params *p)
{
    uint64_t nodes = (uint64_t)p->dims[0] * p->dims[1] * p->dims[2];
    CS_ASSERT(nodes <= UINT32_MAX && field->size >= nodes * 4, "splat of %llu nodes into '%s' (%llu bytes)",
              (unsigned long long)nodes, field->name, (unsigned long long)field->size);
    CS_ASSERT(p->radius > 0 && isfinite(p->radius), "splat radius %g must be a positive number", p->radius);
    if (p->kernel == CS_SPLAT_ANISOTROPIC) {
        // Call cs_splat_reserve at set-up to get this as a message instead.
        cs_error err;
        bool held = cs_splat_reserve(rec->ctx, splat, grid, &err);
        CS_ASSERT(held, "anisotropic splat: %s", err.msg);
        float rn, lambda, kr;
        uint32_t n_eps;
        aniso_params(p, &rn, &lambda, &kr, &n_eps);
        // Tiles of 4 x 4 x (4 * NODES_PER) nodes (splat_field.comp).
        uint64_t tiles = CS_DIV_UP((uint64_t)p->dims[0], CS_SPLAT_TILE) *
                         CS_DIV_UP((uint64_t)p->dims[1], CS_SPLAT_TILE) *
                         CS_DIV_UP((uint64_t)p->dims[2], CS_SPLAT_NODES_PER * CS_SPLAT_TILE);
        CS_ASSERT(tiles * CS_SPLAT_TILE_GROUP <= UINT32_MAX, "splat of %llu tiles", (unsigned long long)tiles);
        struct cs_splat_aniso_push pc = {
            .origin = {p->origin[0], p->origin[1], p->origin[2], p->spacing},
            .dims = {p->dims[0], p->dims[1], p->dims[2], grid->capacity},
            .grid_origin = {grid->origin[0], grid->origin[1], grid->origin[2], grid->cell_size},
            .grid_dims = {grid->dims[0], grid->dims[1], grid->dims[2], grid->cell_count},
            .radius = p->radius,
            .scale = p->scale,
            .neighbour_radius = rn,
            .smoothing = lambda,
            .max_ratio = kr,
            .min_neighbours = n_eps,
        };
        cs_pass_begin(rec, "surface: splat kernels");
        if (grid->capacity > 0)
            cs_dispatch(rec, splat->kernels, &(cs_dispatch_desc){
                .buffers = {positions, (cs_buffer *)&grid->ranges, (cs_buffer *)&grid->keys, &splat->centres,
                            &splat->covariance, &splat->matrices},
                .push = &pc, .push_size = sizeof pc, .threads = {grid->capacity}});
        cs_barrier_compute(rec);
        cs_dispatch(rec, splat->cells, &(cs_dispatch_desc){
            .buffers = {&splat->centres, (cs_buffer *)&grid->ranges, &splat->cell_reach},
            .push = &pc, .push_size = sizeof pc, .threads = {grid->cell_count}});
        cs_barrier_compute(rec);
        // The field pass searches within the largest cell reach, measured
        // (usually well under the bound R k_r^(2/3) + lambda r_n).
        cs_reduce_record(rec, &splat->reduce, CS_REDUCE_MAX, &splat->cell_reach, grid->cell_count,
                         &splat->max_reach, 0);
        cs_pass_end(rec);
        pc.dims.w = (uint32_t)tiles;
        cs_pass_begin(rec, "surface: splat");
        if (nodes > 0)
            cs_dispatch(rec, splat->field, &(cs_dispatch_desc){
                .buffers = {&splat->centres, &splat->matrices, (cs_buffer *)&grid->ranges, &splat->cell_reach,
                            &splat->max_reach, field},
                .push = &pc, .push_size = sizeof pc, .threads = {(uint32_t)tiles * CS_SPLAT_TILE_GROUP}});
        cs_barrier_compute(rec);
        cs_pass_end(rec);
        return;
    }
    struct cs_splat_push pc = {
        .origin = {p->origin[0], p->origin[1], p->origin[2], p->spacing},
        .dims = {p->dims[0], p->dims[1], p->dims[2], (uint32_t)nodes},
        .grid_origin = {grid->origin[0], grid->origin[1], grid->origin[2], grid->cell_size},
        .grid_dims = {grid->dims[0], grid->dims[1], grid->dims[2], 0},
        .radius = p->radius,
        .scale = p->scale,
    };
    cs_pass_begin(rec, "surface: splat");
    if (nodes > 0)
        cs_dispatch(rec, splat->splat, &(cs_dispatch_desc){
            .buffers = {positions, (cs_buffer *)&grid->ranges, field}, .push = &pc, .push_size = sizeof pc,
            .threads = {(uint32_t)nodes}});
    cs_barrier_compute(rec);
    cs_pass_end(rec);
}
