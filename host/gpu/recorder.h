// recorder.h — recording GPU work: passes, dispatches, barriers, timestamps.
//
// A cs_recorder owns one command buffer, one fence and timestamp query
// pools. Work is recorded as a list of named passes; each pass is one debug
// label (RenderDoc's event list) and one pair of GPU timestamps (benchmarks),
// so both read like the frame's pass list. Timings are available after
// cs_recorder_submit_wait(), by pass name. There is no limit on passes per
// recording: the pass list and the query pools grow as a recording needs
// (query pools in blocks of CS_PASSES_PER_POOL passes).
//
// Every dispatch and draw goes through cs_dispatch / cs_draw, which check
// the program's reflected interface against what is bound; every barrier
// goes through the helpers below (cs_barrier_image for images).
#pragma once

#include "buffer.h"
#include "image.h"
#include "program.h"

#define CS_PASSES_PER_POOL 512
// Frames in flight (host/app/run/run.c, docs/architecture.md): how many frames a loop may have recorded
// and submitted before it waits for the oldest. Modules that keep per-frame
// host-visible resources (readbacks, host-written quads) keep
// CS_FRAME_SLOTS of them, indexed by cs_recorder.frame_slot: one per ring
// slot, and one more for every recorder outside a ring (submitted and
// waited on at once), so an immediate read never touches a frame in flight.
#define CS_FRAMES_IN_FLIGHT 2
#define CS_FRAME_SLOTS (CS_FRAMES_IN_FLIGHT + 1)
#define CS_FRAME_SLOT_IMMEDIATE CS_FRAMES_IN_FLIGHT
// Checked shaders: bounds-check records per buffer (one per checked dispatch).
#define CS_CHECK_RECORDS_PER_PAGE 1024

typedef struct cs_pass_timing {
    char name[48];
    double ms;
} cs_pass_timing;

// Checked shaders: which dispatch a bounds-check record belongs to.
typedef struct cs_check_dispatch {
    cs_program_id program;
    uint32_t pass;            // index into passes, UINT32_MAX outside a pass
} cs_check_dispatch;

typedef struct cs_recorder {
    cs_context *ctx;
    VkCommandBuffer cmd;
    VkFence fence;
    bool timestamps;          // device has them on our queue
    bool recording;
    bool in_pass;
    bool pending;             // submitted, fence not yet waited on (cs_recorder_wait)
    // Which per-frame resources the work recorded here may use: 0 ..
    // CS_FRAMES_IN_FLIGHT - 1 in a frame ring, CS_FRAME_SLOT_IMMEDIATE else.
    uint32_t frame_slot;
    uint32_t pass_count;
    uint32_t pass_capacity;
    cs_pass_timing *passes;   // pass_count of them, grown as needed
    VkQueryPool *pools;       // 2 * CS_PASSES_PER_POOL timestamps each
    uint32_t pool_count;      // pools created so far (kept between recordings)
    uint32_t pools_reset;     // pools reset in the current recording
    double submit_wall_ms;    // wall clock of the submit+waits since cs_recorder_begin
    // Since cs_recorder_begin (a resume keeps counting): compute dispatches
    // and memory barriers recorded, the fixed costs a small scene pays per
    // pass (bench --demo reports them a frame).
    uint32_t dispatch_count, barrier_count;
    // Put in front of every pass name ("pool: grid: sort") while set: the
    // world names each fluid's passes when it has several.
    char pass_prefix[24];
    // Checked shaders (ctx->checked_shaders): every checked dispatch gets
    // its own record, CS_CHECK_RECORDS_PER_PAGE to a host-visible buffer
    // (pages made when first needed, kept between recordings). After each
    // submit the host reads the records used, reports and counts every
    // violation (ctx->shader_check_violations) and clears them.
    cs_buffer *check_pages;
    uint32_t check_page_count;
    uint32_t check_count;     // records used since the last submit
    uint32_t check_capacity;
    cs_check_dispatch *check_dispatches;
    // Optional: called right after every cs_pass_end with the pass's name
    // (prefix included). It may submit and resume the recording. The world
    // uses it to find the first pass that wrote NaN/Inf (world_first_nan.c).
    void (*after_pass)(struct cs_recorder *rec, const char *pass_name, void *user);
    void *after_pass_user;
} cs_recorder;

void cs_recorder_create(cs_context *ctx, const char *name, cs_recorder *rec);
void cs_recorder_destroy(cs_recorder *rec);

// Starts a new command buffer (waits for nothing: call after submit_wait).
void cs_recorder_begin(cs_recorder *rec);
// Ends, submits, waits on the fence and reads the timestamps (and, with
// checked shaders, the bounds-check records).
void cs_recorder_submit_wait(cs_recorder *rec);

// Semaphores one submit waits on and signals (a window's acquire and
// present), all optional.
typedef struct cs_submit_sync {
    VkSemaphore wait;
    VkPipelineStageFlags2 wait_stage;
    VkSemaphore signal;
} cs_submit_sync;
// Ends and submits without waiting (frames in flight): the recording is
// then pending until cs_recorder_wait. `sync` may be NULL.
void cs_recorder_submit(cs_recorder *rec, const cs_submit_sync *sync);
// Waits for a pending submit's fence, then reads the timestamps and the
// bounds-check records as cs_recorder_submit_wait does. Nothing when
// nothing is pending.
void cs_recorder_wait(cs_recorder *rec);
// Whether the pending submit has finished on the device (no wait).
bool cs_recorder_done(const cs_recorder *rec);
// Starts a new command buffer that continues the same frame, after a
// cs_recorder_submit_wait the host needed in the middle of it (a count read
// back to size what comes next): the passes of both submits stay in the
// pass list with their timings, and submit_wall_ms adds up, until the next
// cs_recorder_begin.
void cs_recorder_resume(cs_recorder *rec);

