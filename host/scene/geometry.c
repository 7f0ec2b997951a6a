// geometry.c — the scene's "geometry" key into a flat triangle list
// (geometry.h has the format and the refusal rules).
#define _GNU_SOURCE // fork, kill, strsignal, rlimits: the import runs in a child
#include "geometry.h"

#include <assimp/cfileio.h>
#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "file_io.h"

// The triangles being collected, grown as elements add theirs.
typedef struct tri_list {
    cs_tri *tris;
    uint32_t count, capacity;
} tri_list;

// What every triangle of one element shares.
typedef struct element_info {
    uint32_t index;
    float albedo[3];
    float emission[3];
} element_info;

static void sub3(const float a[3], const float b[3], double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (double)a[k] - (double)b[k];
}

static double length3(const double a[3])
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

bool cs_geometry_triangle_ok(const float v0[3], const float v1[3], const float v2[3], const char **why)
{
    for (int k = 0; k < 3; k++) {
        if (!isfinite(v0[k]) || !isfinite(v1[k]) || !isfinite(v2[k])) {
            *why = "has a vertex coordinate that is not a finite number (NaN or infinity)";
            return false;
        }
    }
    double e1[3], e2[3], e3[3], n[3];
    sub3(v1, v0, e1);
    sub3(v2, v0, e2);
    sub3(v2, v1, e3);
    cross3(e1, e2, n);
    double area2 = length3(n);
    double longest = fmax(length3(e1), fmax(length3(e2), length3(e3)));
    if (area2 == 0.0) {
        *why = "has zero area (its vertices are collinear or coincide)";
        return false;
    }
    if (area2 < CS_GEOMETRY_MIN_SHAPE * longest * longest) {
        *why = "is degenerate (a sliver: its area is below 1e-6 of its longest edge squared)";
        return false;
    }
    return true;
}

static bool add_triangle(tri_list *list, const element_info *element, const float v0[3], const float v1[3],
                         const float v2[3], cs_error *err)
{
    if (list->count == CS_GEOMETRY_MAX_TRIANGLES)
        return cs_fail(err, "more than %u triangles", CS_GEOMETRY_MAX_TRIANGLES);
    if (list->count == list->capacity) {
        uint32_t capacity = list->capacity ? list->capacity * 2 : 256;
        cs_tri *grown = realloc(list->tris, (size_t)capacity * sizeof *grown);
        if (!grown)
            return cs_fail(err, "out of memory for %u triangles", capacity);
        list->tris = grown;
        list->capacity = capacity;
    }
    cs_tri *t = &list->tris[list->count++];
    *t = (cs_tri){0};
    t->v0 = (vec4){v0[0], v0[1], v0[2], 0.0f};
    t->v1 = (vec4){v1[0], v1[1], v1[2], 0.0f};
    t->v2 = (vec4){v2[0], v2[1], v2[2], 0.0f};
    t->albedo = (vec4){element->albedo[0], element->albedo[1], element->albedo[2], 0.0f};
    t->emission = (vec4){element->emission[0], element->emission[1], element->emission[2], 0.0f};
    t->info = (uvec4){element->index, 0, 0, 0};
    return true;
}

// Adds one triangle of an element after the shape check; `what` names it
// in a refusal ("triangle 3 of the quad").
static bool add_checked(const cs_scene *scene, const char *path, const char *key, const char *what, tri_list *list,
                        const element_info *element, const float v0[3], const float v1[3], const float v2[3],
                        cs_error *err)
{
    const char *why = NULL;
    if (!cs_geometry_triangle_ok(v0, v1, v2, &why))
        return cs_scene_fail(scene, err, path, key, "%s %s: (%g %g %g) (%g %g %g) (%g %g %g)", what, why, v0[0],
                             v0[1], v0[2], v1[0], v1[1], v1[2], v2[0], v2[1], v2[2]);
    cs_error add_err = {0};
    if (!add_triangle(list, element, v0, v1, v2, &add_err))
        return cs_scene_fail(scene, err, path, key, "%s", add_err.msg);
    return true;
}

