// scene_lattice.c — where a scene's particles start and how a scene is
// rescaled: the block lattice fill and the particle-count scaling used by
// `--particles` and the benchmarks (docs/scenes.md "Particle-count
// scaling").
#include "scene_parse.h"

#include <float.h>
#include <math.h>
#include <stddef.h>

// The smallest spacing float positions resolve anywhere in the domain.
float cs_scene_resolution(const cs_scene *scene)
{
    float largest = 0.0f;
    for (int a = 0; a < 3; a++)
        largest = fmaxf(largest, fmaxf(fabsf(scene->domain_min[a]), fabsf(scene->domain_max[a])));
    return fmaxf((float)SPACING_MIN, largest * (float)FLOAT_RESOLUTION);
}

// ---- lattice ---------------------------------------------------------------

// Lattice points per axis of a block at `spacing`: the points
// min + (i + 0.5) * spacing whose cells of size `spacing` lie inside the box.
static void block_dims(const cs_scene *scene, const cs_fluid_block *b, float spacing, uint64_t n[3])
{
    for (int a = 0; a < 3; a++) {
        if (a == 2 && scene->dim == 2) {
            n[a] = 1;
            continue;
        }
        double cells = floor(((double)b->max[a] - (double)b->min[a]) / (double)spacing + LATTICE_SLACK);
        // Clamped so 16 blocks' products still sum exactly in 64 bits; the
        // parser and the scaling keep real scenes below the clamp.
        n[a] = cells <= 0.0 ? 0 : cells >= AXIS_LIMIT ? (uint64_t)AXIS_LIMIT : (uint64_t)cells;
    }
}

uint64_t cs_scene_lattice_count(const cs_scene *scene, const cs_fluid_block *b, float spacing)
{
    uint64_t n[3];
    block_dims(scene, b, spacing, n);
    return n[0] * n[1] * n[2];
}

uint32_t cs_scene_block_particles(const cs_scene *scene)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < scene->block_count; i++)
        total += cs_scene_lattice_count(scene, &scene->blocks[i], scene->blocks[i].spacing);
    return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

// splitmix64 finaliser: a hash of (seed, block, particle, axis), so the
// jitter of a particle depends on nothing but its own identity.
static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static float jitter_unit(uint32_t seed, uint32_t block, uint64_t index, int axis)
{
    uint64_t h = mix64(((uint64_t)seed << 32) ^ ((uint64_t)block << 8) ^ (uint64_t)axis);
    h = mix64(h ^ index);
    return (float)((double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0); // [-1, 1)
}

uint32_t cs_scene_fill_blocks(const cs_scene *scene, float *positions4, float *velocities4, uint32_t *materials,
                              uint32_t capacity)
{
    uint32_t written = 0;
    int axes = scene->dim == 2 ? 2 : 3;
    for (uint32_t bi = 0; bi < scene->block_count && written < capacity; bi++) {
        const cs_fluid_block *b = &scene->blocks[bi];
        uint64_t n[3];
        block_dims(scene, b, b->spacing, n);
        float amplitude = b->jitter * b->spacing;
        uint64_t index = 0;
        for (uint64_t k = 0; k < n[2] && written < capacity; k++) {
            for (uint64_t j = 0; j < n[1] && written < capacity; j++) {
                for (uint64_t i = 0; i < n[0] && written < capacity; i++, index++) {
                    uint64_t cell[3] = {i, j, k};
                    float p[3] = {0, 0, 0};
                    for (int a = 0; a < axes; a++) {
                        p[a] = b->min[a] + ((float)cell[a] + 0.5f) * b->spacing;
                        if (amplitude > 0.0f)
                            p[a] += amplitude * jitter_unit(scene->seed, bi, index, a);
                    }
                    if (positions4) {
                        float *o = positions4 + (size_t)written * 4;
                        o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = 0.0f;
                    }
                    if (velocities4) {
                        float *o = velocities4 + (size_t)written * 4;
                        o[0] = b->velocity[0], o[1] = b->velocity[1];
                        o[2] = scene->dim == 2 ? 0.0f : b->velocity[2], o[3] = 0.0f;
                    }
                    if (materials)
                        materials[written] = b->material;
                    written++;
                }
            }
        }
    }
    return written;
}


// Total block particles if every spacing were multiplied by k (the float
// spacings are what the fill will use, so count those).
static uint64_t scaled_count(const cs_scene *scene, double k)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < scene->block_count; i++)
        total += cs_scene_lattice_count(scene, &scene->blocks[i], (float)(scene->blocks[i].spacing * k));
    return total;
}

