// probes.c — light probes on the GPU and their double twin (probes.h).
#include "probes.h"

#include "light.h"
#include "sh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;
// Shadow rays stop this fraction short of the light (as the GPU's).
static const double SHORT = 1e-4;

void cs_probes_directions(uint32_t rays, float (*out)[4])
{
    const double golden = (sqrt(5.0) - 1.0) / 2.0;
    for (uint32_t k = 0; k < rays; k++) {
        double z = 1.0 - (2.0 * k + 1.0) / rays;
        double r = sqrt(fmax(1.0 - z * z, 0.0));
        double turns = k * golden;
        double phi = 2.0 * PI * (turns - floor(turns));
        out[k][0] = (float)(r * cos(phi));
        out[k][1] = (float)(r * sin(phi));
        out[k][2] = (float)z;
        out[k][3] = 0.0f;
    }
}

cs_probe_grid cs_probes_grid(const cs_probes_desc *desc)
{
    cs_probe_grid g = {0};
    float *origin = &g.origin.x, *spacing = &g.spacing.x;
    uint32_t *dims = &g.dims.x;
    for (int a = 0; a < 3; a++) {
        double cell = (desc->hi[a] - desc->lo[a]) / desc->dims[a];
        spacing[a] = (float)cell;
        origin[a] = (float)(desc->lo[a] + 0.5 * cell);
        dims[a] = desc->dims[a];
    }
    g.origin.w = desc->exposure;
    g.dims.w = desc->dims[0] * desc->dims[1] * desc->dims[2];
    return g;
}

void cs_probes_position(const cs_probe_grid *g, uint32_t index, double out[3])
{
    uint32_t ijk[3] = {index % g->dims.x, (index / g->dims.x) % g->dims.y, index / (g->dims.x * g->dims.y)};
    const float *origin = &g->origin.x, *spacing = &g->spacing.x;
    // As the shaders compute it: float origin + float(ijk) * float spacing.
    for (int a = 0; a < 3; a++)
        out[a] = (float)(origin[a] + (float)ijk[a] * spacing[a]);
}

uint32_t cs_probes_hit_patch(uint32_t first, uint32_t n, double u, double v)
{
    double fn = n;
    uint32_t a = (uint32_t)fmax(u * fn, 0.0);
    a = a < n - 1 ? a : n - 1;
    uint32_t b = (uint32_t)fmax(v * fn, 0.0);
    b = b < n - 1 - a ? b : n - 1 - a;
    bool upper = (u * fn - a) + (v * fn - b) > 1.0 && a + b + 1 < n;
    return first + a * (2 * n - a) + 2 * b + (upper ? 1u : 0u);
}

// Per BVH triangle: (first patch, lattice side n) of the scene triangle it is.
static uvec4 *tri_patch_table(const cs_radiosity_compiled *c, const cs_bvh *bvh)
{
    uvec4 *table = calloc(CS_MAX(bvh->tri_count, 1u), sizeof *table);
    uint32_t *first = malloc(CS_MAX(bvh->tri_count, 1u) * sizeof *first);
    uint32_t *count = calloc(CS_MAX(bvh->tri_count, 1u), sizeof *count);
    CS_ASSERT(table && first && count, "out of memory for %u triangles", bvh->tri_count);
    for (uint32_t p = c->patch_count; p-- > 0;) {
        first[c->patch_tri[p]] = p;
        count[c->patch_tri[p]]++;
    }
    for (uint32_t i = 0; i < bvh->tri_count; i++) {
        uint32_t s = bvh->tri_source[i];
        uint32_t n = (uint32_t)lround(sqrt((double)count[s]));
        CS_ASSERT(n * n == count[s] && n > 0, "triangle %u has %u patches: not a lattice", s, count[s]);
        table[i] = (uvec4){first[s], n, 0, 0};
    }
    free(first), free(count);
    return table;
}

