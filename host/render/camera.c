// camera.c — see camera.h.
#include "camera.h"

#include <math.h>

static const double k_pi = 3.14159265358979323846;

static void v3_set(double *d, double x, double y, double z) { d[0] = x; d[1] = y; d[2] = z; }
static void v3_sub(double *d, const double *a, const double *b) { v3_set(d, a[0] - b[0], a[1] - b[1], a[2] - b[2]); }
static void v3_add_scaled(double *d, const double *a, double s) { d[0] += a[0] * s; d[1] += a[1] * s; d[2] += a[2] * s; }
static double v3_dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double v3_len(const double *a) { return sqrt(v3_dot(a, a)); }
static void v3_cross(double *d, const double *a, const double *b)
{
    double r[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(d, r, sizeof r);
}
static bool v3_normalize(double *a)
{
    double l = v3_len(a);
    if (!(l > 1e-12))
        return false;
    a[0] /= l; a[1] /= l; a[2] /= l;
    return true;
}

// Rotates v about the unit axis by angle (Rodrigues).
static void v3_rotate(double *v, const double *axis, double angle)
{
    double c = cos(angle), s = sin(angle), k_dot_v = v3_dot(axis, v), cr[3];
    v3_cross(cr, axis, v);
    for (int i = 0; i < 3; i++)
        v[i] = v[i] * c + cr[i] * s + axis[i] * k_dot_v * (1 - c);
}

// Camera frame: forward (unit, toward the target), right and true up.
static void camera_basis(const cs_view_camera *cam, double fwd[3], double right[3], double up[3])
{
    v3_sub(fwd, cam->target, cam->position);
    if (!v3_normalize(fwd))
        v3_set(fwd, 0, 0, -1);
    double world_up[3] = {cam->up[0], cam->up[1], cam->up[2]};
    if (!v3_normalize(world_up))
        v3_set(world_up, 0, 1, 0);
    v3_cross(right, fwd, world_up);
    if (!v3_normalize(right)) {
        // Looking along the up vector: any right will do.
        double other[3] = {1, 0, 0};
        if (fabs(fwd[0]) > 0.9)
            v3_set(other, 0, 0, 1);
        v3_cross(right, fwd, other);
        v3_normalize(right);
    }
    v3_cross(up, right, fwd);
}

void cs_camera_from_scene(cs_view_camera *cam, const cs_scene *scene)
{
    memset(cam, 0, sizeof *cam);
    double lo[3], hi[3], extent[3];
    for (int i = 0; i < 3; i++) {
        lo[i] = scene->domain_min[i];
        hi[i] = scene->domain_max[i];
        cam->scene_center[i] = 0.5 * (lo[i] + hi[i]);
        extent[i] = hi[i] - lo[i];
    }
    cam->scene_radius = CS_MAX(0.5 * v3_len(extent), 1e-6);
    cam->domain_size[0] = extent[0];
    cam->domain_size[1] = extent[1];
    const cs_camera *sc = &scene->camera;
    if (scene->dim == 2) {
        cam->ortho = true;
        double d = 2.0 * cam->scene_radius + 1.0;
        v3_set(cam->target, cam->scene_center[0], cam->scene_center[1], 0);
        v3_set(cam->position, cam->scene_center[0], cam->scene_center[1], d);
        v3_set(cam->up, 0, 1, 0);
        cam->ortho_height = sc->ortho_height > 0 ? sc->ortho_height : 0; // 0: fit at draw time
        cam->fov_degrees = 45;
        return;
    }
    cam->fov_degrees = sc->fov_degrees > 1 && sc->fov_degrees < 179 ? sc->fov_degrees : 45;
    for (int i = 0; i < 3; i++) {
        cam->position[i] = sc->position[i];
        cam->target[i] = sc->target[i];
        cam->up[i] = sc->up[i];
    }
    if (!v3_normalize(cam->up))
        v3_set(cam->up, 0, 1, 0);
    double offset[3];
    v3_sub(offset, cam->position, cam->target);
    if (v3_len(offset) < 1e-9) {
        // No camera given: frame the domain's bounding sphere from the front,
        // a little above and to the side.
        double dir[3] = {0.35, 0.4, 1.0};
        v3_normalize(dir);
        double dist = cam->scene_radius / sin(0.5 * cam->fov_degrees * k_pi / 180.0) * 1.05;
        memcpy(cam->target, cam->scene_center, sizeof cam->target);
        memcpy(cam->position, cam->scene_center, sizeof cam->position);
        v3_add_scaled(cam->position, dir, dist);
        v3_set(cam->up, 0, 1, 0);
    }
}

static double ortho_height_for(const cs_view_camera *cam, double aspect)
{
    if (cam->ortho_height > 0)
        return cam->ortho_height;
    double h = CS_MAX(cam->domain_size[1], cam->domain_size[0] / aspect);
    return CS_MAX(h, 1e-6) * 1.08; // a margin so the box lines show
}

void cs_camera_matrices_get(const cs_view_camera *cam, double aspect, cs_camera_matrices *out)
{
    memset(out, 0, sizeof *out);
    aspect = aspect > 0 ? aspect : 1;
    double fwd[3], right[3], up[3];
    camera_basis(cam, fwd, right, up);
    // View rows: right, up, -forward, each with its translation.
    const double *rows[3] = {right, up, fwd};
    double sign[3] = {1, 1, -1};
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++)
            out->view[c * 4 + r] = (float)(sign[r] * rows[r][c]);
        out->view[12 + r] = (float)(-sign[r] * v3_dot(rows[r], cam->position));
    }
    out->view[15] = 1;

    // Clip planes bracket the domain's bounding sphere (twice its radius, as
    // particles may splash out), wherever the camera is.
    double to_center[3];
    v3_sub(to_center, cam->scene_center, cam->position);
    double dist = v3_dot(to_center, fwd);
    double reach = 2.0 * cam->scene_radius;
    double far_plane = CS_MAX(dist + reach, reach);
    double near_plane = cam->ortho ? dist - reach : CS_MAX(dist - reach, far_plane * 1e-4);
    double sx, sy, a, b;
    if (cam->ortho) {
        double half_h = 0.5 * ortho_height_for(cam, aspect);
        sx = 1.0 / (half_h * aspect);
        sy = -1.0 / half_h;
        a = -1.0 / (far_plane - near_plane);
        b = -near_plane / (far_plane - near_plane);
    } else {
        double f = 1.0 / tan(0.5 * cam->fov_degrees * k_pi / 180.0);
        sx = f / aspect;
        sy = -f;
        a = far_plane / (near_plane - far_plane);
        b = near_plane * far_plane / (near_plane - far_plane);
    }
    out->ortho = cam->ortho;
    out->proj_params[0] = (float)sx;
    out->proj_params[1] = (float)sy;
    out->proj_params[2] = (float)a;
    out->proj_params[3] = (float)b;
    out->proj[0] = (float)sx;
    out->proj[5] = (float)sy;
    out->proj[10] = (float)a;
    out->proj[14] = (float)b;
    out->proj[11] = cam->ortho ? 0.0f : -1.0f;
    out->proj[15] = cam->ortho ? 1.0f : 0.0f;
    for (int i = 0; i < 3; i++)
        out->position[i] = (float)cam->position[i];
    out->near_plane = (float)near_plane;
    out->far_plane = (float)far_plane;
}

