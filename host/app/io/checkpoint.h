// checkpoint.h — `cistern run --checkpoint-every K` and `--resume FILE`:
// the whole world state in one file, written atomically, read back so that
// a resumed run continues bit for bit (docs/usage.md, "Checkpoints").
//
// A checkpoint is a 512-byte header, then the payload: every part of the
// world (world_state.h) with its entries in table order, each entry its
// name, its byte count and its bytes (a GPU buffer read back whole, or
// host fields). Little-endian, as the machines that run cistern are.
//
//   header: magic "CSTRNCKP", format version, header size, the scene's
//           hash, the frame it continues at, the payload's size and
//           checksum (64-bit FNV-1a), the device and driver it was made
//           on, the scene's name, and a checksum of the header itself.
//
// The write: DIR/checkpoint_NNNNN.ckpt.tmp, written, flushed, fsync'd,
// renamed onto checkpoint_NNNNN.ckpt (NNNNN: the frame a resume starts
// at), the folder fsync'd; then every other checkpoint but the previous
// one is deleted, so the last two are kept and a kill at any moment leaves
// at least one whole checkpoint.
//
// The read refuses (with what differs) a file that is not a checkpoint,
// another format version, a header or payload whose checksum does not
// match (corrupted), a file shorter or longer than its header says
// (truncated), another scene, a payload whose parts do not match the
// world's tables, and a value out of its row's range (a count past its
// capacity, an index above 1, a NaN position: sim.h cs_state_range),
// all before anything is uploaded; another device or driver is a warning (the bits of the
// continuation will differ from what that device would have made).
#pragma once

#include "common.h"
#include "world.h"

#define CS_CKPT_VERSION 1u
#define CS_CKPT_HEADER_BYTES 512u

typedef struct cs_ckpt_header {
    char magic[8];            // "CSTRNCKP"
    uint32_t version;         // CS_CKPT_VERSION
    uint32_t header_bytes;    // CS_CKPT_HEADER_BYTES
    uint64_t header_checksum; // FNV-1a 64 of the header with this field 0
    uint64_t scene_hash;      // cs_ckpt_scene_hash
    uint64_t payload_bytes;
    uint64_t payload_checksum; // FNV-1a 64 of the payload
    uint32_t frame;           // simulated frames done: the resumed run's first frame
    uint32_t vendor_id, device_id, driver_version;
    char device[256];         // cs_context_device_string
    char scene_name[64];
    uint8_t reserved[CS_CKPT_HEADER_BYTES - 8 - 4 * 2 - 8 * 4 - 4 * 4 - 256 - 64];
} cs_ckpt_header;

// 64-bit FNV-1a over `size` bytes, continuing from `hash` (start with
// CS_FNV64_START).
#define CS_FNV64_START 0xcbf29ce484222325ull
uint64_t cs_fnv1a64(uint64_t hash, const void *data, size_t size);

// The scene's hash: the tree the world was built from (the file with its
// --set edits, as last reloaded), its level file's bytes, and the
// command-line options that change the world (--particles).
bool cs_ckpt_scene_hash(const cs_scene *scene, uint32_t particles, uint64_t *hash, cs_error *err);

// Writes the world's state after `frame` frames to DIR/checkpoint_NNNNN.ckpt
// (the world idle: every frame finished), keeps that and the previous one.
// `path` (may be NULL) gets the file's path, `bytes` its size.
bool cs_ckpt_write(cs_world *world, const char *dir, uint32_t frame, uint64_t scene_hash, char *path, size_t path_size,
                   uint64_t *bytes, cs_error *err);

// Checks `path`'s header before anything is touched: magic, version,
// header checksum, the file's size against it, the scene's hash
// (scene_name: this run's, for the message). *header gets it. The payload
// is read and checked by cs_ckpt_load.
bool cs_ckpt_check(const char *path, uint64_t scene_hash, const char *scene_name, cs_ckpt_header *header,
                   cs_error *err);

// Loads `path` into `world`, a fresh world of the scene the hash names (not
// stepped yet). Before anything is uploaded: the payload's size against
// the most this world holds (before it is read), its checksum, its parts
// against the world's, and every entry's values against its row's range
// (sim.h cs_state_range: counts within capacities, current indices 0 or
// 1, floats finite, what the scene fixes as the world made it); a refusal
// names the file, the part, the entry and what is wrong. *frame gets the frame the run goes on at. Device or driver
// differences go into `warning` ("" when none).
bool cs_ckpt_load(cs_world *world, const char *path, uint64_t scene_hash, uint32_t *frame, char *warning,
                  size_t warning_size, cs_error *err);

// A checkpoint's file name: checkpoint_NNNNN.ckpt (and its .tmp).
bool cs_ckpt_is_file_name(const char *name);

// A run's stats.csv as a killed run left it, for --resume: *keep gets the
// bytes of its header and of its whole rows of frames before `frame`,
// *rows their count, passes[0 .. *pass_count) the header's gpu_ms:
// columns (the resumed rows keep them). A missing or empty file keeps 0.
bool cs_ckpt_stats_kept(const char *path, uint32_t frame, long long *keep, uint32_t *rows, char (*passes)[48],
                        uint32_t max_passes, uint32_t *pass_count, cs_error *err);
