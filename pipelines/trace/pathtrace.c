// pathtrace.c — the progressive GPU path tracer's host side (see pathtrace.h).
#include "pathtrace.h"

#include <math.h>

_Static_assert(sizeof(struct cs_pt_push) == 112, "cs_pt_push is not std430-packed");
_Static_assert(sizeof(struct cs_pt_light) == 32, "cs_pt_light is not std430-packed");

static const double PI = 3.14159265358979323846;

cs_pt_settings cs_pt_settings_default(uint32_t width, uint32_t height)
{
    return (cs_pt_settings){.width = width, .height = height, .seed = 1, .nee = true, .roulette = true,
                            .max_bounces = CS_PT_MAX_BOUNCES, .rr_start = 3, .up = {0, 1, 0},
                            .target = {0, 0, 1}, .fov_degrees = 40};
}

static double tri_area(const cs_tri *t)
{
    double e1[3] = {t->v1.x - t->v0.x, t->v1.y - t->v0.y, t->v1.z - t->v0.z};
    double e2[3] = {t->v2.x - t->v0.x, t->v2.y - t->v0.y, t->v2.z - t->v0.z};
    double c[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    return 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

static bool emits(const cs_tri *t)
{
    return t->emission.x > 0.0f || t->emission.y > 0.0f || t->emission.z > 0.0f;
}

bool cs_pt_lights_build(const cs_bvh *bvh, struct cs_pt_light **lights, uint32_t *count, double *area,
                        cs_error *err)
{
    uint32_t n = 0;
    double total = 0.0;
    for (uint32_t i = 0; i < bvh->tri_count; i++)
        if (emits(&bvh->tris[i])) {
            n++;
            total += tri_area(&bvh->tris[i]);
        }
    *lights = calloc(n > 0 ? n : 1, sizeof **lights);
    if (!*lights)
        return cs_fail(err, "path tracer: out of memory for %u lights", n);
    double running = 0.0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < bvh->tri_count; i++) {
        if (!emits(&bvh->tris[i]))
            continue;
        double a = tri_area(&bvh->tris[i]);
        running += a;
        // The last entry is exactly 1, so every u in [0, 1) finds one.
        float cdf = k + 1 == n ? 1.0f : (float)(running / total);
        (*lights)[k++] = (struct cs_pt_light){.cdf = {cdf, (float)a, 0, 0}, .tri = {i, 0, 0, 0}};
    }
    *count = n;
    *area = total;
    return true;
}

static void normalize3(double v[3])
{
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++)
        v[k] /= len;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

struct cs_pt_push cs_pt_push_make(const cs_pt_settings *s, const cs_bvh *bvh, uint32_t light_count,
                                  double light_area)
{
    double f[3] = {s->target[0] - s->position[0], s->target[1] - s->position[1], s->target[2] - s->position[2]};
    normalize3(f);
    double r[3], u[3];
    cross3(f, s->up, r);
    normalize3(r);
    cross3(r, f, u);
    double tan_half = tan(0.5 * s->fov_degrees * PI / 180.0);
    double aspect = (double)s->width / s->height;
    // Offset of a new ray's origin along the normal: far above float
    // rounding of positions in the scene's box, far below any feature.
    const cs_bvh_node *root = &bvh->nodes[0];
    double dx = root->hi.x - root->lo.x, dy = root->hi.y - root->lo.y, dz = root->hi.z - root->lo.z;
    double offset = fmax(1e-5 * sqrt(dx * dx + dy * dy + dz * dz), 1e-7);
    struct cs_pt_push push = {
        .origin = {(float)s->position[0], (float)s->position[1], (float)s->position[2], (float)offset},
        .forward = {(float)f[0], (float)f[1], (float)f[2], 0},
        .right = {(float)(r[0] * tan_half * aspect), (float)(r[1] * tan_half * aspect),
                  (float)(r[2] * tan_half * aspect), 0},
        .up = {(float)(u[0] * tan_half), (float)(u[1] * tan_half), (float)(u[2] * tan_half), 0},
        .width = s->width, .height = s->height, .seed = s->seed,
        .flags = (s->nee ? CS_PT_NEE : 0u) | (s->roulette ? CS_PT_ROULETTE : 0u),
        .max_bounces = s->max_bounces, .rr_start = s->rr_start,
        .light_count = light_count, .light_area = (float)light_area,
    };
    return push;
}

static bool check_settings(const cs_pt_settings *s, cs_error *err)
{
    if (s->width == 0 || s->height == 0 || (uint64_t)s->width * s->height > (1u << 26))
        return cs_fail(err, "path tracer: image %u x %u; 1 to 2^26 pixels", s->width, s->height);
    if (s->max_bounces < 1 || s->max_bounces > CS_PT_MAX_BOUNCES)
        return cs_fail(err, "path tracer: max bounces %u; 1 to %u", s->max_bounces, CS_PT_MAX_BOUNCES);
    if (!(s->fov_degrees > 0.0 && s->fov_degrees < 180.0))
        return cs_fail(err, "path tracer: field of view %g degrees; between 0 and 180", s->fov_degrees);
    double f[3] = {s->target[0] - s->position[0], s->target[1] - s->position[1], s->target[2] - s->position[2]};
    double side[3];
    cross3(f, s->up, side);
    if (!(side[0] * side[0] + side[1] * side[1] + side[2] * side[2] > 0.0))
        return cs_fail(err, "path tracer: the camera looks along its up vector (or at its own position)");
    return true;
}

static bool make_buffer(cs_context *ctx, const char *name, VkDeviceSize size, cs_buffer *buf, cs_error *err)
{
    return cs_buffer_create(ctx, &(cs_buffer_desc){.name = name, .size = size}, buf, err);
}

bool cs_pt_create(cs_context *ctx, const cs_bvh *bvh, const cs_pt_settings *settings, cs_pathtracer *pt,
                  cs_error *err)
{
    memset(pt, 0, sizeof *pt);
    if (!check_settings(settings, err))
        return false;
    struct cs_pt_light *lights = NULL;
    if (!cs_pt_lights_build(bvh, &lights, &pt->light_count, &pt->light_area, err))
        return false;
    pt->settings = *settings;
    pt->pixel_count = settings->width * settings->height;
    pt->tri_count = bvh->tri_count;
    pt->push = cs_pt_push_make(settings, bvh, pt->light_count, pt->light_area);
    pt->batch_spp = CS_PT_BATCH_SPP;
    VkDeviceSize pixels = pt->pixel_count, slots = (VkDeviceSize)bvh->tri_count * CS_PT_PROBE_LANES;
    VkDeviceSize light_slots = pt->light_count > 0 ? pt->light_count : 1;
    bool ok = cs_program_create(ctx, &(cs_program_desc){.path = "pathtrace/trace.comp"}, &pt->trace, err) &&
              cs_program_create(ctx, &(cs_program_desc){.path = "pathtrace/probe.comp"}, &pt->probe, err) &&
              make_buffer(ctx, "pathtrace bvh nodes", (VkDeviceSize)bvh->node_count * sizeof(cs_bvh_node),
                          &pt->nodes, err) &&
              make_buffer(ctx, "pathtrace triangles", (VkDeviceSize)(bvh->tri_count > 0 ? bvh->tri_count : 1) *
                                                          sizeof(cs_tri), &pt->tris, err) &&
              make_buffer(ctx, "pathtrace lights", light_slots * sizeof(struct cs_pt_light), &pt->lights, err) &&
              make_buffer(ctx, "pathtrace sum", pixels * 16, &pt->sum, err) &&
              make_buffer(ctx, "pathtrace sum of squares", pixels * 16, &pt->sum_sq, err) &&
              make_buffer(ctx, "pathtrace path info", pixels * 16, &pt->info, err) &&
              make_buffer(ctx, "pathtrace pixel list", pixels * 4, &pt->pixel_list, err) &&
              make_buffer(ctx, "pathtrace probe sum", (slots > 0 ? slots : 1) * 16, &pt->probe_sum, err) &&
              make_buffer(ctx, "pathtrace probe sum of squares", (slots > 0 ? slots : 1) * 16, &pt->probe_sq, err);
    if (!ok) {
        free(lights);
        cs_pt_destroy(ctx, pt);
        return false;
    }
    cs_buffer_upload(ctx, &pt->nodes, bvh->nodes, (VkDeviceSize)bvh->node_count * sizeof(cs_bvh_node), 0);
    if (bvh->tri_count > 0)
        cs_buffer_upload(ctx, &pt->tris, bvh->tris, (VkDeviceSize)bvh->tri_count * sizeof(cs_tri), 0);
    cs_buffer_upload(ctx, &pt->lights, lights, light_slots * sizeof(struct cs_pt_light), 0);
    free(lights);
    cs_buffer_fill(ctx, &pt->sum, 0);
    cs_buffer_fill(ctx, &pt->sum_sq, 0);
    cs_buffer_fill(ctx, &pt->info, 0);
    cs_buffer_fill(ctx, &pt->pixel_list, 0);
    cs_buffer_fill(ctx, &pt->probe_sum, 0);
    cs_buffer_fill(ctx, &pt->probe_sq, 0);
    return true;
}

void cs_pt_destroy(cs_context *ctx, cs_pathtracer *pt)
{
    cs_program_destroy(ctx, &pt->trace);
    cs_program_destroy(ctx, &pt->probe);
    cs_buffer *buffers[] = {&pt->nodes, &pt->tris,   &pt->lights,     &pt->sum,       &pt->sum_sq,
                            &pt->info,  &pt->pixel_list, &pt->probe_sum, &pt->probe_sq};
    for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++)
        cs_buffer_destroy(ctx, buffers[i]);
    memset(pt, 0, sizeof *pt);
}

