// body_shape.c — see body_shape.h.
#include "body_shape.h"

#include <math.h>

#define FAR_BOX 1e7

uint32_t cs_body_planes(const cs_body *body, int dim, double planes[CS_MAX_BODY_PLANES][4])
{
    uint32_t n = 0;
    if (body->shape == CS_BODY_BOX) {
        for (int a = 0; a < dim; a++) {
            double h = 0.5 * body->size[a];
            for (int side = 0; side < 2; side++) {
                double *p = planes[n++];
                p[0] = p[1] = p[2] = 0.0;
                p[a] = side ? 1.0 : -1.0;
                p[3] = h;
            }
        }
    } else if (body->shape == CS_BODY_POLYTOPE) {
        for (uint32_t k = 0; k < body->plane_count && k < CS_MAX_BODY_PLANES; k++) {
            for (int c = 0; c < 4; c++)
                planes[n][c] = body->planes[k][c];
            if (dim == 2)
                planes[n][2] = 0.0;
            n++;
        }
    }
    return n;
}

// Solves the dim x dim system rows . x = rhs by Cramer's rule; false when
// the planes are (nearly) parallel.
static bool solve(const double *rows[3], int dim, double x[3])
{
    if (dim == 2) {
        double det = rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0];
        if (fabs(det) < 1e-9)
            return false;
        x[0] = (rows[0][3] * rows[1][1] - rows[0][1] * rows[1][3]) / det;
        x[1] = (rows[0][0] * rows[1][3] - rows[0][3] * rows[1][0]) / det;
        x[2] = 0.0;
        return true;
    }
    const double *a = rows[0], *b = rows[1], *c = rows[2];
    double bc[3] = {b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]};
    double det = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
    if (fabs(det) < 1e-9)
        return false;
    double ca[3] = {c[1] * a[2] - c[2] * a[1], c[2] * a[0] - c[0] * a[2], c[0] * a[1] - c[1] * a[0]};
    double ab[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    for (int i = 0; i < 3; i++)
        x[i] = (a[3] * bc[i] + b[3] * ca[i] + c[3] * ab[i]) / det;
    return true;
}

uint32_t cs_convex_vertices(const double (*planes)[4], uint32_t count, int dim,
                            double out[CS_BODY_MAX_VERTICES][3], bool *bounded)
{
    // The shape's planes plus a far box: every vertex of the clipped region
    // exists, and one on the far box means the shape itself is unbounded.
    double all[CS_MAX_BODY_PLANES + 6][4];
    uint32_t n = 0;
    for (uint32_t k = 0; k < count && k < CS_MAX_BODY_PLANES; k++)
        memcpy(all[n++], planes[k], sizeof all[0]);
    uint32_t own = n;
    for (int a = 0; a < dim; a++)
        for (int side = 0; side < 2; side++) {
            double *p = all[n++];
            p[0] = p[1] = p[2] = 0.0;
            p[a] = side ? 1.0 : -1.0;
            p[3] = FAR_BOX;
        }
    uint32_t found = 0;
    *bounded = true;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            for (uint32_t k = (dim == 3 ? j + 1 : 0); k < (dim == 3 ? n : 1); k++) {
                const double *rows[3] = {all[i], all[j], dim == 3 ? all[k] : NULL};
                double x[3];
                if (!solve(rows, dim, x))
                    continue;
                double scale = 1.0 + fabs(x[0]) + fabs(x[1]) + fabs(x[2]);
                bool inside = true;
                for (uint32_t m = 0; m < n && inside; m++)
                    inside = all[m][0] * x[0] + all[m][1] * x[1] + all[m][2] * x[2] - all[m][3] <= 1e-9 * scale;
                if (!inside)
                    continue;
                if (i >= own || j >= own || (dim == 3 && k >= own)) {
                    *bounded = false; // a corner on the far box
                    continue;
                }
                bool dup = false;
                for (uint32_t v = 0; v < found && !dup; v++)
                    dup = fabs(out[v][0] - x[0]) + fabs(out[v][1] - x[1]) + fabs(out[v][2] - x[2]) <= 1e-9 * scale;
                if (!dup && found < CS_BODY_MAX_VERTICES)
                    memcpy(out[found++], x, sizeof out[0]);
            }
    return found;
}
