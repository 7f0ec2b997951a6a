// reint.c — reintegration tracking (seed 001); see reint.h.
//
// Units inside the GPU state are cells and seconds: positions are offsets in
// the cell, velocities cells/s, masses REINT_MASS_ONE per rest cell mass,
// densities relative to the rest density. The scene speaks world units; the
// conversion happens once, here, when the push constants are built.
#include "reint.h"

#include <math.h>
#include <stdarg.h>

#define REINT_PI 3.14159265358979323846

// Beyond this a u32 cell index (and the stats' per-thread loop) overflows long
// before memory runs out; devices refuse far less anyway.
#define REINT_MAX_CELLS (1u << 28)
// A frame slot's stats copy (cs_reint_record_frame_stats): the partials, the
// overflow word (uvec4), the point draw arguments, back to back.
#define REINT_FRAME_STATS_PARTIALS 0
#define REINT_FRAME_STATS_OVERFLOW (REINT_STATS_GROUPS * sizeof(reint_stats_partial))
#define REINT_FRAME_STATS_POINT_ARGS (REINT_FRAME_STATS_OVERFLOW + 16)
#define REINT_FRAME_STATS_BYTES (REINT_FRAME_STATS_POINT_ARGS + REINT_POINTS_ARGS_UINTS * 4)

// ---- parameters ------------------------------------------------------------

// Default stiffness: sound crosses half a cell per step (c dt = 0.5 cell),
// about the stiffest an explicit step stays stable at, so the fluid is as
// incompressible as the step allows. At rest density the linear EOS has
// c^2 = k. World units.
static float reint_default_stiffness(const cs_reint_params *p)
{
    float c = 0.5f * p->cell_size / p->dt;
    return c * c;
}

void cs_reint_params_default(cs_reint_params *p, uint32_t dim, const uint32_t grid[3], float cell_size)
{
    *p = (cs_reint_params){
        .dim = dim,
        .grid = {grid[0], grid[1], dim == 3 ? grid[2] : 1},
        .cell_size = cell_size,
        .dt = 1.0f / 600.0f,
        .substeps = 10,
        .search_radius = 1,
        // 0.55 (seed): a little over half a cell, so neighbouring boxes
        // overlap and the field stays smooth enough for a 1.5-cell kernel.
        .diffusion_radius = 0.55f,
        .kernel_radius = 1.5f,
        .eos = REINT_EOS_LINEAR,
        .tait_gamma = 7.0f,
        .viscosity = 0.05f,
        .restitution = 0.0f,
        .gravity = {0.0f, -9.81f, 0.0f},
        .rest_density = 1000.0f,
    };
    p->stiffness = reint_default_stiffness(p);
}

