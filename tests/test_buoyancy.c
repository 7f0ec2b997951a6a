// test_buoyancy.c — floating rigid boxes in the two particle solvers that
// push bodies back through their pressure (PBF and WCSPH), 2D and 3D:
//  1. Archimedes: a box of s rho0 (2D: s = 0.2, 0.3, 0.5, 0.8; 3D: 0.2, 0.8 —
//     a subset of 0.2 ... 0.8 for the runtime) floats with s of its volume
//     under the water, within 5% of s. The box draws at least 3 spacings
//     (archimedes_box: the light one is taller; PBF's floated +8.2% deep
//     at 1.6). It starts upright at its line, in a hole cut in the water
//     (tank_blocks): dropped onto the water it bobbed by its whole draft
//     for the whole run, and PBF, which can push but not pull, read +26%
//     from that alone (2D 0.2 rho0; +6% once it settled).
//     The submerged volume is measured from the box's pose and the fluid's
//     volume, not from the top particles (whose row stands a biased half
//     spacing under the surface): the tank's floor area A is known, the
//     fluid fills N spacing^dim at rest (its lattice), and the level L
//     solves A L = V_fluid + V_sub(L, pose), V_sub the volume of the
//     (tilted) box under the plane y = L, clipped exactly in double
//     (submerged_volume; test_geometry checks it against closed forms).
//     Every frame of a 5 s run, the mean over the last 2 s. A dry run
//     first (the box held above the water) prints where the pool's surface
//     stands at rest, and each case also the fraction against that pool's
//     own volume (diagnostic, not checked). PBF runs with its defaults:
//     scorr_background is 0 in a scene with free bodies (fluid_pbf.c,
//     docs/fluids.md "Floating bodies and s_corr's background").
//  1b. Boxes as a user draws them (PBF, 2D, 8 x 6 spacings at 0.25 / 0.4 /
//     0.65 rho0: drafts 1.5 / 2.4 / 3.9 spacings), the solver's defaults:
//     under 3 spacings of draft the run must warn that the body is too
//     small for the fluid (world_drafts.c) and the box is held to 12%; at
//     3 or more it must not warn and is held to 5% (test_user_boxes).
//  2. Stability (the metacentric criterion): a box of s rho0 floating
//     upright is stable when its width over height exceeds
//     sqrt(6 s (1 - s)) (metacentre above the centre of mass: KB + BM > KG
//     with KB = s H / 2, BM = W^2 / (12 s H), KG = H / 2, 2D and 3D with a
//     square section). At s = 0.3 a box at 0.7 of that ratio, let go
//     tilted 3 degrees and dropped onto the water, turns onto its side
//     (tilt of its height axis > 45 degrees after 2 s); one at 1.4 of it
//     stays upright (< 10).
// Measured (llvmpipe, Mesa 22.3.6; docs/bodies.md "Buoyancy and
// stability"): WCSPH 2D -1.1 / +1.7 / -1.4 / -0.8% (s 0.2 / 0.3 / 0.5 /
// 0.8), 3D -2.2 / +0.6% (0.2 / 0.8); PBF 2D +4.2 / +4.4 / +1.9 / +0.5%,
// 3D -0.6 / +1.3% (with the paper's s_corr, the small light boxes and
// before the corner margin: +6.0 / -5.3 / -0.8% and +6.6 / +5.7%).
// Tipping, both solvers and dims: narrow 78-90 degrees, wide 0.3-1.4; it
// fails with the torque of PBF's impulses dropped (the narrow box stays at
// 3.0).
//  3. Tipping at the threshold (2D, s = 0.5): boxes at 0.90x / 0.95x the
//     critical ratio rest heeled at the angle computed here from exact
//     hydrostatics (equilibrium_heel: 34.4 / 24.9 degrees), at 1.05x /
//     1.10x upright; test_threshold.
// One line per case:
//   pool <solver> <dim>D: surface <m> m at rest, lattice volume over the floor <m> m (<+x.x>%)
//   buoyancy <solver> <dim>D s <s>: submerged <frac> of the body (Archimedes <s>, <+x.x>%), tilt <deg>, draft <n> spacings; against the pool's own volume <frac> (<+x.x>%)
//   tipping <solver> <dim>D s <s> w/h <r> (critical <rc>): tilt <deg> -> <tipped|upright|between> (expected <tipped|upright>)
//   user box <solver> 2D s <s> (<w> x <h> spacings, draft <d>): submerged <frac> (Archimedes <s>, <+x.x>%), tilt <deg>, <warned|not warned>
//   threshold <solver> 2D s <s> w/h <r> (<f>x critical <rc>) from <deg>: heel <deg> (last <deg>), equilibrium <deg> (<+x.x>)
// CS_BUOYANCY_ONLY=<solver><dim>[,...] (e.g. pbf3) runs only those groups,
// CS_BUOYANCY_ARCHIMEDES_ONLY / CS_BUOYANCY_TIPPING_ONLY one half,
// CS_BUOYANCY_USER_ONLY=1 the user's boxes, CS_BUOYANCY_THRESHOLD_ONLY=
// <factor>/<start degrees> (0.95/3, 0.90/40, ...) or all the threshold's boxes (ctest
// runs test_buoyancy as wcsph2's light Archimedes cases, test_buoyancy_wcsph2_heavy
// and test_buoyancy_<group>[_tipping] for the rest: each its own timeout),
// CS_BUOYANCY_DENSITY=0.35[,0.6] those densities,
// CS_BUOYANCY_BLOCK='"scorr_k":0' adds keys to the solver's block and
// CS_BUOYANCY_DRAFT_MIN=0 keeps the small light boxes (for experiments),
// CS_TEST_VERBOSE=1 prints a sample every 10 frames, =2 every
// frame.
// ctest labels: slow,gpu -- minutes whole; ctest runs WCSPH 2D's light Archimedes cases here, the rest as test_buoyancy_*
#include "test_util.h"

#include "bodies.h"
#include "world.h"

#define PI 3.14159265358979323846