// [[x,y,z] x 4]
static bool parse_quad_vertices(const cs_scene *scene, const cJSON *quad, const char *path, float v[4][3],
                                cs_error *err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(quad, "vertices");
    if (!list)
        return cs_scene_fail(scene, err, path, "vertices", "missing: a quad is 4 vertices [[x,y,z], ...]");
    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) != 4)
        return cs_scene_fail(scene, err, path, "vertices", "must be an array of 4 vertices [[x,y,z], ...]");
    const cJSON *vertex = list->child;
    for (int i = 0; i < 4; i++, vertex = vertex->next) {
        if (!cJSON_IsArray(vertex) || cJSON_GetArraySize(vertex) != 3)
            return cs_scene_fail(scene, err, path, "vertices", "vertex %d must be an array of 3 numbers", i);
        const cJSON *c = vertex->child;
        for (int k = 0; k < 3; k++, c = c->next) {
            if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble))
                return cs_scene_fail(scene, err, path, "vertices", "vertex %d: coordinate %d is not a finite number",
                                     i, k);
            v[i][k] = (float)c->valuedouble;
        }
    }
    return true;
}

static bool add_quad(const cs_scene *scene, const cJSON *quad, const char *path, tri_list *list,
                     const element_info *element, cs_error *err)
{
    static const char *const keys[] = {"vertices", NULL};
    float v[4][3];
    if (!cJSON_IsObject(quad))
        return cs_scene_fail(scene, err, path, NULL, "must be an object {\"vertices\": [[x,y,z] x 4]}");
    if (!cs_json_check_keys(scene, quad, path, keys, err) || !parse_quad_vertices(scene, quad, path, v, err))
        return false;
    return add_checked(scene, path, "vertices", "triangle (v0, v1, v2)", list, element, v[0], v[1], v[2], err) &&
           add_checked(scene, path, "vertices", "triangle (v0, v2, v3)", list, element, v[0], v[2], v[3], err);
}

// The 8 corners of a box, corner c at (bit 0: x, bit 1: y, bit 2: z) of max.
static void box_corner(const float lo[3], const float hi[3], int c, float out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = (c >> k) & 1 ? hi[k] : lo[k];
}

