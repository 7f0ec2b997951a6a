// surface_ref.h — CPU reference of the marching-cubes pipeline in double
// precision, written from the convention in pipelines/surface/surface.h (not from
// the shaders): inside = field > iso, NaN and nodes beyond the grid outside,
// one vertex per crossed edge of the padded lattice in global edge order,
// triangles by cell then table order. Uses the pipeline's case table (it is
// part of the specification; tests check the meshes it makes are closed).
#pragma once

#include "surface.h"

#include <math.h>
#include <stdlib.h>

typedef struct surface_ref_mesh {
    uint32_t vertex_count, triangle_count;
    double *positions;   // 3 per vertex
    double *normals;     // 3 per vertex
    uint32_t *indices;   // 3 per triangle
} surface_ref_mesh;

typedef struct surface_ref_in {
    const float *field;
    uint32_t dims[3];
    double origin[3], spacing, iso;
    bool open_border;
} surface_ref_in;

static bool ref_value(const surface_ref_in *in, const int q[3], double *f)
{
    *f = 0;
    for (int a = 0; a < 3; a++)
        if (q[a] < 1 || q[a] > (int)in->dims[a])
            return false;
    *f = in->field[(size_t)(q[0] - 1) + in->dims[0] * ((size_t)(q[1] - 1) + (size_t)in->dims[1] * (q[2] - 1))];
    return true;
}

static bool ref_in_grid(const surface_ref_in *in, const int q[3])
{
    double f;
    return ref_value(in, q, &f);
}

static bool ref_inside(const surface_ref_in *in, const int q[3])
{
    double f;
    return ref_value(in, q, &f) && f > in->iso;
}

static bool ref_usable(const surface_ref_in *in, const int q[3], double *f)
{
    return ref_value(in, q, f) && isfinite(*f);
}

static void ref_gradient(const surface_ref_in *in, const int q[3], double g[3])
{
    double f;
    g[0] = g[1] = g[2] = 0;
    if (!ref_usable(in, q, &f))
        return;
    for (int a = 0; a < 3; a++) {
        int qp[3] = {q[0], q[1], q[2]}, qm[3] = {q[0], q[1], q[2]};
        qp[a]++;
        qm[a]--;
        double fp, fm;
        bool up = ref_usable(in, qp, &fp), um = ref_usable(in, qm, &fm);
        if (up || um)
            g[a] = ((up ? fp : f) - (um ? fm : f)) / (in->spacing * (up + um));
    }
}

static void surface_ref_free(surface_ref_mesh *m)
{
    free(m->positions);
    free(m->normals);
    free(m->indices);
    memset(m, 0, sizeof *m);
}

static void surface_ref_extract(const surface_ref_in *in, surface_ref_mesh *out)
{
    const uint32_t *table = cs_surface_table();
    int n[3] = {(int)in->dims[0] + 2, (int)in->dims[1] + 2, (int)in->dims[2] + 2};
    size_t count = (size_t)n[0] * n[1] * n[2];
    // vertex id of edge (p, a), or UINT32_MAX when not crossed.
    uint32_t *vid = malloc(count * 3 * sizeof *vid);
    memset(out, 0, sizeof *out);
    out->positions = malloc((count * 3 + 1) * 3 * sizeof(double));
    out->normals = malloc((count * 3 + 1) * 3 * sizeof(double));
    out->indices = malloc((count * CS_SURFACE_MAX_TRIS + 1) * 3 * sizeof(uint32_t));
    size_t p = 0;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++, p++)
                for (int a = 0; a < 3; a++) {
                    int q[3] = {i, j, k}, qb[3] = {i, j, k};
                    qb[a]++;
                    vid[3 * p + a] = UINT32_MAX;
                    if (qb[a] >= n[a] || ref_inside(in, q) == ref_inside(in, qb))
                        continue;
                    if (in->open_border && !(ref_in_grid(in, q) && ref_in_grid(in, qb)))
                        continue;
                    uint32_t v = out->vertex_count++;
                    vid[3 * p + a] = v;
                    double fa = 0, fb = 0;
                    bool ua = ref_usable(in, q, &fa), ub = ref_usable(in, qb, &fb);
                    double t = ua && ub ? (in->iso - fa) / (fb - fa) : 0.5;
                    // The same clamp as the GPU's (float bounds, as emit.comp uses them).
                    const double lo = (double)(float)CS_SURFACE_T_MIN, hi = (double)(1.0f - (float)CS_SURFACE_T_MIN);
                    t = t < lo ? lo : t > hi ? hi : t;
                    double ga[3], gb[3], g[3];
                    ref_gradient(in, q, ga);
                    ref_gradient(in, qb, gb);
                    double len = 0;
                    for (int c = 0; c < 3; c++) {
                        out->positions[3 * v + c] = in->origin[c] + in->spacing * (q[c] - 1 + (c == a ? t : 0));
                        g[c] = -(ga[c] * (1 - t) + gb[c] * t);
                        len += g[c] * g[c];
                    }
                    len = sqrt(len);
                    for (int c = 0; c < 3; c++)
                        out->normals[3 * v + c] = len > 0 && isfinite(len) ? g[c] / len
                                                  : c == a                  ? (ref_inside(in, q) ? 1 : -1)
                                                                            : 0;
                }
    p = 0;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++, p++) {
                if (i + 1 >= n[0] || j + 1 >= n[1] || k + 1 >= n[2])
                    continue;
                int q0[3] = {i, j, k}, q1[3] = {i + 1, j + 1, k + 1};
                if (in->open_border && !(ref_in_grid(in, q0) && ref_in_grid(in, q1)))
                    continue;
                uint32_t cs = 0;
                for (int c = 0; c < 8; c++) {
                    int q[3] = {i + (c & 1), j + ((c >> 1) & 1), k + ((c >> 2) & 1)};
                    cs |= (uint32_t)ref_inside(in, q) << c;
                }
                const uint32_t *row = &table[cs * CS_SURFACE_TABLE_STRIDE];
                for (uint32_t t = 0; t < row[0]; t++) {
                    for (int c = 0; c < 3; c++) {
                        uint32_t e = row[1 + 3 * t + c];
                        int a = (int)e / 4, o[3] = {0, 0, 0};
                        o[(a + 1) % 3] = e & 1;
                        o[(a + 2) % 3] = (e >> 1) & 1;
                        size_t pe = (size_t)(i + o[0]) + (size_t)n[0] * ((size_t)(j + o[1]) + (size_t)n[1] * (k + o[2]));
                        uint32_t v = vid[3 * pe + a];
                        CS_ASSERT(v != UINT32_MAX, "reference: case %u uses an edge that is not crossed", cs);
                        out->indices[3 * out->triangle_count + c] = v;
                    }
                    out->triangle_count++;
                }
            }
    free(vid);
}
