// radiosity_cluster.h — the patch hierarchy that makes radiosity's links
// about O(N) instead of O(N^2) (issue 11; docs/light.md, "Cluster
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
// Links (Hanrahan and Smits style: between two nodes, patch or cluster,
// at the coarsest level where the rule holds for both ends). Starting from
// every pair of roots (a receiver, b a source; a == b: every pair of its
// children), with d the distance between their centroids, e_x the extent
// of end x (a cluster's bounding radius, a patch's 0: a patch stands for
// its centre, as in the flat compile), w the unit direction from a to b:
//   - two patches: F_ab as in a flat compile (the second-order point
//     formula with the near-field refinement, radiosity.h);
//   - nothing when the ends cannot exchange light: every point of b lies
//     behind the plane of every patch of a (a patch's plane; a cluster's
//     through its mean normal, spread and lowest point), or the other way
//     round, or every patch of one end faces away from every point of the
//     other (angle(mean normal, direction) - spread - asin((e_a + e_b) /
//     d) >= 90 deg);
//   - a source cluster that emits is split (emitted light leaves from
//     patches, like the direct light) unless every patch under it emits
//     (a lamp's own cluster, not a lamp averaged with the ceiling around
//     it), which is linked at half the source ratio: emitting patches
//     linked one by one made the links grow with the lamp's patches (94 k
//     Cornell patches: 20.7 M links, 158 MiB, over llvmpipe's 128 MiB
//     storage buffer);
//   - a link when a receiving cluster has e_a / (d - e_b) <
//     receiver_ratio (half that from an emitting patch, whose light is
//     the strongest and whose shadows are the sharpest; the receiver's
//     size against the distance to the source's
//     nearest point: the irradiance varies most across it when the source
//     is close), a source cluster e_b / d < ratio, each cluster's normal
//     spread <= max_spread, and every patch of each end faces the other
//     end's centroid (angle(mean normal, direction) + spread < 90 deg),
//     with
//         F_ab = (n_a . w) A_b (n_b . -w) / (pi d^2 + A_b),
//     n_x a patch's unit normal or a cluster's mean normal (the area-
//     weighted mean of its unit normals, so n_a . w is the area-weighted
//     mean cosine over a's patches): Wallace's formula for b seen as a disc
//     of its area facing along its mean normal, the mean irradiance over a;
//     a receiving cluster's link also keeps grad F_ab over the receiving
//     point (a's normal held), so the push-down is first-order right;
//   - otherwise the end that must be split (a cluster whose spread is too
//     wide or whose normals cancel), else the end farther from its own
//     bound (radius / ratio; the receiver on a tie), and the pairs of its
//     children with the other end.
// Push-down: patch p under receiving cluster a gets open_p (G_a + (x_p -
// x_a) . grad G_a), x the centroids and open_p its openness: the fraction
// of 9 rays from p (its normal and 8 at 60 degrees) that leave the scene
// or meet a triangle's front, 0 for a patch enclosed by an object (the
// floor under a block), which must not get its cluster's light.
// Visibility: a patch-patch link one ray between the centres (as flat); a
// patch and a cluster CS_CLUSTER_REPS rays, the patch to each of the
// cluster's representative patches; two clusters every representative of
// one to every one of the other (16 rays); each lifted as in
// cs_radiosity_link_ray. Representatives are open patches where the
// cluster has any. A receiving cluster that sees its source only in part
// is replaced by the rule applied to its children with that source
// (Hanrahan's refinement at a shadow's edge), cast again; other links keep
// their factor times the fraction of rays that arrive, dropped at 0.
//
// Per frame, each bounce first pushes the patches' radiosity up the tree
// (each cluster: the area-weighted mean of its children, round by round,
// children before parents), then gathers G (and a cluster's gradient)
// over every node's links, then pushes G down as above.
//
// Divided clusters: the k-means groups by position and normal, not by
// what sees what, so a cluster may hold patches on both sides of a wall
// (two rooms' coplanar ceilings 0.1 m apart): a link that sees it through
// representatives on one side would carry the other side's up-swept light
// through the wall. Each open patch casts a ray (as a link's) to every
// representative of each of its ancestors that it could see, neither
// behind the other's plane (coplanar included; enclosed patches, openness
// 0, take no part: they neither get nor give a cluster's light); a
// blocked ray marks the ancestor, and every cluster above it, divided. A
// divided cluster is never an end of a link: it is split like one whose
// normals spread too wide.
//
// The k-means assignment finds each node's nearest centre through a
// uniform grid over the centres' positions, searching rings of cells
// until the position term alone of the cells not yet searched is larger
// than the best distance found: the same owner as comparing against every
// centre (ties to the lower index), in about O(M) instead of O(M K).
#pragma once

#include "context.h"
#include "radiosity.h"

#include <stdio.h>

#define CS_CLUSTER_ROOTS 4u

typedef struct cs_hierarchy_options {
    double ratio;             // link a source cluster when radius / distance < ratio
    double receiver_ratio;    // ... and a receiving cluster when radius / distance < receiver_ratio
    double max_spread;        // radians: ... and its normal spread is at most this
    uint32_t branching;       // k-means: K = ceil(M / branching) clusters a round
    uint32_t iterations;      // Lloyd iterations a round
    bool patch_receivers;     // every receiver a patch (the rule before receiver clusters)
    bool brute_force_assign;  // k-means: every node against every centre (the grid's reference)
    // Links the compile may keep (0: as many as the device's storage buffers hold,
    // without a device 2^30): it stops with the reason once past it, instead of
    // casting the rest of a compile that could never be uploaded.
    uint32_t max_links;
    // NULL: silent; else a line now and then (at most every few seconds) on
    // where a long compile is: a 50 k-patch one takes an hour on llvmpipe.
    FILE *progress;
} cs_hierarchy_options;

// ratio 0.25, receiver ratio 0.15, max spread 30 degrees, branching 4, 6
// iterations, receiver clusters, the grid assignment (docs/light.md has
// the error they give).
cs_hierarchy_options cs_hierarchy_options_default(void);

// Patches as cs_radiosity_compile, the cluster tree, the links by the rule
// above, then their visibility: on the GPU when ctx is given (bvh
// required), else on the CPU against bvh (NULL: no occlusion).
bool cs_radiosity_compile_hierarchy(cs_context *ctx, const cs_tri *tris, uint32_t tri_count, double patch_size,
                                    const cs_bvh *bvh, const cs_hierarchy_options *options,
                                    cs_radiosity_compiled *out, cs_error *err);
