#version 450
// "surface: splat kernels": per particle i (sorted order), the anisotropic
// kernel of Yu & Turk 2013 from its neighbours j within the neighbourhood
// radius r_n, weights w = 1 - (|x_j - x_i| / r_n)^3 (i itself included):
//   smoothed centre  c_i = x_i + lambda * (sum w x_j / sum w - x_i)
//   covariance       C_i = sum w (x_j - m)(x_j - m)^T / sum w, m the weighted mean
//   C_i = V diag(s) V^T by cyclic Jacobi (fixed sweeps), s_k >= s_max / k_r,
//   scaled to determinant 1, G_i = (1/R) V diag(1/s) V^T: an ellipsoid of
//   the isotropic ball's volume (det G = 1/R^3), semi-axes R s_k.
// Fewer than N_eps other neighbours, or no spread: G = I / R (the isotropic
// kernel, still at the smoothed centre). Sums run over the grid's cells in
// their fixed order (rows by z then y, indices ascending): same bits every run.
// A slot the last grid build did not fill (its key's range does not hold it)
// is left alone, so the pass runs over the grid's capacity without a count.
#include "index.glsl"
#include "surface_shared.h"
layout(local_size_x = CS_SURFACE_GROUP) in;
layout(std430, binding = 0) readonly buffer Positions { vec4 positions[]; };
layout(std430, binding = 1) readonly buffer Ranges { uvec2 ranges[]; };
layout(std430, binding = 2) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 3) writeonly buffer Centres { vec4 centres[]; };
layout(std430, binding = 4) writeonly buffer Covariance { vec4 covariance[]; };
layout(std430, binding = 5) writeonly buffer Kernels { vec4 kernels[]; };
layout(push_constant) uniform Push { cs_splat_aniso_push pc; };
#include "splat_aniso.glsl"

// The Jacobi rotation in the (p, q) plane that zeroes a[p][q] (symmetric a):
// a = J^T a J, v = v J. Columns of v end as the eigenvectors.
void jacobi_rotate(inout mat3 a, inout mat3 v, int p, int q)
{
    float apq = a[q][p];
    if (apq == 0.0)
        return;
    float theta = (a[q][q] - a[p][p]) / (2.0 * apq);
    // The smaller root of t^2 + 2 t theta - 1 = 0 (rotation angle <= pi/4);
    // theta^2 overflowing gives t = 0, a rotation already converged.
    float t = (theta >= 0.0 ? 1.0 : -1.0) / (abs(theta) + sqrt(theta * theta + 1.0));
    float c = inversesqrt(t * t + 1.0), s = t * c;
    mat3 j = mat3(1.0);
    j[p][p] = c;     // column p, row p
    j[q][q] = c;
    j[q][p] = s;     // column q, row p
    j[p][q] = -s;    // column p, row q
    a = transpose(j) * a * j;
    a[q][p] = 0.0;   // exactly, not rounding
    a[p][q] = 0.0;
    v = v * j;
}

void main()
{
    uint i = cs_linear_index();
    if (i >= pc.dims.w)
        return;
    // Slots at or past the last build's count: their key is stale or never
    // written, and every cell's range ends at or before the count.
    uint key = keys[i];
    if (key >= pc.grid_dims.w)
        return;
    uvec2 own = ranges[key];
    if (i < own.x || i >= own.y)
        return;
    vec3 xi = positions[i].xyz;
    float rn = pc.neighbour_radius;
    ivec3 lo, hi;
    for (int a = 0; a < 3; a++) {
        lo[a] = splat_cell_along(xi[a] - rn, a);
        hi[a] = splat_cell_along(xi[a] + rn, a);
    }
    // Sums relative to x_i: no cancellation of large coordinates.
    float sw = 0.0;
    vec3 swd = vec3(0.0);
    vec3 sdiag = vec3(0.0), soff = vec3(0.0);   // (xx, yy, zz), (xy, xz, yz)
    uint others = 0u;
    for (int z = lo.z; z <= hi.z; z++)
        for (int y = lo.y; y <= hi.y; y++) {
            uvec2 span = splat_row_span(y, z, lo.x, hi.x);
            for (uint j = span.x; j < span.y; j++) {
                vec3 d = positions[j].xyz - xi;
                float r2 = dot(d, d);
                if (!(r2 < rn * rn))      // beyond r_n, or NaN
                    continue;
                float r = sqrt(r2) / rn;
                float w = 1.0 - r * r * r;
                sw += w;
                swd += w * d;
                sdiag += w * d * d;
                soff += w * vec3(d.x * d.y, d.x * d.z, d.y * d.z);
                if (j != i)
                    others++;
            }
        }
    // sw = 0 only when x_i itself is not finite: keep it, nothing to average.
    vec3 mean = sw > 0.0 ? swd / sw : vec3(0.0);
    vec3 centre = xi + pc.smoothing * mean;
    vec3 cdiag = vec3(0.0), coff = vec3(0.0);
    if (sw > 0.0) {
        cdiag = sdiag / sw - mean * mean;
        coff = soff / sw - vec3(mean.x * mean.y, mean.x * mean.z, mean.y * mean.z);
    }
    covariance[2u * i] = vec4(cdiag.x, coff.x, coff.y, cdiag.y);
    covariance[2u * i + 1u] = vec4(coff.z, cdiag.z, sw, float(others));

    float R = pc.radius;
    mat3 g = mat3(1.0 / R);
    float extent = R;
    bool aniso = false;
    if (others >= pc.min_neighbours) {
        // In units of r_n^2, so the rotations work on O(0.1) numbers.
        float u = 1.0 / (rn * rn);
        mat3 a = mat3(cdiag.x, coff.x, coff.y, coff.x, cdiag.y, coff.z, coff.y, coff.z, cdiag.z) * u;
        mat3 v = mat3(1.0);
        for (int sweep = 0; sweep < CS_SPLAT_JACOBI_SWEEPS; sweep++) {
            jacobi_rotate(a, v, 0, 1);
            jacobi_rotate(a, v, 0, 2);
            jacobi_rotate(a, v, 1, 2);
        }
        vec3 s = vec3(a[0][0], a[1][1], a[2][2]);
        float smax = max(s.x, max(s.y, s.z));
        // No spread (all neighbours on one point) or not finite: isotropic.
        if (smax > 1e-12 && !isinf(smax)) {
            s = max(s, vec3(smax / pc.max_ratio));
            // Determinant 1: the ellipsoid keeps the ball's volume, so a
            // uniform interior gives the isotropic field's value.
            s /= pow(s.x * s.y * s.z, 1.0 / 3.0);
            g = mat3(0.0);
            for (int k = 0; k < 3; k++)
                g += outerProduct(v[k], v[k]) / s[k];
            g /= R;
            extent = R * max(s.x, max(s.y, s.z));
            aniso = true;
        }
    }
    centres[i] = vec4(centre, extent * extent * (1.0 + CS_SPLAT_EXTENT_PAD));
    kernels[2u * i] = vec4(g[0][0], g[1][0], g[2][0], g[1][1]);
    kernels[2u * i + 1u] = vec4(g[2][1], g[2][2], aniso ? 1.0 : 0.0, 0.0);
}
