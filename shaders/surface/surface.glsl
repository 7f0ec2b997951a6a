// surface.glsl — the padded node lattice of the marching-cubes passes (see
// surface_shared.h). Needs `pc` (cs_surface_push) and a readonly float
// buffer `field[]` declared before inclusion.
#ifndef SURFACE_GLSL
#define SURFACE_GLSL

ivec3 surf_padded_dims() { return ivec3(pc.dims.xyz) + 2; }

ivec3 surf_padded_coord(uint p)
{
    ivec3 n = surf_padded_dims();
    int i = int(p);
    return ivec3(i % n.x, (i / n.x) % n.y, i / (n.x * n.y));
}

uint surf_padded_index(ivec3 q)
{
    ivec3 n = surf_padded_dims();
    return uint(q.x + n.x * (q.y + n.y * q.z));
}

bool surf_in_grid(ivec3 q)
{
    return all(greaterThanEqual(q, ivec3(1))) && all(lessThanEqual(q, ivec3(pc.dims.xyz)));
}

// A padded node's field value; false outside the field (padding layer).
bool surf_value(ivec3 q, out float f)
{
    ivec3 r = q - 1;
    if (any(lessThan(r, ivec3(0))) || any(greaterThanEqual(r, ivec3(pc.dims.xyz)))) {
        f = 0.0;
        return false;
    }
    f = field[uint(r.x) + pc.dims.x * (uint(r.y) + pc.dims.y * uint(r.z))];
    return true;
}

// Inside: in the grid and field > iso (a NaN compares false: outside).
bool surf_inside(ivec3 q)
{
    float f;
    return surf_value(q, f) && f > pc.iso;
}

// A value that can be interpolated and differenced: in the grid and finite.
bool surf_usable(ivec3 q, out float f)
{
    return surf_value(q, f) && !isnan(f) && !isinf(f);
}

// Local edge e (0..11) of a cell: axis e / 4; its first corner sets the
// other two axes (a+1, a+2) from bits 0 and 1 of e % 4.
int surf_edge_axis(uint e) { return int(e >> 2); }
ivec3 surf_edge_corner(uint e)
{
    int a = int(e >> 2);
    ivec3 o = ivec3(0);
    o[(a + 1) % 3] = int(e & 1u);
    o[(a + 2) % 3] = int((e >> 1) & 1u);
    return o;
}
ivec3 surf_corner(uint c) { return ivec3(int(c & 1u), int((c >> 1) & 1u), int((c >> 2) & 1u)); }

// Field gradient at a padded node by central differences; one-sided where a
// neighbour is not usable, 0 along an axis with neither, 0 at an unusable node.
vec3 surf_gradient(ivec3 q)
{
    float f;
    if (!surf_usable(q, f))
        return vec3(0.0);
    vec3 g = vec3(0.0);
    for (int a = 0; a < 3; a++) {
        ivec3 e = ivec3(0);
        e[a] = 1;
        float fp, fm;
        bool up = surf_usable(q + e, fp), um = surf_usable(q - e, fm);
        float h = pc.origin.w * float(int(up) + int(um));
        g[a] = h > 0.0 ? ((up ? fp : f) - (um ? fm : f)) / h : 0.0;
    }
    return g;
}

#endif
