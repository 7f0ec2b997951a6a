// test_light.c — point, spot and spherical lights (pipelines/light/light.h,
// shaders/light/light.glsl):
//   - the spherical light's analytic irradiance on a plane below it against
//     Monte-Carlo integration over the sphere's surface, in double: equal
//     wherever the whole sphere is above the shaded point's horizon, and an
//     overestimate where the sphere dips below it;
//   - every window: f(0) = 1, f = 0 at and past d_max, monotone, zero slope
//     at d_max for tan and rational (checked numerically) and the cutoff's
//     nonzero slope there (the kink the seed warns about);
//   - the GLSL against the C for random lights of every kind and window,
//     and no NaN at d = 0, d = d_max, d > d_max or at the light's centre.
// The GPU output is poisoned (NaN) first; every comparison fails on NaN.
// ctest labels: quick,gpu -- 5
#include "test_util.h"

#include "light.h"

#define PI 3.14159265358979323846

static void random_direction(double d[3])
{
    double z = 2.0 * test_rand_unit() - 1.0, phi = 2.0 * PI * test_rand_unit(), s = sqrt(fmax(0.0, 1.0 - z * z));
    d[0] = s * cos(phi), d[1] = s * sin(phi), d[2] = z;
}

// ------------------------------------------------------- Monte Carlo (CPU)

// Irradiance at p (normal n) from a sphere of radius r at c emitting
// radiance le uniformly (a Lambertian emitter): the integral over the
// sphere's surface of le cos(at p) cos(at the sphere) / dist^2 dA. Only the
// cap of the sphere that faces p (u . (p - c) >= r^2 / |p - c| ... i.e.
// cos at the sphere > 0) can be seen, so samples are spread uniformly over
// that cap's area (2 pi r^2 (1 - r / D)); points below p's horizon (cos at
// p <= 0) add nothing. Returns the estimate and its standard error.
static double mc_sphere(const double c[3], double r, double le, const double p[3], const double n[3], uint32_t samples,
                        double *std_err)
{
    double w[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
    double D = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
    for (int a = 0; a < 3; a++)
        w[a] /= D;
    // A frame (t1, t2, w).
    double t1[3] = {fabs(w[0]) < 0.9 ? 1.0 : 0.0, fabs(w[0]) < 0.9 ? 0.0 : 1.0, 0.0}, t2[3];
    double k = t1[0] * w[0] + t1[1] * w[1];
    for (int a = 0; a < 3; a++)
        t1[a] -= k * w[a];
    double l1 = sqrt(t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2]);
    for (int a = 0; a < 3; a++)
        t1[a] /= l1;
    t2[0] = w[1] * t1[2] - w[2] * t1[1], t2[1] = w[2] * t1[0] - w[0] * t1[2], t2[2] = w[0] * t1[1] - w[1] * t1[0];
    double cap_cos = r / D, area = 2.0 * PI * r * r * (1.0 - cap_cos);
    double sum = 0.0, sum2 = 0.0;
    for (uint32_t s = 0; s < samples; s++) {
        double z = 1.0 - test_rand_unit() * (1.0 - cap_cos), phi = 2.0 * PI * test_rand_unit();
        double q = sqrt(fmax(0.0, 1.0 - z * z)), u[3], v[3];
        for (int a = 0; a < 3; a++) {
            u[a] = q * cos(phi) * t1[a] + q * sin(phi) * t2[a] + z * w[a];
            v[a] = c[a] + r * u[a] - p[a];
        }
        double dist2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2], dist = sqrt(dist2);
        double cos_p = (n[0] * v[0] + n[1] * v[1] + n[2] * v[2]) / dist;
        double cos_s = -(u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / dist;
        double x = cos_p > 0.0 && cos_s > 0.0 ? le * cos_p * cos_s / dist2 * area : 0.0;
        sum += x;
        sum2 += x * x;
    }
    double mean = sum / samples;
    *std_err = sqrt(fmax(sum2 / samples - mean * mean, 0.0) / samples);
    return mean;
}