void cs_pass_begin(cs_recorder *rec, const char *name);
void cs_pass_end(cs_recorder *rec);
// A debug label without timestamps, for naming steps inside a pass (e.g.
// the dispatches of a sort) in RenderDoc. May nest inside a pass.
void cs_label_begin(cs_recorder *rec, const char *name);
void cs_label_end(cs_recorder *rec);
// Total of all pass timings (ms) and the timing of one pass (-1 if absent).
double cs_recorder_total_ms(const cs_recorder *rec);
double cs_recorder_pass_ms(const cs_recorder *rec, const char *name);
// Every pass's time summed by name (one pass per substep, per bounce, per
// up-sweep level), in the order the names first appear: at most `capacity`
// names, the rest left out. Returns how many it wrote.
uint32_t cs_recorder_pass_sums(const cs_recorder *rec, cs_pass_timing *sums, uint32_t capacity);

// Barriers (synchronization2), one line each.
void cs_barrier_compute(cs_recorder *rec);          // compute writes → compute reads/writes
void cs_barrier_compute_to_graphics(cs_recorder *rec); // compute writes → vertex/index/indirect/fragment reads
void cs_barrier_transfer_to_compute(cs_recorder *rec); // fill/copy → compute
void cs_barrier_compute_to_transfer(cs_recorder *rec); // compute → copy/fill
void cs_barrier_all(cs_recorder *rec);              // everything → everything (debugging)

// An image layout transition (or a plain image dependency when the layouts
// are equal), whole image. The one place cistern makes image barriers; it
// takes a command buffer so the window can use it for swapchain images.
typedef struct cs_image_barrier {
    VkImage image;
    VkImageAspectFlags aspect;         // 0: colour
    VkImageLayout old_layout, new_layout;
    VkPipelineStageFlags2 src_stage;
    VkAccessFlags2 src_access;
    VkPipelineStageFlags2 dst_stage;
    VkAccessFlags2 dst_access;
} cs_image_barrier;
void cs_barrier_image(VkCommandBuffer cmd, const cs_image_barrier *barrier);

// Fills a buffer range with a 32-bit value inside the current recording.
void cs_cmd_fill(cs_recorder *rec, cs_buffer *buf, uint32_t value);
// Writes `size` bytes of `data` (a multiple of 4, at most 65536:
// vkCmdUpdateBuffer's limit) at `offset` of a buffer made with transfer-dst
// usage, inside the current recording: a small per-frame upload (lights)
// without a submit and fence wait of its own. The bytes are copied into
// the command buffer now. Barriers either side order it after earlier
// compute reads and writes (frames still in flight included) and before
// later ones.
void cs_cmd_update(cs_recorder *rec, cs_buffer *buf, const void *data, VkDeviceSize size, VkDeviceSize offset);
void cs_cmd_copy(cs_recorder *rec, cs_buffer *src, cs_buffer *dst, VkDeviceSize size);
// The same between byte ranges (both must lie inside their buffers).
void cs_cmd_copy_range(cs_recorder *rec, cs_buffer *src, VkDeviceSize src_offset, cs_buffer *dst,
                       VkDeviceSize dst_offset, VkDeviceSize size);

// A compute dispatch. `buffers[b]` feeds binding b; every binding the shader
// uses must be given and no other. `threads` is the number of invocations
// wanted per axis (rounded up to whole workgroups here). 1D dispatches whose
// group count exceeds the device limit fold into y: 1D shaders must compute
// their index with cs_linear_index() from common/index.glsl and bounds-check.
//
// Image bindings: a sampled, storage or combined image-sampler binding b
// takes images[b] (view, the layout it is in when the work runs, and a
// sampler where the shader samples). A binding gets a buffer or an image,
// as its reflected type says, never both.
typedef struct cs_image_binding {
    VkImageView view;
    VkImageLayout layout;
    VkSampler sampler;         // combined image samplers and samplers
} cs_image_binding;

typedef struct cs_dispatch_desc {
    cs_buffer *buffers[CS_MAX_BINDINGS];
    cs_image_binding images[CS_MAX_BINDINGS];
    const void *push;
    uint32_t push_size;
    uint32_t threads[3];     // 0 in y or z means 1
} cs_dispatch_desc;

void cs_dispatch(cs_recorder *rec, cs_program_id program, const cs_dispatch_desc *desc);

// A draw with a graphics program, inside vkCmdBeginRendering. Bindings and
// push constants are checked like a dispatch's. Vertices are pulled from
// storage buffers (no vertex buffers). With `indirect` set, the draw's
// VkDrawIndirectCommand is read from that buffer at `indirect_offset` (the
// count decided on the GPU); vertex_count and instance_count are ignored.
// With `indices` set (a buffer made with INDEX_BUFFER usage), the draw is
// indexed: index_count u32 indices from the start of that buffer, and
// gl_VertexIndex is the index read, so the vertex shader pulls that vertex
// from its storage buffers (a welded mesh shades each vertex once per
// cache hit, not once per triangle corner); vertex_count is ignored.
typedef struct cs_draw_desc {
    cs_buffer *buffers[CS_MAX_BINDINGS];
    cs_image_binding images[CS_MAX_BINDINGS];
    const void *push;
    uint32_t push_size;
    uint32_t vertex_count;
    uint32_t instance_count;   // 0 means 1
    cs_buffer *indirect;
    VkDeviceSize indirect_offset;
    cs_buffer *indices;        // u32 indices; not with `indirect`
    uint32_t index_count;
} cs_draw_desc;

void cs_draw(cs_recorder *rec, cs_program_id program, const cs_draw_desc *desc);