// One dispatch adds at most pt->batch_spp paths an item, so that no
// invocation runs into lavapipe's loop budget (CS_PT_BATCH_SPP).
static void dispatch_trace(cs_recorder *rec, cs_pathtracer *pt, uint32_t flags, uint32_t count, uint32_t spp)
{
    CS_ASSERT(pt->batch_spp > 0, "path tracer: batch of 0 paths");
    for (uint32_t done = 0; done < spp; done += pt->batch_spp) {
        struct cs_pt_push push = pt->push;
        push.flags |= flags;
        push.item_count = count;
        push.spp = CS_MIN(spp - done, pt->batch_spp);
        cs_dispatch(rec, pt->trace, &(cs_dispatch_desc){
            .buffers = {&pt->nodes, &pt->tris, &pt->lights, &pt->sum, &pt->sum_sq, &pt->info, &pt->pixel_list},
            .push = &push, .push_size = sizeof push,
            .threads = {count},
        });
        cs_barrier_compute(rec);
    }
}

void cs_pt_record_samples(cs_recorder *rec, cs_pathtracer *pt, uint32_t spp)
{
    cs_pass_begin(rec, "pathtrace: samples");
    dispatch_trace(rec, pt, 0u, pt->pixel_count, spp);
    cs_pass_end(rec);
}

