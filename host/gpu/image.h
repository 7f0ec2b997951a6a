// image.h — 2D images with one view (render targets, depth, readbacks,
// images that compute passes read or write).
//
// Owns the image, its memory and its view. Layout transitions are recorded
// with cs_barrier_image (recorder.h), the one place image barriers are made.
#pragma once

#include "context.h"

typedef struct cs_image {
    VkImage image;
    VkDeviceMemory memory;
    VkImageView view;
    VkFormat format;
    VkImageAspectFlags aspect;
    uint32_t width, height;
} cs_image;

typedef struct cs_image_desc {
    const char *name;          // for RenderDoc and messages
    VkFormat format;
    VkImageUsageFlags usage;
    VkImageAspectFlags aspect; // 0: colour
    uint32_t width, height;
} cs_image_desc;

// Refuses sizes the device cannot make (naming the image and the limit) and
// failed allocations, with a message; nothing is left allocated then.
bool cs_image_create(cs_context *ctx, const cs_image_desc *desc, cs_image *img, cs_error *err);
void cs_image_destroy(cs_context *ctx, cs_image *img);