static bool add_box(const cs_scene *scene, const cJSON *box, const char *path, tri_list *list,
                    const element_info *element, cs_error *err)
{
    static const char *const keys[] = {"min", "max", "inward", NULL};
    float lo[3] = {0}, hi[3] = {0};
    bool inward = false;
    if (!cJSON_IsObject(box))
        return cs_scene_fail(scene, err, path, NULL, "must be an object {\"min\": [x,y,z], \"max\": [x,y,z]}");
    if (!cs_json_check_keys(scene, box, path, keys, err))
        return false;
    if (!cJSON_GetObjectItemCaseSensitive(box, "min") || !cJSON_GetObjectItemCaseSensitive(box, "max"))
        return cs_scene_fail(scene, err, path, NULL, "needs \"min\" and \"max\"");
    if (!cs_json_vec(scene, box, path, "min", 3, lo, err) || !cs_json_vec(scene, box, path, "max", 3, hi, err) ||
        !cs_json_bool(scene, box, path, "inward", &inward, err))
        return false;
    for (int k = 0; k < 3; k++) {
        if (!(hi[k] > lo[k]))
            return cs_scene_fail(scene, err, path, "max", "must exceed min on every axis (axis %d: %g <= %g)", k,
                                 hi[k], lo[k]);
    }
    // Faces as corner quads turning counter-clockwise seen from outside:
    // -x, +x, -y, +y, -z, +z.
    static const int faces[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                    {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
    for (int f = 0; f < 6; f++) {
        float c[4][3];
        for (int i = 0; i < 4; i++)
            box_corner(lo, hi, faces[f][inward ? 3 - i : i], c[i]);
        if (!add_checked(scene, path, NULL, "a face", list, element, c[0], c[1], c[2], err) ||
            !add_checked(scene, path, NULL, "a face", list, element, c[0], c[2], c[3], err))
            return false;
    }
    return true;
}

// The mesh file's path: relative to the scene file's folder.
static void resolve_path(const cs_scene *scene, const char *file, char *out, size_t size)
{
    const char *slash = strrchr(scene->path, '/');
    if (file[0] == '/' || !slash)
        snprintf(out, size, "%s", file);
    else
        snprintf(out, size, "%.*s/%s", (int)(slash - scene->path), scene->path, file);
}

// ---- the import, in a child process ---------------------------------------
//
// assimp crashes and hangs on small hostile files (issue 28's audit, 4.2):
// a truncated binary PLY (SIGSEGV in post-processing), a glTF node chain
// 30 000 deep (stack overflow), a .glb chunk length of 0xFFFFFF00 (minutes
// and GBs), a PLY without end_header (never returns), an mtllib or buffer
// uri naming a FIFO (blocks), a glTF naming a 1 GB .bin. It reads
// companion files itself, past the 64 MiB check of the named one. So the
// import runs in a forked child with its address space, CPU time and wall
// time bounded; the child sends the triangles (or its refusal) through a
// pipe, and a child that dies or overruns is a refusal naming the file.

#define IMPORT_MEMORY ((rlim_t)1 << 30)  // bytes the child may add to its address space
#define IMPORT_SECONDS 20                // CPU and wall seconds

// A record of the pipe: a triangle's three positions, or (kind 1) the
// length of the refusal text that follows.
typedef struct import_record {
    uint32_t kind, mesh, face, length;
    float v[3][3];
} import_record;

static bool write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}

static void child_refuse(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void child_refuse(int fd, const char *fmt, ...)
{
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    import_record r = {.kind = 1, .length = (uint32_t)strlen(text)};
    write_all(fd, &r, sizeof r);
    write_all(fd, text, r.length);
}

// Every file assimp opens (the named one, an OBJ's mtllib, a glTF's
// buffers and images) goes through the bounded reader (file_io.h) into
// memory: a FIFO, a directory or a device is refused at once, a file past
// 64 MiB by its size (a glTF naming a 1 GB .bin took 988 MB). The first
// refusal is kept for the message.
typedef struct memory_file {
    char *data;
    size_t size, at;
} memory_file;

static cs_error io_refusal;
static bool io_refused;

static size_t io_read(struct aiFile *f, char *out, size_t size, size_t count)
{
    memory_file *m = (memory_file *)f->UserData;
    if (!size)
        return 0;
    size_t items = CS_MIN(count, (m->size - m->at) / size);
    memcpy(out, m->data + m->at, items * size);
    m->at += items * size;
    return items;
}

static size_t io_write(struct aiFile *f, const char *data, size_t size, size_t count)
{
    (void)f, (void)data, (void)size, (void)count;
    return 0;
}

static size_t io_tell(struct aiFile *f) { return ((memory_file *)f->UserData)->at; }
static size_t io_size(struct aiFile *f) { return ((memory_file *)f->UserData)->size; }
static void io_flush(struct aiFile *f) { (void)f; }

static enum aiReturn io_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    memory_file *m = (memory_file *)f->UserData;
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? m->at : m->size;
    if (offset > m->size - CS_MIN(base, m->size))
        return aiReturn_FAILURE;
    m->at = base + offset;
    return aiReturn_SUCCESS;
}

static struct aiFile *io_open(struct aiFileIO *io, const char *path, const char *mode)
{
    (void)io;
    if (strchr(mode, 'w') || strchr(mode, 'a'))
        return NULL;
    memory_file *m = calloc(1, sizeof *m);
    struct aiFile *f = calloc(1, sizeof *f);
    cs_error err;
    if (m && f)
        m->data = cs_read_file_max(path, CS_INPUT_FILE_MAX, "mesh files", &m->size, &err);
    if (!m || !f || !m->data) {
        if (m && f && !io_refused) {
            io_refusal = err;
            io_refused = true;
        }
        free(m);
        free(f);
        return NULL;
    }
    *f = (struct aiFile){io_read, io_write, io_tell, io_size, io_seek, io_flush, (aiUserData)m};
    return f;
}

static void io_close(struct aiFileIO *io, struct aiFile *f)
{
    (void)io;
    if (!f)
        return;
    free(((memory_file *)f->UserData)->data);
    free(f->UserData);
    free(f);
}

// The child: imports, checks every face's size and indices, sends every
// triangle; exits without returning.
static void import_child(const char *file, int fd)
{
    // Its own limits: address space (what it has now plus a budget, so
    // sanitizer reservations count as they are), CPU seconds, wall seconds.
    long pages = 0;
    FILE *statm = fopen("/proc/self/statm", "r");
    if (statm) {
        if (fscanf(statm, "%ld", &pages) != 1)
            pages = 0;
        fclose(statm);
    }
    rlim_t have = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
    setrlimit(RLIMIT_AS, &(struct rlimit){have + IMPORT_MEMORY, have + IMPORT_MEMORY});
    setrlimit(RLIMIT_CPU, &(struct rlimit){IMPORT_SECONDS, IMPORT_SECONDS + 1});
    setrlimit(RLIMIT_CORE, &(struct rlimit){0, 0});
    alarm(IMPORT_SECONDS);
    struct aiFileIO io = {io_open, io_close, NULL};
    const struct aiScene *ai = aiImportFileEx(file, aiProcess_Triangulate | aiProcess_PreTransformVertices, &io);
    if (!ai || !ai->mRootNode || (ai->mFlags & AI_SCENE_FLAGS_INCOMPLETE)) {
        if (io_refused)
            child_refuse(fd, "does not parse as a mesh: a file it names was refused: %s", io_refusal.msg);
        else
            child_refuse(fd, "does not parse as a mesh: %s", aiGetErrorString());
        _exit(0);
    }
    for (unsigned m = 0; m < ai->mNumMeshes; m++) {
        const struct aiMesh *mesh = ai->mMeshes[m];
        for (unsigned f = 0; f < mesh->mNumFaces; f++) {
            const struct aiFace *face = &mesh->mFaces[f];
            if (face->mNumIndices != 3) {
                child_refuse(fd, "mesh %u face %u has %u vertices: only triangles are drawn and lit (remove points "
                                 "and lines)", m, f, face->mNumIndices);
                _exit(0);
            }
            // The importer passes a file's indices through unchecked (a
            // negative one arrives as a huge unsigned value).
            import_record r = {.kind = 0, .mesh = m, .face = f};
            for (int i = 0; i < 3; i++) {
                unsigned vi = face->mIndices[i];
                if (!mesh->mVertices || vi >= mesh->mNumVertices) {
                    child_refuse(fd, "mesh %u face %u names vertex %lld, but the mesh has %u vertices (indices 0 to "
                                     "%u): fix the face's indices in the file",
                                 m, f, vi > INT32_MAX ? (long long)(int32_t)vi : (long long)vi, mesh->mNumVertices,
                                 mesh->mNumVertices ? mesh->mNumVertices - 1 : 0);
                    _exit(0);
                }
                const struct aiVector3D *p = &mesh->mVertices[vi];
                r.v[i][0] = p->x, r.v[i][1] = p->y, r.v[i][2] = p->z;
            }
            if (!write_all(fd, &r, sizeof r))
                _exit(1);
        }
    }
    import_record done = {.kind = 2};
    write_all(fd, &done, sizeof done);
    _exit(0);
}

// Reads exactly `size` bytes before the deadline (monotonic seconds);
// false at end of file, on an error or past the deadline.
static bool read_before(int fd, void *data, size_t size, double deadline)
{
    char *p = data;
    while (size) {
        int left_ms = (int)((deadline - cs_now_seconds()) * 1000.0);
        if (left_ms <= 0)
            return false;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, left_ms);
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            return false;
        ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        size -= (size_t)n;
    }
    return true;
}