void cs_pt_record_oversample(cs_recorder *rec, cs_pathtracer *pt, const uint32_t *pixels, uint32_t count,
                             uint32_t spp)
{
    CS_ASSERT(count <= pt->pixel_count, "variance pass over %u pixels of %u", count, pt->pixel_count);
    if (count == 0)
        return;
    cs_buffer_upload(rec->ctx, &pt->pixel_list, pixels, (VkDeviceSize)count * 4, 0);
    cs_pass_begin(rec, "pathtrace: variance pass");
    dispatch_trace(rec, pt, CS_PT_PIXEL_LIST, count, spp);
    cs_pass_end(rec);
}

void cs_pt_record_probe(cs_recorder *rec, cs_pathtracer *pt, uint32_t spp)
{
    uint32_t count = pt->tri_count * CS_PT_PROBE_LANES;
    if (count == 0)
        return;
    CS_ASSERT(pt->batch_spp > 0, "path tracer: batch of 0 paths");
    cs_pass_begin(rec, "pathtrace: probe");
    for (uint32_t done = 0; done < spp; done += pt->batch_spp) {
        struct cs_pt_push push = pt->push;
        push.item_count = count;
        push.spp = CS_MIN(spp - done, pt->batch_spp);
        cs_dispatch(rec, pt->probe, &(cs_dispatch_desc){
            .buffers = {&pt->nodes, &pt->tris, &pt->lights, &pt->probe_sum, &pt->probe_sq},
            .push = &push, .push_size = sizeof push,
            .threads = {count},
        });
        cs_barrier_compute(rec);
    }
    cs_pass_end(rec);
}

