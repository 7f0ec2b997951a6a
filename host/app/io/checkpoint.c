// checkpoint.c — see checkpoint.h.
#define _GNU_SOURCE
#include "checkpoint.h"

#include "file_io.h"
#include "world_state.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(sizeof(cs_ckpt_header) == CS_CKPT_HEADER_BYTES, "the checkpoint header is 512 bytes");

static const char ckpt_magic[8] = {'C', 'S', 'T', 'R', 'N', 'C', 'K', 'P'};

uint64_t cs_fnv1a64(uint64_t hash, const void *data, size_t size)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < size; i++) {
        hash ^= p[i];
        hash *= 0x100000001b3ull;
    }
    return hash;
}

static bool hash_file(uint64_t *hash, const char *path, cs_error *err)
{
    size_t size;
    char *bytes = cs_read_input_file(path, CS_INPUT_FILE_MAX, &size, err);
    if (!bytes)
        return false;
    *hash = cs_fnv1a64(*hash, bytes, size);
    free(bytes);
    return true;
}

bool cs_ckpt_scene_hash(const cs_scene *scene, uint32_t particles, uint64_t *hash, cs_error *err)
{
    uint64_t h = CS_FNV64_START;
    // The tree the world was built from: the file with its --set edits (and,
    // after a scene reload, the file as reloaded), not the file's bytes
    // alone, so a state never resumes under other parameters. A scene made
    // without a tree (tests) falls back to the file.
    char *tree = scene->json ? cJSON_PrintUnformatted(scene->json) : NULL;
    if (tree) {
        h = cs_fnv1a64(h, tree, strlen(tree));
        cJSON_free(tree);
    } else if (!hash_file(&h, scene->path, err)) {
        return false;
    }
    if (scene->level.enabled && !hash_file(&h, scene->level.file, err))
        return false;
    char options[64];
    int n = snprintf(options, sizeof options, "--particles %u", particles);
    *hash = cs_fnv1a64(h, options, (size_t)n);
    return true;
}

static uint64_t header_checksum(cs_ckpt_header h)
{
    h.header_checksum = 0;
    return cs_fnv1a64(CS_FNV64_START, &h, sizeof h);
}

// ---- the payload: parts, each its entries ----


// A live buffer (sim.h) loads any count of elements that fits it.
static bool entry_fits(const cs_state_entry *e, uint64_t bytes)
{
    if (e->live)
        return e->buffer->buffer && bytes <= e->buffer->size;
    return bytes == e->bytes;
}

typedef struct payload_writer {
    FILE *f;
    uint64_t written, checksum;
    uint64_t die_at; // the test hook: SIGKILL once this many bytes are written (0: never)
    int error;       // errno of the first failed write (0: none)
} payload_writer;

static void put(payload_writer *w, const void *data, size_t size)
{
    const uint8_t *p = data;
    while (size) {
        size_t n = size;
        if (w->die_at && w->written < w->die_at && w->written + n >= w->die_at)
            n = (size_t)(w->die_at - w->written);
        if (w->error)
            return;
        errno = 0;
        if (n && fwrite(p, 1, n, w->f) != n) {
            w->error = errno ? errno : EIO;
            return;
        }
        w->checksum = cs_fnv1a64(w->checksum, p, n);
        w->written += n;
        p += n, size -= n;
        if (w->die_at && w->written == w->die_at) {
            // CISTERN_TEST_CHECKPOINT_KILL: the half-written temporary file
            // is on disk, as a kill in the middle of the write leaves it.
            fflush(w->f);
            fsync(fileno(w->f));
            raise(SIGKILL);
        }
    }
}

static void put_string(payload_writer *w, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    put(w, &n, 4);
    put(w, s, n);
}

static uint64_t payload_size(const cs_world_part_state *parts, uint32_t count)
{
    uint64_t total = 0;
    for (uint32_t p = 0; p < count; p++) {
        total += 4 + strlen(parts[p].name) + 4;
        for (uint32_t i = 0; i < parts[p].count; i++)
            total += 4 + strlen(parts[p].entries[i].name) + 8 + parts[p].entries[i].bytes;
    }
    return total;
}

