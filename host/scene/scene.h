// scene.h — a scene: what to simulate, where, and how to look at it.
//
// Scenes are JSON files under scenes/ (schema: docs/scenes.md). The parser
// rejects unknown keys and bad values with `file: key.path: what is wrong`.
// Every key is a row of the key table (scene_keys.h): its type, unit,
// range, default and the field it fills.
//
// A file describes a world: keys every part shares (dim, domain, gravity, dt,
// substeps, walls, bodies, camera, render) and a list "fluids", each with its
// solver, resolution, materials, blocks, emitters and the solver's own block.
// The key "lights" is reserved for a part to come.
// A file of the first format (one fluid's keys at the top level, "solver"
// among them) is still read: it is a world of one fluid.
//
// One type serves both: the file's cs_scene holds the shared keys, and
// `fluids[i]` is a complete cs_scene for fluid i — the shared keys copied,
// its own keys parsed from its entry — which is all a solver needs. Its
// key_prefix ("fluids[1]") goes in front of every key path in messages, so
// a solver's errors name the right entry. Each solver's own block ("pbf",
// "sph", "wcsph", "reint": the solver's name) stays a cJSON subtree that the
// solver parses through its own key table (scene_keys.h) and the cs_json_*
// helpers below, so error messages have the same shape everywhere. The parser
// knows the solvers' names only (cs_scene_solver_names, so that a misspelled
// one is named with the nearest); the world finds the solver itself in the
// pipelines' registry, which test_scene_keys checks names the same list.
#pragma once

#include "common.h"

#include <cjson/cJSON.h>

#define CS_MAX_MATERIALS 8
#define CS_MAX_BLOCKS 16
#define CS_MAX_EMITTERS 8
#define CS_MAX_WALLS 16
#define CS_MAX_FLUIDS 8
#define CS_MAX_BODIES 256      // = CS_BODIES_MAX (shaders/bodies/bodies_shared.h)
#define CS_MAX_BODY_PATH_KEYS 16 // per kinematic body
#define CS_MAX_BODY_PLANES 16  // planes of one polytope
// Most particles a scene may ask for (blocks + emitter budgets); the parser
// refuses more so counts never overflow 32 bits. Devices refuse far less.
#define CS_SCENE_MAX_PARTICLES (1u << 28)

typedef struct cs_material {
    char name[32];
    float mass;              // per particle
    float rest_density;
    float color[3];          // linear RGB 0..1
    // Drawn as water (render.draw "water"): light absorbed per metre of
    // path, per channel (1/m; Beer-Lambert exp(-absorption d)).
    float absorption[3];
    // Clavet double-density relaxation (seed 000): pressure stiffness k,
    // near-pressure stiffness k_near, linear (sigma) and quadratic (beta)
    // viscosity, same-material surface tension.
    float stiffness;
    float near_stiffness;
    float viscosity_linear;
    float viscosity_quadratic;
    float surface_tension;
    // WCSPH (Tait): stiffness B is derived from speed_of_sound; gamma exponent.
    float speed_of_sound;
    float tait_gamma;
    float viscosity;         // artificial viscosity alpha (WCSPH; default 0.1; PBF does not read it)
} cs_material;

typedef struct cs_fluid_block {
    float min[3], max[3];    // box filled on a lattice of `spacing`
    float spacing;           // absent in the file: scene particle_spacing (always > 0 after parsing)
    float velocity[3];
    uint32_t material;
    float jitter;            // fraction of spacing, deterministic (seeded)
    bool in_room;            // "room" given: min/max are relative to level room `room`'s origin
    uint32_t room;           // until the world moves them (host/world/world_rooms.c)
} cs_fluid_block;