static bool reint_fail(const cs_scene *scene, cs_error *err, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool reint_fail(const cs_scene *scene, cs_error *err, const char *key, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cs_fail(err, "%s: %s: %s", scene->path, key, what);
}

static bool finish_params(const cs_scene *scene, cs_reint_params *p, const uint32_t grid[3], double cell,
                          cs_error *err);

// The level's lattice: TR1 walls lie on whole clicks (256 units), and the
// level's distance field (host/world/world_level.c, cs_level_grid_plan) has
// the largest cell at most the particle spacing that divides a click, its
// nodes on multiples of that cell. In a level the reint cell is that same
// cell (rather than the one nearest the spacing that tiles the domain), so
// the cell flags read walls on cell faces exactly and `--particles N`, which
// scales particle_spacing, keeps the two grids one lattice. The domain must
// then be a whole number of cells with its corner on a multiple of the cell:
// a domain on whole clicks always is.
static bool level_grid(const cs_scene *scene, cs_reint_params *p, cs_error *err)
{
    double click = 256.0 / scene->level.units_per_metre;
    double per_click = ceil(click / scene->particle_spacing - 1e-9);
    double cell = click / fmax(per_click, 1.0);
    uint32_t grid[3] = {1, 1, 1};
    uint64_t cells = 1;
    for (int a = 0; a < scene->dim; a++) {
        double corner = scene->domain_min[a] / cell, n = ((double)scene->domain_max[a] - scene->domain_min[a]) / cell;
        if (fabs(corner - round(corner)) > 1e-3 || fabs(n - round(n)) > 1e-3 || round(n) < 1.0 ||
            n > (double)(1u << 20))
            return reint_fail(scene, err, "domain",
                              "in a level the reint cell is %g m (the largest divisor of a click, %g m, at most the "
                              "particle spacing %g m); the domain (axis %d: %g .. %g) must start on a multiple of it "
                              "and be a whole number of cells long (a domain on whole clicks always is)",
                              cell, click, (double)scene->particle_spacing, a, (double)scene->domain_min[a],
                              (double)scene->domain_max[a]);
        grid[a] = (uint32_t)round(n);
        cells *= grid[a];
    }
    if (cells > REINT_MAX_CELLS)
        return reint_fail(scene, err, "particle_spacing", "%llu cells of %g m; at most %u are supported (use larger "
                          "cells)", (unsigned long long)cells, cell, REINT_MAX_CELLS);
    return finish_params(scene, p, grid, cell, err);
}

// The block's rows (scene_keys.h). resolution (it makes the grid),
// stiffness (its default follows eos) and eos (its message) are read by
// code with their rows' ranges.
static const cs_scene_key reint_keys[] = {
    {"resolution", CS_KEY_UINT, .min = 1, .max = 1u << 20, .flags = CS_KEY_BY_CODE,
     .def = "the cells nearest particle_spacing that tile the domain",
     .help = "cells along x (square cells; every side a whole number of them)"},
    {"search_radius", CS_KEY_UINT, CS_KEY_AT(cs_reint_params, search_radius), 1, 3, .def = "1",
     .help = "cells searched each way by the advect pass"},
    {"diffusion_radius", CS_KEY_NUMBER, CS_KEY_AT(cs_reint_params, diffusion_radius), 0.05f, 0.95f, CS_KEY_LIVE,
     .unit = "cells", .def = "0.55", .help = "half-size of each distribution's box"},
    {"kernel_radius", CS_KEY_NUMBER, CS_KEY_AT(cs_reint_params, kernel_radius), 1.0f, 3.0f, .unit = "cells",
     .def = "1.5", .help = "SPH kernel support h"},
    {"stiffness", CS_KEY_NUMBER, CS_KEY_AT(cs_reint_params, stiffness), 0.0f, 1e9f, CS_KEY_BY_CODE | CS_KEY_LIVE,
     .unit = "m²/s²", .def = "from the cell size (Tait: divided by tait_gamma)", .help = "pressure per rest density k"},
    {"eos", CS_KEY_ENUM, CS_KEY_AT(cs_reint_params, eos), .flags = CS_KEY_BY_CODE, .choices = "linear|tait",
     .def = "\"linear\"", .help = "linear: k ρ (ρ − 1); tait: k (ρ^γ − 1)"},
    {"tait_gamma", CS_KEY_NUMBER, CS_KEY_AT(cs_reint_params, tait_gamma), 1.0f, 10.0f, .def = "materials[0]'s",
     .help = "Tait exponent γ"},
    {"viscosity", CS_KEY_NUMBER, CS_KEY_AT(cs_reint_params, viscosity), 0.0f, 1.0f, CS_KEY_LIVE, .def = "0.05",
     .help = "artificial viscosity α (Monaghan)"},
    {"negative_pressure", CS_KEY_BOOL, CS_KEY_AT(cs_reint_params, negative_pressure), .def = "false",
     .help = "keep P < 0 (cohesion, seed style); false clamps P at 0"},
};

const cs_scene_key_block cs_reint_keys = {
    .path = "fluids[].reint",
    .what = "Reintegration tracking's block (a grid fluid; a reint scene may have no blocks or emitters). The solver "
            "holds what it fills (cs_reint_params, reint.h).",
    .keys = reint_keys,
    .count = CS_ARRAY_COUNT(reint_keys),
};

// A number row read into a local (its value is finished by code).
static bool reint_local(const cs_scene *scene, const cJSON *block, const char *key, double *out, cs_error *err)
{
    const cs_scene_key *row = cs_scene_key_find(&cs_reint_keys, key);
    CS_ASSERT(row, "reint: no row %s", key);
    if (row->type == CS_KEY_UINT) {
        uint32_t u = (uint32_t)*out;
        if (!cs_json_uint(scene, block, "reint", key, (uint32_t)row->min, (uint32_t)row->max, &u, err))
            return false;
        *out = u;
        return true;
    }
    float f = (float)*out;
    if (!cs_json_float(scene, block, "reint", key, (float)row->min, (float)row->max, &f, err))
        return false;
    *out = f;
    return true;
}

bool cs_reint_params_from_scene(const cs_scene *scene, cs_reint_params *p, cs_error *err)
{
    const cJSON *block = scene->solver_params;
    if (block && !cs_scene_keys_check(scene, block, "reint", &cs_reint_keys, err))
        return false;

    // Grid: square (cubic) cells that tile the domain. With reint.resolution
    // the x axis has exactly that many cells; otherwise the cell size is the
    // one nearest particle_spacing that tiles every side (so `cistern bench`
    // can scale particle_spacing freely).
    uint32_t dim = (uint32_t)scene->dim;
    double extent[3];
    for (int a = 0; a < 3; a++)
        extent[a] = (double)scene->domain_max[a] - scene->domain_min[a];
    double resolution_read = 0.0;
    if (!reint_local(scene, block, "resolution", &resolution_read, err))
        return false;
    uint32_t resolution = (uint32_t)resolution_read;
    const char *size_key = resolution ? "reint.resolution" : "particle_spacing";
    double wanted = resolution ? (double)resolution : extent[0] / scene->particle_spacing;
    if (!(wanted < (double)(1u << 20)))
        return reint_fail(scene, err, size_key, "%.0f cells along x; at most %u are supported", wanted, 1u << 20);
    uint32_t k0 = (uint32_t)fmax(1.0, floor(wanted + 0.5));
    uint32_t grid[3] = {1, 1, 1};
    if (!resolution && scene->level.enabled)
        return level_grid(scene, p, err);
    bool found = false;
    uint32_t search = resolution ? 0 : k0 / 4 + 1;
    for (uint32_t d = 0; d <= search && !found; d++) {
        for (int sign = 1; sign >= -1 && !found; sign -= 2) {
            int64_t kx = (int64_t)k0 + sign * (int64_t)d;
            if (kx < 1 || kx > (1 << 20))
                continue;
            double cell_try = extent[0] / (double)kx;
            bool tiles = true;
            for (uint32_t a = 0; a < dim && tiles; a++) {
                double n = extent[a] / cell_try;
                tiles = n >= 0.999 && n <= (double)(1u << 20) && fabs(n - floor(n + 0.5)) <= 1e-3;
                grid[a] = tiles ? (uint32_t)floor(n + 0.5) : 0;
            }
            found = tiles;
        }
    }
    if (!found) {
        char sides[96];
        if (dim == 3)
            snprintf(sides, sizeof sides, "%g x %g x %g", extent[0], extent[1], extent[2]);
        else
            snprintf(sides, sizeof sides, "%g x %g", extent[0], extent[1]);
        return reint_fail(scene, err, size_key,
                          "no square cells near %g tile the %s domain: every side must be a whole number of cells; "
                          "change the domain or the cell size",
                          extent[0] / k0, sides);
    }
    uint64_t cells = (uint64_t)grid[0] * grid[1] * grid[2];
    if (cells > REINT_MAX_CELLS)
        return reint_fail(scene, err, size_key, "%llu cells; at most %u are supported (use larger cells)",
                          (unsigned long long)cells, REINT_MAX_CELLS);
    return finish_params(scene, p, grid, extent[0] / grid[0], err);
}

// The rest of the parameters once the grid is known: the scene's clock,
// gravity, material, then the "reint" block.
static bool finish_params(const cs_scene *scene, cs_reint_params *p, const uint32_t grid[3], double cell,
                          cs_error *err)
{
    uint32_t dim = (uint32_t)scene->dim;
    const cJSON *block = scene->solver_params;
    cs_reint_params_default(p, dim, grid, (float)cell);
    p->dt = scene->dt;
    p->substeps = scene->substeps;
    p->restitution = scene->boundary_restitution;
    for (int a = 0; a < 3; a++)
        p->gravity[a] = a < (int)dim ? scene->gravity[a] : 0.0f;
    p->rest_density = scene->material_count ? scene->materials[0].rest_density : 1000.0f;
    for (uint32_t a = 0; a < dim; a++)
        p->origin[a] = scene->domain_min[a];
    p->tait_gamma = scene->material_count ? scene->materials[0].tait_gamma : 7.0f;
    p->stiffness = reint_default_stiffness(p);
    if (scene->emitter_count)
        return reint_fail(scene, err, "emitters", "the reint solver has no emitters; remove them or use another solver");
    if (scene->wall_count)
        return reint_fail(scene, err, "walls",
                          "the reint solver keeps fluid in the domain box only; remove the walls or use another solver");

    if (!block)
        return true;
    double stiffness_read = -1.0; // absent: the default, which depends on the EOS
    const cs_scene_key_block *keys = &cs_reint_keys;
    if (!cs_scene_key_read_named(scene, block, "reint", keys, "search_radius", p, err) ||
        !cs_scene_key_read_named(scene, block, "reint", keys, "diffusion_radius", p, err) ||
        !cs_scene_key_read_named(scene, block, "reint", keys, "kernel_radius", p, err) ||
        !reint_local(scene, block, "stiffness", &stiffness_read, err) ||
        !cs_scene_key_read_named(scene, block, "reint", keys, "tait_gamma", p, err) ||
        !cs_scene_key_read_named(scene, block, "reint", keys, "viscosity", p, err) ||
        !cs_scene_key_read_named(scene, block, "reint", keys, "negative_pressure", p, err))
        return false;
    float stiffness = (float)stiffness_read;
    const cJSON *eos = cJSON_GetObjectItemCaseSensitive(block, "eos");
    if (eos) {
        if (cJSON_IsString(eos) && strcmp(eos->valuestring, "linear") == 0)
            p->eos = REINT_EOS_LINEAR;
        else if (cJSON_IsString(eos) && strcmp(eos->valuestring, "tait") == 0)
            p->eos = REINT_EOS_TAIT;
        else
            return reint_fail(scene, err, "reint.eos", "must be \"linear\" (k rho (rho - 1)) or \"tait\" "
                                                       "(k ((rho)^gamma - 1))");
    }
    // Tait's speed of sound at rest is sqrt(k gamma): the default keeps it at
    // the linear EOS's.
    if (stiffness >= 0.0f)
        p->stiffness = stiffness;
    else if (p->eos == REINT_EOS_TAIT)
        p->stiffness /= p->tait_gamma;
    return true;
}

bool cs_reint_scene_set_resolution(cs_scene *scene, uint32_t cells_x, cs_error *err)
{
    cJSON *block = (cJSON *)scene->solver_params;
    if (!block || strcmp(scene->solver, "reint") != 0)
        return cs_fail(err, "%s: not a reint scene (solver \"%s\")", scene->path, scene->solver);
    if (cells_x == 0)
        return cs_fail(err, "%s: reint.resolution must be >= 1", scene->path);
    cJSON_DeleteItemFromObjectCaseSensitive(block, "resolution");
    if (!cJSON_AddNumberToObject(block, "resolution", (double)cells_x))
        return cs_fail(err, "%s: out of memory setting reint.resolution", scene->path);
    return true;
}

// ---- kernels ---------------------------------------------------------------

// 1 / (sum of the density kernel over a lattice of unit cells): a uniform
// field of rest cells then has density exactly 1, whatever h.
static double density_kernel_norm(uint32_t dim, double h)
{
    int k = (int)ceil(h);
    int kz = dim == 3 ? k : 0;
    double sum = 0.0;
    for (int z = -kz; z <= kz; z++)
        for (int y = -k; y <= k; y++)
            for (int x = -k; x <= k; x++) {
                double q2 = (double)(x * x + y * y + z * z) / (h * h);
                if (q2 < 1.0)
                    sum += (1.0 - q2) * (1.0 - q2) * (1.0 - q2);
            }
    return 1.0 / sum;
}

// Analytic normalisation of the spiky kernel (1 - r/h)^3 (unit cell volume).
static double spiky_norm(uint32_t dim, double h)
{
    return dim == 2 ? 10.0 / (REINT_PI * h * h) : 15.0 / (REINT_PI * h * h * h);
}

// Speed of sound at rest density (world units): c^2 = dP/drho at rho = 1,
// k for the linear EOS, k gamma for Tait.
static double reint_sound_speed(const cs_reint_params *p)
{
    return sqrt((double)p->stiffness * (p->eos == REINT_EOS_TAIT ? p->tait_gamma : 1.0));
}

static reint_push make_push(const cs_reint_params *p, uint32_t cell_count)
{
    double cell = p->cell_size;
    return (reint_push){
        .dims = {p->grid[0], p->grid[1], p->grid[2], cell_count},
        .gravity_dt = {(float)(p->gravity[0] / cell), (float)(p->gravity[1] / cell), (float)(p->gravity[2] / cell),
                       p->dt},
        .radii = {p->diffusion_radius, (float)p->search_radius - p->diffusion_radius, p->kernel_radius,
                  p->restitution},
        .sph = {(float)(p->stiffness / (cell * cell)), p->tait_gamma, p->viscosity,
                (float)density_kernel_norm(p->dim, p->kernel_radius)},
        .scale = {(float)spiky_norm(p->dim, p->kernel_radius), p->cell_size, (float)(reint_sound_speed(p) / cell),
                  0.0f},
        .reach = {(int32_t)p->search_radius, (int32_t)ceilf(p->kernel_radius), (int32_t)p->eos,
                  p->negative_pressure ? 1 : 0},
        .origin = {p->origin[0], p->origin[1], p->dim == 3 ? p->origin[2] : 0.0f, p->rest_density},
    };
}

// ---- create / destroy --------------------------------------------------------

static size_t vec_bytes(const cs_reint *r) { return r->params.dim == 2 ? 8 : 16; }

bool cs_reint_create(cs_context *ctx, const cs_reint_params *p, cs_reint **out, cs_error *err)
{
    *out = NULL;
    if (p->dim != 2 && p->dim != 3)
        return cs_fail(err, "reint: dim must be 2 or 3 (got %u)", p->dim);
    uint64_t cells = (uint64_t)p->grid[0] * p->grid[1] * (p->dim == 3 ? p->grid[2] : 1);
    if (cells == 0 || cells > REINT_MAX_CELLS)
        return cs_fail(err, "reint: %u x %u x %u cells; between 1 and %u are supported", p->grid[0], p->grid[1],
                       p->grid[2], REINT_MAX_CELLS);
    if (!(p->diffusion_radius >= 0.05f && p->diffusion_radius <= 0.95f) || p->search_radius < 1 ||
        p->search_radius > 3 || !(p->kernel_radius >= 1.0f && p->kernel_radius <= 3.0f) || !(p->dt > 0.0f))
        return cs_fail(err, "reint: parameters out of range (diffusion radius %g in [0.05, 0.95], search radius %u "
                            "in [1, 3], kernel radius %g in [1, 3], dt %g > 0)",
                       p->diffusion_radius, p->search_radius, p->kernel_radius, p->dt);
    const uint32_t *limit = ctx->props.limits.maxComputeWorkGroupCount;
    uint32_t wg[3] = {p->dim == 2 ? REINT_WG_2D_X : REINT_WG_3D_X, p->dim == 2 ? REINT_WG_2D_Y : REINT_WG_3D_Y,
                      p->dim == 2 ? 1 : REINT_WG_3D_Z};
    for (int a = 0; a < 3; a++) {
        if (CS_DIV_UP(p->grid[a], wg[a]) > limit[a])
            return cs_fail(err, "reint: %u cells along axis %d need more workgroups than %s allows (%u)", p->grid[a],
                           a, ctx->props.deviceName, limit[a]);
    }

    cs_reint *r = calloc(1, sizeof *r);
    r->ctx = ctx;
    r->params = *p;
    r->params.grid[2] = p->dim == 3 ? p->grid[2] : 1;
    r->cell_count = (uint32_t)cells;
    r->push = make_push(&r->params, r->cell_count);

    // Every buffer, checked against the device before any is allocated.
    VkDeviceSize n = cells, v = vec_bytes(r);
    struct {
        cs_buffer *buf;
        const char *name;
        VkDeviceSize size;
    } buffers[] = {
        {&r->mass[0], "reint mass 0", n * 4},        {&r->mass[1], "reint mass 1", n * 4},
        {&r->pos[0], "reint centre of mass 0", n * v}, {&r->pos[1], "reint centre of mass 1", n * v},
        {&r->vel[0], "reint velocity 0", n * v},     {&r->vel[1], "reint velocity 1", n * v},
        {&r->vel_forced, "reint forced velocity", n * v}, {&r->dens, "reint density", n * 8},
        {&r->field, "reint field", n * 16},
        {&r->partials, "reint stats partials", REINT_STATS_GROUPS * sizeof(reint_stats_partial)},
        {&r->overflow, "reint overflow", 16},
        {&r->cell_flags, "reint cell flags (none)", 16},
        {&r->point_offsets, "reint point offsets", n * 4},
        {&r->point_positions, "reint point positions", n * 16},
        {&r->point_velocities, "reint point velocities", n * 16},
        {&r->point_densities, "reint point densities", n * 4},
        {&r->point_materials, "reint point materials", n * 4},
    };
    VkDeviceSize total = 0, largest_heap = 0;
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers); i++) {
        total += buffers[i].size;
        if (!cs_buffer_check_size(ctx, buffers[i].name, buffers[i].size, err)) {
            free(r);
            return false;
        }
    }
    for (uint32_t h = 0; h < ctx->memory_props.memoryHeapCount; h++)
        largest_heap = CS_MAX(largest_heap, ctx->memory_props.memoryHeaps[h].size);
    if (ctx->bytes_allocated + total > largest_heap) {
        char need[32], have[32], held[32];
        cs_fail(err, "reint: %u cells need %s of buffers; %s has %s in its largest heap (%s already held); use fewer "
                     "cells",
                r->cell_count, cs_format_bytes(total, need, sizeof need), ctx->props.deviceName,
                cs_format_bytes(largest_heap, have, sizeof have),
                cs_format_bytes(ctx->bytes_allocated, held, sizeof held));
        free(r);
        return false;
    }
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers); i++) {
        if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = buffers[i].name, .size = buffers[i].size},
                              buffers[i].buf, err)) {
            cs_reint_destroy(r);
            return false;
        }
        cs_buffer_fill(ctx, buffers[i].buf, 0); // empty grid: mass 0 everywhere
    }
    // The renderer reads the draw arguments as an indirect draw; all zero
    // (nothing to draw) until the first points pass.
    if (!cs_buffer_create(ctx,
                          &(cs_buffer_desc){.name = "reint point draw args", .size = REINT_POINTS_ARGS_UINTS * 4,
                                            .extra_usage = VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT},
                          &r->point_args, err) ||
        !cs_scan_create(ctx, r->cell_count, &r->scan, err)) {
        cs_reint_destroy(r);
        return false;
    }
    cs_buffer_fill(ctx, &r->point_args, 0);
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        if (!cs_buffer_create(ctx, &(cs_buffer_desc){.name = "reint frame stats", .size = REINT_FRAME_STATS_BYTES,
                                                     .host_visible = true},
                              &r->frame_stats[i], err)) {
            cs_reint_destroy(r);
            return false;
        }

    const char *dim_text = p->dim == 2 ? "2" : "3";
    struct {
        cs_program_id *prog;
        const char *path;
        const char *name;
    } programs[] = {
        {&r->density, "reint/density.comp", "reint density"},
        {&r->forces, "reint/forces.comp", "reint forces"},
        {&r->advect, "reint/advect.comp", "reint advect"},
        {&r->stats, "reint/stats.comp", "reint stats"},
        {&r->points_flag, "reint/points_flag.comp", "reint points flag"},
        {&r->points_scatter, "reint/points_scatter.comp", "reint points scatter"},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(programs); i++) {
        cs_program_desc desc = {.path = programs[i].path, .name = programs[i].name, .defines = {{"DIM", dim_text}}};
        if (!cs_program_create(ctx, &desc, programs[i].prog, err)) {
            cs_reint_destroy(r);
            return false;
        }
    }
    *out = r;
    return true;
}

