// test_dam_front.c — issue 31 item 1 (and issue 43 for DFSPH): the dam-break
// surge front of every particle solver against Martin & Moyce (1952) and
// against each other.
//
// The column of their Figure 3 with n^2 = 2: a wide, 2a high, against the
// wall at x = 0, released at t = 0; the front Z = x / a against
// T = t sqrt(2 g / a). Here a = 10 spacings (20 high, 6 deep in 3D: 1200
// particles; 200 in 2D) of 0.02 m, water at rho0 1000, h = 2 spacings,
// dt 1/540 s, and every other value the solvers' defaults (mass included:
// Clavet's is the one that puts its lattice at rest density; scene_clavet.c).
// The front is the 99th percentile of x of the particle centres plus half
// a spacing (a centre sits half a spacing inside the water's edge), so a
// lone spray particle does not decide it.
//
// Martin & Moyce's data (n^2 = 2, a = 2.25 in, their Figure 3, as PySPH's
// db_exp_data lists it): T 0.832, 1.219, 1.997, 2.547, 3.345 -> Z 1.217,
// 1.474, 2.292, 2.995, 4.134; read here by straight lines between points.
// Checked at T = 1, 2, 3, in 2D and 3D:
//   - no solver blows up (fronts finite, no particle faster than
//     3 sqrt(2 g a)); the defaults' mass starts the lattice within 5% of
//     rest density;
//   - every front within -10% .. +15% of the experiment (SPH runs ahead of
//     it at T = 1: its gate opens in a finite time);
//   - every solver within FRONT_AGREEMENT (5%, issue 31) of the four
//     solvers' mean (PBF, WCSPH, Clavet, DFSPH); DFSPH's front within 5%
//     of the experiment itself at a = 10 spacings (issue 43; llvmpipe:
//     +0.4% .. +4.7%);
//   - in 2D once more at twice the resolution (a = 20 spacings, dt by
//     Froude scaling, dt ~ sqrt(spacing)), with the same checks, and each
//     solver's front within REFINED_CHANGE (10%) of its coarse one: the
//     defaults rescale with the spacing, so a refined scene is the same
//     fluid (llvmpipe: PBF -4.7% .. +2.1%, WCSPH within 2%, Clavet -1.8%
//     at T = 1, +0.9% at T = 3; round 3's Clavet -7.6% and -1.7%).
// Measured (llvmpipe, Mesa 22.3.6) with the defaults: every solver within
// 4.2% of the mean, every front within -4.6% .. +5.7% of the experiment
// (Clavet's defaults of issue 44, tests/test_clavet_fronts.c; with round
// 3's: 3.2%, -4.6% .. +6.3%).
// What it took (docs/fluids.md "Defaults in any units", docs/validation.md):
//  - Clavet: scale-free defaults (scene_clavet.c). Before, k 0.08, k_near
//    0.1, kappa 0.0004 in the seed's 2D units and mass rho0 s^dim blew this
//    3D column up in the first steps; a scale-free k with that mass lagged
//    by 16-20%.
//  - PBF: its artificial pressure s_corr pushes once per constraint
//    iteration, outwards wherever a particle misses neighbours, so the
//    front is all push: scorr_k 0.1 ran +18.7% (3D) / +19.8% (2D) ahead of
//    the experiment at T = 1, 9-10% ahead of the mean. scorr_k 0 is on time
//    (-0.2%) but a pool never settles (rms 7.9% of sqrt(gH) after 8 s,
//    test_walls); the default scorr_k 0.04 with xsph 0.03 is +5.7% / +5.0%
//    at T = 1, and the 2k and 16k pools rest (test_walls).
//  - WCSPH: artificial viscosity alpha 0.02 ran 8.8% ahead at T = 2 in 2D,
//    7.9% ahead of Clavet at T = 3; Monaghan's usual 0.1 is the default.
//   test_dam_front [dim] [solver] ['"key": value' material extras] ['"key": value' solver block] [spacing] [dt]
// runs one case and prints its curve (for sweeps; docs/fluids.md); DFSPH
// also prints its mean step and iterations.
// ctest labels: slow,gpu -- 210 at load 10 (29 s CPU): Martin & Moyce column, 4 solvers, 2D and 3D
#include "test_util.h"