// Imports `file` in a child and adds its triangles, scaled and moved.
static bool import_mesh(const cs_scene *scene, const char *path, const char *file, float scale,
                        const float translate[3], tri_list *list, const element_info *element, cs_error *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return cs_scene_fail(scene, err, path, "file", "%s: cannot start the mesh import: %s", file, strerror(errno));
    fflush(NULL); // nothing buffered is written twice by the child
    pid_t child = fork();
    if (child < 0) {
        close(fds[0]);
        close(fds[1]);
        return cs_scene_fail(scene, err, path, "file", "%s: cannot start the mesh import: %s", file, strerror(errno));
    }
    if (child == 0) {
        close(fds[0]);
        import_child(file, fds[1]);
    }
    close(fds[1]);
    double deadline = cs_now_seconds() + IMPORT_SECONDS + 2;
    uint32_t before = list->count;
    bool ok = true, done = false;
    char refusal[1100] = "";
    import_record r;
    while (ok && !done && read_before(fds[0], &r, sizeof r, deadline)) {
        if (r.kind == 2) {
            done = true;
        } else if (r.kind == 1) {
            uint32_t n = CS_MIN(r.length, (uint32_t)sizeof refusal - 1);
            if (!read_before(fds[0], refusal, n, deadline))
                n = 0;
            refusal[n] = 0;
            ok = false;
        } else {
            float v[3][3];
            for (int i = 0; i < 3; i++)
                for (int a = 0; a < 3; a++)
                    v[i][a] = r.v[i][a] * scale + translate[a];
            char what[128];
            snprintf(what, sizeof what, "%s: mesh %u triangle %u", file, r.mesh, r.face);
            if (!add_checked(scene, path, "file", what, list, element, v[0], v[1], v[2], err)) {
                kill(child, SIGKILL);
                refusal[0] = 0;
                ok = false;
                done = true; // err holds the refusal
            }
        }
    }
    close(fds[0]);
    if (!done && !refusal[0])
        kill(child, SIGKILL); // past the deadline, or its pipe closed early
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (!ok)
        return refusal[0] ? cs_scene_fail(scene, err, path, "file", "%s: %s", file, refusal) : false;
    if (!done) {
        if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGALRM || WTERMSIG(status) == SIGXCPU ||
                                    WTERMSIG(status) == SIGKILL))
            return cs_scene_fail(scene, err, path, "file", "%s: the mesh importer (assimp) took more than %d s on it "
                                 "and was stopped (a damaged file, or one that names a FIFO or device)",
                                 file, IMPORT_SECONDS);
        if (WIFSIGNALED(status))
            return cs_scene_fail(scene, err, path, "file", "%s: the mesh importer (assimp) crashed on it (%s; it may "
                                 "also have passed its %d GiB memory limit): the file is damaged",
                                 file, strsignal(WTERMSIG(status)), (int)(IMPORT_MEMORY >> 30));
        return cs_scene_fail(scene, err, path, "file", "%s: the mesh importer (assimp) stopped without an answer "
                             "(exit status %d; it may have passed its %d GiB memory limit)",
                             file, WIFEXITED(status) ? WEXITSTATUS(status) : -1, (int)(IMPORT_MEMORY >> 30));
    }
    if (list->count == before)
        return cs_scene_fail(scene, err, path, "file", "%s: has no triangles", file);
    return true;
}