typedef struct cs_emitter {
    float position[3];
    float direction[3];      // normalised by the parser
    float width;             // across the jet, in world units
    float speed;
    float speed_jitter;      // each particle's speed is speed * (1 + u), u uniform in [-speed_jitter, speed_jitter]
    float start_time;        // seconds of simulated time before it starts
    float rate;              // particles per second
    uint32_t budget;         // total particles it may emit
    uint32_t material;
    bool in_room;            // "room" given: position is relative to level room `room`'s origin
    uint32_t room;
} cs_emitter;

typedef struct cs_wall {     // a plane; fluid stays where dot(n, x) >= offset
    float normal[3];         // normalised by the parser (offset divided by the same length)
    float offset;
} cs_wall;

// A rigid body (pipelines/bodies/bodies.h moves it). Shapes are convex: a box, a
// sphere (a disc in 2D) or a polytope given as half-spaces. In the body's
// own frame, polytope plane k is (n_k, d_k) with n_k a unit normal pointing
// OUT of the body: the body is where dot(n_k, x) <= d_k for every k, and
// dot(n_k, x) - d_k is the signed distance to the plane (negative inside).
// The parser normalises n and d together, checks that the planes bound a
// finite region that holds the frame origin, and (2D) that every nz is 0.
typedef enum cs_body_shape { CS_BODY_BOX, CS_BODY_SPHERE, CS_BODY_POLYTOPE } cs_body_shape;

typedef struct cs_body {
    cs_body_shape shape;
    float size[3];           // box: full extents (2D: z unused)
    float radius;            // sphere / disc
    float planes[CS_MAX_BODY_PLANES][4]; // polytope: (n, d) in the body frame, n unit, outward
    uint32_t plane_count;
    float density;           // kg / m^3 (2D: kg / m^2); 0 when mass was given
    float mass;              // kg; 0 when density was given (the bodies module computes it)
    float position[3];       // where the body frame's origin is
    float orientation[4];    // unit quaternion (x, y, z, w), body frame -> world
    float velocity[3];       // of the centre of mass
    float angular_velocity[3]; // rad/s, world frame (2D: only z)
    float restitution;       // 0..1 against the domain box
    float friction;          // 0..1: fraction of the tangential relative velocity a fluid contact removes
    bool is_static;          // never moves; fluid only bounces off it
    float color[3];          // linear rgb it is drawn in (render feature_bodies.c); all 0: a neutral grey
    // Kinematic: "path" keys (t, position of the body frame's origin), t
    // from 0 strictly increasing; the body moves along the straight
    // segments between them (held at the last key, or, with loop, again
    // from the first), pushes fluid and bodies and is pushed by nothing.
    float path[CS_MAX_BODY_PATH_KEYS][4];
    uint32_t path_count;     // 0: not kinematic
    bool path_loop;
} cs_body;

typedef struct cs_camera {
    float position[3];
    float target[3];
    float up[3];
    float fov_degrees;       // 3D perspective
    float ortho_height;      // 2D orthographic: world units visible vertically (0: fit domain)
} cs_camera;

typedef enum cs_color_mode { CS_COLOR_MATERIAL, CS_COLOR_SPEED, CS_COLOR_DENSITY } cs_color_mode;

// What a frame shows of the fluids that have a surface (fluids without one
// always show their particles).
// What fluids with a surface show: particles, the surface (opaque), both,
// or the surface as water (refraction, reflection, absorption:
// host/render/feature_water.c). V cycles through all CS_DRAW_MODE_COUNT.
typedef enum cs_draw_mode { CS_DRAW_PARTICLES, CS_DRAW_SURFACE, CS_DRAW_BOTH, CS_DRAW_WATER, CS_DRAW_MODE_COUNT } cs_draw_mode;

typedef struct cs_render_options {
    uint32_t width, height;  // headless image size, and the window's unless --size
    cs_color_mode color_mode;
    float particle_radius;   // 0: half the particle spacing
    float background[3];
    float fog_density;
    // "draw": what the headless frames show (the window starts with it too;
    // V cycles). Default: surface when a fluid has one, else particles.
    cs_draw_mode draw;
    // "features": render features switched on by name, separated by spaces
    // or commas ("floor_grid"); the renderer checks the names
    // (cs_render_check_scene) and each feature says what naming it does.
    char features[128];
} cs_render_options;

