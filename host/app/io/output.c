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
        // cppcheck-suppress knownConditionTrueFalse ; cppcheck 2.10 misreads CS_MIN: n is any count
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

// NAME is one of names (NULL-terminated), maybe followed by ".tmp".
static bool fixed_name(const char *name, const char *const *names)
{
    size_t n = strlen(name);
    if (n > 4 && strcmp(name + n - 4, ".tmp") == 0)
        n -= 4;
    for (; *names; names++)
        if (strlen(*names) == n && strncmp(name, *names, n) == 0)
            return true;
    return false;
}

// NAME is SERIES.pvd or SERIES_FLUID.pvd (a ParaView collection of a run's
// .vtu/.vtp files), maybe followed by ".tmp".
static bool series_name(const char *name, const char *series)
{
    size_t n = strlen(name), p = strlen(series);
    if (n > 4 && strcmp(name + n - 4, ".tmp") == 0)
        n -= 4;
    if (n < p + 4 || strncmp(name, series, p) != 0 || strncmp(name + n - 4, ".pvd", 4) != 0)
        return false;
    return n == p + 4 || (n > p + 5 && name[p] == '_');
}

bool cs_is_run_output(const char *name)
{
    // trace.png, trace.pfm, patches.csv, radiosity.png, compare.png: `cistern trace`.
    static const char *const names[] = {"stats.csv", "trace.png", "trace.pfm", "patches.csv", "radiosity.png",
                                        "compare.png", NULL};
    return fixed_name(name, names) || numbered_name(name, "frame_", ".png", 5, false) ||
           numbered_name(name, "particles_", ".ply", 5, true) || numbered_name(name, "particles_", ".vtu", 5, true) ||
           numbered_name(name, "mesh_", ".ply", 5, true) || numbered_name(name, "mesh_", ".obj", 5, true) ||
           numbered_name(name, "mesh_", ".vtp", 5, true) || series_name(name, "particles") ||
           series_name(name, "mesh") || numbered_name(name, "screenshot_", ".png", 3, false) ||
           numbered_name(name, "recording_", ".mp4", 3, false) || numbered_name(name, "checkpoint_", ".ckpt", 5, false);
}

bool cs_is_own_output(cs_out_kind kind, const char *name)
{
    static const char *const sh[] = {"irradiance_sh.png", "irradiance_brute.png", "compare.png", "coefficients.csv",
                                     NULL};
    static const char *const bench[] = {"results.json", "results.csv", "plot.png", "plot.svg", "plot.dat",
                                        "plot.gp", NULL};
    switch (kind) {
    case CS_OUT_RUN: return cs_is_run_output(name);
    case CS_OUT_SH: return fixed_name(name, sh);
    case CS_OUT_VIEW: return numbered_name(name, "room_", ".png", 3, false);
    case CS_OUT_BENCH: return fixed_name(name, bench);
    }
    return false;
}

// The own files of a kind, for the refusal.
static const char *own_files_text(cs_out_kind kind)
{
    switch (kind) {
    case CS_OUT_RUN:
        return "stats.csv, frame_*.png, particles_*.ply/vtu, mesh_*.ply/obj/vtp, particles*.pvd, mesh*.pvd, "
               "screenshot_*.png, recording_*.mp4, checkpoint_*.ckpt, trace.png/pfm, patches.csv, radiosity.png, compare.png";
    case CS_OUT_SH: return "irradiance_sh.png, irradiance_brute.png, compare.png, coefficients.csv";
    case CS_OUT_VIEW: return "room_*.png";
    case CS_OUT_BENCH: return "results.json, results.csv, plot.png, plot.svg, plot.dat, plot.gp";
    }
    return "";
}

bool cs_prepare_out_dir(const char *dir, bool overwrite, cs_out_kind kind, cs_error *err)
{
    if (!dir[0])
        return cs_fail(err, "--out \"\": the output folder's path is empty; give a folder (e.g. --out out/mine), "
                            "or drop --out for the default");
    if (!cs_make_dirs(dir, err))
        return false;
    DIR *d = opendir(dir);
    if (!d)
        return cs_fail(err, "%s: cannot read the output directory: %s", dir, strerror(errno));
    uint32_t ours = 0, others = 0;
    char example[256] = "";
    bool ok = true;
    struct dirent *e;
    // First look, then delete: a refusal leaves everything as it was.
    while (ok && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        // Only regular files are ours: a directory called frame_00000.png
        // was made by someone else, and stays.
        char path[800];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        bool named = cs_is_own_output(kind, e->d_name), found = lstat(path, &st) == 0;
        if (named && found && S_ISLNK(st.st_mode)) {
            // stats.csv is written in place: through a link it would
            // overwrite whatever the link points to, outside --out.
            char target[512];
            ssize_t n = readlink(path, target, sizeof target - 1);
            target[n > 0 ? n : 0] = 0;
            ok = cs_fail(err, "%s: is a symbolic link (to %s), not a file cistern wrote; cistern never writes "
                              "through links, and --overwrite deletes only its own files: remove the link, or "
                              "choose another --out",
                         path, n > 0 ? target : "?");
            break;
        }
        bool own = named && found && S_ISREG(st.st_mode);
        if (!*example || (own && !ours))
            snprintf(example, sizeof example, "%s", e->d_name);
        own ? ours++ : others++;
    }
    if (ok && overwrite && ours) {
        rewinddir(d);
        while (ok && (e = readdir(d))) {
            char path[800];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            struct stat st;
            if (cs_is_own_output(kind, e->d_name) && lstat(path, &st) == 0 && S_ISREG(st.st_mode) && unlink(path) != 0)
                ok = cs_fail(err, "%s: cannot delete (--overwrite): %s", path, strerror(errno));
        }
    }
    closedir(d);
    if (!ok || overwrite || ours + others == 0)
        return ok;
    return cs_fail(err, "%s is not empty (%u entr%s, e.g. %s); an earlier run's files would mix with this "
                        "run's: choose another --out, or add --overwrite to delete cistern's own files there "
                        "(%s; nothing else)",
                   dir, ours + others, ours + others == 1 ? "y" : "ies", example, own_files_text(kind));
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