static void check_monte_carlo(void)
{
    const uint32_t samples = 1000000;
    const double n[3] = {0.0, 0.0, 1.0};
    static const double radii[] = {0.1, 1.0, 2.5};
    static const double heights[] = {1.0, 1.05, 1.2, 2.0, 5.0, 20.0}; // centre height / r: 1 touches the plane
    static const double angles[] = {0.0, 30.0, 60.0, 80.0};         // from the vertical, at the point
    double worst_sigma = 0.0, worst_rel = 0.0, worst_se = 0.0;
    for (size_t ri = 0; ri < CS_ARRAY_COUNT(radii); ri++)
        for (size_t hi = 0; hi < CS_ARRAY_COUNT(heights); hi++)
            for (size_t ai = 0; ai < CS_ARRAY_COUNT(angles); ai++) {
                // The contact point itself (d = 0 on a touching sphere) sees the
                // sphere as its tangent plane: f = 1, E = pi Le, the limit of
                // the cases around it; no surface sample is visible from there.
                if (hi == 0 && ai == 0)
                    continue;
                double r = radii[ri], h = heights[hi] * r, x = h * tan(angles[ai] * PI / 180.0);
                float centre[3] = {0.0f, 0.0f, (float)h}, color[3] = {1.0f, 1.0f, 1.0f};
                cs_light light = cs_light_sphere(centre, (float)r, color, 0.0f, CS_WINDOW_NONE);
                double c[3] = {0.0, 0.0, light.position_radius.z}, p[3] = {x, 0.0, 0.0}, e[3], se;
                cs_light_irradiance(&light, p, n, e);
                // color = pi Le: the irradiance facing the sphere at its surface.
                double mc = mc_sphere(c, light.position_radius.w, 1.0 / PI, p, n, samples, &se);
                double rel = fabs(e[0] - mc) / mc;
                worst_sigma = fmax(worst_sigma, fabs(e[0] - mc) / se);
                worst_rel = fmax(worst_rel, rel);
                worst_se = fmax(worst_se, se / mc);
                CHECK(fabs(e[0] - mc) <= 5.0 * se,
                      "sphere r %g at height %g, point %g off-axis: analytic %.6g, Monte Carlo %.6g +- %.2g", r, h, x,
                      e[0], mc, se);
            }
    fprintf(stderr, "sphere light above a plane (sphere wholly above the horizon, %zu cases, %u samples each): "
            "analytic vs Monte Carlo within %.2f standard errors, %.3f%% (standard errors up to %.3f%%, near "
            "contact)\n", CS_ARRAY_COUNT(radii) * (CS_ARRAY_COUNT(heights) * CS_ARRAY_COUNT(angles) - 1), samples,
            worst_sigma, 100 * worst_rel, 100 * worst_se);

    // The sphere cut by the plane (centre below r): part of it is below the
    // shaded point's horizon. pi Le (r / D)^2 cos(theta) is the integral of
    // the SIGNED cosine over the whole disc the sphere covers, so the part
    // below the horizon counts negatively and the formula underestimates.
    for (int k = 0; k < 3; k++) {
        double r = 1.0, h = 0.5 * r, x = 1.5 + k;
        float centre[3] = {0.0f, 0.0f, (float)h}, color[3] = {1.0f, 1.0f, 1.0f};
        cs_light light = cs_light_sphere(centre, (float)r, color, 0.0f, CS_WINDOW_NONE);
        double c[3] = {0.0, 0.0, h}, p[3] = {x, 0.0, 0.0}, e[3], se;
        cs_light_irradiance(&light, p, n, e);
        double mc = mc_sphere(c, r, 1.0 / PI, p, n, samples, &se);
        CHECK(e[0] < mc - 5.0 * se, "sphere cut by the plane, point at %g: analytic %.6g, Monte Carlo %.6g +- %.2g",
              x, e[0], mc, se);
        fprintf(stderr, "sphere r 1 at height 0.5 (cut by the plane), point %g off-axis: analytic %.5g, Monte Carlo "
                "%.5g: %.1f%% (no horizon in the formula)\n", x, e[0], mc, 100 * (e[0] / mc - 1));
    }
}

// -------------------------------------------------------------- windows

static const char *const window_names[] = {"none", "cutoff", "tan", "rational"};

