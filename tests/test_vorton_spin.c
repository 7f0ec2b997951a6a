// test_vorton_spin.c — vortons next to a spinning body, through the world
// (llvmpipe (Mesa 22.3.6), whole test ~30 s of CPU, 1 min wall on 2 shared
// cores):
//   - vorton_spin_3d (a dense sphere spinning in still air, 4 steps): the
//     fluid's angular impulse about the sphere is within 25% of the angular
//     momentum the sphere's viscous layer carries by then (the estimate
//     below; measured -13.6%), and the flow a core out is slower than the
//     wall (regression: the contact query's broad phase stopped at the
//     sphere's bounding radius, every vorton outside the sphere was "far",
//     and the scene reported max speed 0; the round 4-5 no-slip rule
//     handed the fluid 117 times the layer's angular momentum);
//   - two-way: a free sphere spinning in still fluid slows down and the
//     vortons' angular impulse gains what it lost (the hydrodynamic
//     impulse, collide.comp; 1.0% off); two runs give the same bytes (body
//     state and vortons);
//   - spin-down vs the layer: a free sphere (R 0.12, density 200) started
//     at 6 rad/s in still fluid (density 100): the spin lost after 2, 4, 8
//     and 12 steps of 0.01 s within 25% of the estimate, computed here: the
//     unsteady Stokes torque of an impulsively started sphere (the Rayleigh
//     layer (8 pi / 3) mu R^4 Omega / sqrt(pi nu t) plus its curvature
//     terms), taken at the current spin and integrated in double; 6 ->
//     4.896 rad/s at 0.12 s for nu 5e-4. At three resolutions/viscosities
//     (core 0.05 and 0.035 m at nu 5e-4, core 0.05 m at nu 2e-3) the model
//     loses 5-20% less (the flux rule's layer is a flat wall's, without
//     the curvature terms); the round 4-5 rule lost 2.0 to 9.4 times the
//     estimate's (0.77 rad/s left at 0.12 s, core 0.05, nu 5e-4) and fails
//     every sample;
//   - swirl: a free sphere at rest in a ball of fluid turning about +y
//     spins up about +y (+1.09 rad/s after 12 steps; "set" turns it the
//     other way, -0.46 rad/s, and fails), with the same balance. Not a
//     physical figure: the viscous stress of the swirl's shear at the wall
//     would turn it by ~0.06 rad/s; the eject alone (the flux rule off)
//     gives +1.53 (docs/vortons.md "Not done yet");
//   - heat: a hot static sphere with a heat capacity in still fluid cools,
//     and the total heat, rho c_p sum V (T - T0) + C_b (T_b - T0), stays
//     within 1e-4 of its start.
// ctest labels: slow,gpu -- 22
#include "test_util.h"

#include "vorton.h"
#include "world.h"

#include <string.h>

typedef struct world_run {
    cs_scene scene;
    cs_world world;
    cs_recorder rec;
    bool ok;
} world_run;

static bool world_open(cs_context *ctx, const char *name, const char *text, world_run *r)
{
    cs_error err = {{0}};
    memset(r, 0, sizeof *r);
    bool parsed = text ? cs_scene_parse(text, strlen(text), name, &r->scene, &err) : cs_scene_load(name, &r->scene, &err);
    if (!parsed) {
        CHECK(false, "%s: %s", name, err.msg);
        return false;
    }
    if (!cs_world_create(ctx, &r->scene, &r->world, &err)) {
        CHECK(false, "world of %s: %s", name, err.msg);
        cs_scene_free(&r->scene);
        return false;
    }
    cs_recorder_create(ctx, name, &r->rec);
    r->ok = true;
    return true;
}

static void world_frames(world_run *r, uint32_t frames)
{
    for (uint32_t f = 0; f < frames; f++) {
        cs_recorder_begin(&r->rec);
        cs_world_record_frame(&r->world, &r->rec);
        cs_recorder_submit_wait(&r->rec);
    }
}

static void world_close(world_run *r)
{
    if (!r->ok)
        return;
    cs_recorder_destroy(&r->rec);
    cs_world_destroy(&r->world);
    cs_scene_free(&r->scene);
    r->ok = false;
}

static double norm3(const float *v) { return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]); }

