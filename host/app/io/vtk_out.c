// vtk_out.c — see vtk_out.h. The layout follows "VTK File Formats" (XML
// files, appended data): the XML part names every array with its offset
// into the appended block, counted from the byte after its '_'; there each
// array is a UInt64 byte count then the bytes. cistern only runs on
// little-endian hosts, so arrays go out as they sit in memory.
#include "vtk_out.h"

#include "file_io.h"

#include <stdlib.h>

// One array of a file: its XML attributes, its size and where it starts in
// the appended block.
typedef struct vtk_array {
    const char *type;     // "Float32", "Int32", "UInt8", ...
    const char *name;
    uint32_t components;  // 1: no NumberOfComponents attribute
    bool field;           // field data: says NumberOfTuples="1"
    uint64_t bytes;
    uint64_t offset;
} vtk_array;

// Each array takes its 8-byte header and its bytes, in the order listed.
static void place_arrays(vtk_array *a, uint32_t n)
{
    uint64_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        a[i].offset = at;
        at += sizeof(uint64_t) + a[i].bytes;
    }
}

static void print_array(cs_out_file *out, const char *indent, const vtk_array *a)
{
    cs_out_printf(out, "%s<DataArray type=\"%s\" Name=\"%s\"", indent, a->type, a->name);
    if (a->components > 1)
        cs_out_printf(out, " NumberOfComponents=\"%u\"", a->components);
    if (a->field)
        cs_out_printf(out, " NumberOfTuples=\"1\"");
    cs_out_printf(out, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)a->offset);
}

static void print_head(cs_out_file *out, const char *type)
{
    cs_out_printf(out,
                  "<?xml version=\"1.0\"?>\n"
                  "<VTKFile type=\"%s\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
                  "  <%s>\n",
                  type, type);
}

// Closes the XML part and opens the appended block: the arrays follow the '_'.
static void print_tail_open(cs_out_file *out, const char *type)
{
    cs_out_printf(out, "  </%s>\n  <AppendedData encoding=\"raw\">\n   _", type);
}

static void print_close(cs_out_file *out)
{
    cs_out_printf(out, "\n  </AppendedData>\n</VTKFile>\n");
}

// An array's UInt64 byte count: the size it was placed with, so the bytes
// that follow must be exactly that many for the offsets to stay right.
static void put_header(cs_out_file *out, const vtk_array *a)
{
    uint64_t bytes = a->bytes;
    cs_out_write(out, &bytes, sizeof bytes);
}

enum { CHUNK = 4096 };

// count xyz triples taken from src every `stride` floats (4: vec4 arrays);
// NULL: zeros.
static void put_vec3(cs_out_file *out, const float *src, uint32_t stride, uint32_t count)
{
    float chunk[3 * CHUNK];
    for (uint32_t base = 0; base < count && !out->error; base += CHUNK) {
        uint32_t n = CS_MIN((uint32_t)CHUNK, count - base);
        // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN: n is any count
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t c = 0; c < 3; c++)
                chunk[3 * k + c] = src ? src[(size_t)stride * (base + k) + c] : 0.0f;
        cs_out_write(out, chunk, sizeof(float) * 3 * n);
    }
}

// count 4-byte values (float or uint32) as they are; NULL: zeros.
static void put_words(cs_out_file *out, const void *src, uint32_t count)
{
    if (src) {
        cs_out_write(out, src, (size_t)count * 4);
        return;
    }
    static const uint32_t zeros[CHUNK];
    for (uint32_t base = 0; base < count && !out->error; base += CHUNK)
        cs_out_write(out, zeros, 4 * (size_t)CS_MIN((uint32_t)CHUNK, count - base));
}

// first, first + step, ... (count Int32 values): connectivity and offsets.
static void put_sequence(cs_out_file *out, int32_t first, int32_t step, uint32_t count)
{
    int32_t chunk[CHUNK];
    for (uint32_t base = 0; base < count && !out->error; base += CHUNK) {
        uint32_t n = CS_MIN((uint32_t)CHUNK, count - base);
        // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN: n is any count
        for (uint32_t k = 0; k < n; k++)
            chunk[k] = first + step * (int32_t)(base + k);
        cs_out_write(out, chunk, sizeof chunk[0] * n);
    }
}

