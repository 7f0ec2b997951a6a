// test_sh.c — spherical harmonics l <= 2: the basis in C (double, float)
// and GLSL against a reference written from the general definition, the
// rotation of coefficients, the GPU projection of lat-long and cube
// environments of many shapes against a double-precision CPU sum, analytic
// cases (constant radiance, a directional delta), SH irradiance of synthetic
// skies against brute-force integration, and .hdr loading (good, damaged,
// missing files). Outputs are poisoned (NaN) before every GPU run, and every
// comparison is written so that a NaN fails it.
// ctest labels: slow,gpu -- 18
#define _DEFAULT_SOURCE
#include "test_util.h"

#include "env.h"
#include "sh.h"
#include "sh_project.h"

#include "ref/sh_ref.h"

#include <stb/stb_image_write.h>
#include <dirent.h>
#include <unistd.h>

#define PI REF_PI
#define CAPACITY (1024u * 512u)

static cs_context ctx;
static cs_sh_gpu gpu;
static cs_program_id eval_prog;

// ------------------------------------------------------------------ helpers

static void random_direction(double d[3])
{
    double z = 2.0 * test_rand_unit() - 1.0, phi = 2.0 * PI * test_rand_unit(), s = sqrt(fmax(0.0, 1.0 - z * z));
    d[0] = s * cos(phi), d[1] = s * sin(phi), d[2] = z;
}