// The torque per unit spin, T / Omega (N m s), on a sphere of radius R
// started impulsively at t = 0 to turn at a fixed Omega in still fluid of
// viscosity mu = rho nu: the unsteady Stokes solution (the azimuthal
// momentum equation is linear; in Laplace space with k = sqrt(s / nu) the
// wall stress is mu Omega sin(theta) (3 + 3 k R + k^2 R^2) / (1 + k R),
// and integrating tau R sin(theta) over the sphere gives (8 pi / 3) mu R^3
// Omega (3 + k^2 R^2 / (1 + k R))). Back in time, a = sqrt(nu) / R:
//   T / Omega = 8 pi mu R^3 [1 + R / (3 sqrt(nu)) (1 / sqrt(pi t)
//               - a exp(a^2 t) erfc(a sqrt(t)))].
// Short times: (8 pi / 3) mu R^4 / sqrt(pi nu t), the Rayleigh layer
// (tau = mu R Omega sin(theta) / sqrt(pi nu t), integral of sin^3 = 4/3),
// plus its first curvature correction (16 pi / 3) mu R^3; long times the
// steady Stokes torque 8 pi mu R^3. Here as d/ds of the angular momentum
// lost, s = sqrt(t) (finite at s = 0): 2 s T / Omega.
static double sphere_spin_torque_ds(double s, double radius, double mu, double nu)
{
    double a = sqrt(nu) / radius, stokes = 8.0 * VORTON_PI * mu * radius * radius * radius;
    double memory = 2.0 / sqrt(VORTON_PI) - 2.0 * s * a * exp(a * a * s * s) * erfc(a * s);
    return stokes * (2.0 * s + radius / (3.0 * sqrt(nu)) * memory);
}