void cs_pt_read_pixels(cs_context *ctx, const cs_pathtracer *pt, float *sum, float *sum_sq, uint32_t *info)
{
    VkDeviceSize bytes = (VkDeviceSize)pt->pixel_count * 16;
    if (sum)
        cs_buffer_download(ctx, &pt->sum, sum, bytes, 0);
    if (sum_sq)
        cs_buffer_download(ctx, &pt->sum_sq, sum_sq, bytes, 0);
    if (info)
        cs_buffer_download(ctx, &pt->info, info, bytes, 0);
}

// Sample variance of the luminance of one pixel's samples, from its sums:
// luminance is linear, but its square is not the weighted sum of the
// channels' squares, so this bounds it by the channels' own variances
// weighted the same way (what matters is the order of pixels, not the value).
static double pixel_variance(const float *sum, const float *sum_sq, uint32_t p)
{
    static const double weight[3] = {0.2126, 0.7152, 0.0722};
    double n = sum[4 * p + 3];
    if (n < 2.0)
        return INFINITY; // unknown: sample it first
    double v = 0.0;
    for (int c = 0; c < 3; c++) {
        double mean = sum[4 * p + c] / n;
        v += weight[c] * fmax(sum_sq[4 * p + c] / n - mean * mean, 0.0) * n / (n - 1.0);
    }
    return v;
}

typedef struct ranked_pixel {
    double variance;
    uint32_t pixel;
} ranked_pixel;

static int by_variance_descending(const void *a, const void *b)
{
    const ranked_pixel *x = a, *y = b;
    if (x->variance != y->variance)
        return x->variance > y->variance ? -1 : 1;
    return x->pixel < y->pixel ? -1 : (x->pixel > y->pixel);
}

void cs_pt_highest_variance(const float *sum, const float *sum_sq, uint32_t pixel_count, uint32_t count,
                            uint32_t *pixels)
{
    CS_ASSERT(count <= pixel_count, "%u highest-variance pixels of %u", count, pixel_count);
    ranked_pixel *ranked = malloc((size_t)pixel_count * sizeof *ranked);
    CS_ASSERT(ranked, "out of host memory");
    for (uint32_t p = 0; p < pixel_count; p++)
        ranked[p] = (ranked_pixel){pixel_variance(sum, sum_sq, p), p};
    qsort(ranked, pixel_count, sizeof *ranked, by_variance_descending);
    for (uint32_t i = 0; i < count; i++)
        pixels[i] = ranked[i].pixel;
    free(ranked);
}

void cs_pt_read_probe(cs_context *ctx, const cs_pathtracer *pt, cs_pt_probe_result *out)
{
    size_t slots = (size_t)pt->tri_count * CS_PT_PROBE_LANES;
    if (slots == 0)
        return;
    float *sum = malloc(slots * 16), *sq = malloc(slots * 16);
    CS_ASSERT(sum && sq, "out of host memory");
    cs_buffer_download(ctx, &pt->probe_sum, sum, slots * 16, 0);
    cs_buffer_download(ctx, &pt->probe_sq, sq, slots * 16, 0);
    for (uint32_t t = 0; t < pt->tri_count; t++) {
        double s[3] = {0}, q[3] = {0}, n = 0.0;
        for (uint32_t lane = 0; lane < CS_PT_PROBE_LANES; lane++) {
            size_t i = (size_t)t * CS_PT_PROBE_LANES + lane;
            for (int c = 0; c < 3; c++) {
                s[c] += sum[4 * i + c];
                q[c] += sq[4 * i + c];
            }
            n += sum[4 * i + 3];
        }
        cs_pt_probe_result *r = &out[t];
        r->samples = (uint64_t)n;
        for (int c = 0; c < 3; c++) {
            double mean = n > 0.0 ? s[c] / n : 0.0;
            double var = n > 1.0 ? fmax(q[c] / n - mean * mean, 0.0) * n / (n - 1.0) : 0.0;
            r->radiosity[c] = PI * mean;
            r->std_error[c] = n > 0.0 ? PI * sqrt(var / n) : 0.0;
        }
    }
    free(sum);
    free(sq);
}
