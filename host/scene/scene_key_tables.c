// scene_key_tables.c — the rows of the scene file's keys that the scene layer
// reads (scene_keys.h has the row's shape; docs/scenes.md's key reference is
// printed from these). A key is added or changed here, and read where its
// block is parsed (scene.c, scene_lights.c): rows without CS_KEY_BY_CODE are
// read by cs_scene_keys_read or cs_scene_key_read_named; CS_KEY_BY_CODE rows
// are read by their block's code, which says why.
//
// Ranges written as float literals (0.01f) were float ranges before the
// table: the accepted values stay exactly the same.
#include "scene_keys.h"

#include "geometry.h"
#include "scene_json.h"
#include "scene_lights.h"

#include <float.h>

#define ROWS(array) .keys = array, .count = CS_ARRAY_COUNT(array)

// ---- top level ---------------------------------------------------------------

static const cs_scene_key world_keys[] = {
    {"name", CS_KEY_STRING, CS_KEY_AT(cs_scene, name), .def = "file name without `.json`",
     .help = "the scene's name in messages, titles and outputs"},
    {"description", CS_KEY_STRING, CS_KEY_AT(cs_scene, description), .def = "\"\"", .help = "one line about it"},
    {"dim", CS_KEY_UINT, CS_KEY_AT(cs_scene, dim), 2, 3, CS_KEY_BY_CODE, .def = "3",
     .help = "2 or 3; in 2D every z is 0 (read first: every vector's length depends on it)"},
    {"domain", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE | CS_KEY_REQUIRED,
     .help = "{\"min\": vector, \"max\": vector}, both required; max > min on every used axis"},
    {"gravity", CS_KEY_VEC3, CS_KEY_AT(cs_scene, gravity), 0, 1e4, CS_KEY_SPATIAL | CS_KEY_LIMIT | CS_KEY_LIVE,
     .unit = "m/s²", .def = "[0, -9.81, 0]", .help = "acceleration of every fluid and body"},
    {"dt", CS_KEY_NUMBER, CS_KEY_AT(cs_scene, dt), 0, 1.0, CS_KEY_POSITIVE, .unit = "s", .def = "1 / (60 × substeps)",
     .help = "seconds per substep, shared by every part"},
    {"substeps", CS_KEY_UINT, CS_KEY_AT(cs_scene, substeps), 1, 1000, CS_KEY_LIVE, .def = "1",
     .help = "substeps per frame"},
    {"seed", CS_KEY_UINT, CS_KEY_AT(cs_scene, seed), 0, UINT32_MAX, .def = "0",
     .help = "seeds the block jitter (a fluid may set its own)"},
    {"boundary_restitution", CS_KEY_NUMBER, CS_KEY_AT(cs_scene, boundary_restitution), 0, 1, CS_KEY_LIVE, .def = "0",
     .help = "bounce off the domain and the walls (a fluid may set its own)"},
    {"walls", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none", .help = "0 … 16 walls[], seen by every fluid"},
    {"camera", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .help = "camera, below"},
    {"pointer", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .help = "the mouse's pull and push on the fluid, below"},
    {"realtime", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "off",
     .help = "a real-time stepping mode for demos (few substeps, a speed clamp), below"},
    {"render", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .help = "render, below"},
    {"surface", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .help = "every fluid's surface defaults (3D only), below"},
    {"fluids", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE | CS_KEY_REQUIRED, .help = "1 … 8 fluids[], below"},
    {"bodies", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "0 … 256 rigid bodies[], seen by every fluid"},
    {"level", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "none",
     .help =
         "a Tomb Raider 1 level drawn around the fluids: {\"file\", \"units_per_metre\", \"light\", \"seal_water\"}"},
    {"geometry", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "static triangles lit by radiosity (\"Static geometry\")"},
    {"radiosity", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .help = "radiosity, below; with geometry or a level only"},
    {"lights", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "0 … 64 lights[] of the radiosity; with geometry only"},
};

static void *locate_world(cs_scene *scene, uint32_t index) { return index == 0 ? scene : NULL; }

static const cs_scene_key_block world_block = {
    .path = "",
    .what = "The keys every part shares. (A file of the first format, one fluid at the top level, mixes some of "
            "them with one fluid's keys and its solver block: scene.c's WORLD_KEYS, FLUID_ONLY_KEYS.)",
    ROWS(world_keys),
    .locate = locate_world,
};

// ---- fluids[] ----------------------------------------------------------------

static const cs_scene_key fluid_keys[] = {
    {"name", CS_KEY_STRING, CS_KEY_AT(cs_scene, fluid_name), .def = "the solver's name (sph0, sph1 when two share it)",
     .help = "unique: names the fluid's passes and files"},
    {"solver", CS_KEY_STRING, CS_KEY_AT(cs_scene, solver), .flags = CS_KEY_BY_CODE | CS_KEY_REQUIRED,
     .help = "a solver this build has (`cistern help` lists them); its block, named like it, is required"},
    {"domain", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "the world's", .help = "the fluid's own box, as the world's"},
    {"particle_spacing", CS_KEY_NUMBER, CS_KEY_AT(cs_scene, particle_spacing), 0, SPACING_MAX,
     CS_KEY_MIN_OPEN | CS_KEY_BY_CODE, .unit = "m", .def = "smoothing_radius / 2",
     .help = "lattice spacing of the blocks; this or smoothing_radius is required"},
    {"smoothing_radius", CS_KEY_NUMBER, CS_KEY_AT(cs_scene, smoothing_radius), 0, SPACING_MAX,
     CS_KEY_MIN_OPEN | CS_KEY_BY_CODE, .unit = "m", .def = "2 × particle_spacing",
     .help = "kernel support h = neighbour-grid cell size; ≥ particle_spacing"},
    {"max_particles", CS_KEY_UINT, CS_KEY_AT(cs_scene, max_particles), 1, CS_SCENE_MAX_PARTICLES,
     .def = "block particles + emitter budgets", .help = "particle budget; ≥ the block particles"},
    {"seed", CS_KEY_UINT, CS_KEY_AT(cs_scene, seed), 0, UINT32_MAX, .def = "the world's", .help = "as the world's"},
    {"boundary_restitution", CS_KEY_NUMBER, CS_KEY_AT(cs_scene, boundary_restitution), 0, 1, CS_KEY_LIVE,
     .def = "the world's", .help = "as the world's"},
    {"surface", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "the world's",
     .help = "overrides the top level's surface key by key"},
    {"materials", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "one material \"water\"",
     .help = "1 … 8 materials[]"},
    {"blocks", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none", .help = "0 … 16 blocks[]"},
    {"emitters", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none", .help = "0 … 8 emitters[]"},
};

static void *locate_fluid(cs_scene *scene, uint32_t index)
{
    return index < scene->fluid_count ? &scene->fluids[index] : NULL;
}

static const cs_scene_key_block fluid_block = {
    .path = "fluids[]",
    .what = "One fluid. Its solver's block (named like `solver`: pbf, sph, wcsph, dfsph, reint, vorton) is required too.",
    ROWS(fluid_keys),
    .locate = locate_fluid,
};

// ---- fluids[].materials[] --------------------------------------------------------

static const cs_scene_key material_keys[] = {
    {"name", CS_KEY_STRING, CS_KEY_AT(cs_material, name), .def = "\"water\", then \"material<i>\"",
     .help = "unique, non-empty; blocks and emitters name a material by it (or by index)"},
    {"mass", CS_KEY_NUMBER, CS_KEY_AT(cs_material, mass), 0, 1e9, CS_KEY_MIN_OPEN, .unit = "kg",
     .def = "rest_density × particle_spacing^dim; Clavet: its lattice at rest_density", .help = "mass per particle"},
    {"rest_density", CS_KEY_NUMBER, CS_KEY_AT(cs_material, rest_density), 0, 1e9, CS_KEY_POSITIVE,
     .unit = "kg/m³", .def = "1000", .help = "rest density ρ₀"},
    {"color", CS_KEY_COLOR, CS_KEY_AT(cs_material, color), .flags = CS_KEY_LIVE, .def = "[0.15, 0.4, 0.85]",
     .help = "drawn colour"},
    {"absorption", CS_KEY_VEC3, CS_KEY_AT(cs_material, absorption), 0, 1e6, CS_KEY_LIMIT | CS_KEY_LIVE, .unit = "1/m",
     .def = "[0.34, 0.0565, 0.0092]: pure water at 650, 550, 450 nm (Pope and Fry 1997)",
     .help = "drawn as water (render.draw \"water\"): absorbed per metre, per channel"},
    {"stiffness", CS_KEY_NUMBER, CS_KEY_AT(cs_material, stiffness), 0, 1e9, CS_KEY_LIVE,
     .def = "sound speed 0.25 h / dt on the lattice's sums, dt the substep (docs/fluids.md)",
     .help = "Clavet pressure stiffness k (docs/fluids.md)"},
    {"near_stiffness", CS_KEY_NUMBER, CS_KEY_AT(cs_material, near_stiffness), 0, 1e9, CS_KEY_LIVE,
     .def = "what holds the lattice at rest: 0 at rest_density", .help = "Clavet near-pressure stiffness k_near"},
    {"viscosity_linear", CS_KEY_NUMBER, CS_KEY_AT(cs_material, viscosity_linear), 0, 1e6, CS_KEY_LIVE,
     .unit = "1/s", .def = "0.00357 / dt", .help = "Clavet linear viscosity σ"},
    {"viscosity_quadratic", CS_KEY_NUMBER, CS_KEY_AT(cs_material, viscosity_quadratic), 0, 1e6, CS_KEY_LIVE,
     .unit = "1/m", .def = "0.3 / h", .help = "Clavet quadratic viscosity β"},
    {"surface_tension", CS_KEY_NUMBER, CS_KEY_AT(cs_material, surface_tension), 0, 1e6, CS_KEY_LIVE,
     .def = "0.0004; Clavet: what holds the lattice at rest: 0 at rest_density",
     .help = "pull between particles of the same material (Clavet, WCSPH)"},
    {"speed_of_sound", CS_KEY_NUMBER, CS_KEY_AT(cs_material, speed_of_sound), 0, 1e6, CS_KEY_POSITIVE | CS_KEY_LIVE,
     .unit = "m/s", .def = "max(10 √(2 |g| H), 1), H the largest domain extent",
     .help = "WCSPH (Tait) stiffness B = ρ₀c²/γ"},
    {"tait_gamma", CS_KEY_NUMBER, CS_KEY_AT(cs_material, tait_gamma), 1, 10, CS_KEY_LIVE, .def = "7",
     .help = "Tait exponent γ"},
    {"viscosity", CS_KEY_NUMBER, CS_KEY_AT(cs_material, viscosity), 0, 1e3, CS_KEY_LIVE, .def = "0.1",
     .help = "artificial viscosity α (WCSPH; Monaghan's 0.1: the three solvers' dam-break fronts agree, docs/validation.md)"},
};

static void *locate_material(cs_scene *fluid, uint32_t index)
{
    return index < fluid->material_count ? &fluid->materials[index] : NULL;
}

static const cs_scene_key_block material_block = {
    .path = "fluids[].materials[]",
    .what = "A fluid's materials (1 … 8); locate() takes the fluid's cs_scene.",
    ROWS(material_keys),
    .locate = locate_material,
};

// ---- fluids[].blocks[] and fluids[].emitters[] ----------------------------------

static const cs_scene_key fluid_block_keys[] = {
    {"min", CS_KEY_VEC3, CS_KEY_AT(cs_fluid_block, min), 0, COORD_LIMIT, CS_KEY_COORD | CS_KEY_REQUIRED,
     .unit = "m", .help = "the box's low corner"},
    {"max", CS_KEY_VEC3, CS_KEY_AT(cs_fluid_block, max), 0, COORD_LIMIT, CS_KEY_COORD | CS_KEY_REQUIRED,
     .unit = "m", .help = "the box's high corner: > min on every used axis, inside the domain"},
    // "must be > 0" (not a range) is the message for the common mistake.
    {"spacing", CS_KEY_NUMBER, CS_KEY_AT(cs_fluid_block, spacing), SPACING_MIN, SPACING_MAX, CS_KEY_BY_CODE,
     .unit = "m", .def = "particle_spacing", .help = "lattice spacing; at most 1e6 particles along one axis"},
    {"velocity", CS_KEY_VEC3, CS_KEY_AT(cs_fluid_block, velocity), .flags = CS_KEY_SPATIAL, .unit = "m/s",
     .def = "[0, 0, 0]", .help = "initial velocity"},
    {"material", CS_KEY_UINT, CS_KEY_AT(cs_fluid_block, material), 0, CS_MAX_MATERIALS - 1, CS_KEY_BY_CODE, .def = "0",
     .help = "a material's name (a string) or its index in materials[]"},
    {"jitter", CS_KEY_NUMBER, CS_KEY_AT(cs_fluid_block, jitter), 0, 0.5, .def = "0",
     .help = "each coordinate moves by u × jitter × spacing, u in [−1, 1) hashed from (seed, block, particle, axis)"},
    {"room", CS_KEY_UINT, CS_KEY_AT(cs_fluid_block, room), 0, UINT16_MAX, CS_KEY_BY_CODE, .def = "none",
     .help = "min and max are relative to this room of the level"},
};

static void *locate_fluid_block(cs_scene *fluid, uint32_t index)
{
    return index < fluid->block_count ? &fluid->blocks[index] : NULL;
}

static const cs_scene_key_block fluid_block_block = {
    .path = "fluids[].blocks[]",
    .what = "A box filled with particles on a lattice (0 … 16 a fluid).",
    ROWS(fluid_block_keys),
    .locate = locate_fluid_block,
};

static const cs_scene_key emitter_keys[] = {
    {"position", CS_KEY_VEC3, CS_KEY_AT(cs_emitter, position), 0, COORD_LIMIT, CS_KEY_COORD | CS_KEY_REQUIRED,
     .unit = "m", .help = "centre of the jet's mouth, inside the domain"},
    {"direction", CS_KEY_DIRECTION, CS_KEY_AT(cs_emitter, direction), .flags = CS_KEY_REQUIRED,
     .help = "the jet's direction"},
    {"width", CS_KEY_NUMBER, CS_KEY_AT(cs_emitter, width), 0, COORD_LIMIT, .unit = "m",
     .def = "4 × particle_spacing", .help = "across the jet"},
    {"speed", CS_KEY_NUMBER, CS_KEY_AT(cs_emitter, speed), 0, 1e4, CS_KEY_POSITIVE, .unit = "m/s", .def = "1",
     .help = "speed of the particles it emits"},
    {"speed_jitter", CS_KEY_NUMBER, CS_KEY_AT(cs_emitter, speed_jitter), 0, 0.9, .def = "0",
     .help = "each particle's speed is speed × (1 + u), u uniform in [−speed_jitter, speed_jitter]"},
    {"start_time", CS_KEY_NUMBER, CS_KEY_AT(cs_emitter, start_time), 0, 1e9, .unit = "s", .def = "0",
     .help = "simulated time before it starts"},
    // Its default follows width, speed and the spacing.
    {"rate", CS_KEY_NUMBER, CS_KEY_AT(cs_emitter, rate), 0, 1e9, CS_KEY_MIN_OPEN | CS_KEY_BY_CODE, .unit = "1/s",
     .def = "fills the jet at lattice density", .help = "particles per second"},
    {"budget", CS_KEY_UINT, CS_KEY_AT(cs_emitter, budget), 1, CS_SCENE_MAX_PARTICLES, CS_KEY_REQUIRED,
     .help = "total particles it may emit"},
    {"material", CS_KEY_UINT, CS_KEY_AT(cs_emitter, material), 0, CS_MAX_MATERIALS - 1, CS_KEY_BY_CODE, .def = "0",
     .help = "a material's name (a string) or its index in materials[]"},
    {"room", CS_KEY_UINT, CS_KEY_AT(cs_emitter, room), 0, UINT16_MAX, CS_KEY_BY_CODE, .def = "none",
     .help = "position is relative to this room of the level"},
};

static void *locate_emitter(cs_scene *fluid, uint32_t index)
{
    return index < fluid->emitter_count ? &fluid->emitters[index] : NULL;
}

static const cs_scene_key_block emitter_block = {
    .path = "fluids[].emitters[]",
    .what = "A jet that adds particles during the run (0 … 8 a fluid).",
    ROWS(emitter_keys),
    .locate = locate_emitter,
};

// ---- walls[] ---------------------------------------------------------------------

static const cs_scene_key wall_keys[] = {
    // Normalised together with the offset by the parser.
    {"normal", CS_KEY_VEC3, CS_KEY_AT(cs_wall, normal), .flags = CS_KEY_SPATIAL | CS_KEY_REQUIRED,
     .help = "nonzero; fluid stays where dot(normal, x) ≥ offset"},
    {"offset", CS_KEY_NUMBER, CS_KEY_AT(cs_wall, offset), -COORD_LIMIT, COORD_LIMIT, .unit = "m", .def = "0",
     .help = "the plane's offset along the normal"},
};

static void *locate_wall(cs_scene *scene, uint32_t index)
{
    return index < scene->wall_count ? &scene->walls[index] : NULL;
}

static const cs_scene_key_block wall_block = {
    .path = "walls[]",
    .what = "A plane inside the domain (0 … 16); the parser divides normal and offset by |normal|.",
    ROWS(wall_keys),
    .locate = locate_wall,
};

// ---- bodies[] ----------------------------------------------------------------------

static const cs_scene_key body_keys[] = {
    {"shape", CS_KEY_ENUM, CS_KEY_AT(cs_body, shape), .flags = CS_KEY_BY_CODE | CS_KEY_REQUIRED,
     .choices = "box|sphere|polytope", .help = "only the size key of its shape is allowed"},
    {"size", CS_KEY_VEC3, CS_KEY_AT(cs_body, size), 0, COORD_LIMIT, CS_KEY_COORD | CS_KEY_BY_CODE, .unit = "m",
     .def = "required for a box", .help = "full extents, > 0 on every used axis"},
    {"radius", CS_KEY_NUMBER, CS_KEY_AT(cs_body, radius), 0, COORD_LIMIT, CS_KEY_POSITIVE | CS_KEY_BY_CODE,
     .unit = "m", .def = "required for a sphere", .help = "a sphere's (2D: a disc's) radius"},
    {"planes", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "required for a polytope",
     .help = "dim + 1 … 16 planes [nx, ny, nz, d], n unit and outward, d > 0"},
    {"density", CS_KEY_NUMBER, CS_KEY_AT(cs_body, density), 0, 1e7, CS_KEY_POSITIVE,
     .unit = "kg/m³", .def = "—", .help = "2D: kg/m²; a moving body needs density or mass, never both"},
    {"mass", CS_KEY_NUMBER, CS_KEY_AT(cs_body, mass), 0, 1e9, CS_KEY_POSITIVE, .unit = "kg", .def = "—",
     .help = "instead of density"},
    {"position", CS_KEY_VEC3, CS_KEY_AT(cs_body, position), 0, COORD_LIMIT, CS_KEY_COORD, .unit = "m",
     .def = "required (without path)", .help = "where the body frame's origin is; inside the domain"},
    {"orientation", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "identity",
     .help = "{\"axis\": vector, \"degrees\": number} or {\"quaternion\": [x, y, z, w]}; 2D: about z only"},
    {"velocity", CS_KEY_VEC3, CS_KEY_AT(cs_body, velocity), 0, COORD_LIMIT, CS_KEY_COORD, .unit = "m/s",
     .def = "0", .help = "of the centre of mass"},
    {"angular_velocity", CS_KEY_VEC3, CS_KEY_AT(cs_body, angular_velocity), .unit = "rad/s", .def = "0",
     .help = "world frame; within ±1e4; 2D: [0, 0, wz]"},
    {"static", CS_KEY_BOOL, CS_KEY_AT(cs_body, is_static), .def = "false",
     .help = "never moves (and has no velocity)"},
    {"restitution", CS_KEY_NUMBER, CS_KEY_AT(cs_body, restitution), 0, 1, 0, .def = "0",
     .help = "bounce off the domain box"},
    {"friction", CS_KEY_NUMBER, CS_KEY_AT(cs_body, friction), 0, 1, 0, .def = "0",
     .help = "fraction of a particle's tangential velocity a contact removes"},
    {"color", CS_KEY_COLOR, CS_KEY_AT(cs_body, color), .def = "neutral grey",
     .help = "drawn colour"},
    {"path", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "a kinematic body: {\"keys\": [[t, x, y, z], ...], \"loop\": bool}"},
};

static void *locate_body(cs_scene *scene, uint32_t index)
{
    // The file's scene owns the array (a fluid's scene only points at it).
    return index < scene->body_count && scene->body_storage ? &scene->body_storage[index] : NULL;
}

static const cs_scene_key_block body_block = {
    .path = "bodies[]",
    .what = "A rigid convex body (0 … 256). Read in scene_bodies.c, in an order its checks need "
            "(shape first, then what the shape and path allow).",
    ROWS(body_keys),
    .locate = locate_body,
};

// ---- camera, render, surface ----------------------------------------------------------

static const cs_scene_key camera_keys[] = {
    {"position", CS_KEY_VEC3, CS_KEY_AT(cs_camera, position), 0, COORD_LIMIT, CS_KEY_COORD,
     .unit = "m", .def = "3D: centre + (0, 0.35 d, 1.2 d), d the domain diagonal; 2D: centre",
     .help = "2D: only x, y (the view centre)"},
    {"target", CS_KEY_VEC3, CS_KEY_AT(cs_camera, target), 0, COORD_LIMIT, CS_KEY_COORD, .unit = "m",
     .def = "domain centre", .help = "3D only; differs from position"},
    {"up", CS_KEY_DIRECTION, CS_KEY_AT(cs_camera, up), .def = "[0, 1, 0]",
     .help = "3D only; not parallel to the view direction"},
    {"fov_degrees", CS_KEY_NUMBER, CS_KEY_AT(cs_camera, fov_degrees), 1, 179, 0, .unit = "degrees",
     .def = "45", .help = "vertical field of view (3D)"},
    {"ortho_height", CS_KEY_NUMBER, CS_KEY_AT(cs_camera, ortho_height), 0, COORD_LIMIT, 0, .unit = "m",
     .def = "0", .help = "2D: world units visible vertically; 0 fits the domain"},
};

static void *locate_camera(cs_scene *scene, uint32_t index) { return index == 0 ? &scene->camera : NULL; }

static const cs_scene_key_block camera_block = {
    .path = "camera",
    .what = "The view. In 2D the camera looks down −z: the parser sets position.z = 1, the target under it, up +y.",
    ROWS(camera_keys),
    .locate = locate_camera,
};

static const cs_scene_key pointer_keys[] = {
    {"strength", CS_KEY_NUMBER, CS_KEY_AT(cs_pointer_options, strength), 0, 1e6, CS_KEY_LIVE, .unit = "m/s²",
     .def = "4 × |gravity|, else 40", .help = "the acceleration at the point's centre"},
    {"radius", CS_KEY_NUMBER, CS_KEY_AT(cs_pointer_options, radius), 0, COORD_LIMIT, CS_KEY_LIVE, .unit = "m",
     .def = "0", .help = "0: four of each fluid's smoothing radii"},
    {"damping", CS_KEY_NUMBER, CS_KEY_AT(cs_pointer_options, damping), 0, 1e4, CS_KEY_LIVE, .unit = "1/s",
     .def = "2", .help = "of the velocity inside the radius while the pointer acts"},
    {"track", CS_KEY_ARRAY, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "0 … 32 keys [t, x, y, z, mode], t increasing; mode 1 pull, -1 push, 0 off"},
};

static void *locate_pointer(cs_scene *scene, uint32_t index) { return index == 0 ? &scene->pointer : NULL; }

static const cs_scene_key_block pointer_block = {
    .path = "pointer",
    .what = "The hand on the fluid: the mouse in a window (Ctrl + left button pulls, Ctrl + right button "
            "pushes), or the track, headless and while no button is held.",
    ROWS(pointer_keys),
    .locate = locate_pointer,
};

// Not live: the mode sets the world's clock (dt and substeps, which every
// solver bakes into its constants) when the scene is read; a run restarts
// with it (`--set realtime.enabled=true`).
static const cs_scene_key realtime_keys[] = {
    {"enabled", CS_KEY_BOOL, CS_KEY_AT(cs_realtime_options, enabled), .def = "false",
     .help = "step in the real-time mode (PBF fluids only); false: dt and substeps as given"},
    {"substeps", CS_KEY_UINT, CS_KEY_AT(cs_realtime_options, substeps), 1, 64, .def = "2",
     .help = "substeps a frame in the mode, whatever the resolution; the frame keeps dt × substeps of the file"},
    {"iterations", CS_KEY_UINT, CS_KEY_AT(cs_realtime_options, iterations), 0, 64, .def = "0",
     .help = "PBF constraint iterations a substep in the mode; 0: each fluid's pbf.iterations"},
    {"max_step", CS_KEY_NUMBER, CS_KEY_AT(cs_realtime_options, max_step), 0.01, 3.0, .def = "0.5",
     .help = "speed clamp: a particle moves at most max_step smoothing radii h a substep (FleX: half its radius)"},
};

static void *locate_realtime(cs_scene *scene, uint32_t index)
{
    return index == 0 ? &scene->realtime : NULL;
}

static const cs_scene_key_block realtime_block = {
    .path = "realtime",
    .what = "The real-time stepping mode (docs/fluids.md, \"Real-time mode\"): a fixed number of substeps a frame, "
            "each particle's speed clamped to max_step × h / dt on the GPU. What it costs physically is measured "
            "there.",
    ROWS(realtime_keys),
    .locate = locate_realtime,
};

static const cs_scene_key render_keys[] = {
    {"width", CS_KEY_UINT, CS_KEY_AT(cs_render_options, width), 16, 16384, .unit = "px", .def = "1280",
     .help = "image width: headless frames, and the window's unless --size"},
    {"height", CS_KEY_UINT, CS_KEY_AT(cs_render_options, height), 16, 16384, .unit = "px", .def = "720",
     .help = "image height: headless frames, and the window's unless --size"},
    {"color_mode", CS_KEY_ENUM, CS_KEY_AT(cs_render_options, color_mode), .flags = CS_KEY_LIVE,
     .choices = "material|speed|density", .def = "\"material\"", .help = "what colours the particles"},
    {"particle_radius", CS_KEY_NUMBER, CS_KEY_AT(cs_render_options, particle_radius), 0, COORD_LIMIT, CS_KEY_LIVE,
     .unit = "m", .def = "0", .help = "0 draws half the particle spacing"},
    {"background", CS_KEY_COLOR, CS_KEY_AT(cs_render_options, background), .flags = CS_KEY_LIVE,
     .def = "[0.02, 0.02, 0.03]", .help = "clear colour"},
    {"fog_density", CS_KEY_NUMBER, CS_KEY_AT(cs_render_options, fog_density), 0, 1e6, CS_KEY_LIVE, .unit = "1/m",
     .def = "0", .help = "exponential fog"},
    {"draw", CS_KEY_ENUM, CS_KEY_AT(cs_render_options, draw), 
     .choices = "particles|surface|both|water", .def = "\"surface\" when a fluid has one, else \"particles\"",
     .help = "what headless frames show of fluids with a surface (V cycles); surface and both need one; "
             "water: refraction, reflection, absorption, particle fluids too in 3D (docs/surface.md, \"Water\")"},
    {"features", CS_KEY_STRING, CS_KEY_AT(cs_render_options, features), .def = "\"\"",
     .help = "render features to switch on by name, separated by spaces or commas (a feature that "
             "takes its name: docs/architecture.md); its window key flips it"},
};

static void *locate_render(cs_scene *scene, uint32_t index) { return index == 0 ? &scene->render : NULL; }

static const cs_scene_key_block render_block = {
    .path = "render",
    .what = "How frames are drawn.",
    ROWS(render_keys),
    .locate = locate_render,
};

static const cs_scene_key surface_keys[] = {
    {"enabled", CS_KEY_BOOL, CS_KEY_AT(cs_surface_options, enabled), .def = "true for a 3D reint fluid, else false",
     .help = "mesh the fluid's free surface (3D only)"},
    {"cells_per_spacing", CS_KEY_NUMBER, CS_KEY_AT(cs_surface_options, cells_per_spacing), 0.01, 16,
     .def = "2 nodes a spacing, or the finest that fits (0 stored)",
     .help = "field nodes per particle_spacing; not with cell_size; particle fluids"},
    {"cell_size", CS_KEY_NUMBER, CS_KEY_AT(cs_surface_options, cell_size), 0, COORD_LIMIT, CS_KEY_POSITIVE,
     .unit = "m", .help = "node spacing instead of cells_per_spacing; below the domain's smallest side"},
    {"iso", CS_KEY_NUMBER, CS_KEY_AT(cs_surface_options, iso), 1e-6, 1000, 0, .def = "0.5",
     .help = "the surface is where the field crosses iso × the field inside the fluid at rest"},
    {"radius", CS_KEY_NUMBER, CS_KEY_AT(cs_surface_options, radius), 0.5, 8, 0, .def = "2.5",
     .help = "splat kernel support in particle spacings; particle fluids"},
};

static void *locate_surface(cs_scene *scene, uint32_t index) { return index == 0 ? &scene->surface : NULL; }

static const cs_scene_key_block surface_block = {
    .path = "surface",
    .what = "A fluid's surface (also fluids[].surface, overriding key by key; a resolution key replaces the other).",
    ROWS(surface_keys),
    .locate = locate_surface,
};

// ---- radiosity, lights[] (scene_lights.c) ----------------------------------------------

static const cs_scene_key radiosity_keys[] = {
    // > 0 is checked after "probes", with its own message.
    {"patch_size", CS_KEY_NUMBER, CS_KEY_AT(cs_scene_lighting, patch_size), 0.0f, 1e6f, .unit = "m", .def = "0.05",
     .help = "> 0: triangles are cut into patches about this size"},
    {"bounces", CS_KEY_UINT, CS_KEY_AT(cs_scene_lighting, bounces), 0, 64, CS_KEY_LIVE, .def = "64",
     .help = "the most light bounces gathered a frame"},
    {"tolerance", CS_KEY_NUMBER, CS_KEY_AT(cs_scene_lighting, tolerance), 0.0f, 1.0f, CS_KEY_LIVE, .def = "0.001",
     .help = "fewer bounces once one adds at most this share of the reflected light; 0: always `bounces`"},
    {"area_samples", CS_KEY_UINT, CS_KEY_AT(cs_scene_lighting, area_samples), 1, 32, .def = "4",
     .help = "an area light's s × s shadow-ray grid"},
    {"exposure", CS_KEY_NUMBER, CS_KEY_AT(cs_scene_lighting, exposure), 0.0f, 1e6f, CS_KEY_LIVE, .def = "4",
     .help = "drawn colour x / (1 + x), x = exposure × B"},
    {"hierarchy", CS_KEY_BOOL, CS_KEY_AT(cs_scene_lighting, hierarchy), .def = "true",
     .help = "links through the cluster tree"},
    {"feedback", CS_KEY_BOOL, CS_KEY_AT(cs_scene_lighting, feedback), .flags = CS_KEY_LIVE, .def = "false",
     .help = "one gather a frame on the previous frame's (docs/light.md \"Feedback\")"},
    {"probes", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "SH light probes (scene_probes.c reads it; docs/light.md)"},
};

static void *locate_radiosity(cs_scene *scene, uint32_t index)
{
    return index == 0 && scene->geometry ? &scene->geometry->lighting : NULL;
}

static const cs_scene_key_block radiosity_block = {
    .path = "radiosity",
    .what = "How the static geometry's radiosity is cut and gathered (with geometry or a level).",
    ROWS(radiosity_keys),
    .locate = locate_radiosity,
};

static const cs_scene_key probe_keys[] = {
    // Whole numbers in floats' clothing: read by code with its own message.
    {"resolution", CS_KEY_VEC3, .flags = CS_KEY_BY_CODE, .def = "[4, 4, 4]",
     .help = "probes along x, y, z over the geometry's box: 3 whole numbers from 1 to 64"},
    {"rays", CS_KEY_UINT, CS_KEY_AT(cs_scene_probes, rays), 1, 16384, .def = "256",
     .help = "rays a probe casts to gather the radiosity"},
    {"every", CS_KEY_UINT, CS_KEY_AT(cs_scene_probes, every), 1, 1000000, CS_KEY_LIVE, .def = "1",
     .help = "frames between two updates"},
};

static void *locate_probes(cs_scene *scene, uint32_t index)
{
    return index == 0 && scene->geometry ? &scene->geometry->lighting.probes : NULL;
}

static const cs_scene_key_block probe_block = {
    .path = "radiosity.probes",
    .what = "SH light probes lit by the radiosity, which light the water (docs/light.md, scene_probes.c).",
    ROWS(probe_keys),
    .locate = locate_probes,
};

static const cs_scene_key light_keys[] = {
    {"type", CS_KEY_ENUM, CS_KEY_AT(cs_scene_light, type), .flags = CS_KEY_BY_CODE | CS_KEY_REQUIRED,
     .choices = "point|spot|sphere|area", .help = "decides which other keys it takes"},
    {"position", CS_KEY_VEC3, CS_KEY_AT(cs_scene_light, position), 0, 1e6, CS_KEY_SPATIAL | CS_KEY_BY_CODE | CS_KEY_LIVE,
     .unit = "m", .def = "required (without path)", .help = "point, spot, sphere: the centre; within ±1e6"},
    {"radius", CS_KEY_NUMBER, CS_KEY_AT(cs_scene_light, radius), 0.0f, 1e6f, .unit = "m", .def = "0.02",
     .help = "> 0; not for area lights"},
    // Not live: a panel would edit the stored product (colour x intensity),
    // and a save-as would write it back beside the file's intensity.
    {"color", CS_KEY_VEC3, CS_KEY_AT(cs_scene_light, color), .flags = CS_KEY_SPATIAL,
     .def = "[1, 1, 1]", .help = "each ≥ 0; stored multiplied by intensity (area: by power / area)"},
    // Folded into color: not stored on its own.
    {"intensity", CS_KEY_NUMBER, .min = 0.0f, .max = 1e9f, .flags = CS_KEY_BY_CODE, .def = "1",
     .help = "irradiance at d = 0 facing the light (area: exitance); stored in color"},
    {"range", CS_KEY_NUMBER, CS_KEY_AT(cs_scene_light, range), 0.0f, 1e9f, CS_KEY_LIVE, .unit = "m", .def = "10",
     .help = "d_max of the light's window; above the radius"},
    {"direction", CS_KEY_VEC3, CS_KEY_AT(cs_scene_light, direction), .flags = CS_KEY_SPATIAL | CS_KEY_BY_CODE,
     .help = "spot: its axis, normalised"},
    {"inner_degrees", CS_KEY_NUMBER, .min = 0.0f, .max = 90.0f, .flags = CS_KEY_BY_CODE, .unit = "degrees",
     .help = "spot: full-intensity half-angle (stored in radians)"},
    {"outer_degrees", CS_KEY_NUMBER, .min = 0.0f, .max = 90.0f, .flags = CS_KEY_BY_CODE, .unit = "degrees",
     .help = "spot: cut-off half-angle ≥ inner (stored in radians)"},
    {"corner", CS_KEY_VEC3, .flags = CS_KEY_SPATIAL | CS_KEY_BY_CODE, .unit = "m",
     .help = "area: the quad's corner (stored in position)"},
    {"edge_u", CS_KEY_VEC3, CS_KEY_AT(cs_scene_light, edge_u), .flags = CS_KEY_SPATIAL | CS_KEY_BY_CODE,
     .unit = "m", .help = "area: one edge from the corner"},
    {"edge_v", CS_KEY_VEC3, CS_KEY_AT(cs_scene_light, edge_v), .flags = CS_KEY_SPATIAL | CS_KEY_BY_CODE,
     .unit = "m", .help = "area: the other edge; front towards edge_u × edge_v"},
    {"power", CS_KEY_NUMBER, .min = 0.0f, .max = 1e9f, .flags = CS_KEY_BY_CODE, .unit = "W",
     .help = "area: instead of intensity, exitance = colour × power / area"},
    {"path", CS_KEY_OBJECT, .flags = CS_KEY_BY_CODE, .def = "none",
     .help = "{\"keys\": [[t, x, y, z], ...], \"loop\": bool}: moves position (area: corner)"},
};

static void *locate_light(cs_scene *scene, uint32_t index)
{
    return scene->geometry && index < scene->geometry->lighting.light_count ? &scene->geometry->lighting.lights[index]
                                                                            : NULL;
}

static const cs_scene_key_block light_block = {
    .path = "lights[]",
    .what = "A light of the radiosity (0 … 64, with geometry only). Read in scene_lights.c: which keys a light "
            "takes depends on its type.",
    ROWS(light_keys),
    .locate = locate_light,
};

// ---- level ---------------------------------------------------------------------------

static const cs_scene_key level_keys[] = {
    {"file", CS_KEY_STRING, .flags = CS_KEY_BY_CODE | CS_KEY_REQUIRED,
     .help = "a TR1 .PHD file, relative to the scene file (stored resolved)"},
    // A double the file gives at full precision: read by code.
    {"units_per_metre", CS_KEY_NUMBER, .min = 0, .max = 1e6, .flags = CS_KEY_MIN_OPEN | CS_KEY_BY_CODE,
     .def = "512", .help = "level units a metre (512: a sector is 2 m)"},
    {"light", CS_KEY_ENUM, .flags = CS_KEY_BY_CODE, .choices = "radiosity|baked",
     .def = "radiosity with a radiosity block, else baked", .help = "what is shown first (B switches)"},
    {"seal_water", CS_KEY_BOOL, .flags = CS_KEY_BY_CODE, .def = "false",
     .help = "a water room's portals to dry rooms are walls to the fluids (TR1's water surface; view --flood)"},
};

static void *locate_level(cs_scene *scene, uint32_t index) { return index == 0 ? &scene->level : NULL; }

static const cs_scene_key_block level_block = {
    .path = "level",
    .what = "A Tomb Raider 1 level drawn around the fluids, which collide with it (docs/levels.md).",
    ROWS(level_keys),
    .locate = locate_level,
};

// ---- the list ----------------------------------------------------------------------

// Shared with the parsers (scene.c, scene_lights.c).
const cs_scene_key_block *const cs_scene_world_keys = &world_block;
const cs_scene_key_block *const cs_scene_fluid_keys = &fluid_block;
const cs_scene_key_block *const cs_scene_material_keys = &material_block;
const cs_scene_key_block *const cs_scene_fluid_block_keys = &fluid_block_block;
const cs_scene_key_block *const cs_scene_emitter_keys = &emitter_block;
const cs_scene_key_block *const cs_scene_wall_keys = &wall_block;
const cs_scene_key_block *const cs_scene_body_keys = &body_block;
const cs_scene_key_block *const cs_scene_camera_keys = &camera_block;
const cs_scene_key_block *const cs_scene_render_keys = &render_block;
const cs_scene_key_block *const cs_scene_pointer_keys = &pointer_block;
const cs_scene_key_block *const cs_scene_realtime_keys = &realtime_block;
const cs_scene_key_block *const cs_scene_surface_keys = &surface_block;
const cs_scene_key_block *const cs_scene_radiosity_keys = &radiosity_block;
const cs_scene_key_block *const cs_scene_light_keys = &light_block;
const cs_scene_key_block *const cs_scene_probe_keys = &probe_block;
const cs_scene_key_block *const cs_scene_level_keys = &level_block;

static const cs_scene_key_block *const blocks[] = {
    &world_block,     &fluid_block,  &material_block, &fluid_block_block, &emitter_block, &wall_block,
    &body_block,      &camera_block, &pointer_block,  &realtime_block,    &render_block,  &surface_block,
    &radiosity_block, &probe_block,  &light_block,    &level_block,
};

const cs_scene_key_block *const *cs_scene_key_blocks(uint32_t *count)
{
    *count = CS_ARRAY_COUNT(blocks);
    return blocks;
}