bool cs_camera_project(const cs_camera_matrices *m, uint32_t width, uint32_t height, const float world[3],
                       double pixel[2], double *depth)
{
    double v[3];
    for (int r = 0; r < 3; r++)
        v[r] = m->view[r] * world[0] + m->view[4 + r] * world[1] + m->view[8 + r] * world[2] + m->view[12 + r];
    double w = m->ortho ? 1.0 : -v[2];
    if (w <= 0)
        return false;
    double ndc[3] = {m->proj_params[0] * v[0] / w, m->proj_params[1] * v[1] / w,
                     (m->proj_params[2] * v[2] + m->proj_params[3]) / w};
    pixel[0] = (ndc[0] + 1.0) * 0.5 * width;
    pixel[1] = (ndc[1] + 1.0) * 0.5 * height;
    if (depth)
        *depth = ndc[2];
    return true;
}

bool cs_camera_unproject(const cs_view_camera *cam, const cs_camera_matrices *m, uint32_t width, uint32_t height,
                         const double pixel[2], float world[3])
{
    if (width == 0 || height == 0)
        return false;
    double ndc[2] = {2.0 * pixel[0] / width - 1.0, 2.0 * pixel[1] / height - 1.0};
    double v[2] = {ndc[0] / m->proj_params[0], ndc[1] / m->proj_params[1]};
    // view = R world + T (R's rows in view[0..2], view[4..6], view[8..10]
    // column-major): world = R^T (view - T).
    const float *V = m->view;
    double T[3] = {V[12], V[13], V[14]};
    double origin_view[3] = {m->ortho ? v[0] : 0.0, m->ortho ? v[1] : 0.0, 0.0};
    double dir_view[3] = {m->ortho ? 0.0 : v[0], m->ortho ? 0.0 : v[1], -1.0};
    double origin[3], dir[3], forward[3];
    for (int c = 0; c < 3; c++) {
        origin[c] = dir[c] = forward[c] = 0.0;
        for (int r = 0; r < 3; r++) {
            origin[c] += V[c * 4 + r] * (origin_view[r] - T[r]);
            dir[c] += V[c * 4 + r] * dir_view[r];
            forward[c] -= V[c * 4 + r] * (r == 2);
        }
    }
    // The plane: z = 0 in 2D, else through the target, facing the camera.
    double point[3] = {0.0, 0.0, 0.0}, normal[3] = {0.0, 0.0, 1.0};
    if (!m->ortho)
        for (int c = 0; c < 3; c++) {
            point[c] = cam->target[c];
            normal[c] = forward[c];
        }
    double along = dir[0] * normal[0] + dir[1] * normal[1] + dir[2] * normal[2];
    if (fabs(along) < 1e-12)
        return false;
    double t = ((point[0] - origin[0]) * normal[0] + (point[1] - origin[1]) * normal[1] +
                (point[2] - origin[2]) * normal[2]) / along;
    if (!m->ortho && !(t > 0.0))
        return false;
    for (int c = 0; c < 3; c++)
        world[c] = (float)(origin[c] + t * dir[c]);
    return true;
}