#include "dam_front.h"
#include "solvers.h"

#define SPACINGS_WIDE 10
#define SPACING 0.02
#define FRONT_AGREEMENT 0.05
#define REFINED_CHANGE 0.10 // a solver's front, a = 10 against a = 20 spacings
#define EXPERIMENT_BEHIND 0.10
#define EXPERIMENT_AHEAD 0.15
#define DFSPH_EXPERIMENT 0.05 // issue 43: DFSPH's front within 5% of the experiment

typedef struct curve {
    double z[3]; // Z at T = 1, 2, 3
    bool ok;
} curve;

// mass 0: the material's default mass.
// " (a = 20 spacings)" for a refined run, "" for the default spacing.
static const char *refined_label(double spacing)
{
    static char label[64];
    label[0] = 0;
    if (fabs(spacing - SPACING) > 1e-9)
        snprintf(label, sizeof label, " (a = %.0f spacings)", SPACINGS_WIDE * SPACING / spacing);
    return label;
}

// spacing: the particle spacing; the column stays 0.2 m wide (a), h 2
// spacings, and dt scales like sqrt(spacing) (Froude), from 1/540 s at 0.02.
static curve run_case_mass(cs_context *ctx, int dim, const char *solver, const char *extra, const char *block,
                           double mass, double spacing, double dt_given)
{
    curve out = {.ok = false};
    double a = SPACINGS_WIDE * SPACING, depth = 6 * spacing, dt = 0.0018519 * sqrt(spacing / SPACING);
    if (dt_given > 0.0)
        dt = dt_given;
    bool mass_given = mass > 0.0;
    char mass_key[64] = "";
    if (mass_given)
        snprintf(mass_key, sizeof mass_key, ", \"mass\": %.9g", mass);
    char json[2048];
    // dt: 1/540 s, the test_walls dam break's (PBF, 1 iteration pass a substep).
    if (dim == 3)
        snprintf(json, sizeof json,
                 "{ \"solver\": \"%s\", \"dim\": 3, \"domain\": { \"min\": [0, 0, 0], \"max\": [%g, %g, %g] },"
                 "  \"gravity\": [0, -9.81, 0], \"dt\": %.9g, \"substeps\": 1, \"seed\": 1,"
                 "  \"smoothing_radius\": %g, \"particle_spacing\": %g,"
                 "  \"materials\": [ { \"name\": \"water\", \"rest_density\": 1000%s %s%s } ],"
                 "  \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [%g, %g, %g], \"material\": \"water\" } ],"
                 "  \"%s\": { %s } }",
                 solver, 5.0 * a, 2.5 * a, depth, dt, 2 * spacing, spacing, mass_key, extra[0] ? ", " : "", extra, a,
                 2.0 * a, depth, solver, block);
    else
        snprintf(json, sizeof json,
                 "{ \"solver\": \"%s\", \"dim\": 2, \"domain\": { \"min\": [0, 0], \"max\": [%g, %g] },"
                 "  \"gravity\": [0, -9.81], \"dt\": %.9g, \"substeps\": 1, \"seed\": 1,"
                 "  \"smoothing_radius\": %g, \"particle_spacing\": %g,"
                 "  \"materials\": [ { \"name\": \"water\", \"rest_density\": 1000%s %s%s } ],"
                 "  \"blocks\": [ { \"min\": [0, 0], \"max\": [%g, %g], \"material\": \"water\" } ],"
                 "  \"%s\": { %s } }",
                 solver, 5.0 * a, 2.5 * a, dt, 2 * spacing, spacing, mass_key, extra[0] ? ", " : "", extra, a, 2.0 * a,
                 solver, block);
    cs_scene sc;
    cs_error err;
    if (!cs_scene_parse(json, strlen(json), "test_dam_front.json", &sc, &err)) {
        CHECK(false, "%s %dD: %s", solver, dim, err.msg);
        return out;
    }
    const cs_sim_ops *ops = cs_sim_find(sc.solver);
    // The defaults' mass must put the lattice at rest density in the
    // solver's own sum (the world warns at 5% off): Clavet's sum leaves self
    // out, so rho0 spacing^dim started its column at 0.48 (2D) and 0.64 (3D)
    // of rest density with h = 2 spacings, in tension.
    double rho, fitting = 0.0;
    if (ops && ops->lattice_density && ops->lattice_density(&sc, 0, spacing, &rho, &fitting))
        CHECK(fabs(rho / sc.materials[0].rest_density - 1.0) <= 0.05,
              "%s %dD: the default mass %.6g puts the lattice at rho/rho0 %.3f (the solver's fitting mass: %.6g)",
              solver, dim, sc.materials[0].mass, rho / sc.materials[0].rest_density, fitting);
    void *state;
    if (!ops || !ops->create(ctx, &sc, &state, &err)) {
        CHECK(false, "%s %dD: %s", solver, dim, ops ? err.msg : "no such solver");
        cs_scene_free(&sc);
        return out;
    }
    double to_t = 1.0 / sqrt(2.0 * 9.81 / a); // t of T = 1
    uint64_t index = 0;
    cs_recorder rec;
    cs_recorder_create(ctx, "dam front", &rec);
    out.ok = true;
    for (int k = 1; k <= 3; k++) {
        uint64_t until = (uint64_t)llround(k * to_t / sc.dt);
        while (index < until) {
            cs_recorder_begin(&rec);
            for (uint32_t s = 0; s < 8 && index < until; s++, index++) {
                cs_substep step = {.index = index,
                                   .time = (double)index * sc.dt,
                                   .dt = sc.dt,
                                   .frame_substep = s,
                                   .frame_substeps = 8};
                ops->record_substep(state, &rec, &step);
            }
            cs_recorder_submit_wait(&rec);
        }
        double speed;
        double front = dam_front_of(ctx, ops, state, spacing, &speed);
        out.z[k - 1] = front / a;
        double mm = dam_martin_moyce((double)index * sc.dt / to_t);
        printf("%s %dD%s T = %d: Z = %.3f (Martin & Moyce %.3f, %+.1f%%), fastest particle %.3g m/s (sqrt(2 g a) "
               "%.3g)\n",
               solver, dim, refined_label(spacing), k, out.z[k - 1], mm, 100 * (out.z[k - 1] / mm - 1), speed,
               sqrt(2 * 9.81 * a));
        out.ok &= isfinite(front) && speed < 3 * sqrt(2 * 9.81 * a);
    }
    cs_recorder_destroy(&rec);
    // A solver that picks its own steps (DFSPH) says which it took.
    cs_sim_stats st;
    ops->stats(state, &st);
    if (st.solver_steps)
        printf("%s %dD%s: %u steps in %llu substeps of %.3g ms: mean dt %.4g ms, %.2f density and %.2f divergence "
               "iterations a step\n",
               solver, dim, refined_label(spacing), st.solver_steps, (unsigned long long)index, 1e3 * sc.dt,
               1e3 * st.solver_dt_sum / st.solver_steps, (double)st.density_iterations / st.solver_steps,
               (double)st.divergence_iterations / st.solver_steps);
    ops->destroy(state);
    cs_scene_free(&sc);
    return out;
}

