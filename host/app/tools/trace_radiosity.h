// trace_radiosity.h — the radiosity solution through the path tracer's
// camera (`cistern trace --radiosity S`), to set beside trace.png.
#pragma once

#include "bvh.h"
#include "pathtrace.h"

typedef struct cs_trace_radiosity_info {
    uint32_t patches, links;
    double compile_seconds, solve_seconds;
} cs_trace_radiosity_info;

// Compiles the scene's radiosity at `patch_size` (metres), solves it to
// convergence in double, and fills rgb (3 floats a pixel, camera->width x
// camera->height, top row first) with B / pi of the patch each pixel's
// centre ray hits (0 where it hits nothing). False with err when the
// compilation is refused (too many patches, memory).
bool cs_trace_radiosity_image(const cs_tri *tris, uint32_t tri_count, const cs_bvh *bvh,
                              const struct cs_pt_push *camera, double patch_size, float *rgb,
                              cs_trace_radiosity_info *info, cs_error *err);