static bool check_desc(const cs_probes_desc *d, cs_error *err)
{
    if (d->rays < 1 || d->rays > CS_PROBES_MAX_RAYS)
        return cs_fail(err, "probes: %u rays a probe: want 1 to %u", d->rays, CS_PROBES_MAX_RAYS);
    uint64_t count = 1;
    for (int a = 0; a < 3; a++) {
        if (d->dims[a] < 1)
            return cs_fail(err, "probes: resolution %u along axis %d: want at least 1", d->dims[a], a);
        if (!(d->hi[a] >= d->lo[a]))
            return cs_fail(err, "probes: empty bounds along axis %d (%g to %g)", a, d->lo[a], d->hi[a]);
        count *= d->dims[a];
    }
    if (count > (1u << 20))
        return cs_fail(err, "probes: %llu probes: at most %u", (unsigned long long)count, 1u << 20);
    return true;
}

uint64_t cs_probes_bytes_per_probe(uint32_t rays)
{
    uint64_t chunks = ((uint64_t)rays + CS_PROBE_CHUNK - 1) / CS_PROBE_CHUNK;
    uint64_t partials = chunks * CS_PROBE_PARTIAL_VEC4 * 16;
    return CS_MAX(partials, (uint64_t)sizeof(cs_probe));
}

uint64_t cs_probes_max_count(const cs_context *ctx, uint32_t rays)
{
    // The records buffer also holds the grid's header.
    uint64_t range = ctx->props.limits.maxStorageBufferRange;
    uint64_t usable = range > sizeof(cs_probe_grid) ? range - sizeof(cs_probe_grid) : 0;
    return usable / cs_probes_bytes_per_probe(rays);
}

// More probes than the device's storage buffers hold, said in its numbers.
static bool check_device(const cs_context *ctx, const cs_probes_desc *d, cs_error *err)
{
    uint64_t count = (uint64_t)d->dims[0] * d->dims[1] * d->dims[2];
    uint64_t most = cs_probes_max_count(ctx, d->rays);
    if (count <= most)
        return true;
    char range[32];
    cs_format_bytes(ctx->props.limits.maxStorageBufferRange, range, sizeof range);
    return cs_fail(err,
                   "%u x %u x %u = %llu probes at %u rays: %s holds at most %llu (maxStorageBufferRange %s, "
                   "%llu bytes a probe); lower the resolution or the rays",
                   d->dims[0], d->dims[1], d->dims[2], (unsigned long long)count, d->rays, ctx->props.deviceName,
                   (unsigned long long)most, range, (unsigned long long)cs_probes_bytes_per_probe(d->rays));
}

bool cs_probes_check(const cs_context *ctx, const cs_probes_desc *desc, cs_error *err)
{
    return check_desc(desc, err) && check_device(ctx, desc, err);
}

bool cs_probes_create(cs_context *ctx, const cs_probes_desc *desc, const cs_radiosity_compiled *c,
                      const cs_bvh *bvh, cs_probes *pr, cs_error *err)
{
    memset(pr, 0, sizeof *pr);
    if (!cs_probes_check(ctx, desc, err))
        return false;
    pr->grid = cs_probes_grid(desc);
    pr->probe_count = pr->grid.dims.w;
    uint32_t chunks = (desc->rays + CS_PROBE_CHUNK - 1) / CS_PROBE_CHUNK;
    pr->push = (cs_probes_push){.probe_count = pr->probe_count, .rays = desc->rays, .chunks = chunks,
                                .area_samples = 1, .closed = desc->closed ? 1u : 0u};
    VkDeviceSize partials = (VkDeviceSize)pr->probe_count * chunks * CS_PROBE_PARTIAL_VEC4 * 16;
    VkDeviceSize records = sizeof(cs_probe_grid) + (VkDeviceSize)pr->probe_count * sizeof(cs_probe);
    bool ok = cs_program_create(ctx, &(cs_program_desc){.path = "light/probes_gather.comp"}, &pr->gather_program,
                                err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "light/probes_finish.comp"}, &pr->finish_program,
                                err) &&
              cs_buffer_create_device(ctx, "probe directions", (VkDeviceSize)desc->rays * 16, &pr->directions, err) &&
              cs_buffer_create_device(ctx, "probe triangle patches", (VkDeviceSize)bvh->tri_count * 16,
                                      &pr->tri_patches, err) &&
              cs_buffer_create_device(ctx, "probe partial sums", partials, &pr->partials, err) &&
              cs_buffer_create_device(ctx, "probes", records, &pr->probes, err);
    if (!ok) {
        cs_probes_destroy(ctx, pr);
        return false;
    }
    pr->direction_table = malloc((size_t)desc->rays * sizeof *pr->direction_table);
    CS_ASSERT(pr->direction_table, "out of memory for %u directions", desc->rays);
    cs_probes_directions(desc->rays, pr->direction_table);
    cs_buffer_upload(ctx, &pr->directions, pr->direction_table, (VkDeviceSize)desc->rays * 16, 0);
    if (bvh->tri_count > 0) {
        uvec4 *table = tri_patch_table(c, bvh);
        cs_buffer_upload(ctx, &pr->tri_patches, table, (VkDeviceSize)bvh->tri_count * 16, 0);
        free(table);
    }
    cs_buffer_fill(ctx, &pr->partials, 0u);
    cs_buffer_fill(ctx, &pr->probes, 0u);
    cs_buffer_upload(ctx, &pr->probes, &pr->grid, sizeof pr->grid, 0);
    return true;
}