// The largest payload this world's parts can be (live buffers full): a
// header that says more is refused before anything is read.
static uint64_t payload_max(const cs_world_part_state *parts, uint32_t count)
{
    uint64_t total = payload_size(parts, count);
    for (uint32_t p = 0; p < count; p++)
        for (uint32_t i = 0; i < parts[p].count; i++)
            if (parts[p].entries[i].live)
                total += parts[p].entries[i].buffer->size - parts[p].entries[i].bytes;
    return total;
}

static bool write_payload(cs_world *world, payload_writer *w, const cs_world_part_state *parts, uint32_t count,
                          cs_error *err)
{
    for (uint32_t p = 0; p < count; p++) {
        put_string(w, parts[p].name);
        put(w, &parts[p].count, 4);
        for (uint32_t i = 0; i < parts[p].count; i++) {
            const cs_state_entry *e = &parts[p].entries[i];
            uint64_t bytes = e->bytes;
            put_string(w, e->name);
            put(w, &bytes, 8);
            if (!e->buffer) {
                put(w, e->host, e->bytes);
                continue;
            }
            if (!bytes)
                continue;
            void *data = malloc(bytes);
            if (!data)
                return cs_fail(err, "out of host memory reading back %s: %s (%llu bytes)", parts[p].name, e->name,
                               (unsigned long long)bytes);
            cs_buffer_download(world->ctx, e->buffer, data, bytes, 0);
            put(w, data, bytes);
            free(data);
        }
    }
    return true;
}

// ---- the files ----