// How a scaled scene stays the same flow at a finer resolution (docs/scenes.md
// "Particle-count scaling" is the manual of this table and must change with
// it). The rule: the discrete system keeps its shape in units of h and dt.
// dt shrinks with k (so h / dt, every velocity and the CFL number v dt / h
// stay) and the frame keeps its simulated time (substeps grow), so every
// number a solver computes per substep in units of h keeps its value; only
// g dt^2 / h shrinks (like k): gravity is resolved by more substeps. Each
// material parameter p whose unit involves h, dt or the particle mass m
// (m ∝ k^dim) becomes p * k^(per_dim * dim + constant) * tau^time, where
// tau = dt' / dt (<= k: whole substeps per frame). Parameters not
// listed stay: rest_density, colours, speed_of_sound (a physical speed; the
// WCSPH CFL split follows h itself), tait_gamma, WCSPH alpha and PBF XSPH c
// (dimensionless per substep), and every solver block (the "pbf" block is
// relative to the lattice, the "sph" block has no units).
typedef struct scale_rule {
    const char *solver;  // scene "solver" this rule applies to
    size_t offset;       // float field of cs_material
    int per_dim, constant, time;
    // cppcheck-suppress unusedStructMember ; for the reader of the table, not for code
    const char *why;     // the unit argument, for the reader (docs repeat it)
} scale_rule;

static const scale_rule scale_rules[] = {
    // Clavet (pipelines/fluid/fluid_sph.c, shaders/sph/): densities are normalised
    // (rho = N_n sum m a^n, N_n ∝ h^-dim) and do not change.
    {"sph", offsetof(cs_material, stiffness), 2, 1, -2,
     "relax displacement dt^2 P N_n / m ∝ k_s tau^2 k^(-2 dim) must scale like h"},
    {"sph", offsetof(cs_material, near_stiffness), 2, 1, -2, "same as stiffness (P_near = k_near rho_near)"},
    {"sph", offsetof(cs_material, viscosity_linear), 0, 0, -1, "impulse dt sigma u: sigma dt is kept (sigma is 1/s)"},
    {"sph", offsetof(cs_material, viscosity_quadratic), 0, -1, 0,
     "impulse dt beta u^2 over u: beta dt u is kept, u ∝ h / dt, so beta h is"},
    {"sph", offsetof(cs_material, surface_tension), 1, 0, 0,
     "cohesion displacement per substep kappa N_n m r / m ∝ kappa k^(1 - dim) must scale like h"},
    // WCSPH (shaders/wcsph/forces.comp): cohesion is an acceleration.
    {"wcsph", offsetof(cs_material, surface_tension), 1, 0, -2,
     "cohesion acceleration kappa N_n m r / m ∝ kappa k^(1 - dim) must scale like h / dt^2"},
};

// Lattice fit: a block whose box is a whole number of spacings is filled to
// its faces. The bisected k generally leaves a gap of up to one spacing at
// those faces, and the fluid then slumps into it (a pool at rest next to a
// wall starts to flow: wcsph_tank_3d at 64k moved at 1.5 m/s within 0.04 s).
// So where the file's blocks fit, the scaling prefers the closest k that
// keeps them fitting, when its count is within FIT_TOLERANCE of the target.
#define FIT_TOLERANCE 0.05

static bool axis_fits(double extent, double spacing)
{
    double x = extent / spacing;
    return x >= 0.5 && fabs(x - round(x)) < 0.5 * LATTICE_SLACK; // inside the count's slack
}

// Every block axis that fits the file's spacing still fits after k.
static bool fits_after(const cs_scene *scene, double k)
{
    for (uint32_t i = 0; i < scene->block_count; i++) {
        const cs_fluid_block *b = &scene->blocks[i];
        for (int a = 0; a < scene->dim; a++) {
            double extent = (double)b->max[a] - b->min[a];
            if (axis_fits(extent, b->spacing) && !axis_fits(extent, (float)(b->spacing * k)))
                return false;
        }
    }
    return true;
}

