// world_drafts.c — whether a floating body is large enough for its PBF
// fluid's resolution (world.h, cs_world_check_body_drafts).
//
// PBF holds Archimedes within 5% for a box that draws 3 spacings of water
// or more; under that its boxes floated up to about 11% off
// (tests/test_buoyancy.c; docs/bodies.md, "Buoyancy by draft"). A user
// cannot see that from the scene, so the run says it, with the draft and
// the spacing that would resolve the body.
#include "world.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

// The draft PBF resolves within 5% of Archimedes, in spacings.
#define PBF_DRAFT_RESOLVED 3.0

// The fraction of a disc (2D) or ball (3D) of radius 1 under a plane at
// height y - 1 over its bottom (y in 0 ... 2).
static double round_fraction(int dim, double y)
{
    if (dim == 3)
        return y * y * (3.0 - y) / 4.0; // cap pi y^2 (3 - y) / 3 over 4 pi / 3
    double c = 1.0 - y;                 // the chord's distance from the centre, signed
    return (acos(c) - c * sqrt(fmax(1.0 - c * c, 0.0))) / PI;
}

// How deep a body of relative density s floats at rest (m), upright as it
// starts; false for shapes it does not estimate (polytopes) and bodies
// that do not float.
static bool body_draft(const cs_scene *scene, const cs_body *b, double s, double *draft)
{
    if (!(s > 0.0 && s < 1.0))
        return false;
    if (b->shape == CS_BODY_SPHERE) {
        double lo = 0.0, hi = 2.0;
        for (int it = 0; it < 60; it++) {
            double mid = 0.5 * (lo + hi);
            if (round_fraction((int)scene->dim, mid) < s)
                lo = mid;
            else
                hi = mid;
        }
        *draft = 0.5 * (lo + hi) * b->radius;
        return true;
    }
    if (b->shape != CS_BODY_BOX)
        return false;
    // The box's extent along gravity: sum over its axes of |axis . g| size.
    double g[3] = {scene->gravity[0], scene->gravity[1], scene->gravity[2]};
    double gl = sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    if (!(gl > 0.0))
        return false;
    const float *q = b->orientation;
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double axes[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)},
                         {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)},
                         {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}};
    double extent = 0.0;
    for (int a = 0; a < (scene->dim == 3 ? 3 : 2); a++)
        extent += fabs(axes[a][0] * g[0] + axes[a][1] * g[1] + axes[a][2] * g[2]) / gl * b->size[a];
    *draft = s * extent;
    return true;
}

static double body_volume(const cs_scene *scene, const cs_body *b)
{
    if (b->shape == CS_BODY_SPHERE)
        return scene->dim == 3 ? 4.0 / 3.0 * PI * pow(b->radius, 3) : PI * b->radius * b->radius;
    if (b->shape == CS_BODY_BOX)
        return (double)b->size[0] * b->size[1] * (scene->dim == 3 ? b->size[2] : 1.0);
    return 0.0;
}

void cs_world_check_body_drafts(const cs_scene *scene, char *warnings, size_t size)
{
    size_t used = strlen(warnings);
    for (uint32_t f = 0; f < scene->fluid_count; f++) {
        const cs_scene *fs = &scene->fluids[f];
        if (strcmp(fs->solver, "pbf") != 0 || !fs->material_count)
            continue;
        double rho0 = fs->materials[0].rest_density, spacing = fs->particle_spacing;
        for (uint32_t k = 0; k < scene->body_count && used + 1 < size; k++) {
            const cs_body *b = &scene->bodies[k];
            if (b->is_static || b->path_count)
                continue; // held or moved along a path: nothing floats
            double volume = body_volume(scene, b);
            double density = b->density > 0.0f ? b->density : volume > 0.0 ? b->mass / volume : 0.0;
            double draft;
            if (!body_draft(scene, b, density / rho0, &draft) || draft >= PBF_DRAFT_RESOLVED * spacing)
                continue;
            used += (size_t)snprintf(
                warnings + used, size - used,
                "%swarning: %s: bodies[%u] (%.2f x the rest density of fluid \"%s\") draws about %.2f spacings "
                "of it at rest (%.3g m on spacing %g): PBF floats a body within 5%% of Archimedes from %.0f "
                "spacings of draft; under that boxes floated up to about 11%% off (docs/bodies.md, \"Buoyancy "
                "by draft\"). A particle_spacing of %.3g m or less resolves it",
                used ? "\n" : "", scene->path[0] ? scene->path : scene->name, k, density / rho0, fs->fluid_name,
                draft / spacing, draft, spacing, PBF_DRAFT_RESOLVED, draft / PBF_DRAFT_RESOLVED);
            used = used < size ? used : size - 1;
        }
    }
}