// checkpoint_NNNNN.ckpt or .ckpt.tmp: *frame gets NNNNN (five digits or
// more: "%05u" writes six past frame 99,999), *tmp whether it is a
// temporary file.
static bool ckpt_file_frame(const char *name, uint32_t *frame, bool *tmp)
{
    static const char prefix[] = "checkpoint_";
    if (strncmp(name, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *p = name + sizeof prefix - 1;
    uint64_t n = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 11; p++, digits++)
        n = n * 10 + (uint64_t)(*p - '0');
    if (digits < 5 || digits > 10 || n > UINT32_MAX)
        return false;
    *tmp = strcmp(p, ".ckpt.tmp") == 0;
    if (!*tmp && strcmp(p, ".ckpt") != 0)
        return false;
    *frame = (uint32_t)n;
    return true;
}

bool cs_ckpt_is_file_name(const char *name)
{
    uint32_t frame;
    bool tmp;
    return ckpt_file_frame(name, &frame, &tmp);
}

// After checkpoint `frame` was written: every other checkpoint in `dir`
// but the latest one before it is deleted, and any temporary file an
// interrupted write left. Later frames than `frame` are a killed run's,
// past the frame this run resumed at: they go too.
static void keep_last_two(const char *dir, uint32_t frame)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    int64_t previous = -1;
    struct dirent *e;
    uint32_t n;
    bool tmp;
    while ((e = readdir(d))) {
        if (ckpt_file_frame(e->d_name, &n, &tmp) && !tmp && n < frame && (int64_t)n > previous)
            previous = n;
    }
    rewinddir(d);
    while ((e = readdir(d))) {
        if (!ckpt_file_frame(e->d_name, &n, &tmp))
            continue;
        if (tmp || (n != frame && (int64_t)n != previous)) {
            char path[1024];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    }
    closedir(d);
}

static void fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

bool cs_ckpt_write(cs_world *world, const char *dir, uint32_t frame, uint64_t scene_hash, char *path_out,
                   size_t path_size, uint64_t *bytes, cs_error *err)
{
    cs_world_part_state *parts = calloc(CS_WORLD_MAX_PARTS, sizeof *parts);
    if (!parts)
        return cs_fail(err, "out of host memory for a checkpoint's table");
    uint32_t count;
    if (!cs_world_state_parts(world, parts, &count, err)) {
        free(parts);
        return false;
    }
    char path[1024], tmp[1040];
    snprintf(path, sizeof path, "%s/checkpoint_%05u.ckpt", dir, frame);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        int why = errno;
        if (fd >= 0)
            close(fd);
        free(parts);
        return cs_fail(err, "%s: cannot write a checkpoint: %s", tmp, strerror(why));
    }
    cs_ckpt_header h = {.version = CS_CKPT_VERSION,
                        .header_bytes = CS_CKPT_HEADER_BYTES,
                        .scene_hash = scene_hash,
                        .frame = frame,
                        .vendor_id = world->ctx->props.vendorID,
                        .device_id = world->ctx->props.deviceID,
                        .driver_version = world->ctx->props.driverVersion};
    memcpy(h.magic, ckpt_magic, sizeof h.magic);
    cs_context_device_string(world->ctx, h.device, sizeof h.device);
    snprintf(h.scene_name, sizeof h.scene_name, "%s", world->scene->name);
    // The header goes in last, over zeros: a file cut short before then
    // has no magic and is never taken for a checkpoint.
    cs_ckpt_header blank = {0};
    fwrite(&blank, sizeof blank, 1, f);
    payload_writer w = {.f = f, .checksum = CS_FNV64_START};
    uint64_t total = payload_size(parts, count);
    const char *kill_at = getenv("CISTERN_TEST_CHECKPOINT_KILL");
    if (kill_at && (uint32_t)strtoul(kill_at, NULL, 10) == frame)
        w.die_at = total / 2 ? total / 2 : 1;
    bool ok = write_payload(world, &w, parts, count, err);
    free(parts);
    if (ok && w.error)
        ok = cs_fail(err, "%s: cannot write a checkpoint (%llu of %llu bytes written): %s", tmp,
                     (unsigned long long)w.written, (unsigned long long)total, strerror(w.error));
    h.payload_bytes = total;
    h.payload_checksum = w.checksum;
    h.header_checksum = header_checksum(h);
    int why = 0;
    if (ok) {
        errno = 0;
        if (fflush(f) != 0 || ferror(f) || fseek(f, 0, SEEK_SET) != 0 || fwrite(&h, sizeof h, 1, f) != 1 ||
            fflush(f) != 0 || fsync(fileno(f)) != 0)
            why = errno ? errno : EIO;
    }
    if (fclose(f) != 0 && !why)
        why = errno ? errno : EIO;
    if (ok && why)
        ok = cs_fail(err, "%s: cannot write a checkpoint: %s", tmp, strerror(why));
    if (ok && rename(tmp, path) != 0)
        ok = cs_fail(err, "%s: cannot rename %s onto it: %s", path, tmp, strerror(errno));
    if (!ok) {
        unlink(tmp); // the previous checkpoints stay as they were
        return false;
    }
    fsync_dir(dir);
    keep_last_two(dir, frame);
    if (path_out)
        snprintf(path_out, path_size, "%s", path);
    if (bytes)
        *bytes = CS_CKPT_HEADER_BYTES + total;
    return true;
}

// ---- the read ----

static bool read_exact(int fd, void *data, size_t size)
{
    uint8_t *p = data;
    while (size) {
        ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n, size -= (size_t)n;
    }
    return true;
}

