// surface.h — GPU marching cubes: an indexed, closed triangle mesh of the
// iso surface of a scalar field, and a deterministic particle splat that
// builds such a field. Shaders in shaders/surface/, layouts in
// shaders/surface/surface_shared.h, the algorithm and measured figures in
// docs/surface.md.
//
// Field convention: nx*ny*nz floats, node (i, j, k) at origin + spacing *
// (i, j, k), stored at i + nx * (j + ny * k). INSIDE is field > iso. A NaN
// node is outside; nodes beyond the grid are outside too (a virtual padding
// layer), so the mesh is closed even where the inside touches the border.
// A crossed edge with a NaN, infinite or padding end gets its vertex at the
// edge's midpoint.
//
// The mesh: one vertex per crossed edge of the padded node lattice, in
// global edge id order (3 * padded node index + axis); normals are minus the
// field gradient (central differences at the nodes, interpolated along the
// edge), unit length, pointing out of the inside. Triangles come in cell
// order, then in the case table's order, counter-clockwise seen from
// outside. The case table separates inside corners on every ambiguous face
// (the same rule on both sides of a face), so every edge of the mesh is
// shared by exactly two triangles. Same field, same bits.
//
// Passes (each a labelled pass, see docs/surface.md):
//   count submit: "surface: classify" (one inside bit per field node, then
//     per segment of 32 padded nodes of a row: vertex, triangle and active
//     node counts), "surface: scan" (three exclusive scans over the
//     segments, prim.h), "surface: compact" (per segment: info, vbase and
//     tbase of its active nodes and the list of active nodes);
//   the host reads the three totals and grows the output buffers;
//   emit submit: "surface: emit" (per active node: its vertices and its
//     cell's triangles).
#pragma once

#include "grid.h"
#include "prim.h"

#include "../../shaders/surface/surface_shared.h"

typedef struct cs_surface_desc {
    const char *name;          // buffer names and messages ("fluid surface")
    uint32_t dims[3];          // field nodes per axis (0 allowed: an empty mesh)
} cs_surface_desc;

typedef struct cs_surface_params {
    float origin[3];           // world position of node (0, 0, 0)
    float spacing;             // node spacing (> 0)
    float iso;                 // inside: field > iso
    // false (default): nodes beyond the grid are outside, the mesh is
    // closed. true: only cells inside the grid are meshed, so a surface
    // that reaches the border stays open there and a field entirely inside
    // gives no triangles.
    bool open_border;
} cs_surface_params;

typedef struct cs_surface {
    char name[48];
    uint32_t dims[3];
    uint32_t padded_count;     // (nx+2)(ny+2)(nz+2)
    cs_buffer table;           // 256 * CS_SURFACE_TABLE_STRIDE u32
    cs_buffer bits;            // u32 per 32 field nodes: inside bits (classify)
    cs_buffer info, vcount, tcount, active;   // u32 per padded node; counts per segment (classify)
    cs_buffer vbase, tbase, abase;            // u32 per padded node (scans)
    cs_buffer list;            // u32 per active node
    cs_buffer totals[3];       // host visible: vertex, triangle, active totals
    cs_scan scan;
    cs_program_id bits_program, classify, compact, emit;
    // Outputs, grown to the totals (never shrunk); capacities in elements.
    cs_buffer positions;       // vec4 per vertex (w = 1); VERTEX usage too
    cs_buffer normals;         // vec4 per vertex (w = 0); VERTEX usage too
    cs_buffer indices;         // 3 u32 per triangle; INDEX usage too
    uint32_t vertex_capacity, triangle_capacity;
    // The last extraction's totals.
    uint32_t vertex_count, triangle_count, active_count;
    cs_surface_params params;  // of the last count pass
} cs_surface;

// The case table (generated, then checked, on first use): row c (corner k
// inside when bit k of c is set; corner k at offset (k&1, k>>1&1, k>>2&1))
// holds the triangle count, then 3 local edges per triangle. Local edge e
// lies along axis e/4 from the corner whose other two axes (a+1, a+2)%3 are
// bits 0 and 1 of e%4.
const uint32_t *cs_surface_table(void);

// Checks the node-level buffers against the device; false with a message
// naming desc->name when the grid cannot be held.
bool cs_surface_create(cs_context *ctx, const cs_surface_desc *desc, cs_surface *surf, cs_error *err);

