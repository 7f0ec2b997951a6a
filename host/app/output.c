// output.c — see output.h.
#define _GNU_SOURCE
#include "output.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *k_ply_properties =
    "property float x\nproperty float y\nproperty float z\n"
    "property float vx\nproperty float vy\nproperty float vz\n"
    "property float density\nproperty uint material\n";

// One vertex as it sits in the file: 7 floats and a uint, little-endian
// (cistern only runs on little-endian hosts).
typedef struct ply_vertex {
    float x, y, z, vx, vy, vz, density;
    uint32_t material;
} ply_vertex;

bool cs_ply_write(const char *path, const char *comment, const float *positions4, const float *velocities4,
                  const float *densities, const uint32_t *materials, uint32_t count, cs_error *err)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return cs_fail(err, "%s: cannot write: %s", path, strerror(errno));
    fprintf(f, "ply\nformat binary_little_endian 1.0\ncomment %s\nelement vertex %u\n%send_header\n",
            comment ? comment : "cistern", count, k_ply_properties);
    enum { CHUNK = 4096 };
    ply_vertex chunk[CHUNK];
    for (uint32_t base = 0; base < count; base += CHUNK) {
        uint32_t n = CS_MIN((uint32_t)CHUNK, count - base);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t i = base + k;
            chunk[k] = (ply_vertex){
                positions4[4 * i], positions4[4 * i + 1], positions4[4 * i + 2],
                velocities4 ? velocities4[4 * i] : 0, velocities4 ? velocities4[4 * i + 1] : 0,
                velocities4 ? velocities4[4 * i + 2] : 0, densities ? densities[i] : 0,
                materials ? materials[i] : 0,
            };
        }
        fwrite(chunk, sizeof chunk[0], n, f);
    }
    bool failed = ferror(f) != 0;
    failed |= fclose(f) != 0;
    // Write then rename: a reader (or a crash) never sees half a dump.
    if (failed || rename(tmp, path) != 0) {
        unlink(tmp);
        return cs_fail(err, "%s: write failed (disk full?)", path);
    }
    return true;
}

bool cs_ply_read(const char *path, float **positions4, float **velocities4, float **densities,
                 uint32_t **materials, uint32_t *count, cs_error *err)
{
    size_t size;
    char *data = cs_read_file(path, &size, err);
    if (!data)
        return false;
    char *end = strstr(data, "end_header\n");
    unsigned n = 0;
    char *element = strstr(data, "element vertex ");
    if (strncmp(data, "ply\nformat binary_little_endian 1.0\n", 36) != 0 || !end || !element ||
        sscanf(element, "element vertex %u", &n) != 1 || !strstr(data, k_ply_properties)) {
        free(data);
        return cs_fail(err, "%s: not a cistern PLY dump", path);
    }
    const char *body = end + strlen("end_header\n");
    if ((size_t)(data + size - body) != (size_t)n * sizeof(ply_vertex)) {
        free(data);
        return cs_fail(err, "%s: truncated: %u vertices declared", path, n);
    }
    *positions4 = calloc((size_t)n * 4 + 4, sizeof(float));
    *velocities4 = calloc((size_t)n * 4 + 4, sizeof(float));
    *densities = calloc((size_t)n + 1, sizeof(float));
    *materials = calloc((size_t)n + 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++) {
        ply_vertex v;
        memcpy(&v, body + (size_t)i * sizeof v, sizeof v);
        float *p = *positions4 + 4 * i, *u = *velocities4 + 4 * i;
        p[0] = v.x, p[1] = v.y, p[2] = v.z;
        u[0] = v.vx, u[1] = v.vy, u[2] = v.vz;
        (*densities)[i] = v.density;
        (*materials)[i] = v.material;
    }
    *count = n;
    free(data);
    return true;
}

bool cs_make_dirs(const char *path, cs_error *err)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1;; p++) {
        bool last = *p == 0;
        if (*p == '/' || last) {
            char saved = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return cs_fail(err, "%s: cannot create directory: %s", buf, strerror(errno));
            *p = saved;
        }
        if (last)
            break;
    }
    return true;
}

void cs_progress_begin(cs_progress *p, uint32_t total)
{
    p->tty = isatty(STDERR_FILENO);
    p->total = total;
    p->start = cs_now_seconds();
    p->last_draw = 0;
}

void cs_progress_update(cs_progress *p, uint32_t done, const char *status)
{
    if (!p->tty)
        return;
    double now = cs_now_seconds();
    if (done < p->total && now - p->last_draw < 0.1)
        return;
    p->last_draw = now;
    const int width = 30;
    double frac = p->total ? (double)done / p->total : 1.0;
    int filled = (int)(frac * width);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = 0;
    double elapsed = now - p->start;
    double eta = done ? elapsed / done * (p->total - done) : 0;
    fprintf(stderr, "\r[%s] %u/%u  %.1fs left  %s\033[K", bar, done, p->total, eta, status ? status : "");
    fflush(stderr);
}

void cs_progress_end(cs_progress *p)
{
    if (p->tty)
        fprintf(stderr, "\n");
}
