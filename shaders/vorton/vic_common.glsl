// vic_common.glsl — node indexing shared by the vic_*.comp shaders.
#ifndef VIC_COMMON_GLSL
#define VIC_COMMON_GLSL

uint vic_node(ivec3 c, uint nodes)
{
    return (uint(c.z) * nodes + uint(c.y)) * nodes + uint(c.x);
}

ivec3 vic_node_coords(uint id, uint nodes)
{
    return ivec3(id % nodes, (id / nodes) % nodes, id / (nodes * nodes));
}

bool vic_is_boundary(ivec3 c, uint nodes)
{
    int last = int(nodes) - 1;
    return any(equal(c, ivec3(0))) || any(equal(c, ivec3(last)));
}

#endif
