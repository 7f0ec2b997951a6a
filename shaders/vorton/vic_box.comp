#version 450
// vic_box.comp — the grid's box follows the vortons (rule: vic_shared.h).
// Two variants:
//   PARTIALS  each workgroup folds the min / max of VIC_BOX_CHUNK vortons
//             (finite positions only) into partials[2 g], partials[2 g + 1]
//   CHOOSE    one workgroup folds the partials, then one invocation decides
//             the box of this solve into box (grid, lo, hi, state)
// min and max are exact, and every fold has a fixed shape, so the same
// vortons give the same box, bit for bit, every run.
#if !defined(PARTIALS) && !defined(CHOOSE)
#define CHOOSE // built alone (test_shaders_compile)
#endif
#include "vorton_shared.h"
#include "vic_shared.h"
#define VIC_NO_BOX // this shader writes the box: declared below, not read-only
#include "vic_common.glsl"

layout(local_size_x = VIC_WG) in;
layout(push_constant) uniform PushBlock { vic_push pc; };

#if defined(PARTIALS)
layout(std430, binding = 0) readonly buffer Pos { vec4 pos[]; };
#endif
layout(std430, binding = 1) buffer Partials { vec4 partials[]; };
#if defined(CHOOSE)
layout(std430, binding = VIC_BOX_BINDING) buffer Box { vic_box box; };
#endif

const float BIG = 3.0e38;

shared vec3 shared_lo[VIC_WG], shared_hi[VIC_WG];

// Tree fold of the workgroup's lo / hi into slot 0 (fixed shape).
void fold_shared(uint lid)
{
    for (uint width = VIC_WG / 2u; width > 0u; width /= 2u) {
        barrier();
        if (lid < width) {
            shared_lo[lid] = min(shared_lo[lid], shared_lo[lid + width]);
            shared_hi[lid] = max(shared_hi[lid], shared_hi[lid + width]);
        }
    }
    barrier();
}

#if defined(CHOOSE)
// Edge of size step k: base * 2^(k / VIC_BOX_STEPS), from exact constants.
float step_size(uint k)
{
    const float quarter[4] = float[4](1.0, 1.18920712, 1.41421356, 1.68179283);
    return box.base.w * float(1u << (k / 4u)) * quarter[k % 4u];
}

// Smallest step whose box holds the extent with the margins, the half cell
// the lattice rounding may cost each side, and one cell of round-off.
uint fitting_step(float extent, float cells)
{
    float spare = float(2 * VIC_BOX_MARGIN + 2) / cells;
    for (uint k = 0u; k < uint(VIC_BOX_MAX_STEP); k++)
        if (step_size(k) * (1.0 - spare) >= extent)
            return k;
    return uint(VIC_BOX_MAX_STEP);
}

bool holds(vec3 lo, vec3 hi)
{
    float h = box.grid.w, margin = float(VIC_BOX_MARGIN) * h, edge = h * float(pc.size.x - 1u);
    return all(greaterThanEqual(lo, box.grid.xyz + margin)) && all(lessThanEqual(hi, box.grid.xyz + edge - margin));
}

void choose(vec3 lo, vec3 hi)
{
    bool any_finite = all(lessThanEqual(lo, hi));
    box.lo = vec4(lo, any_finite ? 1.0 : 0.0);
    box.hi = vec4(hi, 0.0);
    if (!any_finite)
        return; // nothing to follow: keep the box
    float cells = float(pc.size.x - 1u);
    vec3 ext3 = hi - lo;
    uint k_fit = fitting_step(max(ext3.x, max(ext3.y, ext3.z)), cells);
    uint k = box.state.x;
    bool fits = holds(lo, hi);
    if (fits && k_fit + 2u > k)
        return; // still inside, and not two steps too big
    k = fits ? k_fit : max(k_fit, k);
    float size = step_size(k), h = size / cells;
    vec3 centre = 0.5 * (lo + hi);
    vec3 origin = box.base.xyz + h * round((centre - 0.5 * size - box.base.xyz) / h);
    box.grid = vec4(origin, h);
    box.state = uvec4(k, box.state.y + 1u, 0u, 0u);
}
#endif

void main()
{
    uint lid = gl_LocalInvocationID.x;
    vec3 lo = vec3(BIG), hi = vec3(-BIG);
#if defined(PARTIALS)
    uint count = pc.size.w, first = gl_WorkGroupID.x * uint(VIC_BOX_CHUNK);
    for (uint k = lid; k < uint(VIC_BOX_CHUNK); k += VIC_WG) {
        uint i = first + k;
        if (i >= count)
            break;
        vec3 x = pos[i].xyz;
        if (any(isnan(x)) || any(isinf(x)))
            continue; // a blown-up vorton must not drag the box away
        lo = min(lo, x);
        hi = max(hi, x);
    }
#else
    uint groups = pc.size.z;
    for (uint g = lid; g < groups; g += VIC_WG) {
        lo = min(lo, partials[2u * g].xyz);
        hi = max(hi, partials[2u * g + 1u].xyz);
    }
#endif
    shared_lo[lid] = lo;
    shared_hi[lid] = hi;
    fold_shared(lid);
    if (lid != 0u)
        return;
#if defined(PARTIALS)
    partials[2u * gl_WorkGroupID.x] = vec4(shared_lo[0], 0.0);
    partials[2u * gl_WorkGroupID.x + 1u] = vec4(shared_hi[0], 0.0);
#else
    choose(shared_lo[0], shared_hi[0]);
#endif
}
