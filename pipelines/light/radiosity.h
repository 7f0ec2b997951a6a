// radiosity.h — diffuse radiosity on a scene's static geometry: the
// compilation on the CPU (patches, form factors with visibility) and a
// double-precision solver that is the reference for the GPU passes.
// docs/light.md, "Radiosity", has the equations and the rules.
//
// Form factor from patch i to patch j: the point formula between the
// centroids with its second-order term (both triangles' spread),
//     F_ij = A_j (K(d) + tr(H(d) (S_i + S_j)) / 2),
//     K = cos(theta_i) cos(theta_j) / (pi r^2)
// (radiosity.c, corrected_factor). Pairs closer than CS_RADIOSITY_NEAR
// times the larger patch's size (sqrt of its area) are split into 4
// sub-triangles each, up to CS_RADIOSITY_NEAR_DEPTH times, and the factor
// is summed over the pieces of j and averaged over those of i; pieces
// still that near at the last depth take Wallace's (1989) disc,
// A_j cos cos / (pi r^2 + A_j), finite where adjacent patches meet.
// Visibility: one ray between the two centres, on the BVH.
#pragma once

#include "common.h"

#include "bvh.h"

#include "../../shaders/radiosity/radiosity_shared.h"

#define CS_RADIOSITY_NEAR 3.0
#define CS_RADIOSITY_NEAR_DEPTH 6
// Most patches one compile makes.
#define CS_RADIOSITY_MAX_PATCHES (1u << 22)
// Rounds of clustering at most (each cuts the nodes about 4 times).
#define CS_RADIOSITY_MAX_LEVELS 32

// One node of the cluster hierarchy (radiosity_cluster.h builds the tree),
// here beside the compile that holds them: the solver below reads their
// centres too.
#define CS_CLUSTER_REPS 4u

typedef struct cs_cluster {
    double center[3];   // area-weighted centroid
    double area;        // m^2, the patches' sum
    double normal[3];   // area-weighted mean of the patches' unit normals
    double spread;      // radians: every patch normal within this of normal's direction
    double radius;      // every patch (its corners) inside this sphere about center
    double box_min[3], box_max[3]; // the patches' corners' bounding box
    double slab_min;    // the lowest (unit mean normal) . corner over the patches
    double albedo[3];   // area-weighted
    double emission[3]; // area-weighted, relative to the scene's brightest patch
    uint32_t reps[CS_CLUSTER_REPS]; // patches the visibility rays aim at
    // Flags, 0 or 1 (32-bit: no padding, compiles are compared byte for byte):
    uint32_t all_emit;  // every patch under it emits (a lamp's own cluster)
    uint32_t divided;   // holds two patches that face each other but cannot see each other (never linked)
} cs_cluster;

typedef struct cs_radiosity_compiled {
    cs_patch *patches;
    float (*corners)[3][3];  // each patch's triangle (for refinement and drawing)
    uint32_t *patch_tri;     // the scene triangle each patch came from
    uint32_t patch_count;
    // Links by receiving node: patch_count + cluster_count + 1 starts (a
    // flat compile: patch_count + 1). Targets are node ids too: a patch
    // (< patch_count) or a cluster (below).
    uint32_t *link_start;
    cs_link *links;
    // Links received by clusters (links[link_start[patch_count] ..
    // link_count)) also carry the gradient of their factor over the
    // receiver's position (xyz, w 0), in the same order: the push-down
    // gives each patch the irradiance at its own centre to first order.
    float (*link_gradients)[4];
    uint32_t link_count;
    double compile_seconds;
    // The cluster hierarchy (radiosity_cluster.h); none in a flat compile.
    // Cluster k is node patch_count + k; its children (nodes, each with its
    // share of the cluster's area) are children[child_start[k] ..
    // child_start[k + 1]); clusters of round r of the bottom-up k-means
    // are [level_start[r], level_start[r + 1]), each round's children in
    // earlier rounds, so pushing radiosity up round by round is in order.
    struct cs_cluster *clusters;
    uint32_t cluster_count;
    uint32_t *child_start;   // cluster_count + 1
    cs_link *children;       // (child node, child area / cluster area)
    uint32_t level_start[CS_RADIOSITY_MAX_LEVELS + 1];
    uint32_t level_count;
    // Every node's parent cluster (a node id; CS_RADIOSITY_NO_PARENT for
    // the roots): the push-down walks it. NULL in a flat compile.
    uint32_t *parents;
    // Per patch, the share of its ancestors' gathered irradiance it keeps
    // (radiosity_cluster.h, "openness": 0 inside an object). NULL: all 1.
    float *openness;
} cs_radiosity_compiled;