// Device memory per padded node a surface and its field take: the eight u32
// node arrays plus one float of field (the inside bits, 1/32 u32 a node,
// and the scan's block sums are small beside that, and the outputs are
// sized later, to the mesh).
#define CS_SURFACE_BYTES_PER_NODE 36u
// The most padded nodes, (nx+2)(ny+2)(nz+2), a surface can have on this
// device now: each node array within maxStorageBufferRange, all of them
// (CS_SURFACE_BYTES_PER_NODE each) within what the largest heap has left,
// and the mesh counts within 32 bits. Callers size a grid by it and name
// the limit when refusing one.
uint64_t cs_surface_max_nodes(const cs_context *ctx);
void cs_surface_destroy(cs_context *ctx, cs_surface *surf);

// Split form, for callers that batch other work around the readback:
// (1) records the count passes into `rec` (outside a pass; opens its own)
//     over field (nx*ny*nz floats); params as cs_surface_extract checks
//     them (spacing > 0) — the split form does not check;
void cs_surface_record_count(cs_recorder *rec, cs_surface *surf, cs_buffer *field, const cs_surface_params *params);
// (2) after that submit completed: reads the totals, grows the outputs
//     (false with a message when the device cannot hold them: the previous
//     outputs stay);
bool cs_surface_prepare_emit(cs_context *ctx, cs_surface *surf, cs_error *err);
// (3) records the emit pass (outside a pass); ends with a compute barrier.
//     The outputs are then ready for compute reads; call
//     cs_barrier_compute_to_graphics() before drawing them.
void cs_surface_record_emit(cs_recorder *rec, cs_surface *surf, cs_buffer *field);

// All three with two submits on `rec` (which must not be recording).
bool cs_surface_extract(cs_recorder *rec, cs_surface *surf, cs_buffer *field, const cs_surface_params *params,
                        cs_error *err);

// Reads the last mesh back: positions and normals as 3 floats per vertex,
// indices as 3 u32 per triangle (arrays of vertex_count / triangle_count).
void cs_surface_download(cs_context *ctx, const cs_surface *surf, float *positions, float *normals,
                         uint32_t *indices);

// Binary little-endian PLY: vertex x y z nx ny nz (float), face
// vertex_indices (uchar count, uint indices).
bool cs_surface_write_ply(const char *path, const float *positions, const float *normals, uint32_t vertex_count,
                          const uint32_t *indices, uint32_t triangle_count, cs_error *err);
// Wavefront OBJ (text): v x y z, vn nx ny nz, f a//a b//b c//c (1-based),
// with a comment line first. Several times the PLY's size; for tools that
// read nothing else.
bool cs_surface_write_obj(const char *path, const char *comment, const float *positions, const float *normals,
                          uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count, cs_error *err);

// ---- particle splat ---------------------------------------------------------
// Builds a field for the extraction from particles already sorted by the
// neighbour grid (grid.h): a gather per node, no atomics, same bits every
// run. Two kernels, chosen by cs_splat_params.kernel:
//
// CS_SPLAT_ISOTROPIC (the default, 0): scale * (1 - r^2/radius^2)^3 over
// the particles within `radius` of the node. A particle sitting on a node
// adds `scale`; deep inside a fluid of particle spacing s the sum is about
// scale * (64 pi / 315) (radius / s)^3 (the kernel's integral), so
// iso = half of that puts the surface near the fluid's edge.
//
// CS_SPLAT_ANISOTROPIC: Yu & Turk 2013. Per particle, from its neighbours
// within neighbour_radius (weights 1 - (r/r_n)^3, itself included): a
// smoothed centre c = (1 - lambda) x + lambda * (weighted mean), the
// weighted covariance C = V diag(s) V^T (cyclic Jacobi, fixed sweep count),
// eigenvalues raised to at least s_max / max_ratio, scaled to determinant 1,
// and G = (1/radius) V diag(1/s) V^T: an ellipsoid of the isotropic ball's
// volume (det G = 1/radius^3) stretched along the neighbourhood's spread.
// With fewer than min_neighbours other neighbours G = I / radius. The field
// is scale * sum (1 - |G (x - c)|^2)^3, so the same iso works for both
// kernels (a uniform interior gives the same value). Support bound: no
// ellipsoid reaches farther than radius * max_ratio^(2/3) from its centre
// and no centre moves more than lambda * neighbour_radius from the particle
// (cs_splat_reach: their sum, 2.52 R + 1.8 R with the defaults). The field
// pass searches less: per grid cell, how far its ellipsoids reach beyond
// the cell's box is measured ("surface: splat kernels"), tiles of
// 4 x 4 x 16 nodes gather from the cells within the largest such reach and
// skip the cells whose own reach they are out of. Costs two passes
// ("surface: splat kernels" per particle and per grid cell, "surface:
// splat" per tile) and 80 bytes per grid particle slot (+ 4 per cell);
// docs/surface.md has the figures and says which to use.
typedef enum cs_splat_kernel {
    CS_SPLAT_ISOTROPIC = 0,
    CS_SPLAT_ANISOTROPIC = 1,
} cs_splat_kernel;