static void check_windows(void)
{
    static const double radii[] = {0.05, 1.0, 3.0};
    static const double ranges[] = {2.0, 5.0, 20.0, 100.0}; // d_max / r
    for (uint32_t w = CS_WINDOW_CUTOFF; w <= CS_WINDOW_RATIONAL; w++) {
        double worst_slope = 0.0, worst_value = 0.0;
        for (size_t ri = 0; ri < CS_ARRAY_COUNT(radii); ri++)
            for (size_t di = 0; di < CS_ARRAY_COUNT(ranges); di++) {
                double r = radii[ri], dm = ranges[di] * r;
                const char *wn = window_names[w];
                double f0 = cs_light_falloff(0.0, r, dm, w);
                CHECK(fabs(f0 - 1.0) <= 1e-15, "%s r %g d_max %g: f(0) = %.17g", wn, r, dm, f0);
                static const double past[] = {1.0, 1.0 + 1e-12, 1.5, 1e30};
                for (size_t k = 0; k < CS_ARRAY_COUNT(past); k++) {
                    double f = cs_light_falloff(dm * past[k], r, dm, w);
                    CHECK(f == 0.0, "%s r %g d_max %g: f(%g d_max) = %g, want 0", wn, r, dm, past[k], f);
                }
                CHECK(cs_light_falloff(INFINITY, r, dm, w) == 0.0, "%s: f(inf) not 0", wn);
                // Monotone on [0, d_max], and never above the plain curve
                // except where the cutoff rescales it near the light.
                double prev = 1.0;
                for (int k = 0; k <= 10000; k++) {
                    double d = dm * k / 10000.0, f = cs_light_falloff(d, r, dm, w);
                    CHECK(f <= prev && f >= 0.0, "%s r %g d_max %g: f(%g) = %.17g after %.17g", wn, r, dm, d, f, prev);
                    if (!(f <= prev && f >= 0.0))
                        break;
                    prev = f;
                }
                // One-sided slope at d_max, (f(d_max) - f(d_max - eps)) / eps,
                // against the slope at the light, -2 / r.
                double slope0 = 2.0 / r, g[3];
                for (int k = 0; k < 3; k++) {
                    double eps = dm * pow(10.0, -3.0 - k);
                    g[k] = -cs_light_falloff(dm - eps, r, dm, w) / eps;
                }
                if (w == CS_WINDOW_CUTOFF) {
                    // (f - c) / (1 - c) has f's slope over (1 - c) at d_max.
                    double c = cs_light_attenuation(dm, r);
                    double want = -2.0 / r * pow(dm / r + 1.0, -3.0) / (1.0 - c);
                    CHECK(fabs(g[2] - want) <= 1e-3 * fabs(want) && want != 0.0,
                          "cutoff r %g d_max %g: slope at d_max %.6g, analytic %.6g", r, dm, g[2], want);
                    worst_value = fmax(worst_value, fabs(g[2]) / slope0);
                } else {
                    // Zero slope: it shrinks with eps (linearly), and is tiny
                    // against the slope at the light.
                    CHECK(fabs(g[2]) <= 1e-3 * slope0 && fabs(g[2]) <= 0.2 * fabs(g[1]) + 1e-300,
                          "%s r %g d_max %g: slope near d_max %.3g, %.3g, %.3g (the light's %.3g)", wn, r, dm, g[0],
                          g[1], g[2], slope0);
                    worst_slope = fmax(worst_slope, fabs(g[2]) / slope0);
                    double v = cs_light_falloff(dm * (1 - 1e-5), r, dm, w);
                    worst_value = fmax(worst_value, v);
                }
            }
        if (w == CS_WINDOW_CUTOFF)
            fprintf(stderr, "window cutoff: value 0 at d_max, slope there up to %.3g of the slope at the light "
                    "(not 0: the kink)\n", worst_value);
        else
            fprintf(stderr, "window %s: value 0 at d_max (%.2g at 1e-5 short of it), slope 1e-5 d_max short of it "
                    "%.2g of the slope at the light\n", window_names[w], worst_value, worst_slope);
    }
    // The seed's range for a threshold: the plain curve reaches it there.
    double r = 0.5, li = 40.0, ic = 0.01, dm = cs_light_range(r, li, ic);
    CHECK(fabs(li * cs_light_attenuation(dm, r) - ic) <= 1e-12, "range %g: %g there, want %g", dm,
          li * cs_light_attenuation(dm, r), ic);
    // The point-light form: 1 / (1 + (2 / r) d + d^2 / r^2).
    for (int k = 0; k < 100; k++) {
        double d = 10.0 * test_rand_unit(), rr = 0.1 + test_rand_unit();
        double quad = 1.0 / (1.0 + 2.0 / rr * d + d * d / (rr * rr));
        CHECK(fabs(cs_light_attenuation(d, rr) - quad) <= 1e-14, "k_c = 1, k_l = 2 / r, k_q = 1 / r^2 at d %g", d);
    }
}

// ---------------------------------------------------------- GLSL vs C