// Opens `path` as a regular file and reads its header, checked; *file_size
// gets the file's size, *fd_out the open file (or -1 on failure).
static bool open_checked(const char *path, cs_ckpt_header *h, uint64_t *file_size, int *fd_out, cs_error *err)
{
    *fd_out = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return cs_fail(err, "--resume %s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return cs_fail(err, "--resume %s: not a regular file; give a checkpoint_NNNNN.ckpt that "
                            "--checkpoint-every wrote", path);
    }
    *file_size = (uint64_t)st.st_size;
    if (*file_size < CS_CKPT_HEADER_BYTES || !read_exact(fd, h, sizeof *h)) {
        close(fd);
        return cs_fail(err, "--resume %s: truncated: %llu bytes, shorter than a checkpoint's %u-byte header",
                       path, (unsigned long long)*file_size, CS_CKPT_HEADER_BYTES);
    }
    if (memcmp(h->magic, ckpt_magic, sizeof h->magic) != 0) {
        close(fd);
        return cs_fail(err, "--resume %s: not a cistern checkpoint (no \"CSTRNCKP\" at its start; an interrupted "
                            "write leaves zeros there)", path);
    }
    if (h->version != CS_CKPT_VERSION) {
        close(fd);
        return cs_fail(err, "--resume %s: checkpoint format version %u; this cistern reads version %u only: "
                            "resume it with the cistern that wrote it, or start the run again",
                       path, h->version, CS_CKPT_VERSION);
    }
    uint64_t sum = header_checksum(*h);
    if (h->header_bytes != CS_CKPT_HEADER_BYTES || sum != h->header_checksum) {
        close(fd);
        return cs_fail(err, "--resume %s: corrupted: the header's checksum is %016llx, it says %016llx",
                       path, (unsigned long long)sum, (unsigned long long)h->header_checksum);
    }
    h->device[sizeof h->device - 1] = 0;
    h->scene_name[sizeof h->scene_name - 1] = 0;
    uint64_t expected = CS_CKPT_HEADER_BYTES + h->payload_bytes;
    if (*file_size != expected) {
        close(fd);
        return cs_fail(err, "--resume %s: %s: %llu bytes, its header says %llu", path,
                       *file_size < expected ? "truncated" : "longer than written",
                       (unsigned long long)*file_size, (unsigned long long)expected);
    }
    *fd_out = fd;
    return true;
}

static bool check_scene(const char *path, const cs_ckpt_header *h, uint64_t scene_hash, const char *scene_name,
                        cs_error *err)
{
    if (h->scene_hash == scene_hash)
        return true;
    return cs_fail(err, "--resume %s: made from another scene: the checkpoint's is \"%s\" (hash %016llx), this "
                        "run's is \"%s\" (hash %016llx; the hash covers the scene as the world was built from it: the file with its --set edits, as last reloaded, its level and --particles)",
                   path, h->scene_name, (unsigned long long)h->scene_hash, scene_name,
                   (unsigned long long)scene_hash);
}

static bool check_payload(const char *path, const cs_ckpt_header *h, uint64_t sum, cs_error *err)
{
    if (sum == h->payload_checksum)
        return true;
    return cs_fail(err, "--resume %s: corrupted: the payload's checksum is %016llx, the header says %016llx", path,
                   (unsigned long long)sum, (unsigned long long)h->payload_checksum);
}

bool cs_ckpt_check(const char *path, uint64_t scene_hash, const char *scene_name, cs_ckpt_header *header,
                   cs_error *err)
{
    uint64_t size;
    int fd;
    if (!open_checked(path, header, &size, &fd, err))
        return false;
    if (!check_scene(path, header, scene_hash, scene_name, err)) {
        close(fd);
        return false;
    }
    // The payload is read and checked by cs_ckpt_load, once the world
    // gives its largest size: a header that says more is refused there
    // before a byte of it is read.
    close(fd);
    return true;
}

typedef struct payload_reader {
    const uint8_t *data;
    uint64_t size, at;
} payload_reader;

static bool take(payload_reader *r, void *out, uint64_t size)
{
    if (size > r->size - r->at)
        return false;
    if (out)
        memcpy(out, r->data + r->at, size);
    r->at += size;
    return true;
}

static bool take_string(payload_reader *r, char *out, size_t out_size)
{
    uint32_t n;
    if (!take(r, &n, 4) || n >= out_size || !take(r, out, n))
        return false;
    out[n] = 0;
    return true;
}