void cs_reint_destroy(cs_reint *r)
{
    if (!r)
        return;
    cs_context *ctx = r->ctx;
    cs_program_id *programs[] = {&r->density, &r->forces, &r->advect, &r->stats, &r->points_flag, &r->points_scatter};
    for (size_t i = 0; i < CS_ARRAY_COUNT(programs); i++)
        cs_program_destroy(ctx, programs[i]); // an empty handle is a no-op
    if (r->scan.sums.value)
        cs_scan_destroy(ctx, &r->scan);
    cs_buffer *buffers[] = {&r->mass[0],         &r->mass[1],           &r->pos[0],
                            &r->pos[1],          &r->vel[0],            &r->vel[1],
                            &r->vel_forced,      &r->dens,              &r->field,
                            &r->partials,        &r->overflow,          &r->cell_flags,        &r->point_offsets,     &r->point_positions,
                            &r->point_velocities, &r->point_densities,  &r->point_materials,
                            &r->point_args};
    for (size_t i = 0; i < CS_ARRAY_COUNT(buffers); i++)
        if (buffers[i]->buffer)
            cs_buffer_destroy(ctx, buffers[i]);
    for (uint32_t i = 0; i < CS_FRAME_SLOTS; i++)
        if (r->frame_stats[i].buffer)
            cs_buffer_destroy(ctx, &r->frame_stats[i]);
    free(r);
}

