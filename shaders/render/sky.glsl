// sky.glsl — the procedural sky (render_shared.h, "The sky"): the colour
// seen in world direction d (unit, +y up). The sky feature draws it behind
// everything; the water reflects it. tests/test_water.c has it in double.
#ifndef CS_SKY_GLSL
#define CS_SKY_GLSL

vec3 cs_sun_direction() { return normalize(vec3(CS_RENDER_SUN_DIR)); }

vec3 cs_sky(vec3 d)
{
    vec3 c;
    if (d.y >= 0.0)
        c = mix(vec3(CS_RENDER_SKY_HORIZON), vec3(CS_RENDER_SKY_ZENITH), sqrt(d.y));
    else
        c = mix(vec3(CS_RENDER_SKY_HORIZON), vec3(CS_RENDER_SKY_GROUND),
                min(-d.y * CS_RENDER_SKY_GROUND_FALLOFF, 1.0));
    float s = max(dot(d, cs_sun_direction()), 0.0);
    float sun = CS_RENDER_SUN_GLOW * pow(s, CS_RENDER_SUN_GLOW_POWER) + (s > CS_RENDER_SUN_DISC_COS ? CS_RENDER_SUN_DISC : 0.0);
    return c + sun * vec3(CS_RENDER_SUN_COLOR);
}

#endif