// Candidates are k = n0 / j for an axis of n0 spacings and j near n0 / k.
static double fitting_k(const cs_scene *scene, double k, uint32_t target, double min_k, double max_k)
{
    double best = k, best_miss = INFINITY;
    if (fits_after(scene, k))
        return k;
    for (uint32_t i = 0; i < scene->block_count; i++) {
        const cs_fluid_block *b = &scene->blocks[i];
        for (int a = 0; a < scene->dim; a++) {
            double extent = (double)b->max[a] - b->min[a];
            if (!axis_fits(extent, b->spacing))
                continue;
            double n0 = round(extent / b->spacing);
            double j0 = round(n0 / k);
            for (double j = fmax(j0 - 3, 1); j <= j0 + 3; j++) {
                double c = n0 / j;
                if (c < min_k || c > max_k || !fits_after(scene, c))
                    continue;
                double miss = fabs((double)scaled_count(scene, c) - target) / target;
                if (miss <= FIT_TOLERANCE && miss < best_miss)
                    best = c, best_miss = miss;
            }
        }
    }
    return best;
}

// New substep count for a factor k: at least substeps / k (so dt' <= k dt),
// frame time kept: dt' = dt substeps / substeps'.
static uint32_t scaled_substeps(uint32_t substeps, double k)
{
    double n = ceil((double)substeps / k - 1e-6);
    return (uint32_t)fmin(fmax(n, 1.0), 1000.0); // the parser's range
}

