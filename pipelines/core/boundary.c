// boundary.c — the boundary set of a fluid (see boundary.h).
#include "boundary.h"

// The shader reads this struct with std430 rules: a uvec4 and vec4s only.
_Static_assert(sizeof(cs_boundary_set) == 16 + 16 * CS_BOUNDARY_MAX_PLANES, "cs_boundary_set is not std430-packed");
_Static_assert(CS_BOUNDARY_MAX_WALLS == CS_MAX_WALLS, "the set must hold every wall a scene may have");

bool cs_boundary_set_build(const cs_scene *scene, cs_boundary_set *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    const char *where = scene->path[0] ? scene->path : scene->name;
    if (scene->dim != 2 && scene->dim != 3)
        return cs_fail(err, "%s: dim must be 2 or 3 (got %d)", where, scene->dim);
    if (scene->wall_count > CS_BOUNDARY_MAX_WALLS)
        return cs_fail(err, "%s: %u walls, at most %d", where, scene->wall_count, CS_BOUNDARY_MAX_WALLS);
    bool d3 = scene->dim == 3;
    uint32_t n = 0;
    // Box faces: face 2a has normal +e_a and offset min (x[a] >= min), face
    // 2a + 1 normal -e_a and offset -max (-x[a] >= -max). The shaders tag a
    // face by its index (axis k / 2) and clamp onto it exactly.
    for (int a = 0; a < scene->dim; a++) {
        float lo[3] = {0.0f, 0.0f, 0.0f}, hi[3] = {0.0f, 0.0f, 0.0f};
        lo[a] = 1.0f;
        hi[a] = -1.0f;
        out->planes[n++] = (vec4){lo[0], lo[1], lo[2], scene->domain_min[a]};
        out->planes[n++] = (vec4){hi[0], hi[1], hi[2], -scene->domain_max[a]};
    }
    uint32_t faces = n;
    for (uint32_t w = 0; w < scene->wall_count; w++) {
        const cs_wall *wall = &scene->walls[w];
        out->planes[n++] = (vec4){wall->normal[0], wall->normal[1], d3 ? wall->normal[2] : 0.0f, wall->offset};
    }
    out->counts = (uvec4){n, faces, (uint32_t)scene->dim, 0};
    return true;
}
