// splat_aniso.glsl — helpers of the anisotropic splat passes. Needs `pc`
// (cs_splat_aniso_push) declared before inclusion.
#ifndef SPLAT_ANISO_GLSL
#define SPLAT_ANISO_GLSL

// The grid cell of a coordinate along axis a, clamped into the grid as
// grid.glsl does (below the domain or NaN: 0). Clamping is monotone, so the
// cells from cell_along(x - r) to cell_along(x + r) hold every particle
// within r of x, those clamped in from outside the domain included.
int splat_cell_along(float x, int a)
{
    float v = (x - pc.grid_origin[a]) / pc.grid_origin.w;
    if (!(v >= 0.0))
        v = 0.0;
    return v >= float(pc.grid_dims[a]) ? int(pc.grid_dims[a]) - 1 : int(v);
}

// The sorted particle indices [start, end) of the grid row (y, z) between
// cells x0 and x1: the cells of a row are consecutive, so their particles
// are one span. Empty: start >= end.
uvec2 splat_row_span(int y, int z, int x0, int x1)
{
    uint row = (uint(z) * pc.grid_dims.y + uint(y)) * pc.grid_dims.x;
    uint s = 0xffffffffu, e = 0u;
    for (int cx = x0; cx <= x1; cx++) {
        uvec2 r = ranges[row + uint(cx)];
        if (r.y > r.x) {
            s = min(s, r.x);
            e = max(e, r.y);
        }
    }
    return uvec2(s, e);
}

#endif