// The estimate of a free sphere's spin (inertia I) at time t after it
// started at omega0: I dOmega/dt = -T(t) with the impulsive start's torque
// taken at the current Omega (quasi-steady in Omega: it falls by ~20% in
// the times checked here), RK4 in s = sqrt(t) in double.
static double sphere_spin_estimate(double omega0, double inertia, double radius, double mu, double nu, double t)
{
    const int steps = 4000;
    double s_end = sqrt(t), h = s_end / steps, omega = omega0;
    for (int i = 0; i < steps; i++) {
        double s = i * h;
        double k1 = -sphere_spin_torque_ds(s, radius, mu, nu) * omega / inertia;
        double k2 = -sphere_spin_torque_ds(s + 0.5 * h, radius, mu, nu) * (omega + 0.5 * h * k1) / inertia;
        double k3 = -sphere_spin_torque_ds(s + 0.5 * h, radius, mu, nu) * (omega + 0.5 * h * k2) / inertia;
        double k4 = -sphere_spin_torque_ds(s + h, radius, mu, nu) * (omega + h * k3) / inertia;
        omega += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    return omega;
}

// rho/3 sum r x (r x alpha), r = x - c, alpha = omega V (Saffman's angular
// impulse: the angular momentum of the flow the vortons induce).
static void angular_impulse(cs_vorton *v, const float *pos, const float *vort, const float centre[3], double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (uint32_t i = 0; i < v->count; i++) {
        double s = pos[i * 4 + 3], vol = s * s * s, r[3], a[3];
        for (int d = 0; d < 3; d++) {
            r[d] = (double)pos[i * 4 + d] - centre[d];
            a[d] = vort[i * 4 + d] * vol;
        }
        double ra[3] = {r[1] * a[2] - r[2] * a[1], r[2] * a[0] - r[0] * a[2], r[0] * a[1] - r[1] * a[0]};
        double rra[3] = {r[1] * ra[2] - r[2] * ra[1], r[2] * ra[0] - r[0] * ra[2], r[0] * ra[1] - r[1] * ra[0]};
        for (int d = 0; d < 3; d++)
            out[d] += v->params.density / 3.0 * rra[d];
    }
}

// The shipped scene: a sphere of radius R (dense, free) spinning at Omega
// about y in still air, two frames (four steps). The wall hands the fluid
// the angular momentum of its viscous layer: the vortons' angular impulse
// about the sphere is within 25% of what the sphere lost by the estimate
// above (the regression this guards: the contact query's broad phase
// stopped at the sphere's bounding radius, no vorton outside it got any
// vorticity and the scene reported max speed 0). The flow a core out is
// slower than the wall (a diffusing layer never overtakes its wall).
static void test_spin_scene(cs_context *ctx)
{
    world_run r;
    if (!world_open(ctx, "vorton_spin_3d", NULL, &r))
        return;
    cs_body_state body0, body;
    cs_bodies_download(&r.world.bodies, &body0);
    world_frames(&r, 2);
    cs_bodies_download(&r.world.bodies, &body);
    cs_vorton *v = r.world.fluids[0].state;
    cs_sim_stats stats;
    cs_world_stats(&r.world, &stats, NULL);
    const cs_body *sphere = &r.scene.bodies[0];
    double omega = norm3(sphere->angular_velocity), radius = sphere->radius;
    double inertia = 1.0 / body0.inv_inertia[0].x, t = (double)v->steps * v->params.dt;
    double nu = v->params.viscosity, mu = v->params.density * nu;
    double lost_estimate = inertia * (omega - sphere_spin_estimate(omega, inertia, radius, mu, nu, t));
    float *pos = calloc(v->count + 1u, 16), *vort = calloc(v->count + 1u, 16);
    cs_vorton_download(v, pos, vort);
    const float centre[3] = {body.position.x, body.position.y, body.position.z};
    double fluid[3];
    angular_impulse(v, pos, vort, centre, fluid);
    double band_vorticity = 0.0;
    for (uint32_t i = 0; i < v->count; i++) {
        double d = norm3(&pos[i * 4]) - radius; // the sphere starts at the origin
        if (d < 2.0 * pos[i * 4 + 3])
            band_vorticity = fmax(band_vorticity, norm3(&vort[i * 4]));
    }
    double surface_speed = omega * radius, off = fluid[1] / lost_estimate - 1.0;
    double body_lost = ((double)body0.angular_momentum.y - body.angular_momentum.y);
    printf("vorton_spin_3d, 2 frames (%.4g s): fluid angular impulse %+.4g kg m^2/s, the layer's estimate %.4g "
           "(%+.1f%%), the sphere lost %.4g; max speed %.4g m/s (surface %.3g m/s), max |omega| within two cores "
           "of the sphere %.4g 1/s, %u non-finite\n",
           t, fluid[1], lost_estimate, 100.0 * off, body_lost, stats.max_speed, surface_speed, band_vorticity,
           stats.non_finite);
    CHECK(stats.non_finite == 0, "%u non-finite particles", stats.non_finite);
    CHECK(fabs(off) < 0.25, "the fluid's angular impulse %.4g kg m^2/s is %+.1f%% off the layer's %.4g", fluid[1],
          100.0 * off, lost_estimate);
    CHECK(stats.max_speed > 0.0 && stats.max_speed < surface_speed,
          "max speed %.4g m/s is not between 0 and the surface speed %.3g m/s", stats.max_speed, surface_speed);
    free(pos);
    free(vort);
    world_close(&r);
}

// A ball of still vortons (the heat ball, at T0 or hotter) around a sphere
// at the origin; %s: the sphere's extra keys, %g: the vortons' spacing
// (their core sigma), %s: the vorton block's extra keys.
static const char ball_scene[] =
    "{\"dim\": 3, \"domain\": {\"min\": [-1,-1,-1], \"max\": [1,1,1]}, \"gravity\": [0,0,0], \"dt\": 0.01, "
    "\"substeps\": 1, \"bodies\": [{\"shape\": \"sphere\", \"radius\": 0.12, \"position\": [0,0,0], "
    "\"friction\": 1, %s}], "
    "\"fluids\": [{\"solver\": \"vorton\", \"particle_spacing\": 0.1, "
    "\"materials\": [{\"name\": \"air\"}], "
    "\"blocks\": [{\"min\": [-0.3,-0.1,-0.3], \"max\": [0.3,0.1,0.3], \"material\": \"air\"}], "
    "\"vorton\": {\"spacing\": %g, \"ambient_temperature\": 300, %s, "
    "\"heat\": [{\"centre\": [0,0,0], \"radius\": 0.3, \"temperature\": 300}]}}]}";

typedef struct spin_result {
    cs_body_state body0, body;
    double fluid_angular0[3], fluid_angular[3]; // the vortons' angular impulse about the sphere's centre
    uint32_t n;
    float *pos, *vort;
} spin_result;

// The sphere (density 200, free, turning at omega_body about y) in the
// ball of fluid of density 100 (`vorton_keys` added to its block), whose
// vortons start with the vorticity (0, swirl, 0) (0: still fluid; a ball
// of uniform vorticity w turns at about w / 3 inside): `steps` steps.
static bool run_ball(cs_context *ctx, double omega_body, double swirl, const char *vorton_keys, uint32_t steps,
                     spin_result *out)
{
    char text[2048], body[128], keys[256];
    snprintf(body, sizeof body, "\"density\": 200, \"angular_velocity\": [0, %g, 0]", omega_body);
    snprintf(keys, sizeof keys, "\"density\": 100, \"viscosity\": 0.0005%s", vorton_keys);
    snprintf(text, sizeof text, ball_scene, body, 0.05, keys);
    world_run r;
    if (!world_open(ctx, "ball.json", text, &r))
        return false;
    cs_vorton *v = r.world.fluids[0].state;
    out->n = v->count;
    out->pos = calloc(v->count + 1u, 16);
    out->vort = calloc(v->count + 1u, 16);
    const float centre[3] = {0, 0, 0}; // a free sphere in zero gravity, nothing pushes it off the origin far
    cs_bodies_download(&r.world.bodies, &out->body0);
    cs_vorton_download(v, out->pos, out->vort);
    for (uint32_t i = 0; i < v->count; i++)
        out->vort[i * 4 + 1] = (float)swirl;
    cs_vorton_upload(v, out->pos, out->vort, v->count);
    angular_impulse(v, out->pos, out->vort, centre, out->fluid_angular0);
    world_frames(&r, steps);
    cs_vorton_download(v, out->pos, out->vort);
    cs_bodies_download(&r.world.bodies, &out->body);
    const float centre1[3] = {out->body.position.x, out->body.position.y, out->body.position.z};
    angular_impulse(v, out->pos, out->vort, centre1, out->fluid_angular);
    world_close(&r);
    return true;
}

// A free sphere spinning in still fluid hands the fluid angular momentum:
// it slows down, and the vortons' angular impulse grows by what it lost.
// Under either no-slip rule (`keys`: SET, or "" the default "flux"; the
// balance limit is the rule's, `balance_limit`).
static void test_spin_down(cs_context *ctx, const char *keys, double balance_limit)
{
    const double omega_body = 6.0;
    spin_result a, b;
    if (!run_ball(ctx, omega_body, 0.0, keys, 12, &a) || !run_ball(ctx, omega_body, 0.0, keys, 12, &b))
        return;
    // omega = I^-1 L; a sphere: I^-1 is (1 / I) times the identity.
    double inv_i = a.body.inv_inertia[0].x;
    double w_end = a.body.angular_momentum.y * inv_i;
    double body_change = (double)a.body.angular_momentum.y - a.body0.angular_momentum.y;
    double fluid_change = a.fluid_angular[1] - a.fluid_angular0[1];
    double off_axis = fabs(a.body.angular_momentum.x) + fabs(a.body.angular_momentum.z);
    double balance = fabs(body_change + fluid_change) / fabs(body_change);
    bool same = a.n == b.n && memcmp(&a.body, &b.body, sizeof a.body) == 0 && memcmp(a.pos, b.pos, a.n * 16) == 0 &&
                memcmp(a.vort, b.vort, a.n * 16) == 0;
    printf("spin-down (no_slip %s): a free sphere at %.3g rad/s in %u still vortons, 12 steps: %.5g rad/s; L_y body %+.4g, fluid "
           "angular impulse %+.4g kg m^2/s (sum off by %.2g of the body's change); two runs %s\n",
           *keys ? "set" : "flux", omega_body, a.n, w_end, body_change, fluid_change, balance, same ? "identical" : "DIFFER");
    CHECK(w_end < 0.999 * omega_body && w_end > 0.0, "the sphere turns at %.5g rad/s after 12 steps (started at %.3g)",
          w_end, omega_body);
    // Not exact: the vortons' own dynamics (advection, viscosity, the
    // ejections' moves) change the discrete angular impulse too.
    CHECK(balance < balance_limit, "the fluid gained %.4g where the body lost %.4g (off by %.3g, limit %.3g)",
          fluid_change, -body_change, balance, balance_limit);
    CHECK(off_axis < 1e-3 * fabs(body_change), "the sphere's angular momentum left its axis: %.3g", off_axis);
    CHECK(same, "two runs with a two-way body differ");
    free(a.pos);
    free(a.vort);
    free(b.pos);
    free(b.vort);
}

// The round-2 no-slip rule (the band's tangential vorticity replaced by the
// slip's layer; not the default: docs/vortons.md "Bodies").
#define SET ", \"no_slip\": \"set\""

// A free sphere at rest in a ball of fluid turning about +y spins up about
// +y: the no-slip rule makes the vorticity of the slip (the fluid passing
// the still surface) and the body gets minus its angular impulse. The
// round-2 rule (the tangential vorticity *replaced* by the slip's layer,
// "no_slip": "set") removes the swirl's own vorticity there and turned the
// sphere the other way (-0.46 rad/s). Only the sign and a bound are
// checked: measured +1.09 rad/s, most of it from the eject (the vortons
// the swirl carries into the band, moved out along n, change their free-
// space angular impulse; +1.53 with the wall flux off), where the swirl's
// shear stress at the wall, mu omega sin(theta), would turn the sphere by
// ~0.06 rad/s in 0.12 s.
static void test_swirl_spin_up(cs_context *ctx)
{
    const double swirl = 6.0; // 1/s: the ball turns at about 2 rad/s
    spin_result a;
    if (!run_ball(ctx, 0.0, swirl, "", 12, &a))
        return;
    double inv_i = a.body.inv_inertia[0].x;
    double w_end = a.body.angular_momentum.y * inv_i;
    double body_change = (double)a.body.angular_momentum.y - a.body0.angular_momentum.y;
    double fluid_change = a.fluid_angular[1] - a.fluid_angular0[1];
    double balance = fabs(body_change + fluid_change) / fabs(body_change);
    double max_vorticity = 0.0;
    for (uint32_t i = 0; i < a.n; i++)
        max_vorticity = fmax(max_vorticity, norm3(&a.vort[i * 4]));
    printf("swirl: a free sphere at rest in %u vortons of omega_y %.3g 1/s (the ball turns at ~%.3g rad/s), 12 "
           "steps: %+.5g rad/s; L_y body %+.4g, fluid angular impulse %+.4g kg m^2/s (sum off by %.2g); max |omega| "
           "%.4g 1/s\n",
           a.n, swirl, swirl / 3.0, w_end, body_change, fluid_change, balance, max_vorticity);
    CHECK(w_end > 0.02 * swirl / 3.0, "the sphere turns at %+.5g rad/s about y in a swirl about +y", w_end);
    CHECK(w_end < swirl / 3.0, "the sphere turns at %.5g rad/s, faster than the swirl (~%.3g)", w_end, swirl / 3.0);
    // Looser than the spin-down's: the swirling ball's own evolution moves
    // the discrete angular impulse by ~5e-4 kg m^2/s in 12 steps under
    // either rule ("set": body -0.0038, fluid +0.0044), a third of what
    // the wall hands over here.
    CHECK(balance < 0.5, "the body gained %.4g where the fluid lost %.4g", body_change, -fluid_change);
    CHECK(isfinite(max_vorticity) && max_vorticity < 10.0 * swirl, "the vorticity grew to %.4g (swirl %.3g)",
          max_vorticity, swirl);
    free(a.pos);
    free(a.vort);
}

// A free sphere (R 0.12, density 200) started at 6 rad/s in the still ball
// of fluid (density 100) with vortons of core `spacing` and viscosity
// `nu`: its spin after 2, 4, 8 and 12 steps of 0.01 s against the
// estimate above. Checked: the spin lost, omega0 - omega(t), within 25% of
// the estimate's at every sample (the spin itself within 25% would pass a
// sphere the fluid never touched).
static void test_spin_down_rayleigh(cs_context *ctx, double spacing, double nu)
{
    const double omega0 = 6.0;
    const uint32_t samples[] = {2, 4, 8, 12};
    char text[2048], keys[256];
    snprintf(keys, sizeof keys, "\"density\": 100, \"viscosity\": %g", nu);
    snprintf(text, sizeof text, ball_scene, "\"density\": 200, \"angular_velocity\": [0, 6, 0]", spacing, keys);
    world_run r;
    if (!world_open(ctx, "rayleigh.json", text, &r))
        return;
    cs_vorton *v = r.world.fluids[0].state;
    cs_body_state body;
    cs_bodies_download(&r.world.bodies, &body);
    double inertia = 1.0 / body.inv_inertia[0].x, radius = r.scene.bodies[0].radius;
    double rho = v->params.density, mu = rho * (double)v->params.viscosity, dt = v->params.dt;
    CHECK(fabs(v->params.viscosity - nu) < 1e-6 * nu, "the scene's viscosity %g is not %g", v->params.viscosity, nu);
    printf("spin-down vs Rayleigh: sphere R %.3g m, I %.4g kg m^2, %.3g rad/s in %u vortons of core %g m, rho %g, nu "
           "%g m^2/s (Rayleigh layer at %.3g s: %.3g m)\n",
           radius, inertia, omega0, v->count, spacing, rho, nu, samples[3] * dt,
           sqrt(VORTON_PI * nu * samples[3] * dt));
    uint32_t done = 0;
    for (size_t k = 0; k < CS_ARRAY_COUNT(samples); k++) {
        world_frames(&r, samples[k] - done);
        done = samples[k];
        cs_bodies_download(&r.world.bodies, &body);
        double t = done * dt, omega = body.angular_momentum.y * body.inv_inertia[0].x;
        double estimate = sphere_spin_estimate(omega0, inertia, radius, mu, nu, t);
        double loss = omega0 - omega, loss_estimate = omega0 - estimate;
        double off = loss / loss_estimate - 1.0;
        printf("spin-down t %.3f s: omega %.4g rad/s, Rayleigh estimate %.4g (%+.1f%%); lost %.4g vs %.4g rad/s "
               "(%+.1f%%); sigma %g m, nu %g m^2/s\n",
               t, omega, estimate, 100.0 * (omega / estimate - 1.0), loss, loss_estimate, 100.0 * off, spacing, nu);
        CHECK(fabs(off) < 0.25, "sigma %g, nu %g, t %.3f s: the sphere lost %.4g rad/s, the estimate %.4g (%+.1f%%)",
              spacing, nu, t, loss, loss_estimate, 100.0 * off);
    }
    world_close(&r);
}

// rho c_p sum V (T - T0) over the vortons plus C_b (T_b - T0).
static double total_heat(cs_vorton *v, double *body_excess)
{
    float *pos = calloc(v->count + 1u, 16), *vort = calloc(v->count + 1u, 16);
    cs_vorton_download(v, pos, vort);
    float thermal[CS_BODIES_MAX][4];
    cs_vorton_download_body_thermal(v, thermal);
    const cs_vorton_params *p = &v->params;
    double fluid = 0.0;
    for (uint32_t i = 0; i < v->count; i++) {
        double s = pos[i * 4 + 3];
        fluid += s * s * s * ((double)vort[i * 4 + 3] - p->ambient_temperature);
    }
    *body_excess = thermal[0][2];
    free(pos);
    free(vort);
    return (double)p->density * p->specific_heat * fluid + (double)p->body_heat_capacity[0] * thermal[0][2];
}

static void test_body_heat(cs_context *ctx)
{
    char text[2048];
    snprintf(text, sizeof text, ball_scene, "\"static\": true, \"density\": 500", 0.05,
             "\"diffusivity\": 0.01, \"body_temperature\": [400], \"body_specific_heat\": [14]");
    world_run r;
    if (!world_open(ctx, "body_heat.json", text, &r))
        return;
    cs_vorton *v = r.world.fluids[0].state;
    double excess0, excess1;
    double q0 = total_heat(v, &excess0);
    world_frames(&r, 20);
    double q1 = total_heat(v, &excess1);
    double drift = fabs(q1 - q0) / fabs(q0);
    printf("body heat: C_b %.4g J/K, T_b - T0 %.4g -> %.4g K over 20 steps; total heat %.7g -> %.7g J (drift %.2e)\n",
           v->params.body_heat_capacity[0], excess0, excess1, q0, q1, drift);
    CHECK(excess1 < excess0 - 1.0, "the hot body did not cool (T_b - T0 %.4g -> %.4g K)", excess0, excess1);
    CHECK(drift < 1e-4, "total heat (fluid + body) drifted %.2e", drift);
    world_close(&r);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    test_spin_scene(&ctx);
    // The flux rule's wall sheet goes to the body and the vortons alike (the
    // measured balance is 1.0%); "set" moves the vortons more (8.6%).
    test_spin_down(&ctx, "", 0.10);
    test_spin_down(&ctx, SET, 0.25);
    test_swirl_spin_up(&ctx);
    test_spin_down_rayleigh(&ctx, 0.05, 0.0005);
    test_spin_down_rayleigh(&ctx, 0.035, 0.0005);
    test_spin_down_rayleigh(&ctx, 0.05, 0.002);
    test_body_heat(&ctx);
    return test_finish(&ctx);
}
