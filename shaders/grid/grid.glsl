// grid.glsl — the neighbour grid as shaders read it (built by pipelines/grid.c).
//
// Cells: c = floor((x - origin) / cell size) per axis, clamped into
// [0, dims - 1]; a NaN coordinate lands in 0 along its axis. Cell id = (z * ny + y) * nx + x.
// ranges[id] = uvec2(start, end): the particles of the cell are the sorted
// indices [start, end); an empty cell is (0, 0).
#ifndef CS_GRID_GLSL
#define CS_GRID_GLSL

ivec3 cs_grid_cell(vec3 x, vec3 origin, float inv_cell, uvec3 dims)
{
    vec3 f = (x - origin) * inv_cell;
    ivec3 c;
    for (int a = 0; a < 3; a++) {
        float v = f[a];
        if (!(v >= 0.0)) // below the domain, or NaN
            v = 0.0;
        c[a] = v >= float(dims[a]) ? int(dims[a]) - 1 : int(v);
    }
    return c;
}

uint cs_grid_cell_id(ivec3 c, uvec3 dims)
{
    return (uint(c.z) * dims.y + uint(c.y)) * dims.x + uint(c.x);
}

// Visits every particle index J in the 3^dim cells around CELL (an ivec3
// from cs_grid_cell), the particle itself included. RANGES is the name of the
// shader's uvec2 ranges array. The three cells of a row have consecutive ids,
// so their particles are one contiguous span of the sorted order: one loop
// per row. Order: rows by z then y, indices ascending — fixed, so sums over
// neighbours are the same bits every run. In 2D dims.z = 1 and only the
// z = 0 layer is visited. Use as
//     CS_GRID_FOR_NEIGHBOURS(ranges, cell, dims, j) { ... } CS_GRID_END_NEIGHBOURS
// (`continue` inside the body skips to the next j).
#define CS_GRID_FOR_NEIGHBOURS(RANGES, CELL, DIMS, J)                                          \
    for (int gz_ = max((CELL).z - 1, 0); gz_ <= min((CELL).z + 1, int((DIMS).z) - 1); gz_++)    \
        for (int gy_ = max((CELL).y - 1, 0); gy_ <= min((CELL).y + 1, int((DIMS).y) - 1); gy_++) { \
            uint row_ = (uint(gz_) * (DIMS).y + uint(gy_)) * (DIMS).x;                          \
            uint s_ = 0xffffffffu, e_ = 0u;                                                     \
            for (int gx_ = max((CELL).x - 1, 0); gx_ <= min((CELL).x + 1, int((DIMS).x) - 1); gx_++) { \
                uvec2 r_ = RANGES[row_ + uint(gx_)];                                            \
                if (r_.y > r_.x) {                                                              \
                    s_ = min(s_, r_.x);                                                         \
                    e_ = max(e_, r_.y);                                                         \
                }                                                                               \
            }                                                                                   \
            for (uint J = s_; J < e_; J++)
#define CS_GRID_END_NEIGHBOURS }

#endif
