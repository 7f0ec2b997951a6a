// test_core.c — the Vulkan core: reflection, dispatch rounding and folding,
// the program registry, recordings of thousands of passes, image bindings,
// size limits, pass timestamps, and a planted missing barrier that
// synchronization validation must catch.
// ctest labels: quick,gpu -- 0.6
#include "test_util.h"

static void run_add_one(cs_context *ctx, cs_program_id *prog, uint32_t n, bool with_barrier, uint32_t *out)
{
    cs_buffer a, b, c;
    test_buffer(ctx, &a, "a", (VkDeviceSize)n * 4);
    test_buffer(ctx, &b, "b", (VkDeviceSize)n * 4);
    test_buffer(ctx, &c, "c", (VkDeviceSize)n * 4);
    uint32_t *init = malloc((size_t)n * 4 + 4);
    for (uint32_t i = 0; i < n; i++)
        init[i] = i * 7u;
    cs_buffer_upload(ctx, &a, init, (VkDeviceSize)n * 4, 0);
    cs_buffer_fill(ctx, &b, CS_POISON_U32);
    cs_buffer_fill(ctx, &c, CS_POISON_U32);

    cs_recorder rec;
    cs_recorder_create(ctx, "add_one", &rec);
    cs_recorder_begin(&rec);
    cs_pass_begin(&rec, "first");
    cs_dispatch(&rec, *prog, &(cs_dispatch_desc){.buffers = {&a, &b}, .push = &n, .push_size = 4, .threads = {n}});
    cs_pass_end(&rec);
    if (with_barrier)
        cs_barrier_compute(&rec);
    cs_pass_begin(&rec, "second");
    cs_dispatch(&rec, *prog, &(cs_dispatch_desc){.buffers = {&b, &c}, .push = &n, .push_size = 4, .threads = {n}});
    cs_pass_end(&rec);
    cs_recorder_submit_wait(&rec);
    CHECK(rec.pass_count == 2, "two passes recorded");
    CHECK(cs_recorder_pass_ms(&rec, "first") >= 0, "first pass has a timing");
    CHECK(cs_recorder_pass_ms(&rec, "missing") < 0, "unknown pass has no timing");
    cs_buffer_download(ctx, &c, out, (VkDeviceSize)n * 4, 0);
    cs_recorder_destroy(&rec);
    cs_buffer_destroy(ctx, &a);
    cs_buffer_destroy(ctx, &b);
    cs_buffer_destroy(ctx, &c);
    free(init);
}

