// image.c — see image.h.
#include "image.h"

bool cs_image_create(cs_context *ctx, const cs_image_desc *desc, cs_image *img, cs_error *err)
{
    memset(img, 0, sizeof *img);
    const char *name = desc->name ? desc->name : "image";
    uint32_t width = desc->width, height = desc->height;
    uint32_t max_dim = ctx->props.limits.maxImageDimension2D;
    if (width == 0 || height == 0 || width > max_dim || height > max_dim)
        return cs_fail(err, "%s: image size %ux%u is not possible on this device (1..%u per side)", name, width,
                       height, max_dim);
    VkImageAspectFlags aspect = desc->aspect ? desc->aspect : VK_IMAGE_ASPECT_COLOR_BIT;
    VkImageFormatProperties props;
    if (vkGetPhysicalDeviceImageFormatProperties(ctx->physical, desc->format, VK_IMAGE_TYPE_2D, VK_IMAGE_TILING_OPTIMAL,
                                                 desc->usage, 0, &props) != VK_SUCCESS)
        return cs_fail(err, "%s: format %d with usage %#x is not supported by this device", name, (int)desc->format,
                       (unsigned)desc->usage);
    if (width > props.maxExtent.width || height > props.maxExtent.height)
        return cs_fail(err, "%s: image size %ux%u is larger than this device allows for its format (%ux%u)", name,
                       width, height, props.maxExtent.width, props.maxExtent.height);
    VkImageCreateInfo info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
        .imageType = VK_IMAGE_TYPE_2D,
        .format = desc->format,
        .extent = {width, height, 1},
        .mipLevels = 1,
        .arrayLayers = 1,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL,
        .usage = desc->usage,
        .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED,
    };
    VK_CHECK(vkCreateImage(ctx->device, &info, NULL, &img->image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(ctx->device, img->image, &req);
    uint32_t type = cs_find_memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    if (type == UINT32_MAX)
        type = cs_find_memory_type(ctx, req.memoryTypeBits, 0);
    if (type == UINT32_MAX) {
        vkDestroyImage(ctx->device, img->image, NULL);
        img->image = VK_NULL_HANDLE;
        return cs_fail(err, "%s: no memory type of this device can hold the image", name);
    }
    VkMemoryAllocateInfo alloc = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
        .allocationSize = req.size,
        .memoryTypeIndex = type,
    };
    VkResult res = vkAllocateMemory(ctx->device, &alloc, NULL, &img->memory);
    if (res != VK_SUCCESS) {
        vkDestroyImage(ctx->device, img->image, NULL);
        img->image = VK_NULL_HANDLE;
        return cs_fail(err, "%s: cannot allocate %ux%u image (%s); ask for a smaller size", name, width, height,
                       cs_vk_result_name(res));
    }
    VK_CHECK(vkBindImageMemory(ctx->device, img->image, img->memory, 0));
    VkImageViewCreateInfo view_info = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = img->image,
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = desc->format,
        .subresourceRange = {aspect, 0, 1, 0, 1},
    };
    VK_CHECK(vkCreateImageView(ctx->device, &view_info, NULL, &img->view));
    cs_name_object(ctx, VK_OBJECT_TYPE_IMAGE, (uint64_t)img->image, name);
    cs_name_object(ctx, VK_OBJECT_TYPE_IMAGE_VIEW, (uint64_t)img->view, name);
    img->format = desc->format;
    img->aspect = aspect;
    img->width = width;
    img->height = height;
    return true;
}

void cs_image_destroy(cs_context *ctx, cs_image *img)
{
    if (img->view)
        vkDestroyImageView(ctx->device, img->view, NULL);
    if (img->image)
        vkDestroyImage(ctx->device, img->image, NULL);
    if (img->memory)
        vkFreeMemory(ctx->device, img->memory, NULL);
    memset(img, 0, sizeof *img);
}