void cs_probes_destroy(cs_context *ctx, cs_probes *pr)
{
    cs_program_destroy(ctx, &pr->gather_program);
    cs_program_destroy(ctx, &pr->finish_program);
    cs_buffer *buffers[] = {&pr->directions, &pr->tri_patches, &pr->partials, &pr->probes};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        cs_buffer_destroy(ctx, buffers[i]);
    free(pr->direction_table);
    memset(pr, 0, sizeof *pr);
}

void cs_probes_record(cs_recorder *rec, cs_probes *pr, cs_radiosity_gpu *gpu)
{
    pr->push.light_count = gpu->direct_push.light_count;
    pr->push.area_count = gpu->direct_push.area_count;
    pr->push.area_samples = gpu->direct_push.area_samples;
    cs_pass_begin(rec, "probes: gather");
    cs_dispatch(rec, pr->gather_program,
                &(cs_dispatch_desc){.buffers = {&gpu->nodes, &gpu->tris, &pr->tri_patches,
                                                cs_radiosity_gpu_result(gpu), &pr->directions, &pr->probes,
                                                &pr->partials},
                                    .push = &pr->push, .push_size = sizeof pr->push,
                                    .threads = {pr->probe_count * pr->push.chunks}});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
    cs_pass_begin(rec, "probes: finish");
    cs_dispatch(rec, pr->finish_program,
                &(cs_dispatch_desc){.buffers = {&gpu->nodes, &gpu->tris, &gpu->lights, &gpu->area_lights,
                                                &pr->partials, &pr->probes},
                                    .push = &pr->push, .push_size = sizeof pr->push,
                                    .threads = {pr->probe_count}});
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

void cs_probes_set_shading(cs_context *ctx, cs_probes *pr, bool on)
{
    pr->grid.flags.x = on ? 1u : 0u;
    cs_buffer_upload(ctx, &pr->probes, &pr->grid, sizeof pr->grid, 0);
}

void cs_probes_read(cs_context *ctx, const cs_probes *pr, cs_probe *out)
{
    cs_buffer_download(ctx, &pr->probes, out, (VkDeviceSize)pr->probe_count * sizeof(cs_probe),
                       sizeof(cs_probe_grid));
}

static void add_delta(double sums[CS_SH_COUNT][3], const double d[3], const double weight[3])
{
    double y[CS_SH_COUNT];
    cs_sh_basis(d, y);
    for (int i = 0; i < CS_SH_COUNT; i++)
        for (int k = 0; k < 3; k++)
            sums[i][k] += weight[k] * y[i];
}

static void add_punctual(const cs_bvh *bvh, const cs_light *light, const double o[3], double sums[CS_SH_COUNT][3])
{
    double to[3] = {light->position_radius.x - o[0], light->position_radius.y - o[1],
                    light->position_radius.z - o[2]};
    double dist = sqrt(to[0] * to[0] + to[1] * to[1] + to[2] * to[2]);
    if (!(dist > 0.0))
        return;
    double l[3] = {to[0] / dist, to[1] / dist, to[2] / dist}, e[3];
    cs_light_irradiance(light, o, l, e);
    if (!(fmax(e[0], fmax(e[1], e[2])) > 0.0))
        return;
    double end = light->kind.x == CS_LIGHT_SPHERE ? 1.0 - light->position_radius.w / dist : 1.0;
    if (end > 0.0 && !cs_bvh_unoccluded(bvh, o, to, 0.0, end - SHORT))
        return;
    add_delta(sums, l, e);
}

static void add_area(const cs_bvh *bvh, const cs_area_light *light, uint32_t s, const double o[3],
                     double sums[CS_SH_COUNT][3])
{
    double c[3] = {light->corner.x, light->corner.y, light->corner.z};
    double eu[3] = {light->edge_u.x, light->edge_u.y, light->edge_u.z};
    double ev[3] = {light->edge_v.x, light->edge_v.y, light->edge_v.z};
    double nl[3] = {eu[1] * ev[2] - eu[2] * ev[1], eu[2] * ev[0] - eu[0] * ev[2], eu[0] * ev[1] - eu[1] * ev[0]};
    double quad_area = sqrt(nl[0] * nl[0] + nl[1] * nl[1] + nl[2] * nl[2]);
    double cell = quad_area / ((double)s * s);
    for (uint32_t a = 0; a < s; a++) {
        for (uint32_t b = 0; b < s; b++) {
            double w[3];
            for (int k = 0; k < 3; k++)
                w[k] = c[k] + eu[k] * ((a + 0.5) / s) + ev[k] * ((b + 0.5) / s) - o[k];
            double r2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2], r = sqrt(r2);
            double cos_l = -(nl[0] * w[0] + nl[1] * w[1] + nl[2] * w[2]) / quad_area / r;
            if (!(cos_l > 0.0) || !cs_bvh_unoccluded(bvh, o, w, 0.0, 1.0 - SHORT))
                continue;
            double d[3] = {w[0] / r, w[1] / r, w[2] / r};
            double weight[3] = {light->exitance.x / PI * cell * cos_l / r2, light->exitance.y / PI * cell * cos_l / r2,
                                light->exitance.z / PI * cell * cos_l / r2};
            add_delta(sums, d, weight);
        }
    }
}