// count bytes of `value`: the cell types.
static void put_bytes(cs_out_file *out, uint8_t value, uint32_t count)
{
    uint8_t chunk[CHUNK];
    memset(chunk, value, sizeof chunk);
    for (uint32_t base = 0; base < count && !out->error; base += CHUNK)
        cs_out_write(out, chunk, CS_MIN((uint32_t)CHUNK, count - base));
}

enum { VTK_VERTEX = 1 };

bool cs_vtu_write(const char *path, double time, const float *positions4, const float *velocities4,
                  const float *densities, const uint32_t *materials, uint32_t count, cs_error *err)
{
    // Connectivity and offsets are Int32, what every VTK reader takes; the
    // last offset is the count.
    if (count > INT32_MAX)
        return cs_fail(err, "%s: %u particles are more than a .vtu with Int32 cells holds; use --dump-format ply",
                       path, count);
    uint64_t n = count;
    vtk_array a[] = {
        {"Float64", "TimeValue", 1, true, 8, 0},
        {"Float32", "velocity", 3, false, 12 * n, 0},
        {"Float32", "density", 1, false, 4 * n, 0},
        {"UInt32", "material", 1, false, 4 * n, 0},
        {"Float32", "Points", 3, false, 12 * n, 0},
        {"Int32", "connectivity", 1, false, 4 * n, 0},
        {"Int32", "offsets", 1, false, 4 * n, 0},
        {"UInt8", "types", 1, false, n, 0},
    };
    place_arrays(a, (uint32_t)(sizeof a / sizeof a[0]));
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    print_head(&out, "UnstructuredGrid");
    cs_out_printf(&out, "    <FieldData>\n");
    print_array(&out, "      ", &a[0]);
    cs_out_printf(&out, "    </FieldData>\n"
                        "    <Piece NumberOfPoints=\"%u\" NumberOfCells=\"%u\">\n"
                        "      <PointData Scalars=\"density\" Vectors=\"velocity\">\n",
                  count, count);
    for (int i = 1; i <= 3; i++)
        print_array(&out, "        ", &a[i]);
    cs_out_printf(&out, "      </PointData>\n      <Points>\n");
    print_array(&out, "        ", &a[4]);
    cs_out_printf(&out, "      </Points>\n      <Cells>\n");
    for (int i = 5; i <= 7; i++)
        print_array(&out, "        ", &a[i]);
    cs_out_printf(&out, "      </Cells>\n    </Piece>\n");
    print_tail_open(&out, "UnstructuredGrid");
    put_header(&out, &a[0]);
    cs_out_write(&out, &time, sizeof time);
    put_header(&out, &a[1]);
    put_vec3(&out, velocities4, 4, count);
    put_header(&out, &a[2]);
    put_words(&out, densities, count);
    put_header(&out, &a[3]);
    put_words(&out, materials, count);
    put_header(&out, &a[4]);
    put_vec3(&out, positions4, 4, count);
    put_header(&out, &a[5]);
    put_sequence(&out, 0, 1, count); // particle i is cell i's only point
    put_header(&out, &a[6]);
    put_sequence(&out, 1, 1, count); // where each cell's points end
    put_header(&out, &a[7]);
    put_bytes(&out, VTK_VERTEX, count);
    print_close(&out);
    return cs_out_close(&out, err);
}

