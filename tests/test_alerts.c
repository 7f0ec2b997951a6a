// test_alerts.c — the text a failed reload draws in the image
// (host/app/run/scene_reload.h). CPU only:
//   - a shader error's paths are shown relative to the shader folder (an
//     absolute path took most of the line);
//   - a line longer than the width is wrapped, at a space where it can,
//     and its end is kept (it was cut at 110 columns with '~');
//   - only ASCII reaches the image; the number of lines is bounded.
// ctest labels: quick -- 0.01 (the text a failed shader or scene reload draws in the image)
#define _POSIX_C_SOURCE 200809L // scene_reload.h: struct stat
#include "test_util.h"

#include "render.h"
#include "scene_reload.h"

#include <string.h>

// The longest line of `text`, in characters.
static size_t longest_line(const char *text)
{
    size_t longest = 0;
    while (*text) {
        size_t n = strcspn(text, "\n");
        longest = n > longest ? n : longest;
        text += n + (text[n] == '\n');
    }
    return longest;
}

static uint32_t line_count(const char *text)
{
    uint32_t n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

static void test_shader_alert(void)
{
    const char *dir = "/home/someone/projects/a/rather/long/checkout/path/of/cistern/shaders";
    const char *msg = "/home/someone/projects/a/rather/long/checkout/path/of/cistern/shaders/fluid/predict.comp:32: "
                      "error: 'main' : illegal use of type 'void' in a declaration that goes on past the width of "
                      "the window, with its END at the end\n"
                      "/home/someone/projects/a/rather/long/checkout/path/of/cistern/shaders/fluid/predict.comp:32: "
                      "error: '' : syntax error";
    char out[1280];
    cs_shader_reload_alert(out, sizeof out, "fluid/predict.comp (x2)", msg, dir, 60, 8);
    CHECK(strstr(out, "SHADER ERROR - previous shaders running; fix and save\nfailed: fluid/predict.comp (x2)\n"),
          "headline and names: %s", out);
    CHECK(strstr(out, "\nfluid/predict.comp:32: error: 'main'"), "the path is relative to the shader folder: %s", out);
    CHECK(!strstr(out, "/home/someone"), "no absolute path left: %s", out);
    CHECK(strstr(out, "END at the end"), "the long line's end is kept (wrapped, not cut): %s", out);
    CHECK(!strchr(out, '~'), "nothing cut: %s", out);
    CHECK(longest_line(out) <= 60, "every line within 60 columns: longest %zu in\n%s", longest_line(out), out);
    CHECK(strstr(out, "\n  "), "continuation lines are indented: %s", out);
    CHECK(strstr(out, "fluid/predict.comp:32: error: '' : syntax error\n"), "the second line follows: %s", out);

    // The same folder with a trailing slash; a message not under it keeps its path.
    cs_shader_reload_alert(out, sizeof out, "a.comp", "/elsewhere/a.comp:1: error: x", "/home/someone/shaders/", 110, 8);
    CHECK(strstr(out, "\n/elsewhere/a.comp:1: error: x\n"), "a path elsewhere is kept whole: %s", out);

    // Bounded: a message of 50 lines shows 3 of them, then "...".
    char many[2000] = "";
    for (int i = 0; i < 50; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "line %d\n", i);
    cs_shader_reload_alert(out, sizeof out, "a.comp", many, "", 110, 3);
    CHECK(strstr(out, "line 2\n...\n") && !strstr(out, "line 3"), "three lines then ...: %s", out);
    CHECK(line_count(out) == 2 + 3 + 1, "headline, names, 3 lines, ...: %u lines in\n%s", line_count(out), out);

    // Non-ASCII becomes '?' (stb_easy_font draws ASCII only).
    cs_shader_reload_alert(out, sizeof out, "a.comp", "a.comp:1: error: \xc3\xa9t\xc3\xa9", "", 110, 8);
    CHECK(strstr(out, "error: ??t??"), "non-ASCII replaced: %s", out);
}

static void test_scene_alert(void)
{
    char msg[400], out[1024];
    snprintf(msg, sizeof msg, "scenes/dam_break_2d.json: fluids[0].materials[0].viscosity: must be >= 0 (got -1); "
                              "set a value in range or remove the key to take the default, which is %s", "0.5 FINAL");
    cs_scene_reload_alert(out, sizeof out, msg, 50);
    CHECK(strncmp(out, "SCENE ERROR - previous scene running; fix and save\n", 51) == 0, "headline: %s", out);
    CHECK(strstr(out, "0.5 FINAL"), "the end is kept: %s", out);
    CHECK(longest_line(out + 51) <= 50, "lines within 50 columns: %s", out);
    CHECK(out[strlen(out) - 1] != '\n', "no newline after the last line: %s", out);
}

// The width alerts wrap to: a line of that many wide letters ("m") fits the
// overlay's panel inside the image, one more letter per ten would not.
static void test_columns(void)
{
    const uint32_t widths[] = {320, 640, 800, 1280, 1920};
    for (uint32_t i = 0; i < CS_ARRAY_COUNT(widths); i++) {
        uint32_t columns = cs_render_overlay_columns(widths[i]);
        char line[512];
        memset(line, 'm', columns);
        line[columns] = 0;
        float panel[4];
        cs_render_overlay_panel(line, panel);
        CHECK(panel[2] <= (float)widths[i], "%u columns of 'm' end at %.0f in a %u-wide image", columns, panel[2],
              widths[i]);
        uint32_t more = columns + columns / 10 + 1;
        memset(line, 'm', more);
        line[more] = 0;
        cs_render_overlay_panel(line, panel);
        CHECK(panel[2] > (float)widths[i], "%u columns would fit a %u-wide image too: the width is too cautious", more,
              widths[i]);
    }
    CHECK(cs_render_overlay_columns(10) == 20, "a tiny image still gets 20 columns");
}

int main(void)
{
    test_columns();
    test_shader_alert();
    test_scene_alert();
    if (test_failures)
        fprintf(stderr, "FAIL: %d check(s) failed\n", test_failures);
    else
        printf("PASS\n");
    return test_failures ? 1 : 0;
}