static bool add_mesh(const cs_scene *scene, const cJSON *mesh, const char *path, tri_list *list,
                     const element_info *element, cs_error *err)
{
    static const char *const keys[] = {"file", "scale", "translate", NULL};
    if (!cJSON_IsObject(mesh))
        return cs_scene_fail(scene, err, path, NULL, "must be an object {\"file\": \"mesh.obj\"}");
    if (!cs_json_check_keys(scene, mesh, path, keys, err))
        return false;
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(mesh, "file");
    if (!cJSON_IsString(file) || !file->valuestring[0])
        return cs_scene_fail(scene, err, path, "file", "must be a file name (OBJ, PLY, glTF), relative to the scene");
    float scale = 1.0f, translate[3] = {0, 0, 0};
    if (!cs_json_float(scene, mesh, path, "scale", 1e-9f, 1e9f, &scale, err) ||
        !cs_json_vec(scene, mesh, path, "translate", 3, translate, err))
        return false;
    char resolved[1100];
    resolve_path(scene, file->valuestring, resolved, sizeof resolved);
    // assimp reads the file itself (glTF and OBJ name companion files), so
    // the size limit and the kind of file are checked here first.
    struct stat st;
    if (stat(resolved, &st) != 0)
        return cs_scene_fail(scene, err, path, "file", "%s: cannot be read", resolved);
    if (!S_ISREG(st.st_mode))
        return cs_scene_fail(scene, err, path, "file", "%s: is not a regular file", resolved);
    if ((unsigned long long)st.st_size > CS_INPUT_FILE_MAX)
        return cs_scene_fail(scene, err, path, "file", "%s: is larger than %d MiB", resolved, CS_INPUT_FILE_MAX_MIB);
    // A PLY whose header never ends kept assimp reading for ever; the
    // child's time limit would stop it, this says why at once.
    cs_error inner;
    size_t size = 0;
    char *bytes = cs_read_file_max(resolved, CS_INPUT_FILE_MAX, "mesh files", &size, &inner);
    if (!bytes)
        return cs_scene_fail(scene, err, path, "file", "%s", inner.msg);
    bool unfinished = size >= 4 && memcmp(bytes, "ply", 3) == 0 && (bytes[3] == '\n' || bytes[3] == '\r') &&
                      !strstr(bytes, "end_header");
    free(bytes);
    if (unfinished)
        return cs_scene_fail(scene, err, path, "file", "%s: a PLY header without end_header: the file is cut short "
                             "or is not a PLY", resolved);
    return import_mesh(scene, path, resolved, scale, translate, list, element, err);
}