// ---- host copies -------------------------------------------------------------

// 4 floats per cell <-> the stored stride (2 floats in 2D, 4 in 3D).
static void pack_vec(const cs_reint *r, const float *src4, float *dst)
{
    size_t stride = vec_bytes(r) / 4;
    for (size_t i = 0; i < r->cell_count; i++)
        for (size_t a = 0; a < stride; a++)
            dst[i * stride + a] = a < r->params.dim ? src4[i * 4 + a] : 0.0f;
}

static void unpack_vec(const cs_reint *r, const float *src, float *dst4)
{
    size_t stride = vec_bytes(r) / 4;
    for (size_t i = 0; i < r->cell_count; i++)
        for (size_t a = 0; a < 4; a++)
            dst4[i * 4 + a] = a < stride ? src[i * stride + a] : 0.0f;
}

void cs_reint_upload(cs_reint *r, const uint32_t *mass, const float *pos4, const float *vel4)
{
    VkDeviceSize bytes = (VkDeviceSize)r->cell_count * vec_bytes(r);
    float *tmp = malloc(bytes);
    cs_buffer_upload(r->ctx, &r->mass[r->current], mass, (VkDeviceSize)r->cell_count * 4, 0);
    pack_vec(r, pos4, tmp);
    cs_buffer_upload(r->ctx, &r->pos[r->current], tmp, bytes, 0);
    pack_vec(r, vel4, tmp);
    cs_buffer_upload(r->ctx, &r->vel[r->current], tmp, bytes, 0);
    free(tmp);
}