// Walks the payload against the world's parts; with `apply`, uploads and
// copies each entry. The first pass (apply false) checks everything, so a
// refusal leaves the world untouched.
static bool walk_payload(cs_world *world, const char *path, payload_reader *r, const cs_world_part_state *parts,
                         uint32_t count, bool apply, const uint8_t *(*loaded)[CS_STATE_MAX_ENTRIES], cs_error *err)
{
    r->at = 0;
    char name[128];
    for (uint32_t p = 0; p < count; p++) {
        const cs_world_part_state *part = &parts[p];
        uint32_t entries;
        if (!take_string(r, name, sizeof name) || !take(r, &entries, 4))
            return cs_fail(err, "--resume %s: the payload ends inside part %u", path, p);
        if (strcmp(name, part->name) != 0 || entries != part->count)
            return cs_fail(err, "--resume %s: part %u is \"%s\" with %u entries; this world's is \"%s\" with %u "
                                "(a checkpoint of another world)", path, p, name, entries, part->name, part->count);
        for (uint32_t i = 0; i < entries; i++) {
            const cs_state_entry *e = &part->entries[i];
            uint64_t bytes;
            if (!take_string(r, name, sizeof name) || !take(r, &bytes, 8))
                return cs_fail(err, "--resume %s: the payload ends inside %s", path, part->name);
            if (strcmp(name, e->name) != 0 || !entry_fits(e, bytes))
                return cs_fail(err, "--resume %s: %s: entry %u is %s of %llu bytes; this world's is %s of %s%llu",
                               path, part->name, i, name, (unsigned long long)bytes, e->name,
                               e->live ? "at most " : "",
                               (unsigned long long)(e->live ? e->buffer->size : e->bytes));
            const uint8_t *data = r->data + r->at;
            if (!take(r, NULL, bytes))
                return cs_fail(err, "--resume %s: the payload ends inside %s: %s", path, part->name, e->name);
            if (loaded)
                loaded[p][i] = data;
            if (!apply || !bytes)
                continue;
            if (e->buffer)
                cs_buffer_upload(world->ctx, e->buffer, data, bytes, 0);
            else
                memcpy(e->host, data, bytes);
        }
    }
    if (r->at != r->size)
        return cs_fail(err, "--resume %s: %llu payload bytes past the world's last part", path,
                       (unsigned long long)(r->size - r->at));
    return true;
}

// ---- the values: every entry against its row's range (sim.h cs_state_range) ----

// The checkpoint's uint32_t of the host member at `at` of a part's instance
// (a count, a current index), found among the part's entries; false when
// the part does not save it.
static bool loaded_u32(const cs_world_part_state *part, const uint8_t *const *loaded, const void *at, uint32_t *out)
{
    for (uint32_t i = 0; i < part->count; i++)
        if (!part->entries[i].buffer && part->entries[i].host == at) {
            memcpy(out, loaded[i], 4);
            return true;
        }
    return false;
}

