// vtk_out.h — time series that ParaView opens: particles as VTK XML
// UnstructuredGrid (.vtu), surfaces as VTK XML PolyData (.vtp), and one
// .pvd collection per series that lists every file with its simulated time.
//
// The .vtu/.vtp files keep their arrays as raw binary appended data
// (<AppendedData encoding="raw">): each array is a UInt64 byte count
// (header_type="UInt64") followed by its bytes, little-endian, so a dump
// costs about what the PLY costs and reads back to the same bits. Every file
// is written atomically (temp + rename, file_io.h), like the PLY dumps.
#pragma once

#include "common.h"

// Particles: points = positions; point data velocity (3 components),
// density, material; one VTK_VERTEX cell per particle (filters that work on
// cells, and ParaView's Surface representation, need cells). time is the
// frame's simulated seconds, kept as the field data TimeValue, which
// ParaView reads when a file is opened on its own. positions4/velocities4
// are vec4 arrays; velocities4, densities, materials may be NULL (zeros).
bool cs_vtu_write(const char *path, double time, const float *positions4, const float *velocities4,
                  const float *densities, const uint32_t *materials, uint32_t count, cs_error *err);

// A triangle mesh: points, point data Normals, triangles as polys.
// positions/normals are 3 floats a vertex, indices 3 a triangle.
bool cs_vtp_write(const char *path, double time, const float *positions, const float *normals,
                  uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count, cs_error *err);

// One series' collection file (particles.pvd, mesh_water.pvd, ...).
typedef struct cs_pvd {
    char path[640];
    struct cs_pvd_entry {
        double time;       // simulated seconds
        char file[160];    // relative to the .pvd's folder
    } *entries;
    uint32_t count, capacity;
} cs_pvd;

// Adds `file` (a name in the .pvd's folder, already written whole) at
// `time` and rewrites the whole .pvd atomically: a run stopped at any point
// leaves a valid collection of exactly the files written so far. The first
// call sets the path. False (with the reason) when the write fails; the
// entry is kept, so the next call writes it too.
bool cs_pvd_add(cs_pvd *pvd, const char *path, const char *file, double time, cs_error *err);
void cs_pvd_free(cs_pvd *pvd);