// A fluid's surface: a triangle mesh of its free surface, extracted on the
// GPU once per frame it is asked for (docs/surface.md, "In the frame").
// "surface": {...} at the top level sets the defaults of every fluid; a
// fluid's own "surface" overrides the keys it gives.
typedef struct cs_surface_options {
    bool enabled;            // default: true for a 3D reint fluid, else false; 3D only
    bool enabled_given;      // a "surface" block set it (else the solver's default applies)
    // Field resolution (particle fluids; a reint fluid meshes its own cells):
    // node spacing = cell_size when given, else particle_spacing /
    // cells_per_spacing. 0 = not given: 2 nodes per particle spacing, or
    // the finest the device holds (the world says so when it coarsens).
    float cells_per_spacing;
    float cell_size;         // world units
    // The "surface" objects that set these (owned by the file's tree; NULL
    // when absent): the fluid's own and the top level's. Messages about a
    // key name the block that holds it (fluids[1].surface.cell_size or
    // surface.cell_size).
    const cJSON *own_block, *top_block;
    float iso;               // inside: field > iso, in units of the fluid's interior field (rest = 1); default 0.5
    float radius;            // splat kernel support in particle spacings (particle fluids); default 2.5
} cs_surface_options;

// "level": {"file": "../levels/cistern_demo.phd", "units_per_metre": 512}:
// a Tomb Raider 1 level drawn around the fluids (docs/levels.md). The file
// is relative to the scene file. Drawn, and every particle fluid collides
// with its rooms (host/world/world_level.c); the domain box stays the outer bound.
typedef struct cs_level_ref {
    bool enabled;
    char file[1024];         // resolved path
    double units_per_metre;  // default 512 (a sector is 2 m)
    // "light": "radiosity" (the default when the scene has a "radiosity"
    // block: the level's faces and room lights join the radiosity,
    // host/world/level_light.h) or "baked" (TR1's vertex light): what is
    // shown first; the window's B key switches.
    bool radiosity_shown;
    // "seal_water": true: the portals between a water room (TR1 room flag
    // 0x0001) and a room that is not are walls to the fluids, as the water
    // surface is to the game (cistern view --flood sets it).
    bool seal_water;
} cs_level_ref;

// "pointer": the hand on the fluid (docs/scenes.md, "The pointer"). In a
// window the mouse moves it (Ctrl + left button pulls, Ctrl + right button
// pushes); headless, and in a window while no button is held, its "track"
// does: keys [t, x, y, z, mode] in simulated seconds, each holding from its
// time until the next (mode 1 pulls, -1 pushes, 0 lets go). A particle
// within `radius` of the point is accelerated by
//   a = w (mode strength n - damping v),  w = 1 - r / radius,
// n the unit vector from the particle to the point (particle fluids).
#define CS_MAX_POINTER_KEYS 32
typedef struct cs_pointer_key {
    float time;              // s
    float at[3];             // m
    int32_t mode;            // 1 pull, -1 push, 0 off
} cs_pointer_key;

typedef struct cs_pointer_options {
    float strength;          // m/s², at the centre
    float radius;            // m; 0: four of each fluid's smoothing radii
    float damping;           // 1/s, of the velocity inside the radius while it acts
    cs_pointer_key track[CS_MAX_POINTER_KEYS];
    uint32_t track_count;
} cs_pointer_options;

