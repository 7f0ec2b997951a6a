// test_vorton_wall.c — the no-slip "flux" rule (collide.comp add_wall_flux,
// wall_share.comp) against a CPU reference, one step, on vortons with no
// vorticity beside a static sphere spinning about y (so the velocity is 0
// everywhere and the slip at a contact point p is -Omega x p):
//   - one vorton inside the band: ejected to one core out, it gets the
//     impulse of one step of a Rayleigh layer, sqrt(4 nu dt / pi) |u_s| per
//     area, as vorticity along n x u_s sized by the two-way accounting's
//     impulse per vorticity about the sphere's centre (collide.comp
//     add_wall_flux; 0.11 1/s, a whole layer would be 20);
//   - a 7 x 7 patch of vortons on a lattice of spacing sigma, five copies
//     piled onto it (the eject's pile-up) and one vorton half a core
//     further out: every vorton's share from the CPU's S_i and weights;
//   - no overshoot: the velocity the added vorticity induces at each
//     contact point (CPU Biot-Savart, the kernel of rates.comp at a point)
//     never reverses the slip there. Control: the round-3 rule (a whole
//     layer into every vorton) on the same pile reverses it, so the measure
//     does catch an overshoot;
//   - the binned wall share (the 27 contact cells around a vorton's own)
//     against the O(N^2) sum over every vorton: the same to round-off.
// ctest labels: quick,gpu -- 4
#include "test_util.h"

#include "vorton.h"

#include <string.h>

#define SPHERE_RADIUS 1.0
#define SPIN 1.0 // rad/s about +y
#define SIGMA 0.05
#define NU 5e-4
#define DT 0.01

typedef struct wall_ref {
    double contact[3], n[3], slip[3], weight;
    bool in_reach;
} wall_ref;

static double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

// vorton_shared.h: L = max(sqrt(4 nu dt), FRACTION sigma), reach sigma + REACH L.
static double spread_length(void) { return fmax(sqrt(4.0 * NU * DT), VORTON_WALL_SPREAD_FRACTION * SIGMA); }

static wall_ref reference_contact(const float *x4)
{
    wall_ref r = {0};
    double x[3] = {x4[0], x4[1], x4[2]}, len = sqrt(dot3(x, x)), d = len - SPHERE_RADIUS;
    double L = spread_length();
    r.in_reach = d < SIGMA + VORTON_WALL_SPREAD_REACH * L;
    const double omega[3] = {0.0, SPIN, 0.0};
    for (int a = 0; a < 3; a++) {
        r.n[a] = x[a] / len;
        r.contact[a] = SPHERE_RADIUS * r.n[a];
    }
    double surface[3];
    cross3(omega, r.contact, surface);
    for (int a = 0; a < 3; a++)
        r.slip[a] = -surface[a]; // the fluid is still; tangential already (Omega x p is)
    double above = (fmax(d, SIGMA) - SIGMA) / L;
    r.weight = r.in_reach ? exp(-above * above) : 0.0;
    return r;
}

// collide.comp wall_impulse_per_vorticity in double: the vorticity per
// unit wall impulse that gives the body (centre at the origin) the wall's
// angular and linear impulse, least squares.
static double impulse_per_vorticity(const double *r, const double *r_c, const double *e, const double *s)
{
    double re[3], angular[3], linear[3], wall_angular[3], minus_s[3] = {-s[0], -s[1], -s[2]};
    cross3(r, e, re);
    cross3(r, re, angular);
    cross3(r_c, minus_s, wall_angular);
    for (int a = 0; a < 3; a++) {
        angular[a] /= 3.0;
        linear[a] = 0.5 * re[a];
    }
    double lever2 = dot3(r_c, r_c);
    double fit = dot3(angular, wall_angular) / lever2 + dot3(linear, minus_s);
    double norm = dot3(angular, angular) / lever2 + dot3(linear, linear);
    return fit / norm;
}