// Patches and clusters: the nodes that receive and send through links.
static inline uint32_t cs_radiosity_node_count(const cs_radiosity_compiled *c)
{
    return c->patch_count + c->cluster_count;
}

// Splits every triangle into n^2 equal triangles, n = ceil(longest edge /
// patch_size), then links every pair of patches that face each other and
// see each other (bvh: the same triangles; NULL: no occlusion test).
bool cs_radiosity_compile(const cs_tri *tris, uint32_t tri_count, double patch_size, const cs_bvh *bvh,
                          cs_radiosity_compiled *out, cs_error *err);
// The same with a line on `progress` (NULL: silent) every few seconds of a
// long compile. Both estimate the links first (facing pairs of a sample of
// rows) and refuse at once what the host cannot hold.
bool cs_radiosity_compile_progress(const cs_tri *tris, uint32_t tri_count, double patch_size, const cs_bvh *bvh,
                                   FILE *progress, cs_radiosity_compiled *out, cs_error *err);
void cs_radiosity_free(cs_radiosity_compiled *compiled);

// How many patches cs_radiosity_make_patches would make at patch_size
// (nothing allocated: a benchmark searches the patch size of a count).
uint64_t cs_radiosity_patch_count(const cs_tri *tris, uint32_t tri_count, double patch_size);

// The patches of cs_radiosity_compile alone (no links): patches, corners,
// patch_tri, patch_count. False with a message when too many.
bool cs_radiosity_make_patches(const cs_tri *tris, uint32_t tri_count, double patch_size,
                               cs_radiosity_compiled *out, cs_error *err);

// The visibility ray of link i -> j: origin + t dir for t in (0, 1), from
// i's centre to j's, each lifted 1e-4 sqrt(larger area) along its normal
// so that the ray does not meet its own triangle.
void cs_radiosity_link_ray(const cs_radiosity_compiled *compiled, uint32_t i, uint32_t j, double origin[3],
                           double dir[3]);

// F_ij of two patch triangles (corners counter-clockwise about the front),
// without visibility, with the near-field refinement above.
double cs_form_factor(const float from[3][3], const float to[3][3]);

// The bounces in double: B0 = E + rho H, B(k+1) = E + rho (H + sum_j F_ij
// B(k)_j) for k < bounces, with H the direct irradiance (3 per patch, may
// be NULL: none). radiosity gets 3 per patch. With clusters, B(k) of every
// cluster is first pushed up (the area-weighted mean of its children,
// round by round) and links to clusters read it; every node (patch or
// cluster) gathers G over its links (a cluster also its gradient), and a
// patch's irradiance is its own G plus its openness times its ancestors'
// G + (x_patch - x_cluster) . grad G (the push-down), in that order.
void cs_radiosity_solve(const cs_radiosity_compiled *compiled, const double *direct, uint32_t bounces,
                        double *radiosity);
// The same, bounced until the reflected light stops growing: after each
// bounce k, P(k) = sum over patches and channels of A (B(k) - E); it stops
// when |P(k) - P(k - 1)| <= tolerance |P(k)|, or after max_bounces.
// tolerance 0: exactly max_bounces. Returns the bounces done. The light
// left out is about tolerance lambda / (1 - lambda) of P, lambda the
// scene's bounce ratio (P(k + 1) - P(k)) / (P(k) - P(k - 1)).
uint32_t cs_radiosity_solve_to(const cs_radiosity_compiled *compiled, const double *direct, double tolerance,
                               uint32_t max_bounces, double *radiosity);
