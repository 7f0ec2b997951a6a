// recorder.h — recording GPU work: passes, dispatches, barriers, timestamps.
//
// A cs_recorder owns one command buffer, one fence and one timestamp query
// pool. Work is recorded as a list of named passes; each pass is one debug
// label (RenderDoc's event list) and one pair of GPU timestamps (benchmarks),
// so both read like the frame's pass list. Timings are available after
// cs_recorder_submit_wait(), by pass name.
#pragma once

#include "buffer.h"
#include "shader.h"

#define CS_MAX_PASSES 1024

typedef struct cs_pass_timing {
    char name[48];
    double ms;
} cs_pass_timing;

typedef struct cs_recorder {
    cs_context *ctx;
    VkCommandBuffer cmd;
    VkFence fence;
    VkQueryPool queries;
    bool timestamps;          // device has them on our queue
    bool recording;
    bool in_pass;
    uint32_t pass_count;
    cs_pass_timing passes[CS_MAX_PASSES];
    double submit_wall_ms;    // wall clock of the last submit+wait
    // Put in front of every pass name ("pool: grid: sort") while set: the
    // world names each fluid's passes when it has several.
    char pass_prefix[24];
} cs_recorder;

void cs_recorder_create(cs_context *ctx, const char *name, cs_recorder *rec);
void cs_recorder_destroy(cs_recorder *rec);

// Starts a new command buffer (waits for nothing: call after submit_wait).
void cs_recorder_begin(cs_recorder *rec);
// Ends, submits, waits on the fence and reads the timestamps.
void cs_recorder_submit_wait(cs_recorder *rec);

void cs_pass_begin(cs_recorder *rec, const char *name);
void cs_pass_end(cs_recorder *rec);
// A debug label without timestamps, for naming steps inside a pass (e.g.
// the dispatches of a sort) in RenderDoc. May nest inside a pass.
void cs_label_begin(cs_recorder *rec, const char *name);
void cs_label_end(cs_recorder *rec);
// Total of all pass timings (ms) and the timing of one pass (-1 if absent).
double cs_recorder_total_ms(const cs_recorder *rec);
double cs_recorder_pass_ms(const cs_recorder *rec, const char *name);

// Barriers (synchronization2), one line each.
void cs_barrier_compute(cs_recorder *rec);          // compute writes → compute reads/writes
void cs_barrier_compute_to_graphics(cs_recorder *rec); // compute writes → vertex/index/indirect/fragment reads
void cs_barrier_transfer_to_compute(cs_recorder *rec); // fill/copy → compute
void cs_barrier_compute_to_transfer(cs_recorder *rec); // compute → copy/fill
void cs_barrier_all(cs_recorder *rec);              // everything → everything (debugging)

// Fills a buffer range with a 32-bit value inside the current recording.
void cs_cmd_fill(cs_recorder *rec, cs_buffer *buf, uint32_t value);
void cs_cmd_copy(cs_recorder *rec, cs_buffer *src, cs_buffer *dst, VkDeviceSize size);

// A compute dispatch. `buffers[b]` feeds binding b; every binding the shader
// uses must be given and no other. `threads` is the number of invocations
// wanted per axis (rounded up to whole workgroups here). 1D dispatches whose
// group count exceeds the device limit fold into y: 1D shaders must compute
// their index with cs_linear_index() from common/index.glsl and bounds-check.
typedef struct cs_dispatch_desc {
    cs_buffer *buffers[CS_MAX_BINDINGS];
    const void *push;
    uint32_t push_size;
    uint32_t threads[3];     // 0 in y or z means 1
} cs_dispatch_desc;

void cs_dispatch(cs_recorder *rec, const cs_program *prog, const cs_dispatch_desc *desc);