// The CPU's added vorticity per vorton, still vortons (no layer held yet):
// the Rayleigh layer's impulse over one step, J = sqrt(4 nu dt / pi)
// |u_s|, as vorticity along e = n x u_s / |u_s| for the vorton's share of
// the wall, k share J / sigma (`whole_layer`: the round-3 rule, a whole
// layer (n x u_s) / sigma for every vorton in the band). The flux rule's
// cap, 2 max(|u_s|, |u_t at the vorton|) / sigma, is a hundred times what
// this adds: never reached here.
static void reference_flux(const wall_ref *refs, const float *pos1, uint32_t n, bool whole_layer, double *added)
{
    for (uint32_t i = 0; i < n; i++) {
        double S = 0.0;
        for (uint32_t j = 0; j < n && refs[i].in_reach; j++) {
            if (!refs[j].in_reach)
                continue;
            double r[3] = {refs[j].contact[0] - refs[i].contact[0], refs[j].contact[1] - refs[i].contact[1],
                           refs[j].contact[2] - refs[i].contact[2]};
            S += refs[j].weight * exp(-dot3(r, r) / (SIGMA * SIGMA)) / VORTON_PI;
        }
        double share = refs[i].in_reach ? (whole_layer ? 1.0 : refs[i].weight / fmax(S, refs[i].weight)) : 0.0;
        double layer[3], slip = sqrt(dot3(refs[i].slip, refs[i].slip)), s[3], e[3];
        cross3(refs[i].n, refs[i].slip, layer);
        for (int a = 0; a < 3; a++)
            s[a] = refs[i].slip[a] / slip;
        cross3(refs[i].n, s, e);
        double r[3] = {pos1[i * 4], pos1[i * 4 + 1], pos1[i * 4 + 2]}; // after the eject
        double size = impulse_per_vorticity(r, refs[i].contact, e, s) * share * sqrt(4.0 * NU * DT / VORTON_PI) *
                      slip / SIGMA;
        for (int a = 0; a < 3; a++)
            added[i * 3 + a] = whole_layer ? share * layer[a] / SIGMA : size * e[a];
    }
}

// The worst slip left at a contact point after the added vorticity (at
// positions pos, one core out) induces its velocity there, as the fraction
// -(u_s + du_t) . u_s / |u_s|^2 (> 0: the slip reversed, an overshoot).
static double worst_reversal(const wall_ref *refs, const float *pos, const double *added, uint32_t n)
{
    double worst = -1e30;
    for (uint32_t i = 0; i < n; i++) {
        if (!refs[i].in_reach)
            continue;
        double du[3] = {0, 0, 0};
        for (uint32_t j = 0; j < n; j++) {
            double r[3], alpha[3], c[3];
            for (int a = 0; a < 3; a++) {
                r[a] = refs[i].contact[a] - pos[j * 4 + a];
                alpha[a] = added[j * 3 + a] * SIGMA * SIGMA * SIGMA;
            }
            double q = dot3(r, r) + SIGMA * SIGMA;
            cross3(alpha, r, c);
            for (int a = 0; a < 3; a++)
                du[a] += c[a] / (4.0 * VORTON_PI * q * sqrt(q));
        }
        double dn = dot3(du, refs[i].n), s2 = dot3(refs[i].slip, refs[i].slip), after[3];
        for (int a = 0; a < 3; a++)
            after[a] = refs[i].slip[a] + du[a] - dn * refs[i].n[a];
        worst = fmax(worst, -dot3(after, refs[i].slip) / s2);
    }
    return worst;
}