// "realtime": a stepping mode for demos (docs/fluids.md, "Real-time
// mode"). Off, the world steps as the file's dt and substeps say (the
// physical mode). On, a frame keeps its simulated time (dt x substeps of
// the physical mode) but is cut into `substeps` steps whatever the
// resolution, PBF fluids run `iterations` constraint iterations (0: their
// own), and every particle's speed is clamped to max_step x h / dt on the
// GPU (FleX's CFL clamp), so the few long steps stay stable. The parser
// applies it (cs_scene.dt and substeps are then the real-time ones) and
// particle-count scaling keeps those substeps.
typedef struct cs_realtime_options {
    bool enabled;
    uint32_t substeps;   // substeps a frame in the mode
    uint32_t iterations; // PBF constraint iterations a substep; 0: each fluid's pbf.iterations
    float max_step;      // the speed clamp: at most this many smoothing radii h a substep
    float physical_dt;   // the file's dt and substeps, before the mode replaced them
    uint32_t physical_substeps;
} cs_realtime_options;

struct cs_geometry; // geometry.h

// The names a fluid's "solver" may take, NULL-terminated: the pipelines'
// registry (pipelines/solvers.c) by name, which the scene layer cannot see.
// A new solver is added to both (test_scene_keys compares them).
extern const char *const cs_scene_solver_names[];

typedef struct cs_scene {
    char path[512];          // file it came from (for messages)
    char name[64];           // file name without .json
    char description[256];
    // A fluid's scene: its "name" (default: the solver's name, with the
    // index when two fluids share a solver) and the key path of its entry.
    char fluid_name[32];
    char key_prefix[32];     // "fluids[1]"; "" for a first-format file
    char solver[16];         // "pbf", "sph" (Clavet), "wcsph", "reint"; "" in the file's own cs_scene
    int dim;                 // 2 or 3; in 2D z is 0 everywhere
    float domain_min[3], domain_max[3];
    float gravity[3];
    float dt;                // seconds per substep
    uint32_t substeps;       // substeps per frame
    float smoothing_radius;  // h: kernel support = neighbour-grid cell size
    float particle_spacing;  // lattice spacing of fluid blocks
    uint32_t max_particles;  // budget: blocks + emitters (0: computed)
    uint32_t seed;           // jitter seed
    float boundary_restitution; // 0..1, bounce off domain and walls
    cs_material materials[CS_MAX_MATERIALS];
    uint32_t material_count;
    cs_fluid_block blocks[CS_MAX_BLOCKS];
    uint32_t block_count;
    cs_emitter emitters[CS_MAX_EMITTERS];
    uint32_t emitter_count;
    cs_wall walls[CS_MAX_WALLS];
    uint32_t wall_count;
    // The world's rigid bodies, seen by every fluid: one array (up to
    // CS_MAX_BODIES) owned by the file's cs_scene (body_storage), which
    // every fluid's scene points at, so a fluid's scene stays small (a
    // few KiB) however many bodies the file has. NULL when there are none.
    const cs_body *bodies;
    uint32_t body_count;
    cs_body *body_storage;   // what cs_scene_free frees; NULL in a fluid's scene and in copies
    cs_level_ref level;      // the world's level (shared keys)
    // "geometry": static triangles with albedo and emission (geometry.h);
    // NULL without the key. Owned by the file's cs_scene (NULL in a fluid's).
    struct cs_geometry *geometry;
    cs_camera camera;
    cs_render_options render;
    cs_surface_options surface;
    cs_pointer_options pointer;
    cs_realtime_options realtime;
    // The solver's own block (e.g. the "pbf" object), owned by `json`.
    const cJSON *solver_params;
    cJSON *json;             // the file's tree (NULL in a fluid's scene: the file owns it)
    // The file's fluids, each a complete scene (see the top of this file).
    struct cs_scene *fluids;
    uint32_t fluid_count;
    bool first_format;       // read from a file of the first format
} cs_scene;

// A scene is passed by pointer (const where it is only read). Its size is
// held down so that a fluid's scene, a copy of the file's shared keys, stays
// cheap; tests/by_value.sh refuses functions that take one by value.
#define CS_SCENE_MAX_BYTES 8192
_Static_assert(sizeof(cs_scene) <= CS_SCENE_MAX_BYTES, "cs_scene grew past CS_SCENE_MAX_BYTES: keep large arrays "
                                                       "out of it (bodies: a pointer to the file's array)");