void cs_camera_update(cs_view_camera *cam, const cs_camera_input *in, double dt)
{
    double vw = in->viewport_width ? in->viewport_width : 1280;
    double vh = in->viewport_height ? in->viewport_height : 720;
    double fwd[3], right[3], up[3];
    camera_basis(cam, fwd, right, up);
    double offset[3];
    v3_sub(offset, cam->position, cam->target);
    const double turn = 0.005; // radians per pixel dragged

    if (cam->ortho) {
        if (cam->ortho_height <= 0)
            cam->ortho_height = ortho_height_for(cam, vw / vh);
        double per_pixel = cam->ortho_height / vh;
        // Every drag pans in 2D: the content follows the mouse.
        double dx = -(in->look[0] + in->orbit[0] + in->pan[0]) * per_pixel;
        double dy = (in->look[1] + in->orbit[1] + in->pan[1]) * per_pixel;
        double speed = 0.5 * cam->ortho_height * (in->fast ? 4.0 : 1.0) * dt;
        dx += in->move[0] * speed;
        dy += (in->move[1] + in->move[2]) * speed;
        double shift[3] = {right[0] * dx + up[0] * dy, right[1] * dx + up[1] * dy, right[2] * dx + up[2] * dy};
        v3_add_scaled(cam->position, shift, 1);
        v3_add_scaled(cam->target, shift, 1);
        if (in->scroll != 0)
            cam->ortho_height = CS_MAX(cam->ortho_height * pow(0.9, in->scroll), 1e-6 * cam->scene_radius);
        return;
    }

    // Right drag: orbit the eye around the target (yaw about the world up,
    // pitch about the camera's right, never over the poles).
    double world_up[3] = {cam->up[0], cam->up[1], cam->up[2]};
    if (!v3_normalize(world_up))
        v3_set(world_up, 0, 1, 0);
    if (in->orbit[0] != 0 || in->orbit[1] != 0) {
        v3_rotate(offset, world_up, -in->orbit[0] * turn);
        double axis[3];
        v3_cross(axis, world_up, offset);
        if (v3_normalize(axis)) {
            double pitched[3] = {offset[0], offset[1], offset[2]};
            v3_rotate(pitched, axis, -in->orbit[1] * turn);
            double c = v3_dot(pitched, world_up) / v3_len(pitched);
            if (fabs(c) < 0.995)
                memcpy(offset, pitched, sizeof offset);
        }
        for (int i = 0; i < 3; i++)
            cam->position[i] = cam->target[i] + offset[i];
    }
    // Left drag: turn the camera in place (the target moves).
    if (in->look[0] != 0 || in->look[1] != 0) {
        double dir[3] = {-offset[0], -offset[1], -offset[2]};
        v3_rotate(dir, world_up, -in->look[0] * turn);
        double axis[3];
        v3_cross(axis, dir, world_up);
        if (v3_normalize(axis)) {
            double pitched[3] = {dir[0], dir[1], dir[2]};
            v3_rotate(pitched, axis, -in->look[1] * turn);
            double c = v3_dot(pitched, world_up) / v3_len(pitched);
            if (fabs(c) < 0.995)
                memcpy(dir, pitched, sizeof dir);
        }
        for (int i = 0; i < 3; i++)
            cam->target[i] = cam->position[i] + dir[i];
    }
    camera_basis(cam, fwd, right, up);
    v3_sub(offset, cam->position, cam->target);
    double dist = CS_MAX(v3_len(offset), 1e-6);
    // Middle drag: pan, one pixel = one pixel's worth of world at the target.
    if (in->pan[0] != 0 || in->pan[1] != 0) {
        double per_pixel = 2.0 * dist * tan(0.5 * cam->fov_degrees * k_pi / 180.0) / vh;
        for (int i = 0; i < 3; i++) {
            double d = (-in->pan[0] * right[i] + in->pan[1] * up[i]) * per_pixel;
            cam->position[i] += d;
            cam->target[i] += d;
        }
    }
    // WASD/QE: fly; the target travels along so orbiting stays centred ahead.
    double speed = 0.8 * cam->scene_radius * (in->fast ? 4.0 : 1.0) * dt;
    for (int i = 0; i < 3; i++) {
        double d = (in->move[0] * right[i] + in->move[1] * world_up[i] + in->move[2] * fwd[i]) * speed;
        cam->position[i] += d;
        cam->target[i] += d;
    }
    // Scroll: dolly toward the target, never through it.
    if (in->scroll != 0) {
        double new_dist = CS_MAX(dist * pow(0.9, in->scroll), 1e-3 * cam->scene_radius);
        for (int i = 0; i < 3; i++)
            cam->position[i] = cam->target[i] + offset[i] / dist * new_dist;
    }
}