// The tanks: 3D 0.48 x 0.48 floor, water 0.24 deep on a 0.03 lattice (16 x 8
// x 16 particles, h = 2 spacings); 2D 0.96 wide, 0.24 deep on a 0.015
// lattice (64 x 16). dt 2 ms, 10 substeps a frame. The 2D tank is wider
// than the 3D one: at 0.48 its first sloshing mode (0.82 s) is close to a
// floating box's heave (~0.7 s) and WCSPH boxes bobbed out of the water
// and back over the whole run (0.2 rho0: -27%, 0.5: -33%). An Archimedes
// box too wide for the 3D tank gets a wider one (archimedes_box).
#define TANK_WIDTH 0.48
#define TANK_WIDTH_2D 0.96
#define TANK_DEPTH 0.24

static double spacing_of(int dim) { return dim == 3 ? 0.03 : 0.015; }
static double default_tank(int dim) { return dim == 3 ? TANK_WIDTH : TANK_WIDTH_2D; }

// One box: width w (x and, in 3D, z), height hb (y), density s rho0, tilted
// `tilt0` degrees about z, let go at rest with its lowest point just above
// the water.
typedef struct {
    const char *solver;
    int dim;
    double s, width, height, tilt0;
    double tank;         // the floor's width (x and, in 3D, z)
    uint32_t frames;
    bool dry;            // the box held static 0.2 m above the water: the pool alone
    bool at_line;        // start the (upright) box at its Archimedes line in a hole cut in the water
    double pool_expansion; // > 0: also measure against the fluid's volume times this (the pool's own, from a dry run)
    uint32_t tilt_window;  // > 0: the mean tilt over the last this many frames (else over the last 2 / 5)
} tank_case;

typedef struct {
    double submerged; // mean fraction of the body's volume under the level
    double tilt;      // mean angle of the box's height axis from the vertical, degrees
    double last_tilt; // the same at the last sample
    double surface;   // mean visible surface: the top particle of each open column + spacing / 2
    double submerged_pool; // as submerged, against tank_case.pool_expansion
    bool ok;
    char warnings[1024]; // what the run would print at its start (world.density_warnings)
} tank_result;

// ---- geometry, in double ---------------------------------------------------------

static void quat_rotate(const double q[4], const double v[3], double out[3])
{
    const double *u = q, w = q[3];
    double t[3] = {2.0 * (u[1] * v[2] - u[2] * v[1]), 2.0 * (u[2] * v[0] - u[0] * v[2]), 2.0 * (u[0] * v[1] - u[1] * v[0])};
    double ut[3] = {u[1] * t[2] - u[2] * t[1], u[2] * t[0] - u[0] * t[2], u[0] * t[1] - u[1] * t[0]};
    for (int a = 0; a < 3; a++)
        out[a] = v[a] + w * t[a] + ut[a];
}

// Clips a convex polygon (n points, 3D) to y <= level (Sutherland-Hodgman);
// returns the new count (out holds up to n + 1 points).
static int clip_below(const double (*in)[3], int n, double level, double (*out)[3])
{
    int m = 0;
    for (int k = 0; k < n; k++) {
        const double *p = in[k], *q = in[(k + 1) % n];
        bool p_in = p[1] <= level, q_in = q[1] <= level;
        if (p_in)
            memcpy(out[m++], p, sizeof(double) * 3);
        if (p_in != q_in) {
            double t = (level - p[1]) / (q[1] - p[1]);
            for (int a = 0; a < 3; a++)
                out[m][a] = p[a] + t * (q[a] - p[a]);
            out[m][1] = level;
            m++;
        }
    }
    return m;
}

// The volume (3D) or area (2D) of the box at (centre, q) under y = level.
// 3D: the divergence theorem with F = (0, y - level, 0), zero on the cut
// plane, so only the box's faces clipped below it count: V = sum over the
// clipped faces of n_y area (y_centroid - level), over fan triangles.
// 2D: the rectangle clipped as a polygon, shoelace area.
static double submerged_volume(int dim, const double centre[3], const double q[4], double width, double height,
                               double level)
{
    double half[3] = {0.5 * width, 0.5 * height, 0.5 * width};
    if (dim == 2) {
        double corners[4][3], clipped[5][3];
        const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
        for (int k = 0; k < 4; k++) {
            double local[3] = {sx[k] * half[0], sy[k] * half[1], 0.0}, w[3];
            quat_rotate(q, local, w);
            for (int a = 0; a < 3; a++)
                corners[k][a] = centre[a] + w[a];
        }
        int m = clip_below((const double(*)[3])corners, 4, level, clipped);
        double area = 0.0;
        for (int k = 0; k < m; k++) {
            const double *p = clipped[k], *r = clipped[(k + 1) % m];
            area += p[0] * r[1] - r[0] * p[1];
        }
        return fabs(0.5 * area);
    }
    double volume = 0.0;
    for (int a = 0; a < 3; a++)
        for (int sign = -1; sign <= 1; sign += 2) {
            // The face at sign * half[a] along axis a; u, v the next axes
            // (u x v = +a), corners counter-clockwise seen from outside.
            int u = (a + 1) % 3, v = (a + 2) % 3;
            const double cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
            double face[4][3], clipped[5][3];
            for (int k = 0; k < 4; k++) {
                int kk = sign > 0 ? k : 3 - k;
                double local[3] = {0, 0, 0}, w[3];
                local[a] = sign * half[a];
                local[u] = cu[kk] * half[u];
                local[v] = cv[kk] * half[v];
                quat_rotate(q, local, w);
                for (int b = 0; b < 3; b++)
                    face[k][b] = centre[b] + w[b];
            }
            int m = clip_below((const double(*)[3])face, 4, level, clipped);
            for (int k = 1; k + 1 < m; k++) {
                const double *p0 = clipped[0], *p1 = clipped[k], *p2 = clipped[k + 1];
                double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
                double e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
                double area_y = 0.5 * (e1[2] * e2[0] - e1[0] * e2[2]); // y of (e1 x e2) / 2
                volume += area_y * ((p0[1] + p1[1] + p2[1]) / 3.0 - level);
            }
        }
    return volume;
}