// A recording of more passes than one timestamp pool holds (and more than
// the old fixed budget of 1024): every pass keeps its own timing, and the
// work is all done.
static void check_many_passes(cs_context *ctx, cs_program_id prog)
{
    const uint32_t passes = 3 * CS_PASSES_PER_POOL + 7, n = 65;
    cs_buffer a;
    test_buffer(ctx, &a, "counter", n * 4);
    cs_buffer_fill(ctx, &a, 0);
    cs_recorder rec;
    cs_recorder_create(ctx, "many passes", &rec);
    for (int round = 0; round < 2; round++) { // the pools are reused by the second recording
        cs_recorder_begin(&rec);
        for (uint32_t i = 0; i < passes; i++) {
            char name[32];
            snprintf(name, sizeof name, "pass %u", i);
            cs_pass_begin(&rec, name);
            // add_one reads binding 0 and writes binding 1: in place, +1 per pass.
            cs_dispatch(&rec, prog, &(cs_dispatch_desc){.buffers = {&a, &a}, .push = &n, .push_size = 4,
                                                        .threads = {n}});
            cs_barrier_compute(&rec);
            cs_pass_end(&rec);
        }
        cs_recorder_submit_wait(&rec);
        CHECK(rec.pass_count == passes, "%u passes recorded (want %u)", rec.pass_count, passes);
        // Every pass dispatches real work: with timestamps, each takes time.
        uint32_t timed = 0;
        for (uint32_t i = 0; i < rec.pass_count; i++)
            timed += (rec.timestamps ? rec.passes[i].ms > 0 : rec.passes[i].ms == 0) && rec.passes[i].ms < 1e4;
        CHECK(timed == passes, "round %d: %u of %u passes have a plausible timing", round, timed, passes);
        CHECK(!rec.timestamps || cs_recorder_pass_ms(&rec, "pass 1540") > 0, "a pass in the fourth pool is timed");
    }
    // A frame split in two submits (the host reads something in between):
    // cs_recorder_resume keeps the first submit's passes and timings, and
    // the second's take the next slots, across a pool boundary too.
    const uint32_t first = CS_PASSES_PER_POOL - 2, second = 5;
    cs_recorder_begin(&rec);
    for (uint32_t i = 0; i < first + second; i++) {
        if (i == first) {
            cs_recorder_submit_wait(&rec);
            CHECK(rec.pass_count == first, "before resume: %u passes", rec.pass_count);
            cs_recorder_resume(&rec);
        }
        char name[32];
        snprintf(name, sizeof name, "split %u", i);
        cs_pass_begin(&rec, name);
        cs_dispatch(&rec, prog, &(cs_dispatch_desc){.buffers = {&a, &a}, .push = &n, .push_size = 4, .threads = {n}});
        cs_barrier_compute(&rec);
        cs_pass_end(&rec);
    }
    cs_recorder_submit_wait(&rec);
    CHECK(rec.pass_count == first + second, "after resume: %u passes (want %u)", rec.pass_count, first + second);
    uint32_t timed = 0;
    for (uint32_t i = 0; i < rec.pass_count; i++)
        timed += rec.passes[i].ms >= 0 && rec.passes[i].ms < 1e4;
    CHECK(timed == first + second && cs_recorder_pass_ms(&rec, "split 0") >= 0 &&
              cs_recorder_pass_ms(&rec, "split 512") >= 0,
          "split frame: %u of %u passes timed", timed, first + second);
    uint32_t out[65];
    cs_buffer_download(ctx, &a, out, sizeof out, 0);
    uint32_t bad = 0;
    for (uint32_t i = 0; i < n; i++)
        bad += out[i] != 2u * passes + first + second;
    CHECK(bad == 0, "after %u passes twice and a split frame: %u counters wrong (first %u, want %u)", passes, bad,
          out[0], 2u * passes + first + second);
    fprintf(stderr, "recorder: %u passes in one recording (%u timestamp pools)\n", passes, rec.pool_count);
    cs_recorder_destroy(&rec);
    cs_buffer_destroy(ctx, &a);
}

// The registry: compute and graphics programs side by side, handles that
// stay valid while other programs come and go, slots reused with a new
// generation, and hot reload walking every program that includes a file.
static void check_registry(cs_context *ctx)
{
    uint32_t before = cs_program_count(ctx);
    cs_program_id a, b, g;
    cs_error err;
    test_program(ctx, &a, "test/add_one.comp", NULL);
    test_program(ctx, &b, "test/add_one.comp", (cs_define[]){{"UNUSED_DEFINE", "2"}, {0}});
    CHECK(cs_program_create(ctx,
                            &(cs_program_desc){.name = "test graphics", .vert = "render/background.vert",
                                               .frag = "render/background.frag",
                                               .graphics = {.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
                                                            .color_format = VK_FORMAT_R8G8B8A8_SRGB}},
                            &g, &err),
          "graphics program: %s", err.msg);
    CHECK(cs_program_count(ctx) == before + 3, "three programs registered");
    const cs_program *gp = cs_program_get(ctx, g);
    CHECK(gp->bind_point == VK_PIPELINE_BIND_POINT_GRAPHICS && gp->dep_count >= 2,
          "graphics program: bind point %d, %u files", gp->bind_point, gp->dep_count);
    CHECK(cs_program_get(ctx, a)->bind_point == VK_PIPELINE_BIND_POINT_COMPUTE, "compute program");
    uint64_t old_a = a.value;
    cs_program_destroy(ctx, &a);
    CHECK(a.value == 0, "destroy empties the handle");
    CHECK(cs_program_get(ctx, b)->pipeline != VK_NULL_HANDLE, "b survives a's destruction");
    test_program(ctx, &a, "test/add_one.comp", NULL);
    CHECK(a.value != old_a, "a reused slot gets a new handle (%#llx, was %#llx)", (unsigned long long)a.value,
          (unsigned long long)old_a);

    // A file three compute programs are built from (a, b and main's prog):
    // all rebuilt, the graphics one not.
    char path[600];
    snprintf(path, sizeof path, "%s/test/add_one.comp", cs_shader_dir());
    cs_reload_report report = {0};
    cs_programs_reload(ctx, path, &report);
    CHECK(report.rebuilt == 3 && report.failed == 0, "reload of add_one.comp rebuilt %u, failed %u (%s)",
          report.rebuilt, report.failed, report.names);
    snprintf(path, sizeof path, "%s/render/background.frag", cs_shader_dir());
    memset(&report, 0, sizeof report);
    cs_programs_reload(ctx, path, &report);
    CHECK(report.rebuilt == 1 && strstr(report.names, "test graphics"), "reload of background.frag: %u (%s)",
          report.rebuilt, report.names);
    cs_program_destroy(ctx, &a);
    cs_program_destroy(ctx, &b);
    cs_program_destroy(ctx, &g);
    CHECK(cs_program_count(ctx) == before, "registry back to %u programs", before);
}

