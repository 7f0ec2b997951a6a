// radiosity_cluster.h — the patch hierarchy that makes radiosity's links
// O(N log N) instead of O(N^2) (issue 11; docs/light.md, "Cluster
// hierarchy"). Compiled once on the CPU, used every frame on the GPU.
//
// Clusters: bottom-up k-means. Each round takes the current nodes (first
// the patches) and makes K = ceil(M / branching) clusters of them by
// Lloyd's iterations on the area-weighted position, the unit normal, the
// albedo and the emission, distance |dx|^2 / L^2 + |dn|^2 + |d albedo|^2 +
// 16 |d emission|^2 with L^2 = the nodes' area / K (a cluster's expected
// size) and the emission relative to the scene's brightest (so lamps and
// the walls around them are not averaged into one radiosity): K seeds at fixed, evenly
// spaced places of the node list, a fixed number of iterations, ties to
// the lower cluster index, so the tree is the same every compile. A group
// of two or more nodes becomes a cluster; a node alone goes on to the next
// round as it is. Rounds go on until at most CS_CLUSTER_ROOTS nodes remain
// (the roots). A cluster keeps its area, area-weighted centroid, albedo and
// mean normal (the area-weighted mean of its patches' unit normals, length
// <= 1), a normal spread (every patch's normal lies within it of the mean's
// direction), a bounding sphere about the centroid holding every patch,
// and CS_CLUSTER_REPS representative patches.
//
// Links (per receiving patch i, walking down from the roots):
//   - a patch j: F_ij as in a flat compile (Wallace's disc formula with the
//     near-field refinement, radiosity.h);
//   - a cluster c wholly behind i's plane (its box), or whose every patch
//     faces away from i (i behind every patch's plane: bounded through the
//     mean normal, the spread and the patches' lowest point along it):
//     nothing;
//   - a cluster that emits (any of its patches has emission): its
//     children, always, so emitted light lands at patch resolution like
//     the direct light (a lamp linked as one cluster through
//     CS_CLUSTER_REPS rays left 30% errors next to the blocks' shadows);
//     the cost is a link per emitting patch a receiver sees;
//   - a cluster c is linked when radius_c / d < ratio, spread_c <=
//     max_spread, its sphere lies wholly in front of i's plane and every
//     patch of it faces i (angle(mean normal, direction to i) + spread +
//     asin(radius / d) < 90 deg), with d the distance from i's centre to
//     c's centroid and
//         F_ic = cos(theta_i) A_c (nbar_c . w) / (pi d^2 + A_c),
//     w the unit direction from c to i, nbar_c the mean normal: Wallace's
//     formula for c seen as a disc of c's area facing along its mean normal
//     (exact for a flat disc on i's normal axis; the sum of the patches'
//     own factors when c is small and far);
//   - otherwise c's children, in order.
// Visibility: a patch link one ray between the centres (as flat); a
// cluster link CS_CLUSTER_REPS rays from i's centre to the centres of c's
// representative patches (each lifted as in cs_radiosity_link_ray): the
// factor is scaled by the fraction that arrives, and dropped at 0.
//
// Per frame, each bounce first pushes the patches' radiosity up the tree
// (each cluster: the area-weighted mean of its children, round by round,
// children before parents), then gathers over the mixed links.
#pragma once

#include "context.h"
#include "radiosity.h"

#define CS_CLUSTER_REPS 4u
#define CS_CLUSTER_ROOTS 4u

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
} cs_cluster;

typedef struct cs_hierarchy_options {
    double ratio;             // link a cluster when radius / distance < ratio
    double max_spread;        // radians: ... and its normal spread is at most this
    uint32_t branching;       // k-means: K = ceil(M / branching) clusters a round
    uint32_t iterations;      // Lloyd iterations a round
} cs_hierarchy_options;

// ratio 0.25, max spread 30 degrees, branching 4, 6 iterations
// (docs/light.md has the error they give).
cs_hierarchy_options cs_hierarchy_options_default(void);

// Patches as cs_radiosity_compile, the cluster tree, the links by the rule
// above, then their visibility: on the GPU when ctx is given (bvh
// required), else on the CPU against bvh (NULL: no occlusion).
bool cs_radiosity_compile_hierarchy(cs_context *ctx, const cs_tri *tris, uint32_t tri_count, double patch_size,
                                    const cs_bvh *bvh, const cs_hierarchy_options *options,
                                    cs_radiosity_compiled *out, cs_error *err);