// `control_reverses`: the round-3 rule must overshoot here (the measure works).
static void run_case(cs_context *ctx, const char *name, float *pos, uint32_t n, bool control_reverses)
{
    cs_vorton_params p = {.dt = (float)DT, .stretching = VORTON_STRETCH_TRANSPOSE, .viscosity = (float)NU,
                          .ambient_temperature = 300.0f, .no_slip = VORTON_NO_SLIP_FLUX, .density = 1.0f};
    cs_vorton *v;
    cs_error err = {{0}};
    if (!cs_vorton_create(ctx, &p, n, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        return;
    }
    cs_body_set set;
    memset(&set, 0, sizeof set);
    set.counts = (uvec4){1, 0, 3, 0};
    set.bodies[0].centre = (vec4){0, 0, 0, (float)SPHERE_RADIUS};
    set.bodies[0].velocity = (vec4){0, 0, 0, 1.0f}; // friction 1: no-slip
    set.bodies[0].omega = (vec4){0, (float)SPIN, 0, (float)SPHERE_RADIUS};
    if (!cs_vorton_set_bodies(v, &set, &err)) {
        CHECK(false, "%s", err.msg);
        cs_vorton_destroy(v);
        return;
    }
    float *vort = calloc(n, 16);
    for (uint32_t i = 0; i < n; i++)
        vort[i * 4 + 3] = 300.0f;
    cs_vorton_upload(v, pos, vort, n);
    cs_recorder rec;
    cs_recorder_create(ctx, name, &rec);
    cs_recorder_begin(&rec);
    cs_vorton_record_step(v, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    float *pos1 = calloc(n, 16), *vort1 = calloc(n, 16);
    cs_vorton_download(v, pos1, vort1);

    wall_ref *refs = calloc(n, sizeof *refs);
    double *added = calloc(n * 3, sizeof *added), *whole = calloc(n * 3, sizeof *whole);
    for (uint32_t i = 0; i < n; i++)
        refs[i] = reference_contact(&pos[i * 4]);
    reference_flux(refs, pos1, n, false, added);
    reference_flux(refs, pos1, n, true, whole);
    double worst = 0.0, layer = SPIN * SPHERE_RADIUS / SIGMA, largest = 0.0, expected = 0.0;
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++)
            expected = fmax(expected, fabs(added[i * 3 + a]));
    for (uint32_t i = 0; i < n; i++)
        for (int a = 0; a < 3; a++) {
            worst = fmax(worst, fabs(vort1[i * 4 + a] - added[i * 3 + a]) / expected);
            largest = fmax(largest, fabs(vort1[i * 4 + a]));
        }
    double reversal = worst_reversal(refs, pos1, added, n), reversal_whole = worst_reversal(refs, pos1, whole, n);
    printf("%s: %u vortons, max |omega| %.4g 1/s (CPU %.4g; one whole layer at the equator %.4g); GPU vs CPU max "
           "error %.2e of the CPU's largest; slip left reversed by at most %+.3f of itself (round-3 whole layers: "
           "%+.3f)\n",
           name, n, largest, expected, layer, worst, reversal, reversal_whole);
    CHECK(expected > 0.0 && worst < 1e-4, "%s: the GPU's added vorticity differs from the CPU's by %.3g of the largest",
          name, worst);
    CHECK(reversal <= 0.0, "%s: the added vorticity reverses the slip at a contact point (%.3f)", name, reversal);
    CHECK(!control_reverses || reversal_whole > 0.0, "%s: the control (whole layers) does not overshoot (%.3f)", name,
          reversal_whole);
    free(refs);
    free(added);
    free(whole);
    free(vort);
    free(pos1);
    free(vort1);
    cs_vorton_destroy(v);
}

static void set_vorton(float *pos, uint32_t i, double x, double y, double z)
{
    pos[i * 4] = (float)x;
    pos[i * 4 + 1] = (float)y;
    pos[i * 4 + 2] = (float)z;
    pos[i * 4 + 3] = (float)SIGMA;
}

// ---- the binned wall share against the O(N^2) one --------------------------

// A vorton of random radius in [0.6, 1.2] sigma at a random point at most
// `depth` cores above a sphere (centre c, radius r), random vorticity.
static void random_near_sphere(float *pos, float *vort, uint32_t i, const double c[3], double r, double depth)
{
    double d[3], len2;
    do {
        for (int a = 0; a < 3; a++)
            d[a] = 2.0 * test_rand_unit() - 1.0;
        len2 = dot3(d, d);
    } while (len2 > 1.0 || len2 < 1e-4);
    double len = sqrt(len2), sigma = SIGMA * (0.6 + 0.6 * test_rand_unit());
    double radius = r + depth * SIGMA * test_rand_unit();
    for (int a = 0; a < 3; a++) {
        pos[i * 4 + a] = (float)(c[a] + radius * d[a] / len);
        vort[i * 4 + a] = (float)(20.0 * (2.0 * test_rand_unit() - 1.0));
    }
    pos[i * 4 + 3] = (float)sigma;
    vort[i * 4 + 3] = 300.0f;
}

// One step of the flux rule with the wall share binned or direct
// (wall_share_direct); returns the shares S_i and the vortons after it.
static bool step_with_share(cs_context *ctx, bool direct, const cs_body_set *set, const float *pos, const float *vort,
                            uint32_t n, float *share, float *vort1)
{
    cs_vorton_params p = {.dt = (float)DT, .stretching = VORTON_STRETCH_TRANSPOSE, .viscosity = (float)NU,
                          .ambient_temperature = 300.0f, .no_slip = VORTON_NO_SLIP_FLUX, .density = 1.0f};
    cs_vorton *v;
    cs_error err = {{0}};
    if (!cs_vorton_create(ctx, &p, n, 0, &v, &err) || !cs_vorton_set_bodies(v, set, &err)) {
        CHECK(false, "%s", err.msg);
        return false;
    }
    v->wall_share_direct = direct;
    cs_vorton_upload(v, pos, vort, n);
    cs_recorder rec;
    cs_recorder_create(ctx, direct ? "wall share direct" : "wall share binned", &rec);
    cs_recorder_begin(&rec);
    cs_vorton_record_step(v, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    cs_buffer_download(ctx, &v->wall_share, share, (VkDeviceSize)n * 4, 0);
    cs_vorton_download(v, NULL, vort1);
    cs_vorton_destroy(v);
    return true;
}

// Random vortons of mixed radii crowding two spheres (in reach of both, of
// one, of none; piles included), vorticity everywhere: the binned share
// (27 cells around a vorton's own) matches the O(N^2) sum over every vorton
// to float round-off, and so does the vorticity after the step.
static void binned_matches_direct(cs_context *ctx)
{
    enum { NEAR_A = 1800, NEAR_B = 700, FAR = 300, N = NEAR_A + NEAR_B + FAR };
    const double a[3] = {0.0, 0.0, 0.0}, b[3] = {1.6, 0.3, 0.0}, rb = 0.5;
    float *pos = calloc(N, 16), *vort = calloc(N, 16);
    for (uint32_t i = 0; i < NEAR_A; i++)
        random_near_sphere(pos, vort, i, a, SPHERE_RADIUS, 3.0);
    for (uint32_t i = NEAR_A; i < NEAR_A + NEAR_B; i++)
        random_near_sphere(pos, vort, i, b, rb, 3.0);
    for (uint32_t i = NEAR_A + NEAR_B; i < N; i++)
        random_near_sphere(pos, vort, i, a, SPHERE_RADIUS + 0.5, 10.0);
    cs_body_set set;
    memset(&set, 0, sizeof set);
    set.counts = (uvec4){2, 0, 3, 0};
    set.bodies[0].centre = (vec4){0, 0, 0, (float)SPHERE_RADIUS};
    set.bodies[0].velocity = (vec4){0, 0, 0, 1.0f};
    set.bodies[0].omega = (vec4){0, (float)SPIN, 0, (float)SPHERE_RADIUS};
    set.bodies[1].centre = (vec4){(float)b[0], (float)b[1], (float)b[2], (float)rb};
    set.bodies[1].velocity = (vec4){0, 0, 0, 1.0f};
    set.bodies[1].omega = (vec4){2.0f, 0, 0, (float)rb};
    float *share_b = calloc(N, 4), *share_d = calloc(N, 4), *vort_b = calloc(N, 16), *vort_d = calloc(N, 16);
    if (step_with_share(ctx, false, &set, pos, vort, N, share_b, vort_b) &&
        step_with_share(ctx, true, &set, pos, vort, N, share_d, vort_d)) {
        double worst_share = 0.0, worst_vort = 0.0, largest_share = 0.0, largest_vort = 0.0;
        uint32_t walled = 0, identical = 0;
        for (uint32_t i = 0; i < N; i++) {
            walled += share_d[i] > 0.0f;
            identical += share_b[i] == share_d[i];
            largest_share = fmax(largest_share, share_d[i]);
            worst_share = fmax(worst_share, fabs((double)share_b[i] - share_d[i]) / fmax(share_d[i], 1e-30));
            for (int c = 0; c < 3; c++) {
                largest_vort = fmax(largest_vort, fabs(vort_d[i * 4 + c]));
                worst_vort = fmax(worst_vort, fabs((double)vort_b[i * 4 + c] - vort_d[i * 4 + c]));
            }
        }
        worst_vort /= largest_vort;
        printf("binned vs direct wall share: %u vortons, %u near a body (S up to %.3g), %u shares bit-identical; max "
               "relative difference %.2e (S), %.2e of max |omega| (vorticity after the step)\n",
               N, walled, largest_share, identical, worst_share, worst_vort);
        CHECK(walled > NEAR_A / 2 && walled < N, "binned vs direct: %u vortons near a body, expected most near ones",
              walled);
        CHECK(worst_share < 2e-6, "binned vs direct: S differs by %.3g (relative)", worst_share);
        CHECK(worst_vort < 2e-6, "binned vs direct: the vorticity after the step differs by %.3g of max |omega|",
              worst_vort);
    }
    free(pos);
    free(vort);
    free(share_b);
    free(share_d);
    free(vort_b);
    free(vort_d);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    // One vorton 0.4 sigma from the equator (ejected to sigma).
    float one[4];
    set_vorton(one, 0, SPHERE_RADIUS + 0.4 * SIGMA, 0.0, 0.0);
    run_case(&ctx, "one vorton", one, 1, false);
    // A 7 x 7 lattice patch one core out at the equator (slip along -z x
    // ... the surface moves along -z there), five piled copies of it
    // jittered by a random hundredth of a core, and one vorton 1.5 cores
    // out (weight exp(-1)).
    enum { SIDE = 7, COPIES = 6 };
    uint32_t n = SIDE * SIDE * COPIES + 1;
    float *pile = calloc(n, 16);
    uint32_t k = 0;
    for (int c = 0; c < COPIES; c++)
        for (int a = 0; a < SIDE; a++)
            for (int b = 0; b < SIDE; b++) {
                double jitter_y = c ? 0.01 * SIGMA * (2.0 * test_rand_unit() - 1.0) : 0.0;
                double jitter_z = c ? 0.01 * SIGMA * (2.0 * test_rand_unit() - 1.0) : 0.0;
                set_vorton(pile, k++, SPHERE_RADIUS + (c ? 0.5 : 1.0) * SIGMA, (a - SIDE / 2) * SIGMA + jitter_y,
                           (b - SIDE / 2) * SIGMA + jitter_z);
            }
    set_vorton(pile, k, SPHERE_RADIUS + 1.5 * SIGMA, 0.5 * SIGMA, 0.5 * SIGMA);
    run_case(&ctx, "piled patch", pile, n, true);
    free(pile);
    binned_matches_direct(&ctx);
    return test_finish(&ctx);
}
