// camera.h — the live camera: where it starts (from the scene), how input
// moves it, and the matrices the renderer draws with.
//
// Owns no Vulkan objects. Conventions: world → view is right-handed with the
// camera looking down -z and +y up; view → clip is Vulkan's (y down, depth
// 0 at the near plane, 1 at the far plane), so world "up" is the top row of
// the image. 3D scenes use a perspective camera; 2D scenes an orthographic
// one looking down -z at the xy plane.
#pragma once

#include "scene.h"

typedef struct cs_camera_input cs_camera_input;

typedef struct cs_view_camera {
    bool ortho;
    double position[3];
    double target[3];          // orbit centre; also what the camera looks at
    double up[3];
    double fov_degrees;        // perspective: vertical field of view
    double ortho_height;       // ortho: world units visible vertically (<= 0: fit the domain)
    double near_plane, far_plane;
    // From the domain: sets move speeds and clip planes.
    double scene_center[3];
    double scene_radius;       // half the domain's diagonal
    double domain_size[2];     // 2D: domain width and height, to fit the view
} cs_view_camera;

// What cs_render needs: rows of world → view, the projection as four
// numbers (clip = (sx*x, sy*y, a*z + b, ortho ? 1 : -z)) and as a matrix.
typedef struct cs_camera_matrices {
    bool ortho;
    float view[16];            // world → view, column-major
    float proj[16];            // view → clip, column-major
    float proj_params[4];      // sx, sy, a, b
    float position[3];
    float near_plane, far_plane;
} cs_camera_matrices;

// Starts from the scene's camera. 2D scenes: orthographic, centred on the
// domain and fitting it (or camera.ortho_height when set). 3D scenes:
// camera.position/target/up/fov; a camera with position == target frames the
// domain from the front, slightly above.
void cs_camera_from_scene(cs_view_camera *cam, const cs_scene *scene);

// Matrices for an image of the given aspect (width / height).
void cs_camera_matrices_get(const cs_view_camera *cam, double aspect, cs_camera_matrices *out);

// Projects a world point to pixel coordinates (x right, y down, pixel
// centres at .5) and depth (0 near .. 1 far). False when behind the eye.
bool cs_camera_project(const cs_camera_matrices *m, uint32_t width, uint32_t height, const float world[3],
                       double pixel[2], double *depth);

// The world point under a pixel (x right, y down, as cs_camera_project
// gives them) on the plane the view shows the scene in: z = 0 for an
// orthographic (2D) view; else the plane through the camera's target that
// faces the camera. False when the ray does not meet it in front.
bool cs_camera_unproject(const cs_view_camera *cam, const cs_camera_matrices *m, uint32_t width, uint32_t height,
                         const double pixel[2], float world[3]);

// Input accumulated since the last frame (cs_window_poll fills one).
struct cs_camera_input {
    float look[2];             // left drag, pixels: 3D turns the camera in place; 2D pans
    float orbit[2];            // right drag, pixels: 3D orbits the target; 2D pans
    float pan[2];              // middle drag, pixels: moves camera and target sideways
    float scroll;              // wheel steps, + = zoom in
    float move[3];             // held keys: right (D-A), up (E-Q), forward (W-S), each -1..1
    bool fast;                 // shift held
    uint32_t viewport_width;   // pixels, to turn drags into world units (0: 1280 x 720)
    uint32_t viewport_height;
};

// Applies one frame of input over dt seconds.
void cs_camera_update(cs_view_camera *cam, const cs_camera_input *in, double dt);