void cs_reint_download(cs_reint *r, uint32_t *mass, float *pos4, float *vel4)
{
    VkDeviceSize bytes = (VkDeviceSize)r->cell_count * vec_bytes(r);
    float *tmp = malloc(bytes);
    if (mass)
        cs_buffer_download(r->ctx, &r->mass[r->current], mass, (VkDeviceSize)r->cell_count * 4, 0);
    if (pos4) {
        cs_buffer_download(r->ctx, &r->pos[r->current], tmp, bytes, 0);
        unpack_vec(r, tmp, pos4);
    }
    if (vel4) {
        cs_buffer_download(r->ctx, &r->vel[r->current], tmp, bytes, 0);
        unpack_vec(r, tmp, vel4);
    }
    free(tmp);
}

void cs_reint_download_scratch(cs_reint *r, float *dens2, float *vel_forced4)
{
    if (dens2)
        cs_buffer_download(r->ctx, &r->dens, dens2, (VkDeviceSize)r->cell_count * 8, 0);
    if (vel_forced4) {
        VkDeviceSize bytes = (VkDeviceSize)r->cell_count * vec_bytes(r);
        float *tmp = malloc(bytes);
        cs_buffer_download(r->ctx, &r->vel_forced, tmp, bytes, 0);
        unpack_vec(r, tmp, vel_forced4);
        free(tmp);
    }
}

void cs_reint_fill_from_scene(cs_reint *r, const cs_scene *scene)
{
    const cs_reint_params *p = &r->params;
    uint32_t *mass = calloc(r->cell_count, 4);
    float *pos = calloc(r->cell_count, 16);
    float *vel = calloc(r->cell_count, 16);
    for (uint32_t z = 0; z < p->grid[2]; z++)
        for (uint32_t y = 0; y < p->grid[1]; y++)
            for (uint32_t x = 0; x < p->grid[0]; x++) {
                size_t i = x + (size_t)p->grid[0] * (y + (size_t)p->grid[1] * z);
                uint32_t c[3] = {x, y, z};
                for (int a = 0; a < 3; a++)
                    pos[i * 4 + a] = 0.5f;
                for (uint32_t b = 0; b < scene->block_count; b++) {
                    const cs_fluid_block *blk = &scene->blocks[b];
                    bool inside = true;
                    for (uint32_t a = 0; a < p->dim; a++) {
                        double centre = scene->domain_min[a] + (c[a] + 0.5) * (double)p->cell_size;
                        inside = inside && centre >= blk->min[a] && centre <= blk->max[a];
                    }
                    if (!inside)
                        continue;
                    mass[i] = REINT_MASS_ONE;
                    for (uint32_t a = 0; a < p->dim; a++)
                        vel[i * 4 + a] = blk->velocity[a] / p->cell_size;
                    break; // the first block holding the cell fills it
                }
            }
    cs_reint_upload(r, mass, pos, vel);
    free(mass);
    free(pos);
    free(vel);
}

// ---- a level -------------------------------------------------------------------

// Solid cells and blocked faces are decided from the level's distance field
// on this grid's lattice (nodes on cell corners): a cell centre reads the
// mean of its 8 corners, a face centre the mean of its 4. A corner on a wall
// reads 0, so a face on a wall (thick or zero-thickness) reads 0 and an open
// cell reads at least an eighth of a cell (its one corner off every wall);
// below this fraction of a cell they count as solid / blocked.
#define REINT_LEVEL_WALL_FRACTION 0.05

// The field at world point p (the origin is widened to double exactly as the
// arithmetic always did).
static double level_field_sample(const cs_level_field *f, const double p[3])
{
    double origin[3] = {f->origin[0], f->origin[1], f->origin[2]};
    return cs_level_field_sample(origin, f->cell, f->dims, f->values, p);
}

