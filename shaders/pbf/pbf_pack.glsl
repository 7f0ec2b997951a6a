// pbf_pack.glsl — the neighbour record "pbf: lambda" writes for "pbf: delta":
// what delta's loop reads of a neighbour j (its x*, mass and lambda) in one
// vec4, so the loop reads one array per neighbour instead of two (x*, then
// lambda). On lavapipe each distinct read in a loop body is a scalar loop
// over the SIMD lanes; on a GPU each is another cache line per neighbour.
//   2D: (x, y, mass, lambda)  z of x* is 0 in 2D and CS_FLUID_XYZ drops it;
//   3D: (x, y, z, lambda)     the mass is the fluid's one material's
//                             (CS_MATERIAL_COUNT == 1), else x*.w is read.
// Every value is a copy of the bits lambda read or computed: the sums are
// the same bits as reading x* and lambda apart.
#ifndef CS_PBF_PACK_GLSL
#define CS_PBF_PACK_GLSL

#if DIM == 2 || CS_MATERIAL_COUNT == 1
#define PBF_PACK_HOLDS_MASS 1 // delta reads nothing but the record per neighbour
#else
#define PBF_PACK_HOLDS_MASS 0 // 3D with several materials: mass from x*.w
#endif

vec4 pbf_pack_x_lambda(vec4 x_star, float lambda)
{
#if DIM == 2
    return vec4(x_star.xy, x_star.w, lambda);
#else
    return vec4(x_star.xyz, lambda);
#endif
}

#endif