// The level L with A L = V_fluid + V_sub(L): bisection (the left side
// minus the right grows with L at least as A - the box's section > 0).
static double solve_level(int dim, double tank, const double centre[3], const double q[4], double width, double height,
                          double fluid_volume)
{
    double area = dim == 3 ? tank * tank : tank;
    double lo = 0.0, hi = 2.0 * (fluid_volume + width * height * (dim == 3 ? width : 1.0)) / area;
    for (int it = 0; it < 100; it++) {
        double mid = 0.5 * (lo + hi);
        if (area * mid - submerged_volume(dim, centre, q, width, height, mid) < fluid_volume)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

// A check of the geometry against closed forms: an upright box under a level
// through it (depth w^2), a 3D box turned 45 degrees about z with the level
// through its centre (half its volume, by symmetry), a 2D square of side w
// at 45 degrees with the level d / 2 above its lowest corner, d = w / sqrt 2
// the half diagonal (a right triangle of height d / 2: area (d / 2)^2), and
// the level with the box above the water (the fluid's own).
static void test_geometry(void)
{
    double c[3] = {0.3, 0.2, 0.25}, up[4] = {0, 0, 0, 1};
    double v = submerged_volume(3, c, up, 0.18, 0.12, 0.2 - 0.06 + 0.05);
    CHECK(fabs(v - 0.05 * 0.18 * 0.18) < 1e-12, "upright box: %.12g, expected %.12g", v, 0.05 * 0.18 * 0.18);
    double r45[4] = {0, 0, sin(PI / 8), cos(PI / 8)};
    v = submerged_volume(3, c, r45, 0.18, 0.12, 0.2);
    CHECK(fabs(v - 0.5 * 0.18 * 0.12 * 0.18) < 1e-12, "box at 45 degrees, half under: %.12g", v);
    double d = sqrt(2.0) * 0.1 / 2.0; // square of side 0.1: the lowest corner d below the centre
    v = submerged_volume(2, c, r45, 0.1, 0.1, 0.2 - d / 2.0);
    CHECK(fabs(v - (d / 2.0) * (d / 2.0)) < 1e-12, "2D square at 45 degrees: %.12g, expected %.12g", v,
          (d / 2.0) * (d / 2.0));
    // The level with the box out of the water is the fluid's own.
    double high[3] = {0.24, 0.5, 0.24};
    double level = solve_level(3, TANK_WIDTH, high, up, 0.18, 0.12, TANK_WIDTH * TANK_WIDTH * TANK_DEPTH);
    CHECK(fabs(level - TANK_DEPTH) < 1e-9, "level without the box %.9f, expected %.9f", level, TANK_DEPTH);
}

// The visible surface (a comparison, and the dry pool's level): the top
// particle of each lattice column clear of the box (centre) by h and of the
// walls by a spacing, plus half a spacing. NAN when no column is clear.
static double visible_surface(cs_context *ctx, cs_world *world, const tank_case *c, const double centre[3])
{
    const double s = spacing_of(c->dim), h = 2.0 * s;
    uint32_t n = 0;
    float *pos = test_fluid_positions(ctx, world, 0, &n);
    double top[72][72], sum = 0.0;
    double width = c->tank;
    int cols = (int)(width / s + 0.5), counted = 0;
    for (int a = 0; a < cols; a++)
        for (int b = 0; b < cols; b++)
            top[a][b] = -1.0;
    for (uint32_t j = 0; j < n; j++) {
        int a = CS_MIN((int)(pos[4 * j] / s), cols - 1), b = c->dim == 3 ? CS_MIN((int)(pos[4 * j + 2] / s), cols - 1) : 0;
        if (a >= 0 && b >= 0)
            top[a][b] = fmax(top[a][b], pos[4 * j + 1]);
    }
    double reach = 0.5 * c->width + h;
    for (int a = 0; a < cols; a++)
        for (int b = 0; b < (c->dim == 3 ? cols : 1); b++) {
            double x = (a + 0.5) * s, z = (b + 0.5) * s;
            if (x < s || x > width - s || (c->dim == 3 && (z < s || z > width - s)))
                continue;
            if (fabs(x - centre[0]) < reach && (c->dim == 2 || fabs(z - centre[2]) < reach))
                continue;
            if (top[a][b] >= 0.0)
                sum += top[a][b], counted++;
        }
    free(pos);
    return counted ? sum / counted + 0.5 * s : NAN;
}

// ---- the tank ------------------------------------------------------------------

// The water's blocks: the tank full to TANK_DEPTH, or (at_line) with a
// hole where the upright box floats at its Archimedes line: the box's
// footprint (lattice-aligned, so the blocks tile the lattice) emptied to
// the draft s H rounded up to whole rows, and the box's centre put at its
// line (*box_y), its bottom at most a spacing above the water under it
// (rounded to nearest, a 3D 0.8 rho0 box's bottom began inside the top
// row's margin and was thrown 0.25 m up). Started so, the box bobs by the
// rounding (under a spacing) instead of by its whole draft: dropped onto the water, a 0.2 rho0 box
// bobbed by its draft for the whole run (2D PBF, 1.2 ... 2 s: 0.19 to 0.28
// of its volume under).
static void tank_blocks(const tank_case *c, double s, char *out, size_t size, double *box_y)
{
    double width = c->tank, mid = 0.5 * width;
    if (!c->at_line) {
        if (c->dim == 3)
            snprintf(out, size, "{\"min\":[0,0,0],\"max\":[%g,%g,%g]}", width, TANK_DEPTH, width);
        else
            snprintf(out, size, "{\"min\":[0,0],\"max\":[%g,%g]}", width, TANK_DEPTH);
        return;
    }
    // A tilted box (the threshold's, 3 degrees) reaches lower by half its
    // width times the sine, and the hole is dug that much and half a
    // spacing (the collision margin) deeper: its corner started inside the
    // margin of the rows under it and WCSPH threw the box to 60-70 degrees
    // in the first 0.5 s. The upright Archimedes boxes keep their holes.
    double corner = c->tilt0 != 0.0 ? 0.5 * c->width * sin(fabs(c->tilt0) * PI / 180.0) + 0.5 * s : 0.0;
    double rows = ceil((c->s * c->height + corner) / s - 1e-9), hole = TANK_DEPTH - rows * s;
    // The footprint of the tilted box widened to the lattice (the upright
    // Archimedes boxes' widths are whole even spacings, so theirs is exact).
    double tilt = fabs(c->tilt0) * PI / 180.0;
    double cells = ceil(0.5 * (c->width * cos(tilt) + c->height * sin(tilt)) / s - 1e-6);
    double lo = mid - cells * s, hi = mid + cells * s;
    *box_y = TANK_DEPTH - c->s * c->height + 0.5 * c->height;
    if (c->dim == 2) {
        snprintf(out, size,
                 "{\"min\":[0,0],\"max\":[%g,%g]},{\"min\":[%g,0],\"max\":[%g,%g]},{\"min\":[%g,0],\"max\":[%g,%g]}",
                 lo, TANK_DEPTH, lo, hi, hole, hi, width, TANK_DEPTH);
        return;
    }
    snprintf(out, size,
             "{\"min\":[0,0,0],\"max\":[%g,%g,%g]},{\"min\":[%g,0,0],\"max\":[%g,%g,%g]},"
             "{\"min\":[%g,0,0],\"max\":[%g,%g,%g]},{\"min\":[%g,0,%g],\"max\":[%g,%g,%g]},"
             "{\"min\":[%g,0,%g],\"max\":[%g,%g,%g]}",
             lo, TANK_DEPTH, width,              // x below the footprint
             hi, width, TANK_DEPTH, width,       // x above it
             lo, hi, TANK_DEPTH, lo,             // the footprint's x, z below
             lo, hi, hi, TANK_DEPTH, width,      // z above
             lo, lo, hi, hole, hi);              // under the box
}

static tank_result run_tank(cs_context *ctx, const tank_case *c)
{
    tank_result res = {NAN, NAN, NAN, NAN, NAN, false, ""};
    const double s = spacing_of(c->dim), h = 2.0 * s, rho0 = 1000.0;
    const double mass = c->dim == 3 ? rho0 * s * s * s : rho0 * s * s;
    // WCSPH's artificial viscosity: the floating scenes' 0.02, not the
    // solver's default 0.1 (tuned for the dam break, test_dam_front): with
    // 0.1 the light box had not come down to its line in 2 s (3D s 0.2:
    // -14.4%, 2D +5.3 / 0.8 +7.6%). PBF does not read it.
    // The lowest point of the tilted box 5 mm above the water (an
    // Archimedes case: tank_blocks moves it to its line).
    double t = c->tilt0 * PI / 180.0;
    double drop = 0.5 * (c->width * sin(fabs(t)) + c->height * cos(t));
    char text[2048], body[512], fluid[1024], blocks[512];
    const char *dry = c->dry ? ",\"static\":true" : "";
    double box_y = TANK_DEPTH + 0.005 + drop + (c->dry ? 0.2 : 0.0);
    tank_blocks(c, s, blocks, sizeof blocks, &box_y);
    // PBF: s_corr without its background pressure, as floating-body scenes
    // set it (fluid_pbf.c "scorr_background"; with the paper's term the
    // boxes floated +6.6% / +5.7% deep in 3D). CS_BUOYANCY_BLOCK adds keys
    // after it (experiments).
    const char *extra = getenv("CS_BUOYANCY_BLOCK");
    char block[256];
    bool pbf = strcmp(c->solver, "pbf") == 0;
    snprintf(block, sizeof block, "%s", extra && pbf ? extra : "");
    // WCSPH's speed of sound as the scene's default gives the default tank
    // (ten times the free fall over its largest extent, scene.c, in its
    // floats): a wider tank or a taller domain would otherwise make the
    // same water stiffer.
    float sound = (float)(10.0 * sqrt(2.0 * (double)9.81f * fmax((double)(float)default_tank(c->dim), (double)0.6f)));
    // WCSPH's material keys; PBF reads neither (and refuses keys it does not read).
    char material[192];
    if (pbf)
        snprintf(material, sizeof material, "{\"rest_density\":1000,\"mass\":%g}", mass);
    else
        snprintf(material, sizeof material, "{\"rest_density\":1000,\"mass\":%g,\"viscosity\":0.02,\"speed_of_sound\":%.9g}",
                 mass, sound);
    // The domain: 0.6 high, or a tenth of a metre over a tall Archimedes
    // box's top (archimedes_box).
    double top = c->at_line ? fmax(0.6, box_y + 0.5 * c->height + 0.1) : 0.6, mid = 0.5 * c->tank;
    if (c->dim == 3) {
        snprintf(body, sizeof body,
                 "{\"shape\":\"box\",\"size\":[%.6f,%.6f,%.6f],\"density\":%g,\"position\":[%g,%.6f,%g],"
                 "\"orientation\":{\"axis\":[0,0,1],\"degrees\":%g},\"friction\":0.1%s}",
                 c->width, c->height, c->width, c->s * rho0, mid, box_y, mid, c->tilt0, dry);
        snprintf(fluid, sizeof fluid,
                 "{\"solver\":\"%s\",\"%s\":{%s},\"particle_spacing\":%g,\"smoothing_radius\":%g,"
                 "\"materials\":[%s],"
                 "\"blocks\":[%s]}",
                 c->solver, c->solver, block, s, h, material, blocks);
        snprintf(text, sizeof text,
                 "{\"dim\":3,\"domain\":{\"min\":[0,0,0],\"max\":[%g,%g,%g]},\"dt\":0.002,\"substeps\":10,\"seed\":4,"
                 "\"bodies\":[%s],\"fluids\":[%s]}", c->tank, top, c->tank, body, fluid);
    } else {
        snprintf(body, sizeof body,
                 "{\"shape\":\"box\",\"size\":[%.6f,%.6f],\"density\":%g,\"position\":[%g,%.6f],"
                 "\"orientation\":{\"axis\":[0,0,1],\"degrees\":%g},\"friction\":0.1%s}",
                 c->width, c->height, c->s * rho0, mid, box_y, c->tilt0, dry);
        snprintf(fluid, sizeof fluid,
                 "{\"solver\":\"%s\",\"%s\":{%s},\"particle_spacing\":%g,\"smoothing_radius\":%g,"
                 "\"materials\":[%s],"
                 "\"blocks\":[%s]}",
                 c->solver, c->solver, block, s, h, material, blocks);
        snprintf(text, sizeof text,
                 "{\"dim\":2,\"domain\":{\"min\":[0,0],\"max\":[%g,%g]},\"dt\":0.002,\"substeps\":10,\"seed\":4,"
                 "\"bodies\":[%s],\"fluids\":[%s]}", c->tank, top, body, fluid);
    }
    cs_scene scene;
    cs_world world;
    if (!test_world_from_json(ctx, text, "buoyancy.json", &scene, &world))
        return res;
    snprintf(res.warnings, sizeof res.warnings, "%s", world.density_warnings);
    cs_particle_view view;
    world.fluids[0].ops->particles(world.fluids[0].state, &view);
    // The fluid's volume at rest: its lattice cells.
    double fluid_volume = view.count * (c->dim == 3 ? s * s * s : s * s);
    double body_volume = c->width * c->height * (c->dim == 3 ? c->width : 1.0);
    cs_recorder rec;
    cs_recorder_create(ctx, "buoyancy", &rec);
    double sum_sub = 0.0, sum_tilt = 0.0, sum_surface = 0.0, sum_pool = 0.0;
    uint32_t samples = 0, surface_samples = 0, window_samples = 0;
    double sum_window = 0.0;
    bool finite = true;
    for (uint32_t f = 1; f <= c->frames; f++) {
        cs_recorder_begin(&rec);
        cs_world_record_frame(&world, &rec);
        cs_recorder_submit_wait(&rec);
        cs_body_state st;
        cs_bodies_download(&world.bodies, &st);
        double centre[3] = {st.position.x, st.position.y, st.position.z};
        double q[4] = {st.orientation.x, st.orientation.y, st.orientation.z, st.orientation.w};
        double qn = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int a = 0; a < 4; a++)
            q[a] /= qn;
        finite = finite && isfinite(centre[0] + centre[1] + centre[2] + qn);
        if (!finite)
            break;
        double level = solve_level(c->dim, c->tank, centre, q, c->width, c->height, fluid_volume);
        double sub = submerged_volume(c->dim, centre, q, c->width, c->height, level) / body_volume;
        // Tilt: the angle of the box's height axis (body y) from the vertical.
        double ey[3] = {0, 1, 0}, w[3];
        quat_rotate(q, ey, w);
        double tilt = acos(fmin(fabs(w[1]), 1.0)) * 180.0 / PI;
        // The surface every 10th frame (it downloads the particles).
        bool surface_frame = f % 10 == 0;
        double surface = surface_frame ? visible_surface(ctx, &world, c, centre) : NAN;
        double sub_pool = NAN;
        if (c->pool_expansion > 0.0) {
            double pool_level = solve_level(c->dim, c->tank, centre, q, c->width, c->height, c->pool_expansion * fluid_volume);
            sub_pool = submerged_volume(c->dim, centre, q, c->width, c->height, pool_level) / body_volume;
        }
        const char *verbose = getenv("CS_TEST_VERBOSE");
        if (verbose && (surface_frame || atoi(verbose) > 1))
            printf("  %s %dD s %.2f w/h %.3f frame %u: level %.4f (surface %.4f), centre y %.4f, submerged %.4f "
                   "(against the pool's volume %.4f), tilt %.2f\n", c->solver, c->dim, c->s, c->width / c->height, f,
                   level, surface, centre[1], sub, sub_pool, tilt);
        res.last_tilt = tilt;
        if (c->tilt_window && f + c->tilt_window > c->frames)
            sum_window += tilt, window_samples++;
        if (5 * f < 3 * c->frames)
            continue;
        sum_sub += sub, sum_tilt += tilt, sum_pool += sub_pool, samples++;
        if (surface_frame)
            sum_surface += surface, surface_samples++;
    }
    CHECK(finite, "%s %dD s %.2f: the box is not finite", c->solver, c->dim, c->s);
    if (samples) {
        res.submerged = sum_sub / samples;
        res.tilt = sum_tilt / samples;
        res.surface = surface_samples ? sum_surface / surface_samples : NAN;
        res.submerged_pool = sum_pool / samples;
        if (window_samples)
            res.tilt = sum_window / window_samples;
        res.ok = finite;
    }
    cs_recorder_destroy(&rec);
    test_world_free(&world, &scene);
    return res;
}

static bool wanted(const char *solver, int dim)
{
    const char *only = getenv("CS_BUOYANCY_ONLY");
    if (!only || !only[0])
        return true;
    char name[16];
    snprintf(name, sizeof name, "%s%d", solver, dim);
    return strstr(only, name) != NULL;
}

// ---- 1. Archimedes ---------------------------------------------------------------

// Frames of an Archimedes case (2 s at 10 substeps of 2 ms a frame
// make 100): 5 s, the mean over the last 2. Started at its line the box
// still follows the pool's own settling for about 2 s (2D PBF 0.2 rho0,
// the paper's s_corr: 0.14 ... 0.24 of its volume under until 2.5 s, then
// 0.20 ... 0.22).
#define ARCHIMEDES_FRAMES 250

// The box of an Archimedes case at density s: 2D 12 x 8 spacings, 3D 8 x 6 x
// 8, made taller where its draft s H would be under DRAFT_MIN spacings,
// then wide enough to float upright (1.2 times the metacentric ratio,
// test_tipping), in a 3D tank 4 spacings wider than the box on each side
// where the default one is too narrow. The draft is what PBF resolves: at
// 1.6 spacings of draft (2D 12 x 8, 0.2 rho0) its box floats +8.2% deep,
// at 3 +4.2% (WCSPH: -1.0% and -1.1%; docs/bodies.md "Buoyancy and
// stability"). At 0.8 spacing (3D 6 x 4 x 6) a 0.2 rho0 box rocked by up
// to 20 degrees and read -1.8 to -22.7% as s_corr's settings changed.
// CS_BUOYANCY_DRAFT_MIN=0 (experiments) keeps the small boxes.
#define DRAFT_MIN 3.0
static void archimedes_box(int dim, double s, double *width, double *height, double *tank)
{
    double sp = spacing_of(dim);
    const char *env = getenv("CS_BUOYANCY_DRAFT_MIN");
    double draft_min = env ? atof(env) : DRAFT_MIN;
    double w = dim == 3 ? 8.0 : 12.0, hb = dim == 3 ? 6.0 : 8.0; // spacings
    hb = fmax(hb, ceil(draft_min / s - 1e-9));
    w = fmax(w, 2.0 * ceil(0.5 * 1.2 * sqrt(6.0 * s * (1.0 - s)) * hb)); // even: the hole stays on the lattice
    *width = w * sp;
    *height = hb * sp;
    *tank = dim == 3 ? fmax(default_tank(dim), (w + 8.0) * sp) : default_tank(dim);
}

static void test_archimedes(cs_context *ctx, const char *solver, int dim)
{
    // A subset of 0.2 ... 0.8 for the runtime (all five in both dims took
    // 15 minutes on llvmpipe at load 5): 2D the ends, the middle and 0.3
    // (where WCSPH's box burst water at its corner before the collision
    // margin held there, bodies.glsl cs_bodies_collide: -8.7%), 3D (three
    // times a 2D case's cost) the ends.
    static const double four[] = {0.2, 0.3, 0.5, 0.8}, ends[] = {0.2, 0.8};
    const double *densities = dim == 2 ? four : ends;
    size_t count = dim == 2 ? CS_ARRAY_COUNT(four) : CS_ARRAY_COUNT(ends);
    // The pool alone (the box held above it): where its surface stands, for
    // a second figure against the pool's own volume (what the solver's
    // water occupies at rest; the lattice's is the check's reference).
    tank_case dry = {solver, dim, 0.5, 0.18, 0.12, 0.0, default_tank(dim), 30, .dry = true};
    tank_result pool = run_tank(ctx, &dry);
    printf("pool %s %dD: surface %.4f m at rest, lattice volume over the floor %.4f m (%+.1f%%)\n", solver, dim,
           pool.surface, TANK_DEPTH, 100.0 * (pool.surface / TANK_DEPTH - 1.0));
    // CS_BUOYANCY_DENSITY=0.2,0.3: these densities instead (ctest splits
    // WCSPH 2D's four in two; experiments).
    double listed[8];
    size_t listed_count = 0;
    for (const char *d = getenv("CS_BUOYANCY_DENSITY"); d && *d && listed_count < CS_ARRAY_COUNT(listed);) {
        char *end;
        listed[listed_count++] = strtod(d, &end);
        d = *end == ',' ? end + 1 : "";
    }
    if (listed_count) {
        densities = listed;
        count = listed_count;
    }
    for (size_t k = 0; k < count; k++) {
        double s = densities[k];
        double box_width, box_height, tank;
        archimedes_box(dim, s, &box_width, &box_height, &tank);
        tank_case c = {solver, dim, s, box_width, box_height, 0.0, tank, ARCHIMEDES_FRAMES, .at_line = true,
                       .pool_expansion = pool.surface / TANK_DEPTH};
        tank_result r = run_tank(ctx, &c);
        if (!r.ok)
            continue;
        double err = (r.submerged - s) / s;
        printf("buoyancy %s %dD s %.2f: submerged %.4f of the body (Archimedes %.2f, %+.1f%%), tilt %.2f, draft %.1f "
               "spacings; against the pool's own volume %.4f (%+.1f%%)\n", solver, dim, s, r.submerged, s, 100.0 * err,
               r.tilt, s * box_height / spacing_of(dim), r.submerged_pool, 100.0 * (r.submerged_pool - s) / s);
        CHECK(fabs(err) <= 0.05, "%s %dD: a box of %.2f rho0 floats %.4f submerged, Archimedes %.2f (%+.1f%%, bound 5%%)",
              solver, dim, s, r.submerged, s, 100.0 * err);
    }
}

// ---- 1b. Boxes as a user draws them, the solver's defaults ---------------------

// 8 x 6 spacings in 2D, not enlarged to any draft: at 0.25 / 0.4 / 0.65
// rho0 they draw 1.5 / 2.4 / 3.9 spacings. Nothing in the solver's block:
// PBF's default scorr_background is 0 in a scene with free bodies
// (fluid_pbf.c). A box drawing 3 spacings or more is held to 5% of
// Archimedes; under 3 the run must warn that the body is too small for the
// fluid's resolution (world_drafts.c, in world.density_warnings) and the
// box is held to the 12% the warning's "up to about 11%" allows. A box of
// 3 spacings or more must not be warned about.
// Measured (llvmpipe, 2 shared cores): with the defaults -1.7 / +4.3 /
// +0.2%; with scorr_background 1 (the default before) -10.2 / -18.9 /
// -6.6%. Runs that differ in the last bits spread by several percent at
// these drafts (docs/bodies.md, "Buoyancy by draft").
#define USER_DRAFT_WARNED 3.0
#define USER_BOUND_WARNED 0.12
static void test_user_boxes(cs_context *ctx, const char *solver)
{
    static const double densities[] = {0.25, 0.4, 0.65};
    const double sp = spacing_of(2), w = 8.0, hb = 6.0;
    for (size_t k = 0; k < CS_ARRAY_COUNT(densities); k++) {
        double s = densities[k], draft = s * hb;
        tank_case c = {solver, 2, s, w * sp, hb * sp, 0.0, default_tank(2), ARCHIMEDES_FRAMES, .at_line = true};
        tank_result res = run_tank(ctx, &c);
        if (!res.ok)
            continue;
        double err = (res.submerged - s) / s;
        bool small = draft < USER_DRAFT_WARNED, warned = strstr(res.warnings, "draws about") != NULL;
        double bound = small ? USER_BOUND_WARNED : 0.05;
        printf("user box %s 2D s %.2f (%.0f x %.0f spacings, draft %.1f): submerged %.4f (Archimedes %.2f, %+.1f%%), "
               "tilt %.2f, %s\n",
               solver, s, w, hb, draft, res.submerged, s, 100.0 * err, res.tilt, warned ? "warned" : "not warned");
        if (strcmp(solver, "pbf") == 0)
            CHECK(warned == small, "%s 2D: a box drawing %.1f spacings %s (warnings: \"%s\")", solver, draft,
                  warned ? "was warned about" : "was not warned about", res.warnings);
        CHECK(fabs(err) <= bound,
              "%s 2D: a box of %.2f rho0 drawing %.1f spacings floats %.4f submerged, Archimedes "
              "%.2f (%+.1f%%, bound %.0f%%)",
              solver, s, draft, res.submerged, s, 100.0 * err, 100.0 * bound);
    }
}

// ---- 2. Stability ------------------------------------------------------------------

static void test_tipping(cs_context *ctx, const char *solver, int dim)
{
    const double s = 0.3, height = 0.15;
    // Metacentric criterion: stable upright when W / H > sqrt(6 s (1 - s)).
    double critical = sqrt(6.0 * s * (1.0 - s));
    static const double factors[] = {0.7, 1.4};
    for (size_t k = 0; k < CS_ARRAY_COUNT(factors); k++) {
        double ratio = factors[k] * critical;
        bool stable = ratio > critical;
        tank_case c = {solver, dim, s, ratio * height, height, 3.0, default_tank(dim), 100};
        tank_result r = run_tank(ctx, &c);
        if (!r.ok)
            continue;
        bool tipped = r.last_tilt > 45.0, upright = r.last_tilt < 10.0;
        printf("tipping %s %dD s %.2f w/h %.3f (critical %.3f): tilt %.1f -> %s (expected %s)\n", solver, dim, s, ratio,
               critical, r.last_tilt, tipped ? "tipped" : upright ? "upright" : "between", stable ? "upright" : "tipped");
        if (stable)
            CHECK(upright, "%s %dD: a box of w/h %.3f > %.3f (stable) tilted %.1f degrees (bound 10)", solver, dim, ratio,
                  critical, r.last_tilt);
        else
            CHECK(tipped, "%s %dD: a box of w/h %.3f < %.3f (unstable) stayed at %.1f degrees (must pass 45)", solver,
                  dim, ratio, critical, r.last_tilt);
    }
}

// ---- 3. Tipping at the threshold -------------------------------------------------

// The heel at which a floating rectangle (2D, width w, height 1, density
// s) rests, from exact hydrostatics: for a heel a the water plane, in the
// body's frame, has the upward normal n = (sin a, cos a) and cuts off the
// submerged polygon of area s w; the potential energy over the weight is
// the height of the centre of mass over the centre of buoyancy, both
// measured from the water plane: E(a) = -n . B(a) (B the submerged
// polygon's centroid, the centre of mass at the origin). Its minimum over
// 0 ... 90 degrees is the equilibrium; dE/da is the righting arm GZ. A
// scan every 0.05 degree, then golden-section refinement, all in double.
static double heel_energy(double w, double s, double a)
{
    double n[2] = {sin(a), cos(a)}, rect[4][2] = {{-0.5 * w, -0.5}, {0.5 * w, -0.5}, {0.5 * w, 0.5}, {-0.5 * w, 0.5}};
    double lo = -(w + 1.0), hi = w + 1.0, area = 0.0, cx = 0.0, cy = 0.0;
    for (int it = 0; it < 200; it++) {
        double c = 0.5 * (lo + hi), poly[5][2];
        int m = 0;
        for (int k = 0; k < 4; k++) {
            const double *p = rect[k], *q = rect[(k + 1) % 4];
            double dp = n[0] * p[0] + n[1] * p[1] - c, dq = n[0] * q[0] + n[1] * q[1] - c;
            if (dp <= 0.0)
                poly[m][0] = p[0], poly[m][1] = p[1], m++;
            if ((dp <= 0.0) != (dq <= 0.0)) {
                double u = dp / (dp - dq);
                poly[m][0] = p[0] + u * (q[0] - p[0]), poly[m][1] = p[1] + u * (q[1] - p[1]), m++;
            }
        }
        area = cx = cy = 0.0;
        for (int k = 0; k < m; k++) {
            const double *p = poly[k], *q = poly[(k + 1) % m];
            double cross = p[0] * q[1] - q[0] * p[1];
            area += 0.5 * cross, cx += (p[0] + q[0]) * cross, cy += (p[1] + q[1]) * cross;
        }
        if (area < s * w)
            lo = c;
        else
            hi = c;
    }
    return -(n[0] * cx + n[1] * cy) / (6.0 * area);
}

static double equilibrium_heel(double w_over_h, double s)
{
    double best = 0.0, best_e = heel_energy(w_over_h, s, 0.0);
    for (int k = 1; k <= 1800; k++) {
        double a = k * 0.05 * PI / 180.0, e = heel_energy(w_over_h, s, a);
        if (e < best_e)
            best = a, best_e = e;
    }
    double lo = fmax(best - 0.05 * PI / 180.0, 0.0), hi = fmin(best + 0.05 * PI / 180.0, 0.5 * PI);
    const double g = 0.5 * (sqrt(5.0) - 1.0);
    for (int it = 0; it < 60; it++) {
        double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
        if (heel_energy(w_over_h, s, a) < heel_energy(w_over_h, s, b))
            hi = b;
        else
            lo = a;
    }
    return 0.25 * (lo + hi) * 360.0 / PI;
}

// Checks of the minimiser: upright is a maximum of E below the critical
// ratio and a minimum above it; a square at s = 0.5 rests at 45 degrees (a
// diagonal at the surface, by symmetry); and while the water line crosses
// the two long sides only, the wall-sided formula GZ = sin a (GM + BM
// tan^2 a / 2) (GM = W^2 / (12 s H) + s H / 2 - H / 2, BM = W^2 / (12 s H))
// is exact, so the heel is tan^2 a = -2 GM / BM.
static void test_heel_reference(void)
{
    double crit = sqrt(1.5), d3 = 3.0 * PI / 180.0;
    CHECK(heel_energy(0.9 * crit, 0.5, d3) < heel_energy(0.9 * crit, 0.5, 0.0),
          "upright at 0.9x critical is not unstable");
    CHECK(heel_energy(1.1 * crit, 0.5, d3) > heel_energy(1.1 * crit, 0.5, 0.0),
          "upright at 1.1x critical is not stable");
    double square = equilibrium_heel(1.0, 0.5);
    CHECK(fabs(square - 45.0) < 1e-6, "a square at s = 0.5 rests at %.9f degrees, expected 45", square);
    CHECK(equilibrium_heel(1.1 * crit, 0.5) < 1e-3, "1.1x critical rests upright, not at %.9f",
          equilibrium_heel(1.1 * crit, 0.5));
    for (double f = 0.9; f < 0.99; f += 0.05) {
        double w = f * crit, bm = w * w / 6.0, gm = bm + 0.25 - 0.5;
        double wall_sided = atan(sqrt(-2.0 * gm / bm)) * 180.0 / PI, heel = equilibrium_heel(w, 0.5);
        CHECK(fabs(heel - wall_sided) < 1e-6, "%.2fx critical at s = 0.5: heel %.9f, wall-sided %.9f", f, heel,
              wall_sided);
    }
}

// Boxes of s = 0.5 at 0.90, 0.95 (unstable upright: they heel to the
// equilibrium above) and 1.05, 1.10 (stable) times the critical ratio
// sqrt(6 s (1 - s)), 10 spacings high (2D), started at their line in a
// hole cut in the water, 5 s; the mean heel over the last second. Two
// starts:
//  - tilted 3 degrees (all four): the onset. The stable boxes must end
//    within THRESHOLD_BOUND of upright. An unstable one must reach its
//    equilibrium within THRESHOLD_BOUND, except the (solver, factor)
//    pairs in onset_shortfalls, which cannot (docs/bodies.md, "Tipping at
//    the threshold", has the figures): their line says so and is not
//    checked;
//  - tilted 40 degrees (the unstable two): the equilibrium from above,
//    which every solver must reach within THRESHOLD_BOUND.
// Without the fluid's torque on the body (PBF: pbf_impulse.glsl l = 0) a
// box keeps its start: 3.0 degrees at 0.90x, and the check fails.
#define THRESHOLD_FRAMES 250
#define THRESHOLD_BOUND 5.0
// (solver, factor) whose onset from 3 degrees misses: both solvers hold
// the 0.95x box upright (1.3-1.8 degrees after 5 s) and WCSPH's 0.90x box
// stops at 26.2 (34.4; from 40 degrees it reaches 34.3; llvmpipe).
typedef struct {
    const char *solver;
    double factor;
} onset_shortfall;
static const onset_shortfall onset_shortfalls[] = {{"pbf", 0.95}, {"wcsph", 0.90}, {"wcsph", 0.95}};

typedef struct {
    double factor, start; // times the critical ratio; degrees
} threshold_case;

static void test_threshold(cs_context *ctx, const char *solver)
{
    const double s = 0.5, height = 0.15, critical = sqrt(6.0 * s * (1.0 - s));
    static const threshold_case cases[] = {{0.90, 3.0}, {0.95, 3.0},  {1.05, 3.0},
                                           {1.10, 3.0}, {0.90, 40.0}, {0.95, 40.0}};
    const char *only = getenv("CS_BUOYANCY_THRESHOLD_ONLY"); // "0.95/3" (ctest runs each apart) or "all"
    for (size_t k = 0; k < CS_ARRAY_COUNT(cases); k++) {
        char name[16];
        snprintf(name, sizeof name, "%.2f/%.0f", cases[k].factor, cases[k].start);
        if (strcmp(only, "all") != 0 && strcmp(only, name) != 0)
            continue;
        double ratio = cases[k].factor * critical, expected = equilibrium_heel(ratio, s);
        tank_case c = {solver,         2, s, ratio * height, height, cases[k].start, default_tank(2), THRESHOLD_FRAMES,
                       .at_line = true};
        c.tilt_window = 50;
        tank_result r = run_tank(ctx, &c);
        if (!r.ok)
            continue;
        double err = r.tilt - expected;
        bool within = fabs(err) <= THRESHOLD_BOUND;
        bool shortfall = false;
        for (size_t j = 0; j < CS_ARRAY_COUNT(onset_shortfalls); j++)
            shortfall = shortfall || (strcmp(solver, onset_shortfalls[j].solver) == 0 &&
                                      fabs(onset_shortfalls[j].factor - cases[k].factor) < 1e-9);
        bool excused = !within && shortfall && cases[k].start < 10.0;
        printf("threshold %s 2D s %.2f w/h %.3f (%.2fx critical %.3f) from %.0f: heel %.1f (last %.1f), equilibrium "
               "%.1f (%+.1f)%s\n",
               solver, s, ratio, cases[k].factor, critical, cases[k].start, r.tilt, r.last_tilt, expected, err,
               excused ? ": beyond the bound, a known shortfall of the onset (docs/bodies.md)" : "");
        CHECK(within || excused,
              "%s 2D: a box at %.2fx the critical ratio started at %.0f degrees heels %.1f, equilibrium %.1f "
              "(bound %.0f)",
              solver, cases[k].factor, cases[k].start, r.tilt, expected, THRESHOLD_BOUND);
    }
}

int main(void)
{
    const char *user = getenv("CS_BUOYANCY_USER_ONLY");
    cs_context ctx;
    test_context(&ctx);
    test_seed();
    test_geometry();
    test_heel_reference();
    static const char *solvers[] = {"wcsph", "pbf"};
    for (int dim = 2; dim <= 3; dim++)
        for (int k = 0; k < 2; k++)
            if (wanted(solvers[k], dim)) {
                if (user) {
                    if (dim == 2)
                        test_user_boxes(&ctx, solvers[k]);
                    continue;
                }
                if (!getenv("CS_BUOYANCY_TIPPING_ONLY") && !getenv("CS_BUOYANCY_THRESHOLD_ONLY"))
                    test_archimedes(&ctx, solvers[k], dim);
                if (!getenv("CS_BUOYANCY_ARCHIMEDES_ONLY") && !getenv("CS_BUOYANCY_THRESHOLD_ONLY"))
                    test_tipping(&ctx, solvers[k], dim);
                if (dim == 2 && getenv("CS_BUOYANCY_THRESHOLD_ONLY"))
                    test_threshold(&ctx, solvers[k]);
            }
    return test_finish(&ctx);
}