static bool parse_element(const cs_scene *scene, const cJSON *entry, uint32_t index, tri_list *list, cs_error *err)
{
    char path[48];
    snprintf(path, sizeof path, "geometry[%u]", index);
    if (!cJSON_IsObject(entry))
        return cs_scene_fail(scene, err, path, NULL, "must be an object {\"box\" | \"quad\" | \"mesh\": {...}, "
                             "\"albedo\": [r,g,b]}");
    static const char *const keys[] = {"box", "quad", "mesh", "albedo", "emission", NULL};
    if (!cs_json_check_keys(scene, entry, path, keys, err))
        return false;
    element_info element = {.index = index, .albedo = {0.5f, 0.5f, 0.5f}};
    if (!cs_json_vec(scene, entry, path, "albedo", 3, element.albedo, err) ||
        !cs_json_vec(scene, entry, path, "emission", 3, element.emission, err))
        return false;
    for (int k = 0; k < 3; k++) {
        if (element.albedo[k] < 0.0f || element.albedo[k] > 1.0f)
            return cs_scene_fail(scene, err, path, "albedo", "must be in [0, 1] per channel (got %g)",
                                 element.albedo[k]);
        if (!(element.emission[k] >= 0.0f && element.emission[k] <= CS_GEOMETRY_MAX_EMISSION))
            return cs_scene_fail(scene, err, path, "emission",
                                 "must be 0 to %g per channel (got %g): larger exitance overflows the light "
                                 "sums in float",
                                 (double)CS_GEOMETRY_MAX_EMISSION, element.emission[k]);
    }
    const cJSON *box = cJSON_GetObjectItemCaseSensitive(entry, "box");
    const cJSON *quad = cJSON_GetObjectItemCaseSensitive(entry, "quad");
    const cJSON *mesh = cJSON_GetObjectItemCaseSensitive(entry, "mesh");
    if ((box != NULL) + (quad != NULL) + (mesh != NULL) != 1)
        return cs_scene_fail(scene, err, path, NULL, "needs exactly one shape: \"box\", \"quad\" or \"mesh\"");
    char shape_path[64];
    snprintf(shape_path, sizeof shape_path, "%s.%s", path, box ? "box" : quad ? "quad" : "mesh");
    if (box)
        return add_box(scene, box, shape_path, list, &element, err);
    if (quad)
        return add_quad(scene, quad, shape_path, list, &element, err);
    return add_mesh(scene, mesh, shape_path, list, &element, err);
}

bool cs_geometry_parse(const cs_scene *scene, const cJSON *array, cs_geometry *geometry, cs_error *err)
{
    *geometry = (cs_geometry){0};
    if (!cJSON_IsArray(array))
        return cs_scene_fail(scene, err, "", "geometry", "must be an array of elements [{\"box\": ...}, ...]");
    tri_list list = {0};
    uint32_t index = 0;
    for (const cJSON *entry = array->child; entry; entry = entry->next, index++) {
        if (!parse_element(scene, entry, index, &list, err)) {
            free(list.tris);
            return false;
        }
    }
    geometry->tris = list.tris;
    geometry->tri_count = list.count;
    geometry->element_count = index;
    return true;
}

void cs_geometry_free(cs_geometry *geometry)
{
    if (!geometry)
        return;
    free(geometry->tris);
    *geometry = (cs_geometry){0};
}

double cs_geometry_area(const cs_geometry *geometry)
{
    double area = 0.0;
    for (uint32_t i = 0; i < geometry->tri_count; i++) {
        const cs_tri *t = &geometry->tris[i];
        float v0[3] = {t->v0.x, t->v0.y, t->v0.z}, v1[3] = {t->v1.x, t->v1.y, t->v1.z};
        float v2[3] = {t->v2.x, t->v2.y, t->v2.z};
        double e1[3], e2[3], n[3];
        sub3(v1, v0, e1);
        sub3(v2, v0, e2);
        cross3(e1, e2, n);
        area += 0.5 * length3(n);
    }
    return area;
}