int main(int argc, char **argv)
{
    cs_context ctx;
    test_context(&ctx);
    if (argc > 2) {
        run_case_mass(&ctx, atoi(argv[1]), argv[2], argc > 3 ? argv[3] : "", argc > 4 ? argv[4] : "", 0.0,
                      argc > 5 ? atof(argv[5]) : SPACING, argc > 6 ? atof(argv[6]) : 0.0);
        return test_finish(&ctx);
    }
    static const char *const solvers[] = {"pbf", "wcsph", "sph", "dfsph"};
    enum { SOLVERS = CS_ARRAY_COUNT(solvers), DFSPH = 3 };
    // 2D and 3D at a = 10 spacings, then 2D refined to a = 20 spacings (dt
    // by Froude, every default rescaled by the solvers): the same fluid,
    // so the three still agree and each stays near its coarse curve.
    static const struct {
        int dim;
        double spacing;
    } runs[] = {{2, SPACING}, {3, SPACING}, {2, 0.5 * SPACING}};
    curve coarse_2d[SOLVERS];
    for (size_t r = 0; r < CS_ARRAY_COUNT(runs); r++) {
        int dim = runs[r].dim;
        double spacing = runs[r].spacing;
        const char *label = refined_label(spacing);
        curve c[SOLVERS];
        for (int s = 0; s < SOLVERS; s++) {
            c[s] = run_case_mass(&ctx, dim, solvers[s], "", "", 0.0, spacing, 0.0);
            CHECK(c[s].ok, "%s %dD%s: the column blew up (a front or speed not finite, or over 3 sqrt(2 g a))",
                  solvers[s], dim, label);
        }
        for (int k = 0; k < 3; k++) {
            double mean = 0.0, mm = dam_martin_moyce(k + 1.0);
            for (int s = 0; s < SOLVERS; s++)
                mean += c[s].z[k] / SOLVERS;
            // DFSPH against the experiment itself (issue 43): within 5% at
            // a = 10 spacings in 2D and 3D. Refined (a = 20, 2D) it reads
            // +5.4% at T = 2 on llvmpipe (+2.9% of the mean) and is held to
            // the bounds every solver is.
            CHECK(label[0] || fabs(c[DFSPH].z[k] / mm - 1) <= DFSPH_EXPERIMENT,
                  "%dD%s T = %d: dfsph's front Z = %.3f is %+.1f%% off Martin & Moyce's %.3f (limit %.0f%%)", dim,
                  label, k + 1, c[DFSPH].z[k], 100 * (c[DFSPH].z[k] / mm - 1), mm, 100 * DFSPH_EXPERIMENT);
            for (int s = 0; s < SOLVERS; s++) {
                CHECK(fabs(c[s].z[k] / mean - 1) <= FRONT_AGREEMENT,
                      "%dD%s T = %d: %s's front Z = %.3f is %+.1f%% off the solvers' mean %.3f (limit %.0f%%)", dim,
                      label, k + 1, solvers[s], c[s].z[k], 100 * (c[s].z[k] / mean - 1), mean, 100 * FRONT_AGREEMENT);
                CHECK(c[s].z[k] / mm - 1 >= -EXPERIMENT_BEHIND && c[s].z[k] / mm - 1 <= EXPERIMENT_AHEAD,
                      "%dD%s T = %d: %s's front Z = %.3f is %+.1f%% off Martin & Moyce's %.3f (allowed -%.0f%% .. "
                      "+%.0f%%)",
                      dim, label, k + 1, solvers[s], c[s].z[k], 100 * (c[s].z[k] / mm - 1), mm, 100 * EXPERIMENT_BEHIND,
                      100 * EXPERIMENT_AHEAD);
                if (label[0])
                    CHECK(fabs(c[s].z[k] / coarse_2d[s].z[k] - 1) <= REFINED_CHANGE,
                          "2D T = %d: %s's front moved %+.1f%% from a = 10 to a = 20 spacings (%.3f -> %.3f; limit "
                          "%.0f%%)",
                          k + 1, solvers[s], 100 * (c[s].z[k] / coarse_2d[s].z[k] - 1), coarse_2d[s].z[k], c[s].z[k],
                          100 * REFINED_CHANGE);
            }
            printf("%dD%s T = %d: Martin & Moyce %.3f; pbf %+.1f%%, wcsph %+.1f%%, sph %+.1f%%, dfsph %+.1f%% of the "
                   "mean %.3f\n",
                   dim, label, k + 1, mm, 100 * (c[0].z[k] / mean - 1), 100 * (c[1].z[k] / mean - 1),
                   100 * (c[2].z[k] / mean - 1), 100 * (c[3].z[k] / mean - 1), mean);
        }
        if (dim == 2 && !label[0])
            memcpy(coarse_2d, c, sizeof c);
    }
    return test_finish(&ctx);
}