// Defaults of the anisotropic parameters (a 0 in cs_splat_params takes them).
#define CS_SPLAT_DEFAULT_SMOOTHING 0.9f      // lambda (Yu & Turk: 0.9)
#define CS_SPLAT_DEFAULT_MAX_RATIO 4.0f      // k_r (Yu & Turk: 4)
#define CS_SPLAT_DEFAULT_MIN_NEIGHBOURS 25u  // N_eps (Yu & Turk: 25)

typedef struct cs_splat_params {
    float origin[3];           // field node (0, 0, 0)
    float spacing;             // node spacing (> 0)
    uint32_t dims[3];          // field nodes per axis
    float radius;              // kernel support (2-4 particle spacings)
    float scale;               // field = scale * sum of weights
    cs_splat_kernel kernel;    // isotropic (0, default) or anisotropic
    // Anisotropic only; 0 takes the default.
    float neighbour_radius;    // r_n: covariance and smoothing neighbourhood (default: 2 radius, as Yu & Turk)
    float smoothing;           // lambda in [0, 1] (default 0.9; negative: 0, no smoothing)
    float max_ratio;           // k_r >= 1 (default 4; 1 keeps every kernel a ball)
    uint32_t min_neighbours;   // N_eps (default 25; below it, the isotropic kernel)
} cs_splat_params;

typedef struct cs_splat {
    cs_program_id splat;       // isotropic field
    cs_program_id cells_to_field; // cs_splat_record_cells
    cs_program_id kernels, cells, field;   // anisotropic: per particle, per grid cell, per tile
    // Anisotropic per-particle arrays (layouts in surface_shared.h) and the
    // per-cell reach (float), sized to the grid on first use (or by
    // cs_splat_reserve).
    cs_buffer centres, covariance, matrices;
    cs_buffer cell_reach;
    cs_buffer max_reach;       // float [0]: the largest cell reach (the field pass's search bound)
    cs_reduce reduce;          // for it
    uint32_t capacity, cell_capacity;
} cs_splat;

bool cs_splat_create(cs_context *ctx, cs_splat *splat, cs_error *err);
void cs_splat_destroy(cs_context *ctx, cs_splat *splat);
// Allocates the anisotropic kernel's arrays for a grid (its capacity in
// particles, its cells; grows, never shrinks). cs_splat_record does this
// itself (and aborts when the device cannot hold them); call it at set-up
// for a refusal with a message instead, and before recording with a larger
// grid than before (growing replaces buffers that work recorded earlier in
// the same command buffer would still use).
bool cs_splat_reserve(cs_context *ctx, cs_splat *splat, const cs_grid *grid, cs_error *err);
// How far (world units) an anisotropic kernel can reach from the particle
// it belongs to, for these parameters with the defaults applied (see
// above): R k_r^(2/3) + lambda r_n, padded by 1e-3 for rounding.
float cs_splat_reach(const cs_splat_params *params);
// Records the splat (outside a pass; opens its own: "surface: splat", and
// for the anisotropic kernel "surface: splat kernels" before it) into
// `field` (dims[0]*dims[1]*dims[2] floats) from `positions` (vec4, in the
// grid's sorted order: right after cs_grid_record_build and the gather)
// and the grid's ranges (and keys: the kernels pass runs over the grid's
// capacity and skips slots the last build did not fill, so no particle
// count is needed). Ends with a compute barrier.
void cs_splat_record(cs_recorder *rec, cs_splat *splat, const cs_grid *grid, cs_buffer *positions,
                     cs_buffer *field, const cs_splat_params *params);

// The field of a grid fluid, one node per cell (its centre): records
// "surface: field", field[i] = cells[i * stride_floats + component] for the
// `count` cells (x fastest, as the field's nodes). Outside a pass; ends
// with a compute barrier.
void cs_splat_record_cells(cs_recorder *rec, cs_splat *splat, cs_buffer *cells, uint32_t stride_floats,
                           uint32_t component, uint32_t count, cs_buffer *field);