void cs_probes_cpu(const cs_radiosity_compiled *c, const cs_bvh *bvh, const double *radiosity,
                   const float (*directions)[4], uint32_t rays, const cs_light *lights, uint32_t light_count,
                   const cs_area_light *area_lights, uint32_t area_count, uint32_t area_samples,
                   bool closed, const double position[3], double irradiance[CS_SH_COUNT][3], double *back)
{
    uvec4 *table = tri_patch_table(c, bvh);
    double sums[CS_SH_COUNT][3] = {{0}};
    uint32_t back_count = 0;
    for (uint32_t k = 0; k < rays; k++) {
        double d[3] = {directions[k][0], directions[k][1], directions[k][2]};
        cs_ray_hit hit = cs_bvh_cast(bvh, position, d, 0.0, 3.0e38);
        if (!hit.hit) {
            back_count += closed; // outside a closed level
            continue;
        }
        const cs_tri *t = &bvh->tris[hit.tri];
        double e1[3] = {t->v1.x - t->v0.x, t->v1.y - t->v0.y, t->v1.z - t->v0.z};
        double e2[3] = {t->v2.x - t->v0.x, t->v2.y - t->v0.y, t->v2.z - t->v0.z};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        if (n[0] * d[0] + n[1] * d[1] + n[2] * d[2] >= 0.0) {
            back_count++;
            continue;
        }
        uint32_t p = cs_probes_hit_patch(table[hit.tri].x, table[hit.tri].y, hit.u, hit.v);
        double radiance[3];
        for (int k2 = 0; k2 < 3; k2++)
            radiance[k2] = fmax(radiosity[3 * p + k2], 0.0) / PI;
        add_delta(sums, d, radiance);
    }
    free(table);
    for (int i = 0; i < CS_SH_COUNT; i++)
        for (int k = 0; k < 3; k++)
            sums[i][k] *= 4.0 * PI / rays;
    for (uint32_t l = 0; l < light_count; l++)
        add_punctual(bvh, &lights[l], position, sums);
    for (uint32_t l = 0; l < area_count; l++)
        add_area(bvh, &area_lights[l], area_samples, position, sums);
    cs_sh_to_irradiance(sums, irradiance);
    *back = (double)back_count / rays;
}
