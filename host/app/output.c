// output.c — see output.h.
#define _GNU_SOURCE
#include "output.h"

#include <ctype.h>
#include <dirent.h>
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
    // Atomic: a reader (or a crash) never sees half a dump.
    cs_out_file out;
    if (!cs_out_open(&out, path, true, err))
        return false;
    cs_out_printf(&out, "ply\nformat binary_little_endian 1.0\ncomment %s\nelement vertex %u\n%send_header\n",
                  comment ? comment : "cistern", count, k_ply_properties);
    enum { CHUNK = 1024 }; // 32 KiB of stack (frames stay under -Wframe-larger-than)
    ply_vertex chunk[CHUNK];
    for (uint32_t base = 0; base < count && !out.error; base += CHUNK) {
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
        cs_out_write(&out, chunk, sizeof chunk[0] * n);
    }
    return cs_out_close(&out, err);
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

// NAME is PREFIX[FLUID_]DIGITS EXT, with at least min_digits digits, maybe
// followed by ".tmp".
static bool numbered_name(const char *name, const char *prefix, const char *ext, size_t min_digits, bool fluid)
{
    size_t n = strlen(name), p = strlen(prefix), e = strlen(ext);
    if (n > 4 && strcmp(name + n - 4, ".tmp") == 0)
        n -= 4;
    if (n < p + min_digits + e || strncmp(name, prefix, p) != 0 || strncmp(name + n - e, ext, e) != 0)
        return false;
    size_t end = n - e, d = end;
    while (d > p && isdigit((unsigned char)name[d - 1]))
        d--;
    if (end - d < min_digits)
        return false;
    return d == p || (fluid && d - 1 > p && name[d - 1] == '_');
}

bool cs_is_run_output(const char *name)
{
    // trace.png, trace.pfm, patches.csv, radiosity.png, compare.png: `cistern trace`.
    return strcmp(name, "stats.csv") == 0 || strcmp(name, "trace.png") == 0 || strcmp(name, "trace.pfm") == 0 ||
           strcmp(name, "patches.csv") == 0 || strcmp(name, "radiosity.png") == 0 ||
           strcmp(name, "compare.png") == 0 || numbered_name(name, "frame_", ".png", 5, false) ||
           numbered_name(name, "particles_", ".ply", 5, true) || numbered_name(name, "mesh_", ".ply", 5, true) ||
           numbered_name(name, "mesh_", ".obj", 5, true) || numbered_name(name, "screenshot_", ".png", 3, false);
}

bool cs_prepare_out_dir(const char *dir, bool overwrite, cs_error *err)
{
    if (!cs_make_dirs(dir, err))
        return false;
    DIR *d = opendir(dir);
    if (!d)
        return cs_fail(err, "%s: cannot read the output directory: %s", dir, strerror(errno));
    uint32_t ours = 0, others = 0;
    char example[256] = "";
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        // Only regular files are ours: a directory called frame_00000.png
        // was made by someone else, and stays.
        char path[800];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        bool own = cs_is_run_output(e->d_name) && lstat(path, &st) == 0 && S_ISREG(st.st_mode);
        if (!*example || (own && !ours))
            snprintf(example, sizeof example, "%s", e->d_name);
        own ? ours++ : others++;
        if (own && overwrite) {
            if (unlink(path) != 0)
                ok = cs_fail(err, "%s: cannot delete (--overwrite): %s", path, strerror(errno));
        }
    }
    closedir(d);
    if (!ok || overwrite || ours + others == 0)
        return ok;
    return cs_fail(err, "%s is not empty (%u entr%s, e.g. %s); an earlier run's files would mix with this "
                        "run's: choose another --out, or add --overwrite to delete cistern's own files there "
                        "(stats.csv, frame_*.png, particles_*.ply, mesh_*.ply/obj, screenshot_*.png, trace.png/pfm, "
                        "patches.csv, radiosity.png, compare.png; nothing else)",
                   dir, ours + others, ours + others == 1 ? "y" : "ies", example);
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