// One entry's loaded bytes against its row; false with `why`.
static bool check_entry(const cs_world_part_state *part, const uint8_t *const *loaded, const cs_state_entry *e,
                        const uint8_t *data, uint64_t bytes, char *why, size_t why_size)
{
    const cs_state_row *row = e->row;
    const uint8_t *base = e->base;
    if (row->current_only) {
        uint32_t cur;
        if (loaded_u32(part, loaded, base + row->current_offset, &cur) && cur != e->index)
            return true; // the alternate: written before anything reads it
    }
    if (e->live) {
        // The live elements are the loaded count's, no more and no fewer.
        uint32_t count, capacity = *(const uint32_t *)(base + row->capacity_offset);
        uint64_t per = capacity ? e->buffer->size / capacity : 0;
        if (loaded_u32(part, loaded, base + row->count_offset, &count) && bytes != per * count)
            return snprintf(why, why_size, "%llu bytes, but the checkpoint's count of %u makes %llu",
                            (unsigned long long)bytes, count, (unsigned long long)(per * count)), false;
    }
    uint64_t n = bytes / 4; // words, each copied out (the payload is not aligned)
    switch (row->range) {
    case CS_STATE_ANY_BITS:
        return true;
    case CS_STATE_MAX:
        for (uint64_t k = 0; k < n; k++) {
            uint32_t v;
            memcpy(&v, data + 4 * k, 4);
            if (v > row->max)
                return snprintf(why, why_size, "word %llu is %u; at most %u", (unsigned long long)k, v, row->max),
                       false;
        }
        return true;
    case CS_STATE_AT_MOST: {
        uint32_t v, limit = *(const uint32_t *)(base + row->limit_offset);
        memcpy(&v, data, 4);
        if (v > limit)
            return snprintf(why, why_size, "%u, past this world's capacity of %u", v, limit), false;
        return true;
    }
    case CS_STATE_FINITE:
        for (uint64_t k = 0; k < n; k++) {
            float v;
            memcpy(&v, data + 4 * k, 4);
            if (!isfinite(v))
                return snprintf(why, why_size, "float %llu (element %llu, component %llu) is %g",
                                (unsigned long long)k, (unsigned long long)(k / 4), (unsigned long long)(k % 4),
                                (double)v), false;
        }
        return true;
    case CS_STATE_CHECK: {
        // The row's check reads whole structs: give it an aligned copy.
        void *copy = malloc(bytes ? bytes : 1);
        if (!copy)
            return snprintf(why, why_size, "out of host memory to check its %llu bytes", (unsigned long long)bytes),
                   false;
        memcpy(copy, data, bytes);
        bool ok = row->check(base, copy, bytes, why, why_size);
        free(copy);
        return ok;
    }
    }
    return snprintf(why, why_size, "its row names no range (a table error)"), false;
}

// Every entry's values against the world it is about to be loaded into,
// before anything is uploaded: the host fields first (the counts and
// current indices the buffers' checks read), then the buffers.
static bool check_values(const char *path, const cs_world_part_state *parts, uint32_t count,
                         const uint8_t *(*loaded)[CS_STATE_MAX_ENTRIES], cs_error *err)
{
    for (int buffers = 0; buffers < 2; buffers++)
        for (uint32_t p = 0; p < count; p++)
            for (uint32_t i = 0; i < parts[p].count; i++) {
                const cs_state_entry *e = &parts[p].entries[i];
                if ((e->buffer != NULL) != (buffers == 1) || (e->buffer && !e->bytes && !e->live))
                    continue;
                // The entry's byte count was checked by walk_payload: the
                // host field's size, at most the buffer's.
                uint64_t bytes;
                memcpy(&bytes, loaded[p][i] - 8, 8);
                char why[512];
                if (!check_entry(&parts[p], loaded[p], e, loaded[p][i], bytes, why, sizeof why))
                    return cs_fail(err, "--resume %s: %s: entry %s: %s; a checkpoint only holds values the run "
                                        "that wrote it can make: this one was edited or damaged past its checksum, "
                                        "or made by another build; resume from another checkpoint or start the run "
                                        "again", path, parts[p].name, e->name, why);
            }
    return true;
}