void cs_scene_scale_particle_count(cs_scene *scene, uint32_t target)
{
    uint64_t current = scaled_count(scene, 1.0);
    if (target == 0 || current == 0)
        return;
    if (target > CS_SCENE_MAX_PARTICLES)
        target = CS_SCENE_MAX_PARTICLES;
    // The count is a monotone staircase in k (floor per axis): bracket the
    // target between k_small (count >= target) and k_large (count < target),
    // bisect in log space, then take the closer of the two stairs.
    double min_k = 0.0, max_k = INFINITY; // spacings stay in the parser's range
    for (uint32_t i = 0; i < scene->block_count; i++) {
        const cs_fluid_block *b = &scene->blocks[i];
        min_k = fmax(min_k, cs_scene_resolution(scene) / b->spacing);
        max_k = fmin(max_k, SPACING_MAX / b->spacing);
        for (int a = 0; a < scene->dim; a++)
            min_k = fmax(min_k, ((double)b->max[a] - b->min[a]) / (AXIS_LIMIT * b->spacing));
    }
    double guess = fmin(fmax(pow((double)current / target, 1.0 / scene->dim), min_k), max_k);
    double k_small = guess, k_large = guess;
    while (k_small > min_k && scaled_count(scene, k_small) < target)
        k_small = fmax(k_small * 0.5, min_k);
    while (k_large < max_k && scaled_count(scene, k_large) >= target)
        k_large = fmin(k_large * 2.0, max_k);
    for (int it = 0; it < 64 && k_small < k_large; it++) {
        double mid = sqrt(k_small * k_large);
        if (mid <= k_small || mid >= k_large)
            break;
        if (scaled_count(scene, mid) >= target)
            k_small = mid;
        else
            k_large = mid;
    }
    double miss_small = fabs((double)scaled_count(scene, k_small) - target);
    double miss_large = fabs((double)scaled_count(scene, k_large) - target);
    double best_k = fitting_k(scene, miss_small <= miss_large ? k_small : k_large, target, min_k, max_k);
    if (best_k == 1.0)
        return;
    uint64_t old_blocks = current;
    for (uint32_t i = 0; i < scene->block_count; i++)
        scene->blocks[i].spacing = (float)(scene->blocks[i].spacing * best_k);
    scene->particle_spacing = (float)(scene->particle_spacing * best_k);
    scene->smoothing_radius = (float)(scene->smoothing_radius * best_k);
    double volume = pow(best_k, scene->dim); // per particle, relative
    // Same frame time in substeps of dt' = tau dt <= k dt. The real-time
    // mode keeps its substeps (that is the mode: its speed clamp, which
    // scales with h, keeps the longer steps stable); the physical clock it
    // replaced is scaled as it would have been, for the panel and the bench.
    cs_realtime_options *rt = &scene->realtime;
    uint32_t substeps = rt->enabled ? scene->substeps : scaled_substeps(scene->substeps, best_k);
    double tau = (double)scene->substeps / substeps;
    scene->dt = (float)(scene->dt * tau);
    scene->substeps = substeps;
    uint32_t physical = scaled_substeps(rt->physical_substeps, best_k);
    rt->physical_dt = rt->enabled ? (float)((double)rt->physical_dt * rt->physical_substeps / physical) : scene->dt;
    rt->physical_substeps = physical;
    for (uint32_t m = 0; m < scene->material_count; m++) {
        cs_material *mat = &scene->materials[m];
        mat->mass = fmaxf((float)(mat->mass * volume), FLT_MIN);
        for (size_t r = 0; r < CS_ARRAY_COUNT(scale_rules); r++) {
            const scale_rule *rule = &scale_rules[r];
            if (strcmp(rule->solver, scene->solver) != 0)
                continue;
            float *p = (void *)((char *)mat + rule->offset); // a float field (scale_rule.offset)
            *p = (float)(*p * pow(best_k, rule->per_dim * scene->dim + rule->constant) * pow(tau, rule->time));
        }
    }
    if (scene->render.particle_radius > 0.0f)
        scene->render.particle_radius = (float)(scene->render.particle_radius * best_k);
    // Emitters keep their mass flow: 1/k^dim as many particles, each k^dim
    // as heavy, through the same jet at the same speed.
    uint64_t old_budgets = 0, new_budgets = 0;
    for (uint32_t e = 0; e < scene->emitter_count; e++) {
        cs_emitter *em = &scene->emitters[e];
        old_budgets += em->budget;
        em->rate = fminf((float)(em->rate / volume), 1e9f);
        em->budget = (uint32_t)fmin(fmax(ceil(em->budget / volume - 1e-6), 1.0), CS_SCENE_MAX_PARTICLES);
        new_budgets += em->budget;
    }
    // Keep the head room the file gave above the block particles (its
    // emitter budgets, by default), scaled like the budgets.
    uint64_t new_blocks = scaled_count(scene, 1.0);
    uint64_t room = scene->max_particles >= old_blocks ? scene->max_particles - old_blocks : 0;
    room = room == old_budgets ? new_budgets : (uint64_t)ceil(room / volume - 1e-6);
    uint64_t max = new_blocks + room;
    scene->max_particles = max > UINT32_MAX ? UINT32_MAX : (uint32_t)max;
}

void cs_scene_scale_world(cs_scene *scene, uint32_t target)
{
    if (scene->first_format) {
        // The top level is the fluid: scale it and copy it again, keeping
        // the copy's own bookkeeping.
        cs_scene_scale_particle_count(scene, target);
        cs_scene *f = &scene->fluids[0];
        cs_scene keep = *f;
        *f = *scene;
        f->json = NULL, f->fluids = NULL, f->fluid_count = 0, f->body_storage = NULL;
        memcpy(f->fluid_name, keep.fluid_name, sizeof f->fluid_name);
        return;
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < scene->fluid_count; i++)
        total += cs_scene_block_particles(&scene->fluids[i]);
    uint32_t most = 0;
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        cs_scene *f = &scene->fluids[i];
        double share = total ? (double)cs_scene_block_particles(f) / (double)total : 1.0 / scene->fluid_count;
        cs_scene_scale_particle_count(f, (uint32_t)fmax(1.0, round(share * target)));
        if (f->substeps > scene->fluids[most].substeps)
            most = i;
    }
    // One substep clock for the world: the finest fluid's.
    scene->dt = scene->fluids[most].dt;
    scene->substeps = scene->fluids[most].substeps;
    scene->realtime = scene->fluids[most].realtime;
    for (uint32_t i = 0; i < scene->fluid_count; i++) {
        scene->fluids[i].dt = scene->dt;
        scene->fluids[i].substeps = scene->substeps;
        scene->fluids[i].realtime = scene->realtime;
    }
}

