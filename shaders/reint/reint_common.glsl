// reint_common.glsl — what the reintegration-tracking shaders share: the 2D/3D
// switch (DIM), how a cell's centre of mass and velocity are stored, cell
// indexing, the SPH kernels and the equation of state.
//
// Lengths are in cells. A cell's centre of mass is stored as its offset
// inside the cell ([0,1] per axis): offsets keep full float precision on any
// grid size, and every neighbour position is an exact small integer plus an
// offset.
#ifndef REINT_COMMON_GLSL
#define REINT_COMMON_GLSL

#include "reint_shared.h"

#ifndef DIM
#define DIM 2
#endif

#if DIM == 2
#define VEC vec2
#define IVEC ivec2
#define VSTORE vec2            // std430: 8 bytes per cell
#define TO_STORE(v) (v)
#define FROM_STORE(s) (s)
#define TRIM3(v) (v).xy
#define REINT_LOCAL_SIZE layout(local_size_x = REINT_WG_2D_X, local_size_y = REINT_WG_2D_Y, local_size_z = 1) in
#elif DIM == 3
#define VEC vec3
#define IVEC ivec3
#define VSTORE vec4            // vec3 arrays are 16 bytes per element in std430 anyway
#define TO_STORE(v) vec4((v), 0.0)
#define FROM_STORE(s) (s).xyz
#define TRIM3(v) (v)
#define REINT_LOCAL_SIZE layout(local_size_x = REINT_WG_3D_X, local_size_y = REINT_WG_3D_Y, local_size_z = REINT_WG_3D_Z) in
#else
#error DIM must be 2 or 3
#endif

layout(push_constant) uniform PushBlock { reint_push pc; };

// This invocation's cell; false past the grid's edge (groups round up).
bool reint_cell(out IVEC c)
{
    c = TRIM3(ivec3(gl_GlobalInvocationID));
    return all(lessThan(uvec3(gl_GlobalInvocationID), pc.dims.xyz));
}

bool reint_in_grid(IVEC c)
{
    return all(greaterThanEqual(c, IVEC(0))) && all(lessThan(c, TRIM3(ivec3(pc.dims.xyz))));
}

uint reint_index(IVEC c)
{
#if DIM == 2
    return uint(c.x) + pc.dims.x * uint(c.y);
#else
    return uint(c.x) + pc.dims.x * (uint(c.y) + pc.dims.y * uint(c.z));
#endif
}

// Walls are mirrors. A neighbour cell past a wall is the mirror image of a
// cell inside: `src` is that cell, `flip` is 1 on the axes where the image is
// mirrored (an odd number of reflections), 0 elsewhere. Its centre of mass is
// mirrored inside the cell along those axes, and its velocity component
// reversed. Images keep wall cells at the density of open fluid and push
// fluid off the walls, matching the mirrored boxes of the advect pass.
// Offsets never exceed 3 cells, so c + 4n is positive.
void reint_mirror(IVEC c, out IVEC src, out IVEC flip)
{
    IVEC n = TRIM3(ivec3(pc.dims.xyz));
    for (int a = 0; a < DIM; a++) {
        // One reflection covers every grid at least as thick as the reach;
        // integer division is slow on CPU devices, so it is the fallback.
        int s = c[a] < 0 ? -1 - c[a] : c[a] >= n[a] ? 2 * n[a] - 1 - c[a] : c[a];
        int f = c[a] < 0 || c[a] >= n[a] ? 1 : 0;
        if (s < 0 || s >= n[a]) {
            int q = (c[a] + 4 * n[a]) % (2 * n[a]);
            f = q >= n[a] ? 1 : 0;
            s = f != 0 ? 2 * n[a] - 1 - q : q;
        }
        src[a] = s;
        flip[a] = f;
    }
}

// True when every cell within `reach` of c is inside the grid: the loops
// then skip the mirror arithmetic (most cells, whole workgroups at a time).
bool reint_interior(IVEC c, int reach)
{
    IVEC n = TRIM3(ivec3(pc.dims.xyz));
    return all(greaterThanEqual(c, IVEC(reach))) && all(lessThan(c + reach, n));
}

// The neighbour at offset o of cell c: the cell to read and the mirror flags.
void reint_neighbour(IVEC c, IVEC o, bool interior, out IVEC src, out IVEC flip)
{
    if (interior) {
        src = c + o;
        flip = IVEC(0);
    } else {
        reint_mirror(c + o, src, flip);
    }
}

// A level's solid cells (pc.scale.w != 0: the cell flags are bound; see
// pipelines/reint/reint.c, "a level"). The density and force passes read a solid
// neighbour at offset o of cell c as the wall image of c's own
// distribution: the same mass, its centre of mass mirrored inside the cell
// on every axis where o is not 0, its velocity reversed on those axes, and
// c's own density and pressure (pressure mirroring). Next to a flat wall
// (o one cell across the wall) that is exactly the mirror image the domain
// box gives; farther in, or across a corner, the cell itself stands in for
// the cells a true mirror would reflect (they are not known without
// walking to the wall). A rest fluid against a floor then reads density 1
// in its first row, and the image pushes the row off the wall the way the
// box's mirrors do.
bool reint_level_bound() { return pc.scale.w != 0.0; }

VEC reint_wall_axes(IVEC o) { return VEC(notEqual(o, IVEC(0))); }

// The wall image's centre of mass, as an offset in its own cell.
VEC reint_wall_image_offset(VEC xi, IVEC o) { return mix(xi, 1.0 - xi, reint_wall_axes(o)); }

// Density kernel, unnormalised: (1 - r^2/h^2)^3 inside h. The host
// normalises it by its sum over a lattice of unit cells (pc.sph.w), so a
// uniform field of rest cells has density exactly 1.
float reint_w_density(float r2, float h)
{
    float q2 = r2 / (h * h);
    if (q2 >= 1.0)
        return 0.0;
    float t = 1.0 - q2;
    return t * t * t;
}

// Magnitude of the spiky kernel's gradient, -dW/dr = norm * 3 (1 - r/h)^2 / h,
// with the spiky kernel's analytic normalisation in pc.scale.x. Spiky, not
// the density kernel, because its gradient does not vanish as r -> 0, so
// close distributions keep pushing apart.
float reint_grad_spiky(float r, float h)
{
    if (r >= h)
        return 0.0;
    float t = 1.0 - r / h;
    return pc.scale.x * 3.0 * t * t / h;
}

// Pressure from relative density. Unless the scene keeps negative pressure
// (the seed's cohesive surface), it is clamped at 0: a free surface then
// feels no pull from its thin, under-dense edge, which otherwise jitters
// (tensile instability).
float reint_eos(float rho)
{
    float k = pc.sph.x;
    float p = pc.reach.z == REINT_EOS_TAIT ? k * (pow(rho, pc.sph.y) - 1.0) : k * rho * (rho - 1.0);
    return pc.reach.w != 0 ? p : max(p, 0.0);
}

#endif