// One line on how the scene steps, for the panel and the bench: "physical:
// 12 substeps of 1.39 ms a frame", or "real time: 2 substeps of 8.33 ms a
// frame, 3 PBF iterations, speeds clamped to 0.600 m/s (physical: 12
// substeps)". The clamp is fluid.c's, max_step x h / dt, of the first fluid.
void cs_scene_stepping_text(const cs_scene *scene, char *out, size_t size);

// Loads `path`, or scenes/<name>.json when `path` has no '/' and no ".json".
bool cs_scene_load(const char *path, cs_scene *scene, cs_error *err);
// Parses JSON text; `path` is used in messages only.
bool cs_scene_parse(const char *text, size_t size, const char *path, cs_scene *scene, cs_error *err);
// The two halves of cs_scene_parse, for callers that change the tree in
// between (scene_edit.h: `--set`, a panel's edits): the text's JSON tree
// (syntax errors as `path:line:column: ...`; NULL on error), and the scene
// read from a tree. cs_scene_parse_tree takes `root` (scene->json keeps it;
// freed on failure).
cJSON *cs_scene_parse_json(const char *text, size_t size, const char *path, cs_error *err);
bool cs_scene_parse_tree(cJSON *root, const char *path, cs_scene *scene, cs_error *err);
// The file cs_scene_load reads for `name` (a bare name: scenes/<name>.json).
bool cs_scene_resolve(const char *name, char *out, size_t size, cs_error *err);
void cs_scene_free(cs_scene *scene);

// Number of particles the fluid blocks create (for budgets and bench fills).
uint32_t cs_scene_block_particles(const cs_scene *scene);

// Writes the block particles into caller arrays (positions xyz + w = 0,
// velocities xyz + w = 0, materials), deterministic, in block order.
// Returns the count written (at most `capacity`).
uint32_t cs_scene_fill_blocks(const cs_scene *scene, float *positions4, float *velocities4, uint32_t *materials,
                              uint32_t capacity);

// Rescales the scene to about `target` block particles as the same flow at
// another resolution (for `cistern bench --particles` and `run --particles`;
// docs/scenes.md "Particle-count scaling" has the table). One factor k
// multiplies every block spacing, particle_spacing, smoothing_radius and a
// nonzero render.particle_radius; material masses get k^dim (same density);
// dt shrinks to at most k dt with substeps raised so dt x substeps (a frame)
// stays; emitter rates and budgets get k^-dim (same mass flow) and
// max_particles keeps its head room, scaled the same way; the solver's
// material parameters whose units involve h, dt or mass (Clavet stiffnesses,
// viscosities and cohesion, WCSPH cohesion) follow the table `scale_rules`
// in scene.c. Boxes, gravity, rest densities, speeds of sound and solver
// blocks are unchanged. k is the one whose block count is closest to target
// (the count is a staircase in k), except that blocks filling their boxes
// to the faces keep doing so when a k within 5% of target allows it.
// Clavet SPH's kernel normalisation N_n over the disc (2D) or ball (3D) of
// radius h, for (1 - r/h)^n, and the sum of (1 - r/h)^n over a particle's
// neighbours on a square (cubic) lattice of `spacing`, self left out, as
// its density pass sums (scene_clavet.c; fluid_sph.c uses both).
double cs_clavet_kernel_norm(int dim, int n, double h);
double cs_clavet_lattice_sum(int dim, int n, double h, double spacing);
// The sums over that lattice's neighbours of a particle that Clavet's
// defaults are derived from (a = 1 - r/h; scene_clavet.c).
typedef struct cs_clavet_lattice {
    double density;         // sum a^n
    double near_density;    // sum a^(n+1)
    double pressure_virial; // sum a^(n-1) r
    double near_virial;     // sum a^n r
    double cohesion_virial; // sum a^(n-1) r^2
} cs_clavet_lattice;
cs_clavet_lattice cs_clavet_lattice_sums(int dim, int n, double h, double spacing);
// The stress (a pressure; > 0 pushes the block apart) of a Clavet material
// on the scene's lattice at rest: the virial sum_j F_j r_j / (2 dim V) of
// its pressure, near pressure and cohesion, the same for every interior
// particle. 0 means the drawn block starts at rest. *modulus (when not
// NULL): the bulk modulus of the pressure term alone (rho dp/drho), to read the stress
// against (stress / modulus: about how far the block moves off its drawn
// density, expanding when positive).
double cs_clavet_lattice_stress(const cs_scene *scene, const cs_material *m, double *modulus);
// c dt / h of a Clavet stiffness on the scene's lattice: c the long-wave
// sound speed of its pressure term, dt the solver's substep (the defaults
// use 0.25; columns blew up from 0.3 in 2D and 0.4 in 3D).
double cs_clavet_sound_number(const cs_scene *scene, double stiffness);

