// vic_common.glsl — node indexing shared by the vic_*.comp shaders.
#ifndef VIC_COMMON_GLSL
#define VIC_COMMON_GLSL

// The box of this solve (vic_box.comp writes it before the splat): every
// pass reads origin and h here, never from push constants, so the host
// records the same commands whatever the box does. A variant that needs
// neither defines VIC_NO_BOX (bindings must match what the shader uses).
#ifndef VIC_NO_BOX
// box.grid: xyz origin, w the finest level's node spacing.
layout(std430, binding = VIC_BOX_BINDING) readonly buffer Box { vic_box box; };
#endif

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
