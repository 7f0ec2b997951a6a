// radiosity_shared.h — patches and their links as C (pipelines/light/radiosity.c)
// and GLSL (shaders/radiosity/*.comp) read them. docs/light.md, "Radiosity".
#ifndef RADIOSITY_SHARED_H
#define RADIOSITY_SHARED_H

#include "cs_shared.h"

// One patch: a piece of a scene triangle of about the scene's patch area.
struct cs_patch {
    vec4 center_area;   // xyz centroid, w area (m^2)
    vec4 normal;        // xyz unit front normal; w 0
    vec4 albedo;        // rgb diffuse reflectance; w 0
    vec4 emission;      // rgb emitted radiosity; w 0
};

// The links of receiving node i are links[link_start[i] .. link_start[i +
// 1]): (j, F_ij as float bits) pairs, F_ij the form factor from i to j
// with visibility folded in. Nodes are patches (< patch count) and, with
// the cluster hierarchy, clusters (patch count + cluster index): a gather
// pass sums G_i = F_ij B_j for every receiving node, B_j of a cluster
// being what the up-sweep wrote; the push-down pass then gives every
// patch its own G plus its ancestors' (the irradiance that reached the
// clusters it belongs to). The same pair lists a cluster's children with
// their shares of its area.
struct cs_link {
    uint target;
    float factor;
};

// Push constants of the gather, push-down and feedback passes.
struct cs_gather_push {
    uint patch_count;
    uint node_count;    // patches and clusters: the gather's receivers
    uint first_cluster_link; // link_start[patch_count]: links from here on carry a gradient
    uint first_buffer_links; // links [0, this) in the first link buffer, the rest in the second
};

// A node without a parent (a root of the cluster tree, or any patch of a
// flat compile) in the parents list the push-down walks.
#define CS_RADIOSITY_NO_PARENT 0xffffffffu

// Push constants of the up-sweep (shaders/radiosity/upsweep.comp): the
// clusters [first_cluster, first_cluster + cluster_count) of one round.
struct cs_upsweep_push {
    uint first_cluster;
    uint cluster_count;
    uint patch_count;
    uint pad0;
};

// A one-sided quad area light: the points corner + a edge_u + b edge_v, a
// and b in [0, 1], emitting radiant exitance `exitance` (W/m^2 per
// channel, Lambertian) towards edge_u x edge_v. It is not geometry: it
// casts no shadow and receives no light.
struct cs_area_light {
    vec4 corner;        // xyz; w 0
    vec4 edge_u;        // xyz; w 0
    vec4 edge_v;        // xyz; w 0
    vec4 exitance;      // rgb; w 0
};

// Push constants of the direct-light pass (shaders/radiosity/direct.comp).
struct cs_direct_push {
    uint patch_count;
    uint light_count;       // punctual and spherical lights (cs_light)
    uint area_count;        // quad area lights (cs_area_light)
    uint area_samples;      // an area light is sampled on an area_samples^2 grid of cell centres
};

#define CS_RADIOSITY_GROUP 64u

#ifndef CS_GLSL
typedef struct cs_patch cs_patch;
typedef struct cs_link cs_link;
typedef struct cs_gather_push cs_gather_push;
typedef struct cs_upsweep_push cs_upsweep_push;
typedef struct cs_area_light cs_area_light;
typedef struct cs_direct_push cs_direct_push;
#endif

#endif