void cs_scene_scale_particle_count(cs_scene *scene, uint32_t target);

// Rescales every fluid of a file (cs_scene_scale_particle_count on each,
// `target` shared out in proportion to their block particles), then gives
// every fluid and the file the dt and substeps of the fluid that needs the
// most substeps, so the world keeps one substep clock.
void cs_scene_scale_world(cs_scene *scene, uint32_t target);

// Reads "path": {"keys": [[t, x, y(, z)], ...], "loop": bool} (object o,
// owner = the key path of the object holding it, for messages): 2 to
// max_keys keys of 1 + dim finite numbers within coord_limit, times from 0
// and increasing; with loop, the last position equals the first. Kinematic
// bodies and moving lights share it.
bool cs_scene_read_path(const cs_scene *scene, const cJSON *o, const char *owner, int dim, double coord_limit,
                        uint32_t max_keys, float (*keys)[4], uint32_t *count, bool *loop, cs_error *err);

// A message about `path.key` of this scene, in the parser's words:
// `file: fluids[0].path.key: what`. Returns false.
bool cs_scene_fail(const cs_scene *scene, cs_error *err, const char *path, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

// A message about key `key` of a fluid's surface: `file: fluids[i].surface.key:
// what` when the fluid's own "surface" block holds the key or the top level's
// does not, else `file: surface.key: what` (the top level gave it). Returns false.
bool cs_scene_surface_fail(const cs_scene *fluid, cs_error *err, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

// ---- JSON helpers with key-path errors, for solver blocks ----
// `path` is the dotted key path of `object` (e.g. "pbf"), used in messages.
// Each getter leaves *out unchanged when the key is absent (the default) and
// fails on a wrong type, a non-finite number or a value outside [min, max].
// cs_json_check_keys also refuses duplicate keys; `allowed` ends with NULL.
// cs_json_vec wants exactly n numbers, except that n == 3 in a 2D scene is a
// position-like vector: 2 numbers are accepted (z = 0) and a given z must be 0.
bool cs_json_check_keys(const cs_scene *scene, const cJSON *object, const char *path, const char *const *allowed,
                        cs_error *err);
bool cs_json_float(const cs_scene *scene, const cJSON *object, const char *path, const char *key, float min,
                   float max, float *out, cs_error *err);
bool cs_json_uint(const cs_scene *scene, const cJSON *object, const char *path, const char *key, uint32_t min,
                  uint32_t max, uint32_t *out, cs_error *err);
bool cs_json_bool(const cs_scene *scene, const cJSON *object, const char *path, const char *key, bool *out,
                  cs_error *err);
bool cs_json_vec(const cs_scene *scene, const cJSON *object, const char *path, const char *key, int n, float *out,
                 cs_error *err);