bool cs_vtp_write(const char *path, double time, const float *positions, const float *normals,
                  uint32_t vertex_count, const uint32_t *indices, uint32_t triangle_count, cs_error *err)
{
    // Indices go out as Int32 unchanged (each is below vertex_count); the
    // last offset is 3 * triangle_count.
    if (vertex_count > INT32_MAX || triangle_count > INT32_MAX / 3)
        return cs_fail(err, "%s: %u vertices, %u triangles are more than a .vtp with Int32 cells holds", path,
                       vertex_count, triangle_count);
    uint64_t nv = vertex_count, nt = triangle_count;
    vtk_array a[] = {
        {"Float64", "TimeValue", 1, true, 8, 0},
        {"Float32", "Normals", 3, false, 12 * nv, 0},
        {"Float32", "Points", 3, false, 12 * nv, 0},
        {"Int32", "connectivity", 1, false, 12 * nt, 0},
        {"Int32", "offsets", 1, false, 4 * nt, 0},
    };
    place_arrays(a, (uint32_t)(sizeof a / sizeof a[0]));
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    print_head(&out, "PolyData");
    cs_out_printf(&out, "    <FieldData>\n");
    print_array(&out, "      ", &a[0]);
    cs_out_printf(&out, "    </FieldData>\n"
                        "    <Piece NumberOfPoints=\"%u\" NumberOfVerts=\"0\" NumberOfLines=\"0\" "
                        "NumberOfStrips=\"0\" NumberOfPolys=\"%u\">\n"
                        "      <PointData Normals=\"Normals\">\n",
                  vertex_count, triangle_count);
    print_array(&out, "        ", &a[1]);
    cs_out_printf(&out, "      </PointData>\n      <Points>\n");
    print_array(&out, "        ", &a[2]);
    cs_out_printf(&out, "      </Points>\n      <Polys>\n");
    print_array(&out, "        ", &a[3]);
    print_array(&out, "        ", &a[4]);
    cs_out_printf(&out, "      </Polys>\n    </Piece>\n");
    print_tail_open(&out, "PolyData");
    put_header(&out, &a[0]);
    cs_out_write(&out, &time, sizeof time);
    put_header(&out, &a[1]);
    put_vec3(&out, normals, 3, vertex_count);
    put_header(&out, &a[2]);
    put_vec3(&out, positions, 3, vertex_count);
    put_header(&out, &a[3]);
    for (uint64_t base = 0; base < 3 * nt && !out.error; base += CHUNK) // in chunks: 3 * nt may pass 4 GiB / 4
        cs_out_write(&out, indices + base, 4 * (size_t)CS_MIN((uint64_t)CHUNK, 3 * nt - base));
    put_header(&out, &a[4]);
    put_sequence(&out, 3, 3, triangle_count);
    print_close(&out);
    return cs_out_close(&out, err);
}

// A file name inside an XML attribute: fluid names may hold any character.
static void print_attribute_text(cs_out_file *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': cs_out_printf(out, "&amp;"); break;
        case '<': cs_out_printf(out, "&lt;"); break;
        case '>': cs_out_printf(out, "&gt;"); break;
        case '"': cs_out_printf(out, "&quot;"); break;
        default: cs_out_write(out, s, 1); break;
        }
    }
}

bool cs_pvd_add(cs_pvd *pvd, const char *path, const char *file, double time, cs_error *err)
{
    if (pvd->count == pvd->capacity) {
        uint32_t capacity = pvd->capacity ? 2 * pvd->capacity : 64;
        struct cs_pvd_entry *grown = realloc(pvd->entries, capacity * sizeof *grown);
        if (!grown)
            return cs_fail(err, "%s: out of host memory for %u entries", path, capacity);
        pvd->entries = grown;
        pvd->capacity = capacity;
    }
    snprintf(pvd->path, sizeof pvd->path, "%s", path);
    struct cs_pvd_entry *e = &pvd->entries[pvd->count++];
    e->time = time;
    snprintf(e->file, sizeof e->file, "%s", file);
    // The whole list each time (a few dozen bytes an entry): the file on
    // disk is always a whole collection, never one with a missing tail.
    cs_out_file out;
    if (!cs_out_open(&out, pvd->path, true, err))
        return false;
    cs_out_printf(&out, "<?xml version=\"1.0\"?>\n"
                        "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
                        "  <Collection>\n");
    for (uint32_t i = 0; i < pvd->count && !out.error; i++) {
        // %.9g: the times are (frame + 1) * dt * substeps, stats.csv's time_s.
        cs_out_printf(&out, "    <DataSet timestep=\"%.9g\" group=\"\" part=\"0\" file=\"", pvd->entries[i].time);
        print_attribute_text(&out, pvd->entries[i].file);
        cs_out_printf(&out, "\"/>\n");
    }
    cs_out_printf(&out, "  </Collection>\n</VTKFile>\n");
    return cs_out_close(&out, err);
}

void cs_pvd_free(cs_pvd *pvd)
{
    free(pvd->entries);
    *pvd = (cs_pvd){0};
}