// The field must be on this grid's lattice: the same cell, and the grid's
// corner on a node (so walls, which lie on the field's nodes, lie on cell
// faces).
static bool level_field_fits(const cs_reint *r, const cs_level_field *f, cs_error *err)
{
    const cs_reint_params *p = &r->params;
    double cell = p->cell_size;
    bool fits = fabs(f->cell - cell) <= 1e-4 * cell && f->dims[0] >= 2 && f->dims[1] >= 2 && f->dims[2] >= 2;
    for (int a = 0; a < 3 && fits; a++) {
        double nodes = (p->origin[a] - f->origin[a]) / f->cell;
        double top = nodes + (double)p->grid[a];
        fits = fabs(nodes - round(nodes)) <= 1e-3 && nodes >= -1e-3 && top <= (double)(f->dims[a] - 1) + 1e-3;
    }
    if (!fits)
        return cs_fail(err, "reint: a level needs the cells on the level's lattice: the level's field has cells of "
                            "%g m from (%g, %g, %g), the fluid %g m from (%g, %g, %g); choose a particle_spacing that "
                            "divides a click (256 units) and tiles the domain, and a domain corner on a multiple of it",
                       f->cell, f->origin[0], f->origin[1], f->origin[2], cell, p->origin[0], p->origin[1],
                       p->origin[2]);
    if (p->search_radius != 1)
        return cs_fail(err, "reint: reint.search_radius %u: a level needs 1 (the walls are checked one cell away)",
                       p->search_radius);
    return true;
}

static uint32_t level_cell_flags(const cs_reint *r, const cs_level_field *f, const uint32_t c[3])
{
    const cs_reint_params *p = &r->params;
    double cell = p->cell_size, wall = REINT_LEVEL_WALL_FRACTION * cell;
    double centre[3];
    for (int a = 0; a < 3; a++)
        centre[a] = p->origin[a] + (c[a] + 0.5) * cell;
    uint32_t flags = level_field_sample(f, centre) < wall ? REINT_CELL_SOLID : 0u;
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t high = 0; high < 2; high++) {
            double face[3] = {centre[0], centre[1], centre[2]};
            face[a] += high ? 0.5 * cell : -0.5 * cell;
            if (level_field_sample(f, face) < wall)
                flags |= REINT_FACE_BIT(a, high);
        }
    return flags;
}

// Takes the mass out of solid cells (blocks may overlap the level's solid);
// returns the mass removed.
static uint64_t clear_solid_cells(cs_reint *r, const uint32_t *flags)
{
    uint32_t *mass = malloc((size_t)r->cell_count * 4);
    float *pos = malloc((size_t)r->cell_count * 16);
    float *vel = malloc((size_t)r->cell_count * 16);
    CS_ASSERT(mass && pos && vel, "out of memory for %u cells", r->cell_count);
    cs_reint_download(r, mass, pos, vel);
    uint64_t removed = 0;
    for (uint32_t i = 0; i < r->cell_count; i++) {
        if (!(flags[i] & REINT_CELL_SOLID))
            continue;
        removed += mass[i];
        mass[i] = 0;
        for (int a = 0; a < 4; a++) {
            pos[i * 4 + a] = 0.5f;
            vel[i * 4 + a] = 0.0f;
        }
    }
    if (removed)
        cs_reint_upload(r, mass, pos, vel);
    free(mass);
    free(pos);
    free(vel);
    return removed;
}

bool cs_reint_set_level(cs_reint *r, const cs_level_field *field, uint64_t *removed_units, cs_error *err)
{
    if (r->params.dim != 3)
        return cs_fail(err, "reint: a level needs a 3D fluid (dim is %u)", r->params.dim);
    if (!level_field_fits(r, field, err))
        return false;
    uint32_t *flags = malloc((size_t)r->cell_count * 4);
    CS_ASSERT(flags, "out of memory for %u cell flags", r->cell_count);
    const uint32_t *g = r->params.grid;
    for (uint32_t z = 0; z < g[2]; z++)
        for (uint32_t y = 0; y < g[1]; y++)
            for (uint32_t x = 0; x < g[0]; x++)
                flags[x + (size_t)g[0] * (y + (size_t)g[1] * z)] = level_cell_flags(r, field, (uint32_t[3]){x, y, z});
    cs_buffer buffer;
    VkDeviceSize bytes = (VkDeviceSize)r->cell_count * 4;
    if (!cs_buffer_check_size(r->ctx, "reint cell flags", bytes, err) ||
        !cs_buffer_create(r->ctx, &(cs_buffer_desc){.name = "reint cell flags", .size = bytes}, &buffer, err)) {
        free(flags);
        return false;
    }
    cs_buffer_upload(r->ctx, &buffer, flags, bytes, 0);
    cs_buffer_destroy(r->ctx, &r->cell_flags);
    r->cell_flags = buffer;
    r->has_level = true;
    r->push.scale.w = 1.0f;
    uint64_t removed = clear_solid_cells(r, flags);
    if (removed_units)
        *removed_units = removed;
    free(flags);
    return true;
}

void cs_reint_download_flags(cs_reint *r, uint32_t *flags)
{
    if (r->has_level)
        cs_buffer_download(r->ctx, &r->cell_flags, flags, (VkDeviceSize)r->cell_count * 4, 0);
    else
        memset(flags, 0, (size_t)r->cell_count * 4);
}

// ---- recording ----------------------------------------------------------------

void cs_reint_record_step(cs_reint *r, cs_recorder *rec)
{
    uint32_t cur = r->current, next = cur ^ 1u;
    const struct {
        const char *name;
        cs_program_id prog;
        cs_buffer *buffers[8];
    } passes[] = {
        {"reint: density", r->density, {&r->mass[cur], &r->pos[cur], &r->dens, &r->cell_flags}},
        {"reint: forces",
         r->forces,
         {&r->mass[cur], &r->pos[cur], &r->vel[cur], &r->dens, &r->vel_forced, &r->cell_flags}},
        {"reint: advect",
         r->advect,
         {&r->mass[cur], &r->pos[cur], &r->vel_forced, &r->mass[next], &r->pos[next], &r->vel[next], &r->overflow,
          &r->cell_flags}},
    };
    for (size_t i = 0; i < CS_ARRAY_COUNT(passes); i++) {
        cs_dispatch_desc desc = {
            .push = &r->push,
            .push_size = sizeof r->push,
            .threads = {r->params.grid[0], r->params.grid[1], r->params.grid[2]},
        };
        memcpy(desc.buffers, passes[i].buffers, sizeof passes[i].buffers);
        cs_pass_begin(rec, passes[i].name);
        cs_dispatch(rec, passes[i].prog, &desc);
        cs_pass_end(rec);
        cs_barrier_compute(rec);
    }
    r->current = next;
    r->steps++;
}

