// pathtrace_ref.c — the path tracer's CPU twin in double precision
// (cs_pt_ref_pixel, pathtrace.h): shaders/pathtrace/pathtrace.glsl step by
// step, with the same random numbers (24-bit values, exact in float and in
// double) and pipelines/trace/bvh.c's double-precision casts. Tests compare a
// GPU sample with it; nothing else runs it.
#include "pathtrace.h"

#include <math.h>

static const double PI = 3.14159265358979323846;

static uint32_t pt_hash(uint32_t v)
{
    uint32_t state = v * 747796405u + 2891336453u;
    uint32_t word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

static double pt_random(const struct cs_pt_push *pc, uint32_t key, uint32_t s, uint32_t bounce, uint32_t dim)
{
    uint32_t h = pt_hash(pc->seed);
    h = pt_hash(bounce * CS_PT_DIMS + dim + h);
    h = pt_hash(s + h);
    h = pt_hash(key + h);
    return (double)(h >> 8u) * (1.0 / 16777216.0);
}

typedef struct vec3d {
    double x, y, z;
} vec3d;

static vec3d v3(double x, double y, double z) { return (vec3d){x, y, z}; }
static vec3d v4xyz(vec4 v) { return v3(v.x, v.y, v.z); }
static vec3d add(vec3d a, vec3d b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static vec3d sub(vec3d a, vec3d b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static vec3d scale(vec3d a, double k) { return v3(a.x * k, a.y * k, a.z * k); }
static vec3d mul(vec3d a, vec3d b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
static double dot(vec3d a, vec3d b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static vec3d cross(vec3d a, vec3d b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static vec3d normalized(vec3d a) { return scale(a, 1.0 / sqrt(dot(a, a))); }

static vec3d tri_normal(const cs_tri *t)
{
    return normalized(cross(sub(v4xyz(t->v1), v4xyz(t->v0)), sub(v4xyz(t->v2), v4xyz(t->v0))));
}

static vec3d tri_point(const cs_tri *t, double a, double b)
{
    double s = sqrt(a);
    return add(add(scale(v4xyz(t->v0), 1.0 - s), scale(v4xyz(t->v1), s * (1.0 - b))), scale(v4xyz(t->v2), s * b));
}

static vec3d cosine_direction(vec3d n, double a, double b)
{
    double sgn = n.z >= 0.0 ? 1.0 : -1.0;
    double c = -1.0 / (sgn + n.z);
    double m = n.x * n.y * c;
    vec3d t = v3(1.0 + sgn * n.x * n.x * c, sgn * m, -sgn * n.x);
    vec3d bt = v3(m, sgn + n.y * n.y * c, -n.y);
    double r = sqrt(a), phi = 2.0 * PI * b;
    return add(add(scale(t, r * cos(phi)), scale(bt, r * sin(phi))), scale(n, sqrt(fmax(1.0 - a, 0.0))));
}

static uint32_t pick_light(const struct cs_pt_light *lights, uint32_t count, double u)
{
    uint32_t lo = 0, hi = count - 1;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (u < lights[mid].cdf.x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lights[lo].tri.x;
}

static vec3d light_sample(const cs_bvh *bvh, const struct cs_pt_light *lights, const struct cs_pt_push *pc,
                          uint32_t key, uint32_t s, uint32_t bounce, vec3d p, vec3d ns, vec3d albedo)
{
    uint32_t l = pick_light(lights, pc->light_count, pt_random(pc, key, s, bounce, CS_PT_DIM_LIGHT));
    const cs_tri *lt = &bvh->tris[l];
    vec3d q = tri_point(lt, pt_random(pc, key, s, bounce, CS_PT_DIM_LIGHT_U),
                        pt_random(pc, key, s, bounce, CS_PT_DIM_LIGHT_V));
    vec3d o = add(p, scale(ns, pc->origin.w));
    vec3d to = sub(q, o);
    double dist2 = dot(to, to);
    vec3d dir = scale(to, 1.0 / sqrt(dist2));
    double cos_x = dot(ns, dir), cos_l = -dot(tri_normal(lt), dir);
    if (!(cos_x > 0.0 && cos_l > 0.0))
        return v3(0, 0, 0);
    const double origin[3] = {o.x, o.y, o.z}, d[3] = {to.x, to.y, to.z};
    if (!cs_bvh_unoccluded(bvh, origin, d, 0.0, 1.0 - 1e-4))
        return v3(0, 0, 0);
    vec3d radiance = scale(v4xyz(lt->emission), 1.0 / PI);
    double p_light = dist2 / (cos_l * pc->light_area), p_bounce = cos_x / PI;
    return scale(mul(scale(albedo, 1.0 / PI), radiance), cos_x / (p_light + p_bounce));
}

static double bounce_weight(const struct cs_pt_push *pc, vec3d from, double p_bounce, vec3d p, vec3d n, vec3d d)
{
    vec3d to = sub(p, from);
    double p_light = dot(to, to) / (fmax(-dot(n, d), 0.0) * pc->light_area);
    return p_bounce / (p_bounce + p_light);
}

void cs_pt_ref_pixel(const cs_bvh *bvh, const struct cs_pt_light *lights, const struct cs_pt_push *pc,
                     uint32_t pixel, uint32_t s, double out[3], uint32_t info[3])
{
    uint32_t px = pixel % pc->width, py = pixel / pc->width;
    double sx = 2.0 * (px + pt_random(pc, pixel, s, 0, CS_PT_DIM_START_U)) / pc->width - 1.0;
    double sy = 1.0 - 2.0 * (py + pt_random(pc, pixel, s, 0, CS_PT_DIM_START_V)) / pc->height;
    vec3d d = normalized(add(add(v4xyz(pc->forward), scale(v4xyz(pc->right), sx)), scale(v4xyz(pc->up), sy)));
    vec3d o = v4xyz(pc->origin);
    vec3d radiance = v3(0, 0, 0), beta = v3(1, 1, 1);
    bool nee = (pc->flags & CS_PT_NEE) != 0 && pc->light_count > 0;
    info[0] = CS_PT_NO_HIT, info[1] = 0, info[2] = 0;
    double p_bounce = 0.0;
    for (uint32_t bounce = 0; bounce <= pc->max_bounces; bounce++) {
        const double origin[3] = {o.x, o.y, o.z}, dir[3] = {d.x, d.y, d.z};
        cs_ray_hit hit = cs_bvh_cast(bvh, origin, dir, 0.0, 3.0e38);
        uint32_t tri = hit.hit ? hit.tri : CS_PT_NO_HIT;
        info[2] = pt_hash(info[2] + tri);
        if (!hit.hit)
            break;
        const cs_tri *t = &bvh->tris[tri];
        vec3d v0 = v4xyz(t->v0);
        vec3d p = add(add(v0, scale(sub(v4xyz(t->v1), v0), hit.u)), scale(sub(v4xyz(t->v2), v0), hit.v));
        if (bounce == 0)
            info[0] = tri;
        info[1]++;
        vec3d n = tri_normal(t);
        bool front = dot(n, d) < 0.0;
        if (front) {
            double w = bounce == 0 || !nee ? 1.0 : bounce_weight(pc, o, p_bounce, p, n, d);
            radiance = add(radiance, mul(beta, scale(v4xyz(t->emission), w / PI)));
        }
        if (bounce == pc->max_bounces)
            break;
        vec3d ns = front ? n : scale(n, -1.0);
        vec3d albedo = v4xyz(t->albedo);
        if (nee)
            radiance = add(radiance, mul(beta, light_sample(bvh, lights, pc, pixel, s, bounce, p, ns, albedo)));
        beta = mul(beta, albedo);
        if ((pc->flags & CS_PT_ROULETTE) != 0 && bounce >= pc->rr_start) {
            double survive = fmin(fmax(beta.x, fmax(beta.y, beta.z)), 0.95);
            if (!(pt_random(pc, pixel, s, bounce, CS_PT_DIM_ROULETTE) < survive))
                break;
            beta = scale(beta, 1.0 / survive);
        }
        d = cosine_direction(ns, pt_random(pc, pixel, s, bounce, CS_PT_DIM_DIR_U),
                             pt_random(pc, pixel, s, bounce, CS_PT_DIM_DIR_V));
        p_bounce = fmax(dot(ns, d), 0.0) / PI;
        o = add(p, scale(ns, pc->origin.w));
    }
    out[0] = radiance.x, out[1] = radiance.y, out[2] = radiance.z;
}