static void check_gpu(cs_context *ctx)
{
    const uint32_t n = 8192;
    cs_light *lights = calloc(n, sizeof(cs_light));
    float *points = calloc((size_t)n * 4, sizeof(float)), *normals = calloc((size_t)n * 4, sizeof(float));
    float *out = malloc((size_t)n * 16);
    CS_ASSERT(lights && points && normals && out, "out of host memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t kind = i % 3, window = (i / 3) % 4;
        double axis[3], nd[3], dir[3];
        random_direction(axis);
        random_direction(nd);
        random_direction(dir);
        float pos[3], ax[3] = {(float)axis[0], (float)axis[1], (float)axis[2]};
        for (int a = 0; a < 3; a++)
            pos[a] = (float)(20.0 * test_rand_unit() - 10.0);
        float r = (float)(0.05 + 2.0 * test_rand_unit()), dm = (float)(r * (1.5 + 30.0 * test_rand_unit()));
        float color[3] = {(float)(0.1 + 10 * test_rand_unit()), (float)(0.1 + 10 * test_rand_unit()),
                          (float)(0.1 + 10 * test_rand_unit())};
        float inner = (float)(0.1 + 0.6 * test_rand_unit()), outer = inner + (float)(0.05 + 0.5 * test_rand_unit());
        lights[i] = kind == CS_LIGHT_POINT  ? cs_light_point(pos, r, color, dm, window)
                    : kind == CS_LIGHT_SPOT ? cs_light_spot(pos, ax, inner, outer, r, color, dm, window)
                                            : cs_light_sphere(pos, r, color, dm, window);
        cs_error err;
        CHECK(cs_light_check(&lights[i], "random light", &err), "%s", err.msg);
        // Distance from the surface (sphere) or the centre: on the light,
        // inside the range, at d_max, past it; some exactly at the centre.
        double surface = kind == CS_LIGHT_SPHERE ? r : 0.0;
        double pick = test_rand_unit(), d;
        if (i % 97 == 0)
            d = -surface; // the centre itself
        else if (pick < 0.1)
            d = 0.0;
        else if (pick < 0.2)
            d = dm;
        else if (pick < 0.3)
            d = dm * (1.0 + test_rand_unit());
        else
            d = dm * test_rand_unit();
        for (int a = 0; a < 3; a++) {
            points[4 * i + a] = (float)(pos[a] + (surface + d) * dir[a]);
            normals[4 * i + a] = (float)nd[a];
        }
        // The falloff column: a distance of its own, with the edges.
        static const double edges[] = {0.0, 1.0, 1.0 - 1e-6, 1.0 + 1e-6, 2.0, 1e30};
        points[4 * i + 3] = (float)(i % 4 == 0 ? dm * edges[(i / 4) % 6] : dm * 1.2 * test_rand_unit());
    }
    cs_program_id prog;
    test_program(ctx, &prog, "test/light_eval.comp", NULL);
    cs_buffer lbuf, pbuf, nbuf, obuf;
    test_buffer(ctx, &lbuf, "lights", (VkDeviceSize)n * sizeof(cs_light));
    test_buffer(ctx, &pbuf, "points", (VkDeviceSize)n * 16);
    test_buffer(ctx, &nbuf, "normals", (VkDeviceSize)n * 16);
    test_buffer(ctx, &obuf, "irradiance", (VkDeviceSize)n * 16);
    cs_buffer_upload(ctx, &lbuf, lights, (VkDeviceSize)n * sizeof(cs_light), 0);
    cs_buffer_upload(ctx, &pbuf, points, (VkDeviceSize)n * 16, 0);
    cs_buffer_upload(ctx, &nbuf, normals, (VkDeviceSize)n * 16, 0);
    cs_buffer_fill(ctx, &obuf, CS_POISON_U32);
    cs_recorder rec;
    cs_recorder_create(ctx, "light eval", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "light eval");
    cs_dispatch(&rec, prog, &(cs_dispatch_desc){.buffers = {&lbuf, &pbuf, &nbuf, &obuf}, .push = &n, .push_size = 4,
                                                 .threads = {n}});
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    cs_buffer_download(ctx, &obuf, out, (VkDeviceSize)n * 16, 0);
    cs_recorder_destroy(&rec);

    double worst_e = 0.0, worst_f = 0.0;
    int reported = 0;
    for (uint32_t i = 0; i < n && reported < 10; i++) {
        const cs_light *l = &lights[i];
        double p[3] = {points[4 * i], points[4 * i + 1], points[4 * i + 2]};
        double nn[3] = {normals[4 * i], normals[4 * i + 1], normals[4 * i + 2]}, e[3];
        cs_light_irradiance(l, p, nn, e);
        double f = cs_light_falloff(points[4 * i + 3], l->position_radius.w, l->params.y, l->kind.y);
        const float *g = &out[4 * i];
        int before = test_failures;
        // Float rounding of the distance, amplified near d_max where the
        // windows are steep in relative terms: 2e-5 relative plus 2e-6
        // of the light's colour absolute.
        for (int c = 0; c < 3; c++) {
            double col = (&l->color.x)[c], err = fabs(g[c] - e[c]);
            worst_e = fmax(worst_e, isnan(err) ? INFINITY : err / (2e-5 * fabs(e[c]) + 2e-6 * col));
            CHECK(err <= 2e-5 * fabs(e[c]) + 2e-6 * col, "light %u (kind %u, window %s): E[%d] GPU %.9g, C %.9g", i,
                  l->kind.x, window_names[l->kind.y], c, g[c], e[c]);
        }
        double ferr = fabs(g[3] - f);
        worst_f = fmax(worst_f, isnan(ferr) ? INFINITY : ferr / (2e-5 * f + 2e-6));
        CHECK(ferr <= 2e-5 * f + 2e-6, "light %u (window %s, r %g, d_max %g): f(%.9g) GPU %.9g, C %.9g", i,
              window_names[l->kind.y], l->position_radius.w, l->params.y, points[4 * i + 3], g[3], f);
        // At and past d_max every window gives exactly 0, on both sides.
        if (l->kind.y != CS_WINDOW_NONE && points[4 * i + 3] >= l->params.y)
            CHECK(g[3] == 0.0f && f == 0.0, "light %u (window %s): f(%g >= d_max %g) = %g / %g", i,
                  window_names[l->kind.y], points[4 * i + 3], l->params.y, g[3], f);
        reported += test_failures != before;
    }
    fprintf(stderr, "GLSL vs C, %u random lights (point, spot, sphere x 4 windows): worst irradiance error %.2f, "
            "falloff error %.2f of the tolerance (2e-5 relative + 2e-6 absolute)\n", n, worst_e, worst_f);

    cs_buffer_destroy(ctx, &lbuf);
    cs_buffer_destroy(ctx, &pbuf);
    cs_buffer_destroy(ctx, &nbuf);
    cs_buffer_destroy(ctx, &obuf);
    cs_program_destroy(ctx, &prog);
    free(lights);
    free(points);
    free(normals);
    free(out);
}