void cs_reint_record_stats(cs_reint *r, cs_recorder *rec)
{
    uint32_t cur = r->current;
    cs_pass_begin(rec, "reint: stats");
    cs_dispatch(rec, r->stats,
                &(cs_dispatch_desc){
                    .buffers = {&r->mass[cur], &r->pos[cur], &r->vel[cur], &r->field, &r->partials},
                    .push = &r->push,
                    .push_size = sizeof r->push,
                    .threads = {REINT_STATS_GROUPS * REINT_STATS_WG},
                });
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

void cs_reint_record_points(cs_reint *r, cs_recorder *rec)
{
    uint32_t cur = r->current;
    const uint32_t *grid = r->params.grid;
    cs_pass_begin(rec, "reint: points");
    cs_dispatch(rec, r->points_flag,
                &(cs_dispatch_desc){
                    .buffers = {&r->mass[cur], &r->point_offsets},
                    .push = &r->push,
                    .push_size = sizeof r->push,
                    .threads = {grid[0], grid[1], grid[2]},
                });
    cs_barrier_compute(rec);
    // In place: the flags become each kept cell's slot.
    cs_scan_record(rec, &r->scan, &r->point_offsets, &r->point_offsets, r->cell_count, NULL);
    cs_dispatch(rec, r->points_scatter,
                &(cs_dispatch_desc){
                    .buffers = {&r->mass[cur], &r->pos[cur], &r->vel[cur], &r->point_offsets, &r->point_positions,
                                &r->point_velocities, &r->point_densities, &r->point_materials, &r->point_args},
                    .push = &r->push,
                    .push_size = sizeof r->push,
                    .threads = {grid[0], grid[1], grid[2]},
                });
    cs_pass_end(rec);
    cs_barrier_compute(rec);
}

uint32_t cs_reint_read_points(cs_reint *r)
{
    uint32_t args[REINT_POINTS_ARGS_UINTS];
    cs_buffer_download(r->ctx, &r->point_args, args, sizeof args, 0);
    r->points_count = args[4];
    return r->points_count;
}

void cs_reint_particles(cs_reint *r, cs_particle_view *out)
{
    *out = (cs_particle_view){
        .positions = &r->point_positions,
        .velocities = &r->point_velocities,
        .densities = &r->point_densities,
        .materials = &r->point_materials,
        .count = r->points_count,
        .draw_args = &r->point_args,
    };
}

static void sum_partials(const reint_stats_partial *partials, uint32_t over_capacity, cs_reint_stats *out)
{
    *out = (cs_reint_stats){0};
    for (uint32_t g = 0; g < REINT_STATS_GROUPS; g++) {
        const reint_stats_partial *p = &partials[g];
        out->mass_units += (uint64_t)p->counts.x | ((uint64_t)p->counts.y << 32);
        out->non_finite += p->counts.z;
        out->filled_cells += p->counts.w;
        out->outside_cell += p->counts2.x;
        out->max_speed = fmax(out->max_speed, p->values.x);
        out->kinetic_energy += p->values.y;
        out->density_error_sum += p->values.z;
        out->max_density_error = fmax(out->max_density_error, p->values.w);
    }
    out->over_capacity = over_capacity;
}

void cs_reint_read_stats(cs_reint *r, cs_reint_stats *out)
{
    reint_stats_partial partials[REINT_STATS_GROUPS];
    cs_buffer_download(r->ctx, &r->partials, partials, sizeof partials, 0);
    uint32_t overflow[4];
    cs_buffer_download(r->ctx, &r->overflow, overflow, sizeof overflow, 0);
    sum_partials(partials, overflow[0], out);
}

void cs_reint_record_frame_stats(cs_reint *r, cs_recorder *rec)
{
    CS_ASSERT(rec->frame_slot < CS_FRAME_SLOTS, "frame slot %u", rec->frame_slot);
    cs_buffer *slot = &r->frame_stats[rec->frame_slot];
    cs_pass_begin(rec, "reint: frame stats");
    cs_barrier_compute_to_transfer(rec);
    cs_cmd_copy_range(rec, &r->partials, 0, slot, REINT_FRAME_STATS_PARTIALS, REINT_STATS_GROUPS * sizeof(reint_stats_partial));
    cs_cmd_copy_range(rec, &r->overflow, 0, slot, REINT_FRAME_STATS_OVERFLOW, 16);
    cs_cmd_copy_range(rec, &r->point_args, 0, slot, REINT_FRAME_STATS_POINT_ARGS, REINT_POINTS_ARGS_UINTS * 4);
    cs_pass_end(rec);
}

void cs_reint_read_frame_stats(cs_reint *r, uint32_t frame_slot, cs_reint_stats *out)
{
    CS_ASSERT(frame_slot < CS_FRAME_SLOTS, "frame slot %u", frame_slot);
    const uint8_t *bytes = r->frame_stats[frame_slot].mapped;
    reint_stats_partial partials[REINT_STATS_GROUPS];
    uint32_t overflow[4], args[REINT_POINTS_ARGS_UINTS];
    memcpy(partials, bytes + REINT_FRAME_STATS_PARTIALS, sizeof partials);
    memcpy(overflow, bytes + REINT_FRAME_STATS_OVERFLOW, sizeof overflow);
    memcpy(args, bytes + REINT_FRAME_STATS_POINT_ARGS, sizeof args);
    sum_partials(partials, overflow[0], out);
    // The frame has completed: its point count is final (PLY dumps read the
    // particle view after the stats), as cs_reint_read_points reads it.
    r->points_count = args[4];
}

// ---- cs_sim_ops -------------------------------------------------------------------

// The views (field, points) of the initial state, so that a window that
// starts paused, or restarts, shows the fluid before the first step.
static void record_initial_views(cs_reint *r)
{
    cs_recorder rec;
    cs_recorder_create(r->ctx, "reint initial views", &rec);
    cs_recorder_begin(&rec);
    cs_reint_record_stats(r, &rec);
    cs_reint_record_points(r, &rec);
    cs_recorder_submit_wait(&rec);
    cs_recorder_destroy(&rec);
    cs_reint_read_points(r);
}

static bool ops_create(cs_context *ctx, const cs_scene *scene, void **state, cs_error *err)
{
    cs_reint_params params;
    cs_reint *r;
    if (!cs_reint_params_from_scene(scene, &params, err) || !cs_reint_create(ctx, &params, &r, err))
        return false;
    cs_reint_fill_from_scene(r, scene);
    record_initial_views(r);
    *state = r;
    return true;
}

static bool ops_level(void *state, const cs_level_field *field, cs_error *err)
{
    cs_reint *r = state;
    uint64_t removed;
    if (!cs_reint_set_level(r, field, &removed, err))
        return false;
    if (removed)
        record_initial_views(r); // the views showed the mass now removed
    return true;
}

static void ops_destroy(void *state) { cs_reint_destroy(state); }

static void ops_record_substep(void *state, cs_recorder *rec, const cs_substep *step)
{
    (void)step;
    cs_reint_record_step(state, rec);
}

static void ops_record_frame_end(void *state, cs_recorder *rec)
{
    cs_reint_record_stats(state, rec);
    cs_reint_record_points(state, rec);
}

// The world's figures from the reint's own (cells as particles, world units).
static void to_sim_stats(const cs_reint *r, const cs_reint_stats *st, cs_sim_stats *out)
{
    const cs_reint_stats s = *st;
    const cs_reint_params *p = &r->params;
    double cell = p->cell_size;
    double cell_mass = p->rest_density * pow(cell, (double)p->dim); // world mass of a rest cell
    *out = (cs_sim_stats){
        .particles = s.filled_cells,
        .mean_density_error = s.filled_cells ? s.density_error_sum / s.filled_cells : 0.0,
        .max_density_error = s.max_density_error,
        .max_speed = s.max_speed * cell,
        .kinetic_energy = s.kinetic_energy * cell_mass * cell * cell,
        .total_mass = (double)s.mass_units / REINT_MASS_ONE_F * cell_mass,
        .non_finite = s.non_finite,
        .outside_domain = s.outside_cell,
        .over_capacity = s.over_capacity,
    };
}

static void ops_stats(void *state, cs_sim_stats *out)
{
    cs_reint *r = state;
    cs_reint_stats s;
    cs_reint_read_stats(r, &s);
    // The frame has completed: its point count is final (PLY dumps read the
    // particle view after the stats).
    cs_reint_read_points(r);
    to_sim_stats(r, &s, out);
}

static void ops_record_stats(void *state, cs_recorder *rec) { cs_reint_record_frame_stats(state, rec); }

static void ops_read_stats(void *state, uint32_t frame_slot, cs_sim_stats *out)
{
    cs_reint *r = state;
    cs_reint_stats s;
    cs_reint_read_frame_stats(r, frame_slot, &s);
    to_sim_stats(r, &s, out);
}

static void ops_field(void *state, cs_field_view *out)
{
    cs_reint *r = state;
    *out = (cs_field_view){
        .cells = &r->field,
        .dims = {r->params.grid[0], r->params.grid[1], r->params.grid[2]},
        .stride_floats = 4,
        .origin = {r->params.origin[0], r->params.origin[1], r->params.origin[2]},
        .cell_size = r->params.cell_size,
    };
}

static void ops_particles(void *state, cs_particle_view *out) { cs_reint_particles(state, out); }

// What a checkpoint saves (sim.h state): the cells' fixed-point masses,
// centres and velocities (both of each pair, and which is current), the
// forces pass's velocities and the densities, the sticky overflow word, the
// field view, and the step count. The cell flags come again from the level
// at create; the points view is made again at every frame's end.
// The ranges (sim.h cs_state_range), checked before anything is loaded.
// The current positions and velocities are finite in every checkpoint a
// run writes (the frame loop stops on a non-finite state).
static const cs_state_row reint_state_rows[] = {
    // Fixed-point sums: any word is a mass (advect saturates past the capacity).
    CS_STATE_PAIR(cs_reint, mass, current, CS_ANY_BITS),
    CS_STATE_PAIR(cs_reint, pos, current, CS_FINITE),
    CS_STATE_PAIR(cs_reint, vel, current, CS_FINITE),
    // Written by the density and forces passes (the field view at the
    // frame's end) before anything reads them: any bits.
    CS_STATE_BUFFER(cs_reint, vel_forced, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_reint, dens, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_reint, field, CS_ANY_BITS),
    CS_STATE_BUFFER(cs_reint, overflow, CS_ANY_BITS), // a sticky count of overflowed cells, only reported
    CS_STATE_HOST(cs_reint, current, CS_AT_MOST_VALUE(1)),
    CS_STATE_HOST(cs_reint, steps, CS_ANY_BITS), // a count of steps: any is a time
};

static uint32_t ops_state(void *state, cs_state_entry *out, uint32_t max)
{
    uint32_t n = 0;
    cs_state_expand(reint_state_rows, CS_ARRAY_COUNT(reint_state_rows), state, "", out, &n, max);
    return n;
}

// A panel's edits (sim.h): the block is r->params itself; gravity and the
// boundary restitution come from the scene as cs_reint_params_from_scene
// takes them; the push constants again as create makes them.
static void *ops_key_block(void *state, const cs_scene_key_block *block)
{
    return block == &cs_reint_keys ? &((cs_reint *)state)->params : NULL;
}

static bool ops_retune(void *state, const cs_scene *scene, cs_error *err)
{
    (void)err;
    cs_reint *r = state;
    cs_reint_params *p = &r->params;
    for (int a = 0; a < 3; a++)
        p->gravity[a] = a < (int)p->dim ? scene->gravity[a] : 0.0f;
    p->restitution = scene->boundary_restitution;
    float level = r->push.scale.w; // 1 once a level's cells are set (cs_reint_set_level)
    r->push = make_push(p, r->cell_count);
    r->push.scale.w = level;
    return true;
}

// reint: materials[0]'s rest density and its tait_gamma (the default of reint.tait_gamma).
const cs_sim_ops cs_reint_ops = {
    .state = ops_state,
    .key_block = ops_key_block,
    .retune = ops_retune,
    .solver = "reint",
    .keys = (const cs_scene_key_block *const[]){&cs_reint_keys, NULL},
    .material_keys = (const char *const[]){"name", "rest_density", "color", "absorption", "tait_gamma", NULL},
    .summary = "reintegration tracking (seed 001): grid of mass distributions, SPH forces, exact mass",
    .create = ops_create,
    .destroy = ops_destroy,
    .record_substep = ops_record_substep,
    .record_frame_end = ops_record_frame_end,
    .stats = ops_stats,
    .record_stats = ops_record_stats,
    .read_stats = ops_read_stats,
    .particles = ops_particles,
    .field = ops_field,
    .level = ops_level,
};