bool cs_ckpt_load(cs_world *world, const char *path, uint64_t scene_hash, uint32_t *frame, char *warning,
                  size_t warning_size, cs_error *err)
{
    warning[0] = 0;
    cs_ckpt_header h;
    uint64_t file_size;
    int fd;
    if (!open_checked(path, &h, &file_size, &fd, err))
        return false;
    if (!check_scene(path, &h, scene_hash, world->scene->name, err)) {
        close(fd);
        return false;
    }
    cs_world_part_state *parts = calloc(CS_WORLD_MAX_PARTS, sizeof *parts);
    uint32_t count = 0;
    if (!parts) {
        close(fd);
        return cs_fail(err, "out of host memory for a checkpoint's table");
    }
    if (!cs_world_state_parts(world, parts, &count, err)) {
        close(fd);
        free(parts);
        return false;
    }
    // The header's size against what this world can hold, before the
    // payload is read (a 2 GiB file would be read whole first).
    uint64_t most = payload_max(parts, count);
    if (h.payload_bytes > most) {
        close(fd);
        free(parts);
        return cs_fail(err, "--resume %s: its header says %llu payload bytes; this world's state is at most %llu "
                            "(every part's entries, particle buffers full): not a checkpoint of this world",
                       path, (unsigned long long)h.payload_bytes, (unsigned long long)most);
    }
    uint8_t *data = h.payload_bytes ? malloc(h.payload_bytes) : NULL;
    if (h.payload_bytes && !data) {
        close(fd);
        free(parts);
        return cs_fail(err, "--resume %s: out of host memory for its %llu payload bytes", path,
                       (unsigned long long)h.payload_bytes);
    }
    bool got = read_exact(fd, data, h.payload_bytes);
    close(fd);
    if (!got) {
        free(data);
        free(parts);
        return cs_fail(err, "--resume %s: cannot read its payload: %s", path, strerror(errno ? errno : EIO));
    }
    if (!check_payload(path, &h, cs_fnv1a64(CS_FNV64_START, data, h.payload_bytes), err)) {
        free(data);
        free(parts);
        return false;
    }
    bool ok = true;
    const uint8_t *(*loaded)[CS_STATE_MAX_ENTRIES] = calloc(CS_WORLD_MAX_PARTS, sizeof *loaded);
    if (ok && !loaded)
        ok = cs_fail(err, "out of host memory for a checkpoint's table");
    payload_reader r = {.data = data, .size = h.payload_bytes};
    ok = ok && walk_payload(world, path, &r, parts, count, false, loaded, err) &&
         check_values(path, parts, count, loaded, err) && walk_payload(world, path, &r, parts, count, true, NULL, err);
    free(loaded);
    free(parts);
    free(data);
    if (!ok)
        return false;
    cs_world_state_loaded(world);
    *frame = h.frame;
    char here[256];
    cs_context_device_string(world->ctx, here, sizeof here);
    if (h.vendor_id != world->ctx->props.vendorID || h.device_id != world->ctx->props.deviceID ||
        h.driver_version != world->ctx->props.driverVersion || strcmp(h.device, here) != 0)
        snprintf(warning, warning_size, "--resume %s: written on %s, resumed on %s: the run goes on, but its "
                                        "bits will differ from those the first device would have made",
                 path, h.device, here);
    return true;
}

// ---- the run's stats.csv ----

bool cs_ckpt_stats_kept(const char *path, uint32_t frame, long long *keep, uint32_t *rows, char (*passes)[48],
                        uint32_t max_passes, uint32_t *pass_count, cs_error *err)
{
    *keep = 0, *rows = 0, *pass_count = 0;
    struct stat st;
    if (lstat(path, &st) != 0 && errno == ENOENT)
        return true;
    size_t size;
    char *text = cs_read_file_max(path, (size_t)1 << 30, "stats tables", &size, err);
    if (!text)
        return false;
    char *line = text, *end = text + size;
    // The header: frame,time_s,...,gpu_ms:PASS,...
    char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl || strncmp(line, "frame,", 6) != 0) {
        free(text);
        return true; // no whole header: the resumed run writes it again
    }
    *nl = 0;
    for (char *col = strstr(line, ",gpu_ms:"); col && *pass_count < max_passes; col = strstr(col + 1, ",gpu_ms:")) {
        const char *name = col + 8;
        size_t n = strcspn(name, ",");
        snprintf(passes[*pass_count], 48, "%.*s", (int)CS_MIN(n, (size_t)47), name);
        (*pass_count)++;
    }
    line = nl + 1;
    while (line < end) {
        nl = memchr(line, '\n', (size_t)(end - line));
        // The row's frame, read by hand: sscanf measures the whole rest of
        // the text at every row (30 s for a run of 100 000 frames).
        uint64_t row = 0;
        const char *c = line;
        while (nl && c < nl && *c >= '0' && *c <= '9' && row <= UINT32_MAX)
            row = row * 10 + (uint64_t)(*c++ - '0');
        if (!nl || c == line || *c != ',' || row >= frame)
            break; // a row cut by the kill, or one of a frame the resumed run simulates again
        line = nl + 1;
        (*rows)++;
    }
    *keep = (long long)(line - text);
    free(text);
    return true;
}