// Spot cone and refusals on the host.
static void check_spot_and_refusals(void)
{
    float pos[3] = {0, 0, 5}, down[3] = {0, 0, -1}, color[3] = {1, 1, 1};
    cs_light spot = cs_light_spot(pos, down, 0.2f, 0.4f, 0.5f, color, 50.0f, CS_WINDOW_DEFAULT);
    double n[3] = {0, 0, 1}, e[3];
    double below[3] = {0, 0, 0}, inside[3] = {5 * tan(0.1), 0, 0}, outside[3] = {5 * tan(0.5), 0, 0};
    cs_light_irradiance(&spot, below, n, e);
    CHECK(e[0] > 0.0, "spot: nothing straight below");
    double full = e[0];
    cs_light_irradiance(&spot, inside, n, e);
    double dist = sqrt(25.0 + inside[0] * inside[0]);
    CHECK(fabs(e[0] - cs_light_falloff(dist, 0.5, 50.0, CS_WINDOW_DEFAULT) * 5.0 / dist) <= 1e-12,
          "spot: inside the inner cone %.9g is not the full light", e[0]);
    cs_light_irradiance(&spot, outside, n, e);
    CHECK(e[0] == 0.0 && full > 0.0, "spot: outside the outer cone %g", e[0]);

    cs_error err;
    cs_light bad = cs_light_sphere(pos, 0.0f, color, 10.0f, CS_WINDOW_RATIONAL);
    CHECK(!cs_light_check(&bad, "lamp", &err) && strstr(err.msg, "lamp") && strstr(err.msg, "radius"), "r 0: %s",
          err.msg);
    bad = cs_light_sphere(pos, 1.0f, color, 0.0f, CS_WINDOW_TAN);
    CHECK(!cs_light_check(&bad, "lamp", &err) && strstr(err.msg, "range"), "range 0: %s", err.msg);
    bad = cs_light_spot(pos, down, 0.5f, 0.4f, 1.0f, color, 10.0f, CS_WINDOW_RATIONAL);
    CHECK(!cs_light_check(&bad, "lamp", &err) && strstr(err.msg, "inner"), "inner > outer: %s", err.msg);
    bad = cs_light_sphere(pos, 1.0f, color, 0.0f, CS_WINDOW_NONE);
    CHECK(cs_light_check(&bad, "lamp", &err), "an unwindowed light needs no range: %s", err.msg);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    check_monte_carlo();
    check_windows();
    check_spot_and_refusals();
    check_gpu(&ctx);
    return test_finish(&ctx);
}