// Image bindings in dispatches and the image-barrier helper: a storage
// image written by one dispatch, transitioned, then read through a combined
// image sampler by another, at sizes around the 8x8 workgroup.
static void check_images(cs_context *ctx)
{
    cs_program_id write, read;
    test_program(ctx, &write, "test/image_write.comp", NULL);
    test_program(ctx, &read, "test/image_read.comp", NULL);
    CHECK(cs_program_get(ctx, write)->reflection.binding_types[0] == VK_DESCRIPTOR_TYPE_STORAGE_IMAGE &&
              cs_program_get(ctx, read)->reflection.binding_types[0] == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
          "image binding types reflected");
    VkSampler sampler;
    VkSamplerCreateInfo sampler_info = {
        .sType = VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO,
        .magFilter = VK_FILTER_NEAREST,
        .minFilter = VK_FILTER_NEAREST,
        .addressModeU = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeV = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
        .addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE,
    };
    VK_CHECK(vkCreateSampler(ctx->device, &sampler_info, NULL, &sampler));
    const uint32_t sizes[][2] = {{1, 1}, {7, 9}, {8, 8}, {9, 7}, {65, 3}, {64, 64}};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1];
        cs_image img;
        cs_error err;
        bool ok = cs_image_create(ctx, &(cs_image_desc){.name = "test image", .format = VK_FORMAT_R32G32B32A32_SFLOAT,
                                                       .usage = VK_IMAGE_USAGE_STORAGE_BIT |
                                                                VK_IMAGE_USAGE_SAMPLED_BIT,
                                                       .width = w, .height = h},
                                  &img, &err);
        CHECK(ok, "image %ux%u: %s", w, h, ok ? "" : err.msg);
        if (!ok)
            continue;
        cs_buffer out;
        test_buffer(ctx, &out, "texels", (VkDeviceSize)w * h * 16);
        cs_buffer_fill(ctx, &out, CS_POISON_U32);
        uint32_t size[2] = {w, h};
        cs_recorder rec;
        cs_recorder_create(ctx, "images", &rec);
        cs_recorder_begin(&rec);
        cs_pass_begin(&rec, "image write");
        cs_barrier_image(rec.cmd, &(cs_image_barrier){
            .image = img.image, .old_layout = VK_IMAGE_LAYOUT_UNDEFINED, .new_layout = VK_IMAGE_LAYOUT_GENERAL,
            .dst_stage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, .dst_access = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT});
        cs_dispatch(&rec, write, &(cs_dispatch_desc){
            .images = {[0] = {.view = img.view, .layout = VK_IMAGE_LAYOUT_GENERAL}},
            .push = size, .push_size = sizeof size, .threads = {w, h}});
        cs_pass_end(&rec);
        cs_pass_begin(&rec, "image read");
        cs_barrier_image(rec.cmd, &(cs_image_barrier){
            .image = img.image, .old_layout = VK_IMAGE_LAYOUT_GENERAL,
            .new_layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
            .src_stage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, .src_access = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            .dst_stage = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, .dst_access = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT});
        cs_dispatch(&rec, read, &(cs_dispatch_desc){
            .images = {[0] = {.view = img.view, .layout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                              .sampler = sampler}},
            .buffers = {[1] = &out},
            .push = size, .push_size = sizeof size, .threads = {w, h}});
        cs_pass_end(&rec);
        cs_recorder_submit_wait(&rec);
        float *texels = malloc((size_t)w * h * 16);
        cs_buffer_download(ctx, &out, texels, (VkDeviceSize)w * h * 16, 0);
        uint32_t bad = 0;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                const float *t = &texels[4 * (x + w * y)];
                bad += t[0] != (float)x || t[1] != (float)y || t[2] != (float)(x * 1000 + y) || t[3] != 1.0f;
            }
        CHECK(bad == 0, "image %ux%u written and read back: %u texels wrong", w, h, bad);
        free(texels);
        cs_recorder_destroy(&rec);
        cs_buffer_destroy(ctx, &out);
        cs_image_destroy(ctx, &img);
    }
    vkDestroySampler(ctx->device, sampler, NULL);
    cs_program_destroy(ctx, &write);
    cs_program_destroy(ctx, &read);
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    cs_program_id prog;
    test_program(&ctx, &prog, "test/add_one.comp", NULL);
    const cs_reflection *refl = &cs_program_get(&ctx, prog)->reflection;
    CHECK(refl->local_size[0] == 64, "local size reflected: %u", refl->local_size[0]);
    CHECK(refl->binding_mask == 3u, "bindings 0 and 1: mask %x", refl->binding_mask);
    CHECK(refl->push_constant_size == 4, "push size %u", refl->push_constant_size);
    CHECK(strcmp(refl->binding_names[1], "Dst") == 0, "binding name %s", refl->binding_names[1]);

    // Group counts round up, and a 1D dispatch larger than the group-count
    // limit folds into y: sizes around a workgroup and past 65535 groups.
    uint32_t big = ctx.props.limits.maxComputeWorkGroupCount[0] * 64u + 130u;
    uint32_t sizes[] = {0, 1, 63, 64, 65, 4093, big};
    for (size_t s = 0; s < CS_ARRAY_COUNT(sizes); s++) {
        uint32_t n = sizes[s];
        uint32_t *out = malloc((size_t)n * 4 + 4);
        run_add_one(&ctx, &prog, n, true, out);
        uint32_t bad = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (out[i] != i * 7u + 2u && bad++ == 0)
                fprintf(stderr, "n=%u: first wrong element %u: %u (want %u)\n", n, i, out[i], i * 7u + 2u);
        }
        CHECK(bad == 0, "n=%u: %u elements wrong", n, bad);
        free(out);
    }

    // Size limits are refused with a message, never a crash.
    cs_buffer huge;
    cs_error err;
    VkDeviceSize too_big = (VkDeviceSize)ctx.props.limits.maxStorageBufferRange + 4;
    CHECK(!cs_buffer_create(&ctx, &(cs_buffer_desc){.name = "particles", .size = too_big}, &huge, &err),
          "a buffer over maxStorageBufferRange is refused");
    CHECK(strstr(err.msg, "particles") && strstr(err.msg, "maxStorageBufferRange"), "message names it: %s", err.msg);

    // A shader error reads file:line: message.
    cs_program_id broken;
    CHECK(!cs_program_create(&ctx, &(cs_program_desc){.path = "test/broken.comp.txt"}, &broken, &err),
          "a missing shader is an error");
    CHECK(strstr(err.msg, "broken.comp.txt") != NULL, "message names the file: %s", err.msg);

    // The planted hazard: the second dispatch reads what the first wrote,
    // with no barrier between. Synchronization validation must report it.
    uint32_t before = ctx.validation_errors;
    ctx.validation_quiet = true;
    uint32_t out[256];
    run_add_one(&ctx, &prog, 256, false, out);
    ctx.validation_quiet = false;
    uint32_t caught = ctx.validation_errors - before;
    CHECK(caught > 0, "the missing barrier was not reported by synchronization validation");
    CHECK(strstr(ctx.last_validation_message, "SYNC-HAZARD") || strstr(ctx.last_validation_message, "READ_AFTER_WRITE"),
          "the report is a sync hazard: %s", ctx.last_validation_message);
    fprintf(stderr, "planted missing barrier: %u validation error(s), e.g. %.160s\n", caught, ctx.last_validation_message);
    ctx.validation_errors = before; // expected; every other error still fails the test

    check_many_passes(&ctx, prog);
    check_images(&ctx);
    check_registry(&ctx);

    cs_program_destroy(&ctx, &prog);
    CHECK(cs_program_count(&ctx) == 0, "every program released: %u left", cs_program_count(&ctx));
    return test_finish(&ctx);
}