// A uniformly random rotation (unit quaternion from four normals).
static void random_rotation(double R[3][3])
{
    double q[4], len = 0.0;
    for (int i = 0; i < 4; i++) {
        double u1 = fmax(test_rand_unit(), 1e-300), u2 = test_rand_unit();
        q[i] = sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
        len += q[i] * q[i];
    }
    len = sqrt(len);
    double w = q[0] / len, x = q[1] / len, y = q[2] / len, z = q[3] / len;
    double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                      {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                      {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    memcpy(R, m, sizeof m);
}

static void mat_vec(const double R[3][3], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = R[i][0] * v[0] + R[i][1] * v[1] + R[i][2] * v[2];
}

// Directions spread evenly over the sphere (Fibonacci lattice).
static void fibonacci_direction(uint32_t i, uint32_t n, double d[3])
{
    double z = 1.0 - (2.0 * i + 1.0) / n, s = sqrt(fmax(0.0, 1.0 - z * z));
    double phi = i * PI * (3.0 - sqrt(5.0));
    d[0] = s * cos(phi), d[1] = s * sin(phi), d[2] = z;
}

static bool finite3(const float *v)
{
    return !test_not_finite(v[0]) && !test_not_finite(v[1]) && !test_not_finite(v[2]);
}

// Radiance coefficients L[i][c] of an environment, in double, as the GPU
// sums them: the same float texels, directions and solid angles in double.
static void ref_project(const cs_env *env, double L[CS_SH_COUNT][3], double *abs_sum)
{
    memset(L, 0, sizeof(double) * CS_SH_VALUES);
    *abs_sum = 0.0;
    uint32_t n = cs_env_texel_count(env);
    for (uint32_t t = 0; t < n; t++) {
        double d[3], y[CS_SH_COUNT];
        cs_env_texel_direction(env->layout, env->width, env->height, t, d);
        double w = cs_env_texel_solid_angle(env->layout, env->width, env->height, t);
        ref_sh_basis(d, y);
        for (int c = 0; c < 3; c++) {
            double lw = env->rgb[3 * (size_t)t + c] * w;
            *abs_sum += fabs(lw);
            for (int i = 0; i < CS_SH_COUNT; i++)
                L[i][c] += lw * y[i];
        }
    }
}

// Brute-force irradiance of an environment at normal n, in double.
static void ref_irradiance(const cs_env *env, const double n[3], double e[3])
{
    e[0] = e[1] = e[2] = 0.0;
    uint32_t count = cs_env_texel_count(env);
    for (uint32_t t = 0; t < count; t++) {
        double d[3];
        cs_env_texel_direction(env->layout, env->width, env->height, t, d);
        double c = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
        if (c <= 0.0)
            continue;
        double w = c * cs_env_texel_solid_angle(env->layout, env->width, env->height, t);
        for (int a = 0; a < 3; a++)
            e[a] += env->rgb[3 * (size_t)t + a] * w;
    }
}

// Projects `env` on the GPU (poisoned coefficients first); returns the
// pass times in ms through project_ms / sum_ms when not NULL.
static void gpu_project(const cs_env *env, float L[CS_SH_COUNT][3], double *project_ms, double *sum_ms)
{
    cs_error err;
    bool up = cs_sh_gpu_upload(&ctx, &gpu, env, &err);
    CHECK(up, "%s", err.msg);
    cs_buffer_fill(&ctx, &gpu.coeffs, CS_POISON_U32);
    cs_buffer_fill(&ctx, &gpu.partials, CS_POISON_U32);
    cs_recorder rec;
    cs_recorder_create(&ctx, "sh projection", &rec);
    cs_recorder_begin(&rec);
    cs_sh_project_record(&rec, &gpu);
    cs_recorder_submit_wait(&rec);
    cs_sh_gpu_read(&ctx, &gpu, L);
    if (project_ms)
        *project_ms = cs_recorder_pass_ms(&rec, "sh: project");
    if (sum_ms)
        *sum_ms = cs_recorder_pass_ms(&rec, "sh: sum");
    cs_recorder_destroy(&rec);
}

// GPU: basis values and SH irradiance (of `coeffs`) at `n` directions.
static void gpu_eval(const double *dirs, uint32_t n, const float coeffs[CS_SH_VALUES], float *basis, float *irr)
{
    float *d4 = calloc((size_t)n * 4, sizeof(float)), *out = malloc((size_t)n * 12 * sizeof(float));
    CS_ASSERT(d4 && out, "out of host memory");
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            d4[4 * i + a] = (float)dirs[3 * i + a];
    cs_buffer dbuf, cbuf, obuf;
    test_buffer(&ctx, &dbuf, "sh eval directions", (VkDeviceSize)n * 16);
    test_buffer(&ctx, &cbuf, "sh eval coefficients", CS_SH_VALUES * 4);
    test_buffer(&ctx, &obuf, "sh eval out", (VkDeviceSize)n * 48);
    cs_buffer_upload(&ctx, &dbuf, d4, (VkDeviceSize)n * 16, 0);
    cs_buffer_upload(&ctx, &cbuf, coeffs, CS_SH_VALUES * 4, 0);
    cs_buffer_fill(&ctx, &obuf, CS_POISON_U32);
    cs_recorder rec;
    cs_recorder_create(&ctx, "sh eval", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "sh eval");
    cs_dispatch(&rec, eval_prog, &(cs_dispatch_desc){.buffers = {&dbuf, &cbuf, &obuf}, .push = &n, .push_size = 4,
                                                      .threads = {n}});
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    cs_buffer_download(&ctx, &obuf, out, (VkDeviceSize)n * 48, 0);
    cs_recorder_destroy(&rec);
    for (uint32_t i = 0; i < n; i++) {
        memcpy(&basis[9 * i], &out[12 * i], 9 * sizeof(float));
        memcpy(&irr[3 * i], &out[12 * i + 9], 3 * sizeof(float));
    }
    cs_buffer_destroy(&ctx, &dbuf);
    cs_buffer_destroy(&ctx, &cbuf);
    cs_buffer_destroy(&ctx, &obuf);
    free(d4);
    free(out);
}

static void make_env(cs_env *env, uint32_t layout, uint32_t w, uint32_t h, const char *name)
{
    cs_error err;
    if (!cs_env_create(env, layout, w, h, name, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        exit(1);
    }
}

static const char *layout_name(uint32_t layout)
{
    return layout == CS_SH_CUBE ? "cube" : "lat-long";
}

// ------------------------------------------------------------ basis (CPU)

static void check_basis_cpu(void)
{
    double worst = 0.0, worst_f = 0.0;
    for (int k = 0; k < 2000; k++) {
        double d[3], y[9], r[9];
        random_direction(d);
        if (k < 6) { // the axes (the poles are where theta/phi formulas are delicate)
            d[0] = d[1] = d[2] = 0.0;
            d[k / 2] = k % 2 ? -1.0 : 1.0;
        }
        cs_sh_basis(d, y);
        ref_sh_basis(d, r);
        float df[3] = {(float)d[0], (float)d[1], (float)d[2]}, yf[9];
        cs_sh_basis_f(df, yf);
        for (int i = 0; i < 9; i++) {
            worst = fmax(worst, fabs(y[i] - r[i]));
            worst_f = fmax(worst_f, fabs((double)yf[i] - y[i]));
            CHECK(fabs(y[i] - r[i]) <= 1e-12, "Y_%d(%g %g %g) = %.17g, the general formula gives %.17g", i, d[0],
                  d[1], d[2], y[i], r[i]);
            CHECK(fabs((double)yf[i] - y[i]) <= 1e-6, "float Y_%d = %.9g, double %.17g", i, yf[i], y[i]);
        }
    }
    // The sign convention spelled out: no Condon–Shortley phase means
    // Y1-1 = +K1 y and Y11 = +K1 x, where the seed's table (with the phase)
    // has minus signs on odd m.
    double x_axis[3] = {1, 0, 0}, y_axis[3] = {0, 1, 0}, diag[3] = {sqrt(0.5), 0, sqrt(0.5)}, y[9];
    cs_sh_basis(x_axis, y);
    CHECK(y[3] > 0.0 && fabs(ref_sh_cs(1, 1, PI / 2, 0.0) + y[3]) < 1e-12, "Y11(+x) = %g: +K1, the seed's is -K1",
          y[3]);
    cs_sh_basis(y_axis, y);
    CHECK(y[1] > 0.0, "Y1-1(+y) = %g, want +K1", y[1]);
    cs_sh_basis(diag, y);
    CHECK(y[7] > 0.0 && fabs(ref_sh_cs(2, 1, PI / 4, 0.0) + y[7]) < 1e-12, "Y21(x = z) = %g: +, the seed's is -",
          y[7]);

    // Orthonormality: a product rule exact for degree <= 4 (3-point
    // Gauss–Legendre in z, 5 equally spaced phi).
    static const double gz[3] = {-0.7745966692414834, 0.0, 0.7745966692414834}, gw[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    double gram[9][9] = {{0}};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 5; b++) {
            double phi = 2.0 * PI * b / 5, s = sqrt(1.0 - gz[a] * gz[a]);
            double d[3] = {s * cos(phi), s * sin(phi), gz[a]}, yy[9];
            cs_sh_basis(d, yy);
            for (int i = 0; i < 9; i++)
                for (int j = 0; j < 9; j++)
                    gram[i][j] += gw[a] * (2.0 * PI / 5) * yy[i] * yy[j];
        }
    double worst_gram = 0.0;
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++)
            worst_gram = fmax(worst_gram, fabs(gram[i][j] - (i == j)));
    CHECK(worst_gram <= 1e-13, "basis not orthonormal: worst |<Yi,Yj> - delta| %.3g", worst_gram);
    fprintf(stderr, "basis (CPU): double vs the general formula %.2g, float vs double %.2g, orthonormality %.2g\n",
            worst, worst_f, worst_gram);
}

// ------------------------------------------------------------ rotation

static void check_rotation(void)
{
    double worst_point = 0.0, worst_orth = 0.0, worst_comp = 0.0;
    for (int k = 0; k < 200; k++) {
        double R[3][3], R2[3][3], R12[3][3], M[9][9], M2[9][9], M12[9][9];
        random_rotation(R);
        random_rotation(R2);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                R12[i][j] = R[i][0] * R2[0][j] + R[i][1] * R2[1][j] + R[i][2] * R2[2][j];
        cs_sh_rotation(R, M);
        cs_sh_rotation(R2, M2);
        cs_sh_rotation(R12, M12);
        // A delta light at d has coefficients Y(d); rotated, it is at R d.
        double d[3], rd[3], y[9], yr[9];
        random_direction(d);
        mat_vec(R, d, rd);
        cs_sh_basis(d, y);
        cs_sh_basis(rd, yr);
        for (int i = 0; i < 9; i++) {
            double my = 0.0;
            for (int j = 0; j < 9; j++)
                my += M[i][j] * y[j];
            worst_point = fmax(worst_point, fabs(my - yr[i]));
        }
        // M orthogonal, and M(R R2) = M(R) M(R2).
        for (int i = 0; i < 9; i++)
            for (int j = 0; j < 9; j++) {
                double mmt = 0.0, mm = 0.0;
                for (int q = 0; q < 9; q++) {
                    mmt += M[i][q] * M[j][q];
                    mm += M[i][q] * M2[q][j];
                }
                worst_orth = fmax(worst_orth, fabs(mmt - (i == j)));
                worst_comp = fmax(worst_comp, fabs(mm - M12[i][j]));
            }
    }
    CHECK(worst_point <= 1e-12, "rotated delta: worst |M Y(d) - Y(R d)| %.3g", worst_point);
    CHECK(worst_orth <= 1e-12, "rotation matrix not orthogonal: %.3g", worst_orth);
    CHECK(worst_comp <= 1e-12, "M(R1 R2) != M(R1) M(R2): %.3g", worst_comp);
    // The identity rotates nothing.
    double I[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, M[9][9], worst_id = 0.0;
    cs_sh_rotation(I, M);
    for (int i = 0; i < 9; i++)
        for (int j = 0; j < 9; j++)
            worst_id = fmax(worst_id, fabs(M[i][j] - (i == j)));
    CHECK(worst_id <= 1e-14, "identity rotation: %.3g", worst_id);
    fprintf(stderr, "rotation: |M Y(d) - Y(R d)| %.2g, orthogonality %.2g, composition %.2g\n", worst_point,
            worst_orth, worst_comp);
}

// ------------------------------------------------------------ basis (GPU)

static void check_basis_gpu(void)
{
    const uint32_t n = 4096;
    double *dirs = malloc(n * 3 * sizeof(double));
    float *basis = malloc(n * 9 * sizeof(float)), *irr = malloc(n * 3 * sizeof(float));
    CS_ASSERT(dirs && basis && irr, "out of host memory");
    for (uint32_t i = 0; i < n; i++)
        random_direction(&dirs[3 * i]);
    for (int k = 0; k < 6; k++) {
        dirs[3 * k] = dirs[3 * k + 1] = dirs[3 * k + 2] = 0.0;
        dirs[3 * k + k / 2] = k % 2 ? -1.0 : 1.0;
    }
    float coeffs[CS_SH_VALUES];
    double L[9][3];
    for (int v = 0; v < CS_SH_VALUES; v++) {
        coeffs[v] = (float)(4.0 * test_rand_unit() - 2.0);
        L[v / 3][v % 3] = coeffs[v];
    }
    gpu_eval(dirs, n, coeffs, basis, irr);
    double worst_y = 0.0, worst_e = 0.0;
    int reported = 0;
    for (uint32_t i = 0; i < n && reported < 8; i++) {
        // The direction the GPU saw is the float one.
        double d[3] = {(float)dirs[3 * i], (float)dirs[3 * i + 1], (float)dirs[3 * i + 2]}, y[9], e[3];
        cs_sh_basis(d, y);
        cs_sh_irradiance((const double(*)[3])L, d, e);
        int before = test_failures;
        for (int k = 0; k < 9; k++) {
            double err = fabs((double)basis[9 * i + k] - y[k]);
            worst_y = fmax(worst_y, err);
            CHECK(err <= 2e-6, "GPU Y_%d(%g %g %g) = %.9g, C %.12g", k, d[0], d[1], d[2], basis[9 * i + k], y[k]);
        }
        // Bound: a few float roundings of each of the 9 terms.
        for (int c = 0; c < 3; c++) {
            double scale = 0.0;
            for (int k = 0; k < 9; k++)
                scale += cs_sh_cosine_lobe(cs_sh_band(k)) * fabs(L[k][c] * y[k]);
            double err = fabs((double)irr[3 * i + c] - e[c]);
            worst_e = fmax(worst_e, err / scale);
            CHECK(err <= 1e-6 * scale, "GPU E(%g %g %g)[%d] = %.9g, C %.12g", d[0], d[1], d[2], c, irr[3 * i + c],
                  e[c]);
        }
        // The float C twin of the shader's evaluation.
        float Lf[9][3], df[3] = {(float)d[0], (float)d[1], (float)d[2]}, ef[3];
        for (int v = 0; v < CS_SH_VALUES; v++)
            Lf[v / 3][v % 3] = coeffs[v];
        cs_sh_irradiance_f((const float(*)[3])Lf, df, ef);
        for (int c = 0; c < 3; c++)
            CHECK(fabs((double)ef[c] - e[c]) <= 1e-5 * (fabs(e[c]) + 1.0), "C float E[%d] = %.9g, double %.12g", c,
                  ef[c], e[c]);
        reported += test_failures != before;
    }
    fprintf(stderr, "basis (GPU vs C, %u directions): worst |dY| %.2g, worst |dE| / sum|terms| %.2g\n", n, worst_y,
            worst_e);
    free(dirs);
    free(basis);
    free(irr);
}

// ------------------------------------------------- projection of many shapes

typedef struct shape {
    uint32_t layout, w, h;
} shape;

static const shape shapes[] = {
    {CS_SH_LATLONG, 1, 1},    {CS_SH_LATLONG, 2, 1},   {CS_SH_LATLONG, 1, 2},   {CS_SH_LATLONG, 3, 1},
    {CS_SH_LATLONG, 1, 7},    {CS_SH_LATLONG, 5, 3},   {CS_SH_LATLONG, 37, 19}, {CS_SH_LATLONG, 100, 50},
    {CS_SH_LATLONG, 333, 2},  {CS_SH_LATLONG, 256, 128}, {CS_SH_LATLONG, 250, 300}, {CS_SH_LATLONG, 600, 300},
    {CS_SH_CUBE, 1, 1},       {CS_SH_CUBE, 2, 2},      {CS_SH_CUBE, 3, 3},      {CS_SH_CUBE, 17, 17},
    {CS_SH_CUBE, 64, 64},     {CS_SH_CUBE, 100, 100},
};

// Random radiance: GPU against the double sum of the same floats, and the
// same bits on a second run.
static void check_projection_random(const shape *s)
{
    cs_env env;
    char name[64];
    snprintf(name, sizeof name, "random %s %ux%u", layout_name(s->layout), s->w, s->h);
    make_env(&env, s->layout, s->w, s->h, name);
    uint32_t n = cs_env_texel_count(&env);
    for (uint32_t i = 0; i < 3 * n; i++)
        env.rgb[i] = (float)(4.0 * test_rand_unit());
    float L[9][3], again[9][3];
    gpu_project(&env, L, NULL, NULL);
    gpu_project(&env, again, NULL, NULL);
    double ref[9][3], abs_sum, worst = 0.0;
    ref_project(&env, ref, &abs_sum);
    for (int i = 0; i < 9; i++)
        for (int c = 0; c < 3; c++) {
            double err = fabs((double)L[i][c] - ref[i][c]);
            worst = fmax(worst, err / abs_sum);
            CHECK(err <= 2e-6 * abs_sum, "%s: L[%d][%d] = %.9g, double %.12g (sum |L w| %.4g)", name, i, c, L[i][c],
                  ref[i][c], abs_sum);
        }
    CHECK(memcmp(L, again, sizeof L) == 0, "%s: two projections of the same image differ", name);
    fprintf(stderr, "%-28s %8u texels: worst |GPU - double| / sum|L w| %.2g\n", name, n, worst);
    cs_env_free(&env);
}

// Constant radiance 1: L00 = 2 sqrt(pi) at every size (the solid angles sum
// to exactly 4 pi), and E(n) = pi for every normal where the grid
// integrates the l >= 1 functions to zero: every cube (by symmetry, and
// sum x^2 = sum y^2 = sum z^2 makes L20 and L22 vanish), and lat-long
// images whose phi sums of m != 0 vanish (width >= 3) and whose theta sum
// of P2 does: the midpoint rule in theta leaves L20 ~ 2 K20 (pi / 6) dtheta^2,
// so |E(n) - pi| / pi tends to (5 / 96) (pi / H)^2 (1e-5 from H = 226).
// That residue is asserted as such for width >= 3, H >= 16; smaller grids
// are sums of a few texels (a 1x1 image is one texel: a delta), printed.
static void check_constant(const shape *s)
{
    cs_env env;
    char name[64];
    snprintf(name, sizeof name, "constant %s %ux%u", layout_name(s->layout), s->w, s->h);
    make_env(&env, s->layout, s->w, s->h, name);
    uint32_t n = cs_env_texel_count(&env);
    for (uint32_t i = 0; i < 3 * n; i++)
        env.rgb[i] = 1.0f;
    float L[9][3];
    gpu_project(&env, L, NULL, NULL);
    double want = 2.0 * sqrt(PI);
    for (int c = 0; c < 3; c++)
        CHECK(fabs(L[0][c] - want) <= 1e-5 * want, "%s: L00 = %.9g, want 2 sqrt(pi) = %.9g", name, L[0][c], want);
    double Ld[9][3];
    for (int i = 0; i < 9; i++)
        for (int c = 0; c < 3; c++)
            Ld[i][c] = L[i][c];
    bool cube = s->layout == CS_SH_CUBE, latlong = !cube && s->w >= 3;
    double bound = cube ? 1e-5 : 5.0 / 96.0 * (PI / s->h) * (PI / s->h) * 1.05 + 1e-5;
    if (latlong)
        for (int i = 1; i < 9; i++)
            for (int c = 0; c < 3; c++)
                CHECK(i == 6 || fabs(L[i][c]) <= 1e-5, "%s: L[%d] = %.3g, not 0", name, i, L[i][c]);
    bool asserted = cube || (latlong && s->h >= 16);
    double worst = 0.0;
    for (uint32_t k = 0; k < 500; k++) {
        double nrm[3], e[3];
        fibonacci_direction(k, 500, nrm);
        cs_sh_irradiance((const double(*)[3])Ld, nrm, e);
        for (int c = 0; c < 3; c++) {
            double err = fabs(e[c] - PI) / PI;
            worst = fmax(worst, isnan(err) ? INFINITY : err);
            if (asserted)
                CHECK(err <= bound, "%s: E(%g %g %g) = %.9g, want pi (within %.3g)", name, nrm[0], nrm[1], nrm[2],
                      e[c], bound);
        }
    }
    fprintf(stderr, "%-28s L00 %.9g (2 sqrt(pi) = %.9g), max |E(n) - pi| / pi %.2g%s\n", name, L[0][0], want, worst,
            !asserted ? " (a few texels: not asserted)" : cube ? "" : " (grid residue (5/96)(pi/H)^2, asserted)");
    cs_env_free(&env);
}

// One bright texel of radiance 1 / Omega: L_lm = Y_lm(texel centre) to
// float rounding; against an analytic delta at d inside that texel,
// |L_lm - Y_lm(d)| <= 6 K20 |d - centre| (6 K20 = 1.89 bounds the gradient
// of every Y_lm, a polynomial, inside the unit ball), i.e. 1.89 times the
// texel's angular radius.
static void check_delta(uint32_t layout, uint32_t w, uint32_t h)
{
    cs_env env;
    char name[64];
    snprintf(name, sizeof name, "delta %s %ux%u", layout_name(layout), w, h);
    make_env(&env, layout, w, h, name);
    double worst_centre = 0.0, worst_ratio = 0.0;
    for (int k = 0; k < 6; k++) {
        double d[3], centre[3], yd[9], yc[9];
        random_direction(d);
        uint32_t t = cs_env_texel_at(layout, w, h, d);
        cs_env_texel_direction(layout, w, h, t, centre);
        double omega = cs_env_texel_solid_angle(layout, w, h, t);
        memset(env.rgb, 0, (size_t)cs_env_texel_count(&env) * 3 * sizeof(float));
        for (int c = 0; c < 3; c++)
            env.rgb[3 * (size_t)t + c] = (float)(1.0 / omega);
        float L[9][3];
        gpu_project(&env, L, NULL, NULL);
        cs_sh_basis(d, yd);
        cs_sh_basis(centre, yc);
        double chord = sqrt((d[0] - centre[0]) * (d[0] - centre[0]) + (d[1] - centre[1]) * (d[1] - centre[1]) +
                            (d[2] - centre[2]) * (d[2] - centre[2]));
        double tol = 6.0 * CS_SH_K20 * chord + 1e-5;
        for (int i = 0; i < 9; i++)
            for (int c = 0; c < 3; c++) {
                double ec = fabs(L[i][c] - yc[i]), ed = fabs(L[i][c] - yd[i]);
                worst_centre = fmax(worst_centre, isnan(ec) ? INFINITY : ec);
                worst_ratio = fmax(worst_ratio, ed / tol);
                CHECK(ec <= 2e-6, "%s: L[%d] = %.9g, Y at the texel centre %.9g", name, i, L[i][c], yc[i]);
                CHECK(ed <= tol, "%s: L[%d] = %.9g, Y(d) %.9g: off by %.3g, texel bound %.3g", name, i, L[i][c], yd[i],
                      ed, tol);
            }
    }
    fprintf(stderr, "%-28s worst |L - Y(centre)| %.2g; |L - Y(d)| at most %.2f of 1.89 x |d - centre|\n", name,
            worst_centre, worst_ratio);
    cs_env_free(&env);
}

// ------------------------------------------------------ synthetic skies

typedef enum sky_kind { SKY_GRADIENT, SKY_SUN, SKY_HEMISPHERE, SKY_SUN_AND_SKY, SKY_LOBE } sky_kind;
static const char *const sky_names[] = {"sky gradient", "small sun", "hemisphere", "sun + sky", "soft lobe"};

// Sun: a disc of angular radius 2.5 degrees at 40 degrees elevation.
static const double sun_dir_deg[2] = {40.0, 30.0}; // elevation, azimuth
static const double sun_radius = 2.5 * PI / 180.0;

static void sky_radiance(sky_kind kind, const double d[3], double out[3])
{
    double el = sun_dir_deg[0] * PI / 180, az = sun_dir_deg[1] * PI / 180;
    double s[3] = {cos(el) * cos(az), cos(el) * sin(az), sin(el)};
    double cos_sun = d[0] * s[0] + d[1] * s[1] + d[2] * s[2];
    out[0] = out[1] = out[2] = 0.0;
    if (kind == SKY_GRADIENT || kind == SKY_SUN_AND_SKY) {
        static const double horizon[3] = {1.0, 0.9, 0.75}, zenith[3] = {0.2, 0.4, 1.0}, ground[3] = {0.3, 0.25, 0.2};
        for (int c = 0; c < 3; c++)
            out[c] = d[2] >= 0.0 ? horizon[c] + (zenith[c] - horizon[c]) * pow(d[2], 0.4) : ground[c];
    }
    if ((kind == SKY_SUN || kind == SKY_SUN_AND_SKY) && cos_sun >= cos(sun_radius))
        for (int c = 0; c < 3; c++)
            out[c] += 2000.0;
    if (kind == SKY_HEMISPHERE && d[2] > 0.0)
        out[0] = out[1] = out[2] = 1.0;
    if (kind == SKY_LOBE)
        for (int c = 0; c < 3; c++)
            out[c] = 0.3 + (1.0 + c) * exp(6.0 * (cos_sun - 1.0)) + 0.5 * d[0] * d[0];
}

// Fills env with sky(R^T d) at every texel centre d (R NULL: identity).
static void fill_sky(cs_env *env, sky_kind kind, const double R[3][3])
{
    uint32_t n = cs_env_texel_count(env);
    for (uint32_t t = 0; t < n; t++) {
        double d[3], back[3], rgb[3];
        cs_env_texel_direction(env->layout, env->width, env->height, t, d);
        if (R) {
            for (int a = 0; a < 3; a++)
                back[a] = R[0][a] * d[0] + R[1][a] * d[1] + R[2][a] * d[2];
        } else {
            memcpy(back, d, sizeof back);
        }
        sky_radiance(kind, back, rgb);
        for (int c = 0; c < 3; c++)
            env->rgb[3 * (size_t)t + c] = (float)rgb[c];
    }
}

// Rotating coefficients equals projecting the rotated environment: both
// are projections on the GPU; what separates them is the grid (a rotated
// image is sampled at other points), measured here on a smooth sky.
static void check_rotation_gpu(uint32_t layout, uint32_t w, uint32_t h)
{
    cs_env env;
    char name[64];
    snprintf(name, sizeof name, "rotation %s %ux%u", layout_name(layout), w, h);
    make_env(&env, layout, w, h, name);
    double worst = 0.0;
    for (int k = 0; k < 3; k++) {
        double R[3][3];
        random_rotation(R);
        float L[9][3], Lr[9][3];
        fill_sky(&env, SKY_LOBE, NULL);
        gpu_project(&env, L, NULL, NULL);
        fill_sky(&env, SKY_LOBE, R);
        gpu_project(&env, Lr, NULL, NULL);
        double in[9][3], out[9][3], scale = 0.0;
        for (int i = 0; i < 9; i++)
            for (int c = 0; c < 3; c++) {
                in[i][c] = L[i][c];
                scale = fmax(scale, fabs(in[i][c]));
            }
        cs_sh_rotate(R, (const double(*)[3])in, out);
        for (int i = 0; i < 9; i++)
            for (int c = 0; c < 3; c++) {
                double err = fabs(out[i][c] - Lr[i][c]) / scale;
                worst = fmax(worst, isnan(err) ? INFINITY : err);
                CHECK(err <= 2e-4, "%s: rotated L[%d][%d] = %.7g, projection of the rotated sky %.7g", name, i, c,
                      out[i][c], Lr[i][c]);
            }
    }
    fprintf(stderr, "%-28s worst |rotate(L) - L(rotated sky)| / max|L| %.2g\n", name, worst);
    cs_env_free(&env);
}

// The l <= 2 error of a directional light, relative to its peak irradiance:
// E_2(c) = 1/4 + c/2 + (5/16) P2(c) against max(c, 0), c = cos(angle).
static void delta_band_limit(double *mean, double *max)
{
    const int n = 200000;
    double sum = 0.0;
    *max = 0.0;
    for (int k = 0; k < n; k++) {
        double c = -1.0 + 2.0 * (k + 0.5) / n; // uniform in c = uniform on the sphere
        double e2 = 0.25 + 0.5 * c + 5.0 / 16.0 * 0.5 * (3.0 * c * c - 1.0);
        double err = fabs(e2 - fmax(c, 0.0));
        sum += err;
        *max = fmax(*max, err);
    }
    *mean = sum / n;
}

// SH irradiance (GPU projection) against brute-force integration of the
// same image (double, every texel), at 1000 normals spread over the sphere.
// Errors are relative to the environment's peak irradiance: irradiance goes
// to zero on the dark side of a sun, where a ratio to the local value means
// nothing.
static void check_sky(sky_kind kind, uint32_t w, uint32_t h)
{
    cs_env env;
    char name[64];
    snprintf(name, sizeof name, "%s %ux%u", sky_names[kind], w, h);
    make_env(&env, CS_SH_LATLONG, w, h, name);
    fill_sky(&env, kind, NULL);
    float Lf[9][3];
    gpu_project(&env, Lf, NULL, NULL);
    double L[9][3];
    for (int i = 0; i < 9; i++)
        for (int c = 0; c < 3; c++)
            L[i][c] = Lf[i][c];
    enum { N = 1000 };
    static double ref[N][3], sh[N][3];
    double peak = 0.0;
    for (uint32_t k = 0; k < N; k++) {
        double nrm[3];
        fibonacci_direction(k, N, nrm);
        ref_irradiance(&env, nrm, ref[k]);
        cs_sh_irradiance((const double(*)[3])L, nrm, sh[k]);
        for (int c = 0; c < 3; c++)
            peak = fmax(peak, ref[k][c]);
    }
    double sum = 0.0, max = 0.0, local_max = 0.0;
    for (uint32_t k = 0; k < N; k++)
        for (int c = 0; c < 3; c++) {
            double err = fabs(sh[k][c] - ref[k][c]) / peak;
            if (isnan(err))
                err = INFINITY;
            sum += err / 3;
            max = fmax(max, err);
            if (ref[k][c] >= 0.1 * peak)
                local_max = fmax(local_max, fabs(sh[k][c] - ref[k][c]) / ref[k][c]);
        }
    double mean = sum / N;
    fprintf(stderr, "%-28s SH vs brute force: mean %.3f%%, max %.3f%% of the peak; max %.2f%% of the local value "
            "where it is >= 10%% of the peak\n", name, 100 * mean, 100 * max, 100 * local_max);
    // A sun is nearly a directional light, and there the band limit, not
    // the code, sets the error: a delta gives mean dm and max 3/32 of its
    // peak (at the terminator); a 2.5-degree disc a little less. With a sky
    // added, the sun's share of the peak irradiance scales that.
    double dm, dx;
    delta_band_limit(&dm, &dx);
    if (kind == SKY_SUN || kind == SKY_SUN_AND_SKY) {
        double el = sun_dir_deg[0] * PI / 180, az = sun_dir_deg[1] * PI / 180;
        double s[3] = {cos(el) * cos(az), cos(el) * sin(az), sin(el)}, sun_only[3];
        cs_env sun_env;
        make_env(&sun_env, CS_SH_LATLONG, w, h, "sun alone");
        fill_sky(&sun_env, SKY_SUN, NULL);
        ref_irradiance(&sun_env, s, sun_only);
        cs_env_free(&sun_env);
        double share = sun_only[0] / peak;
        fprintf(stderr, "%-28s the sun is %.0f%% of the peak; a directional light's own l <= 2 error: mean %.3f%%, "
                "max %.3f%% (3/32) of its peak\n", "", 100 * share, 100 * dm, 100 * dx);
        CHECK(mean <= share * (dm + 0.002) + (1 - share) * 0.01 && max <= share * (dx + 0.002) + (1 - share) * 0.05,
              "%s: mean %.4f max %.4f; the band limit allows %.4f %.4f of the sun's share %.3f", name, mean, max, dm,
              dx, share);
        CHECK(max >= share * (dx - 0.02), "%s: max %.4f is far below the band limit %.4f: is the sun in the image?",
              name, max, share * dx);
    } else {
        CHECK(mean <= 0.01 && max <= 0.05, "%s: SH irradiance mean error %.4f, max %.4f of the peak", name, mean,
              max);
    }
    cs_env_free(&env);
}

// The GPU's maps: the SH irradiance map against C evaluation of the same
// coefficients, and the brute-force map (samples = every texel) against the
// double brute force.
static void check_maps(void)
{
    cs_env env;
    make_env(&env, CS_SH_LATLONG, 128, 64, "maps sky");
    fill_sky(&env, SKY_SUN_AND_SKY, NULL);
    const uint32_t mw = 48, mh = 24, mn = mw * mh;
    cs_env_samples samples;
    cs_error err;
    CHECK(cs_env_samples_make(&env, 1, 1, &samples, &err), "%s", err.msg);
    cs_buffer dir_buf, rad_buf, sh_map, brute_map;
    test_buffer(&ctx, &dir_buf, "samples directions", (VkDeviceSize)samples.count * 16);
    test_buffer(&ctx, &rad_buf, "samples radiance", (VkDeviceSize)samples.count * 16);
    test_buffer(&ctx, &sh_map, "sh map", (VkDeviceSize)mn * 16);
    test_buffer(&ctx, &brute_map, "brute map", (VkDeviceSize)mn * 16);
    cs_buffer_upload(&ctx, &dir_buf, samples.dir_omega, (VkDeviceSize)samples.count * 16, 0);
    cs_buffer_upload(&ctx, &rad_buf, samples.radiance, (VkDeviceSize)samples.count * 16, 0);
    cs_buffer_fill(&ctx, &sh_map, CS_POISON_U32);
    cs_buffer_fill(&ctx, &brute_map, CS_POISON_U32);
    CHECK(cs_sh_gpu_upload(&ctx, &gpu, &env, &err), "%s", err.msg);
    cs_buffer_fill(&ctx, &gpu.coeffs, CS_POISON_U32);
    cs_recorder rec;
    cs_recorder_create(&ctx, "sh maps", &rec);
    cs_recorder_begin(&rec);
    cs_sh_project_record(&rec, &gpu);
    cs_sh_irradiance_map_record(&rec, &gpu, &sh_map, mw, mh);
    cs_sh_convolve_record(&rec, &gpu, &dir_buf, &rad_buf, samples.count, &brute_map, mw, mh);
    cs_recorder_submit_wait(&rec);
    float *a = malloc((size_t)mn * 16), *b = malloc((size_t)mn * 16), Lf[9][3];
    CS_ASSERT(a && b, "out of host memory");
    cs_buffer_download(&ctx, &sh_map, a, (VkDeviceSize)mn * 16, 0);
    cs_buffer_download(&ctx, &brute_map, b, (VkDeviceSize)mn * 16, 0);
    cs_sh_gpu_read(&ctx, &gpu, Lf);
    cs_recorder_destroy(&rec);
    double L[9][3], peak = 0.0, worst_sh = 0.0, worst_brute = 0.0;
    for (int i = 0; i < 9; i++)
        for (int c = 0; c < 3; c++)
            L[i][c] = Lf[i][c];
    static double ref[48 * 24][3];
    for (uint32_t p = 0; p < mn; p++) {
        double nrm[3];
        cs_env_texel_direction(CS_SH_LATLONG, mw, mh, p, nrm);
        ref_irradiance(&env, nrm, ref[p]);
        for (int c = 0; c < 3; c++)
            peak = fmax(peak, ref[p][c]);
    }
    int reported = 0;
    for (uint32_t p = 0; p < mn && reported < 8; p++) {
        double nrm[3], e[3];
        cs_env_texel_direction(CS_SH_LATLONG, mw, mh, p, nrm);
        cs_sh_irradiance((const double(*)[3])L, nrm, e);
        int before = test_failures;
        CHECK(finite3(&a[4 * p]) && finite3(&b[4 * p]), "map texel %u not written: %g %g", p, a[4 * p], b[4 * p]);
        for (int c = 0; c < 3; c++) {
            double es = fabs(a[4 * p + c] - e[c]) / peak, eb = fabs(b[4 * p + c] - ref[p][c]) / peak;
            worst_sh = fmax(worst_sh, isnan(es) ? INFINITY : es);
            worst_brute = fmax(worst_brute, isnan(eb) ? INFINITY : eb);
            CHECK(es <= 2e-6, "SH map texel %u[%d] = %.7g, C %.7g", p, c, a[4 * p + c], e[c]);
            CHECK(eb <= 2e-5, "brute-force map texel %u[%d] = %.7g, double %.7g", p, c, b[4 * p + c], ref[p][c]);
        }
        reported += test_failures != before;
    }
    fprintf(stderr, "maps %ux%u: SH map vs C %.2g, brute-force map vs double %.2g (of the peak)\n", mw, mh, worst_sh,
            worst_brute);
    cs_buffer_destroy(&ctx, &dir_buf);
    cs_buffer_destroy(&ctx, &rad_buf);
    cs_buffer_destroy(&ctx, &sh_map);
    cs_buffer_destroy(&ctx, &brute_map);
    cs_env_samples_free(&samples);
    free(a);
    free(b);
    cs_env_free(&env);
}

// ------------------------------------------------------- geometry (CPU)

static void check_geometry(void)
{
    // Solid angles against the reference's own integration, sums of 4 pi,
    // and texel_at(direction(t)) == t.
    static const shape geo[] = {{CS_SH_LATLONG, 1, 1},   {CS_SH_LATLONG, 7, 3}, {CS_SH_LATLONG, 64, 32},
                                {CS_SH_LATLONG, 5, 200}, {CS_SH_CUBE, 1, 1},    {CS_SH_CUBE, 3, 3},
                                {CS_SH_CUBE, 16, 16},    {CS_SH_CUBE, 45, 45}};
    for (size_t k = 0; k < CS_ARRAY_COUNT(geo); k++) {
        const shape *s = &geo[k];
        uint32_t n = s->layout == CS_SH_CUBE ? 6 * s->w * s->w : s->w * s->h;
        double total = 0.0, worst = 0.0;
        uint32_t wrong_texel = 0;
        for (uint32_t t = 0; t < n; t++) {
            double w = cs_env_texel_solid_angle(s->layout, s->w, s->h, t), ref;
            if (s->layout == CS_SH_CUBE) {
                uint32_t r = t % (s->w * s->w), i = r % s->w, j = r / s->w;
                ref = ref_cube_solid_angle(2.0 * i / s->w - 1.0, 2.0 * (i + 1) / s->w - 1.0, 2.0 * j / s->w - 1.0,
                                           2.0 * (j + 1) / s->w - 1.0);
            } else {
                ref = ref_latlong_solid_angle(s->w, s->h, t / s->w);
            }
            worst = fmax(worst, fabs(w - ref) / ref);
            total += w;
            double d[3];
            cs_env_texel_direction(s->layout, s->w, s->h, t, d);
            wrong_texel += cs_env_texel_at(s->layout, s->w, s->h, d) != t;
        }
        CHECK(worst <= 1e-9, "%s %ux%u: solid angle off the integral by %.3g", layout_name(s->layout), s->w, s->h,
              worst);
        CHECK(fabs(total - 4.0 * PI) <= 1e-12, "%s %ux%u: solid angles sum to %.15g", layout_name(s->layout), s->w,
              s->h, total);
        CHECK(wrong_texel == 0, "%s %ux%u: %u texel centres map to another texel", layout_name(s->layout), s->w,
              s->h, wrong_texel);
    }
    // The cube table is Vulkan's face selection: the major axis picks the
    // face, sc / |ma| and tc / |ma| are (s, t).
    for (uint32_t t = 0; t < 6 * 4 * 4; t++) {
        double d[3];
        cs_env_texel_direction(CS_SH_CUBE, 4, 4, t, d);
        uint32_t face = t / 16, i = t % 4, j = (t % 16) / 4;
        double rx = d[0], ry = d[1], rz = d[2], sc, tc, ma;
        uint32_t want;
        if (fabs(rx) >= fabs(ry) && fabs(rx) >= fabs(rz))
            want = rx > 0 ? 0 : 1, sc = rx > 0 ? -rz : rz, tc = -ry, ma = fabs(rx);
        else if (fabs(ry) >= fabs(rz))
            want = ry > 0 ? 2 : 3, sc = rx, tc = ry > 0 ? rz : -rz, ma = fabs(ry);
        else
            want = rz > 0 ? 4 : 5, sc = rz > 0 ? rx : -rx, tc = -ry, ma = fabs(rz);
        double u = 0.5 * (sc / ma + 1.0) * 4, v = 0.5 * (tc / ma + 1.0) * 4;
        CHECK(want == face && fabs(u - (i + 0.5)) < 1e-12 && fabs(v - (j + 0.5)) < 1e-12,
              "cube texel %u (face %u, %u, %u): Vulkan reads face %u at (%g, %g)", t, face, i, j, want, u, v);
    }
}

// ------------------------------------------------------------ .hdr files

static const char *tmp_dir(void)
{
    static char dir[256];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/cistern_test_sh_XXXXXX");
        CS_ASSERT(mkdtemp(dir), "mkdtemp failed");
    }
    return dir;
}

// Removes the temporary folder and the files the test wrote in it.
static void remove_tmp_dir(void)
{
    DIR *dir = opendir(tmp_dir());
    if (!dir)
        return;
    struct dirent *e;
    char path[600];
    while ((e = readdir(dir)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", tmp_dir(), e->d_name);
            unlink(path);
        }
    closedir(dir);
    rmdir(tmp_dir());
}

static void write_bytes(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CS_ASSERT(f, "cannot write %s", path);
    fwrite(data, 1, size, f);
    fclose(f);
}

// Loads `path` expecting a refusal whose message names the file and says
// `reason`.
static void expect_refused(const char *path, bool cube, const char *reason)
{
    cs_env env;
    cs_error err = {{0}};
    bool ok = cs_env_load_hdr(path, cube, &env, &err);
    CHECK(!ok && strstr(err.msg, path) && strstr(err.msg, reason), "%s: loaded %d, message '%s', wanted '%s'", path,
          ok, err.msg, reason);
    if (ok)
        cs_env_free(&env);
    else
        fprintf(stderr, "refused as expected: %s\n", err.msg);
}

static void check_hdr(void)
{
    char path[512];
    // Good files: RLE-encoded (width >= 8) and flat (width < 8), lat-long
    // and a cube strip; RGBE keeps 8 bits of mantissa per texel.
    static const shape good[] = {{CS_SH_LATLONG, 16, 8}, {CS_SH_LATLONG, 5, 3}, {CS_SH_CUBE, 4, 4}};
    for (size_t k = 0; k < CS_ARRAY_COUNT(good); k++) {
        const shape *s = &good[k];
        uint32_t w = s->layout == CS_SH_CUBE ? 6 * s->w : s->w, h = s->h;
        float *rgb = malloc((size_t)w * h * 3 * sizeof(float));
        CS_ASSERT(rgb, "out of host memory");
        for (uint32_t i = 0; i < w * h * 3; i++)
            rgb[i] = (float)(0.01 + 100.0 * test_rand_unit() * test_rand_unit());
        snprintf(path, sizeof path, "%s/good_%zu.hdr", tmp_dir(), k);
        CHECK(stbi_write_hdr(path, (int)w, (int)h, 3, rgb), "cannot write %s", path);
        cs_env env;
        cs_error err;
        bool ok = cs_env_load_hdr(path, s->layout == CS_SH_CUBE, &env, &err);
        CHECK(ok, "%s", err.msg);
        if (ok) {
            CHECK(env.layout == s->layout && env.width == s->w && env.height == s->h, "%s: %s %ux%u", path,
                  layout_name(env.layout), env.width, env.height);
            double worst = 0.0;
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++) {
                    // Where the strip's pixel (x, y) went.
                    uint32_t t = s->layout == CS_SH_CUBE ? (x / s->w) * s->w * s->w + y * s->w + x % s->w : y * w + x;
                    const float *a = &rgb[3 * (y * w + x)], *b = &env.rgb[3 * t];
                    double m = fmax(a[0], fmax(a[1], a[2]));
                    for (int c = 0; c < 3; c++)
                        worst = fmax(worst, fabs(a[c] - b[c]) / m);
                }
            CHECK(worst <= 1.0 / 128, "%s: texels differ by %.3g of their largest channel (RGBE: 1/256)", path,
                  worst);
            cs_env_free(&env);
        }
        // Malformed versions of the same file.
        size_t size;
        cs_error rerr;
        char *data = cs_read_file(path, &size, &rerr);
        CS_ASSERT(data, "%s", rerr.msg);
        char bad[600];
        snprintf(bad, sizeof bad, "%s/cut_%zu.hdr", tmp_dir(), k);
        write_bytes(bad, data, size - 7);
        expect_refused(bad, s->layout == CS_SH_CUBE, "truncated");
        if (k == 0) {
            // A zero run-length count (stb_image would loop forever) right
            // after the first scanline header.
            char *start = strstr(data, "+X 16\n");
            CS_ASSERT(start, "no resolution line in %s", path);
            size_t at = (size_t)(start - data) + 6 + 4;
            data[at] = 0;
            snprintf(bad, sizeof bad, "%s/zero_count.hdr", tmp_dir());
            write_bytes(bad, data, size);
            expect_refused(bad, false, "zero");
        }
        free(data);
        free(rgb);
    }
    // A lat-long file is not a cube strip.
    snprintf(path, sizeof path, "%s/good_0.hdr", tmp_dir());
    expect_refused(path, true, "not a cube-map strip");

    static const struct {
        const char *name, *bytes, *reason;
    } broken[] = {
        {"empty.hdr", "", "not a Radiance .hdr"},
        {"text.hdr", "hello, I am not an image\n", "not a Radiance .hdr"},
        {"png.hdr", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "not a Radiance .hdr"},
        {"no_format.hdr", "#?RADIANCE\nEXPOSURE=1\n\n-Y 2 +X 2\n", "broken .hdr header"},
        {"bad_size.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n+Z 2 +X 2\n", "broken .hdr header"},
        {"zero_size.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 0 +X 4\n", "broken .hdr header"},
        {"no_pixels.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 2\n", "truncated"},
        {"huge.hdr", "#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 16000 +X 16000\n", "downsample"},
    };
    for (size_t k = 0; k < CS_ARRAY_COUNT(broken); k++) {
        snprintf(path, sizeof path, "%s/%s", tmp_dir(), broken[k].name);
        size_t len = broken[k].bytes[0] == '\x89' ? 16 : strlen(broken[k].bytes);
        write_bytes(path, broken[k].bytes, len);
        expect_refused(path, false, broken[k].reason);
    }
    snprintf(path, sizeof path, "%s/no_such_file.hdr", tmp_dir());
    expect_refused(path, false, "No such file");
    expect_refused(tmp_dir(), false, "give the path");
    remove_tmp_dir();
}

// ------------------------------------------------------------------ main

int main(void)
{
    test_context(&ctx);
    test_seed();
    cs_error err;
    if (!cs_sh_gpu_create(&ctx, CAPACITY, &gpu, &err)) {
        fprintf(stderr, "FAIL: %s\n", err.msg);
        return 1;
    }
    test_program(&ctx, &eval_prog, "test/sh_eval.comp", NULL);

    check_basis_cpu();
    check_rotation();
    check_geometry();
    check_basis_gpu();
    for (size_t k = 0; k < CS_ARRAY_COUNT(shapes); k++)
        check_projection_random(&shapes[k]);
    for (size_t k = 0; k < CS_ARRAY_COUNT(shapes); k++)
        check_constant(&shapes[k]);
    check_delta(CS_SH_LATLONG, 64, 32);
    check_delta(CS_SH_LATLONG, 37, 19);
    check_delta(CS_SH_LATLONG, 512, 256);
    check_delta(CS_SH_CUBE, 8, 8);
    check_delta(CS_SH_CUBE, 48, 48);
    check_rotation_gpu(CS_SH_LATLONG, 512, 256);
    check_rotation_gpu(CS_SH_CUBE, 96, 96);
    check_sky(SKY_GRADIENT, 256, 128);
    check_sky(SKY_HEMISPHERE, 256, 128);
    check_sky(SKY_SUN_AND_SKY, 512, 256);
    check_sky(SKY_SUN, 512, 256);
    check_maps();
    check_hdr();

    // The figure docs/light.md quotes: one 1024 x 512 projection per pass.
    cs_env env;
    make_env(&env, CS_SH_LATLONG, 1024, 512, "timing sky 1024x512");
    fill_sky(&env, SKY_SUN_AND_SKY, NULL);
    for (int run = 0; run < 3; run++) {
        float L[9][3];
        double project_ms, sum_ms;
        gpu_project(&env, L, &project_ms, &sum_ms);
        fprintf(stderr, "1024x512 lat-long projection, run %d: sh: project %.2f ms, sh: sum %.3f ms\n", run,
                project_ms, sum_ms);
    }
    cs_env_free(&env);

    cs_program_destroy(&ctx, &eval_prog);
    cs_sh_gpu_destroy(&ctx, &gpu);
    return test_finish(&ctx);
}
