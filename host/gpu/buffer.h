// buffer.h — GPU buffers: device-local storage, uploads, readbacks, poison.
//
// Owns one VkBuffer + VkDeviceMemory per cs_buffer (cistern holds tens of
// buffers, not thousands, so a sub-allocator would be complexity for nothing).
// Sizes are checked against the device before anything is allocated.
#pragma once

#include "context.h"

typedef struct cs_buffer_desc {
    const char *name;      // shown in RenderDoc and in error messages
    VkDeviceSize size;     // bytes; 0 is allowed (an empty array)
    bool host_visible;     // mapped, for staging and readback
    VkBufferUsageFlags extra_usage; // e.g. VERTEX/INDEX/INDIRECT for drawing
    const char *advice;    // what a refusal for size tells the user to change
                           // (NULL: ctx->size_advice, else CS_BUFFER_ADVICE)
} cs_buffer_desc;

// What a buffer too large for the device advises by default: most buffers
// grow with the particles or the reintegration cells. A buffer sized by
// something else (patches, an image, grid cells) says so through
// cs_buffer_desc.advice, cs_buffer_check_size_advice or ctx->size_advice.
#define CS_BUFFER_ADVICE "lower the particle or cell count"

typedef struct cs_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;       // what was asked for
    VkDeviceSize alloc_size; // what Vulkan holds (never 0)
    void *mapped;            // non-NULL when host_visible
    char name[64];
} cs_buffer;

// Checks `size` against maxStorageBufferRange and the memory heaps. The
// message names the buffer and says how much would fit.
bool cs_buffer_check_size(const cs_context *ctx, const char *name, VkDeviceSize size, cs_error *err);
// The same with the knob to name in a refusal (NULL: as cs_buffer_check_size).
bool cs_buffer_check_size_advice(const cs_context *ctx, const char *name, VkDeviceSize size, const char *advice,
                                 cs_error *err);

// A count of things (vortons, tracers, patches, links, cells) and what
// each costs, checked before anything is allocated on the host or the
// device: a count too large is refused at once with the arithmetic, not
// after minutes of filling gigabytes (issue 28's audit, 4.3).
typedef struct cs_count_cost {
    const char *noun;       // "vortons"
    uint64_t count;
    uint64_t device_bytes;  // device bytes each, all its buffers together
    uint64_t buffer_bytes;  // bytes each in its largest single buffer (maxStorageBufferRange)
    uint64_t host_bytes;    // host bytes each held while setting up (0: none)
    uint64_t device_extra;  // device bytes needed besides (other arrays checked before)
    uint64_t limit;         // another limit on the count (0: none) ...
    const char *limit_why;  // ... and what sets it ("65535 workgroups of 64")
} cs_count_cost;

// The largest count of c's things (c->count ignored) that fits the device
// (maxStorageBufferRange, the largest heap less what cs_buffers hold), the
// host's available memory and c->limit.
uint64_t cs_count_fit(const cs_context *ctx, const cs_count_cost *c);
// True when c->count fits (cs_count_fit). Else fails with "`cause` gives
// N noun x B = total ...", each limit it passes with its numbers, how many
// fit, then `advice` (what to change; NULL: CS_BUFFER_ADVICE).
bool cs_count_check(const cs_context *ctx, const char *cause, const cs_count_cost *c, const char *advice,
                    cs_error *err);

bool cs_buffer_create(cs_context *ctx, const cs_buffer_desc *desc, cs_buffer *buf, cs_error *err);
// A device-local buffer of `size` bytes, or of 16 when `size` is 0: the
// pipelines size buffers by counts that may be 0 (no lights, no clusters),
// and such a buffer still binds and reports the one vec4 it holds.
bool cs_buffer_create_device(cs_context *ctx, const char *name, VkDeviceSize size, cs_buffer *buf, cs_error *err);
void cs_buffer_destroy(cs_context *ctx, cs_buffer *buf);

// Blocking copies through a staging buffer (uploads at set-up, readbacks in
// tests, dumps and stats).
void cs_buffer_upload(cs_context *ctx, cs_buffer *buf, const void *data, VkDeviceSize size, VkDeviceSize offset);
void cs_buffer_download(cs_context *ctx, const cs_buffer *buf, void *data, VkDeviceSize size, VkDeviceSize offset);

// Fills the whole buffer with a 32-bit pattern. Tests poison outputs with
// CS_POISON_U32 (a NaN when read as float) so unwritten elements show.
void cs_buffer_fill(cs_context *ctx, cs_buffer *buf, uint32_t pattern);
#define CS_POISON_U32 0x7fbadbadu
