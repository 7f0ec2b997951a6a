// prim_common.glsl — workgroup-wide sums and exclusive scans of packed u32
// counters (two uvec4s per invocation), built from subgroup arithmetic:
// each subgroup adds up its own invocations, the first subgroup combines the
// subgroup totals, everyone adds its subgroup's part. Integer addition is
// associative, so no result depends on the order the hardware adds in.
//
// The includer defines WG_THREADS (its local_size_x) first. Invocations are
// ordered by wg_rank(): subgroup by subgroup, then by position inside the
// (full) subgroup. The order of the scan and the order in which invocations
// own elements must agree, and this one does on every subgroup size.
// Call at most one helper per shader, from uniform control flow.
#ifndef PRIM_COMMON_GLSL
#define PRIM_COMMON_GLSL

#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

// Per subgroup: its totals, then its exclusive prefixes. Sized for
// one-invocation subgroups, the smallest the API allows.
shared uvec4 wg_sums_a[WG_THREADS];
shared uvec4 wg_sums_b[WG_THREADS];
shared uvec4 wg_total_a, wg_total_b;

uint wg_rank()
{
    return gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
}

// Publishes this subgroup's totals of a and b for subgroup 0.
void wg_publish_subgroup_sums(uvec4 a, uvec4 b)
{
    uvec4 sum_a = subgroupAdd(a), sum_b = subgroupAdd(b);
    if (subgroupElect()) {
        wg_sums_a[gl_SubgroupID] = sum_a;
        wg_sums_b[gl_SubgroupID] = sum_b;
    }
}

// Sums of a and b over the workgroup: one barrier; the result is valid in
// subgroup 0 only.
void wg_add2_first_subgroup(inout uvec4 a, inout uvec4 b)
{
    wg_publish_subgroup_sums(a, b);
    barrier();
    a = uvec4(0);
    b = uvec4(0);
    if (gl_SubgroupID != 0)
        return;
    for (uint c = 0; c < gl_NumSubgroups; c += gl_SubgroupSize) {
        uint i = c + gl_SubgroupInvocationID;
        a += i < gl_NumSubgroups ? wg_sums_a[i] : uvec4(0);
        b += i < gl_NumSubgroups ? wg_sums_b[i] : uvec4(0);
    }
    a = subgroupAdd(a);
    b = subgroupAdd(b);
}

// Exclusive prefixes of a and b over the workgroup in wg_rank() order
// (componentwise); total_a/total_b get the workgroup sums. Two barriers.
// Letting subgroup 0 scan the subgroup totals costs lavapipe less than a
// loop over them in every invocation.
void wg_exclusive_add2(inout uvec4 a, inout uvec4 b, out uvec4 total_a, out uvec4 total_b)
{
    wg_publish_subgroup_sums(a, b);
    a = subgroupExclusiveAdd(a);
    b = subgroupExclusiveAdd(b);
    barrier();
    if (gl_SubgroupID == 0) {
        uvec4 carry_a = uvec4(0), carry_b = uvec4(0);
        for (uint c = 0; c < gl_NumSubgroups; c += gl_SubgroupSize) {
            uint i = c + gl_SubgroupInvocationID;
            bool in_range = i < gl_NumSubgroups;
            uvec4 ta = in_range ? wg_sums_a[i] : uvec4(0);
            uvec4 tb = in_range ? wg_sums_b[i] : uvec4(0);
            uvec4 xa = subgroupExclusiveAdd(ta), xb = subgroupExclusiveAdd(tb);
            if (in_range) {
                wg_sums_a[i] = carry_a + xa;
                wg_sums_b[i] = carry_b + xb;
            }
            carry_a += subgroupAdd(ta);
            carry_b += subgroupAdd(tb);
        }
        if (subgroupElect()) {
            wg_total_a = carry_a;
            wg_total_b = carry_b;
        }
    }
    barrier();
    a += wg_sums_a[gl_SubgroupID];
    b += wg_sums_b[gl_SubgroupID];
    total_a = wg_total_a;
    total_b = wg_total_b;
}

#endif
