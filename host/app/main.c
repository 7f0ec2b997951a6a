// main.c — the `cistern` command line: the table of commands. Each command
// owns its option table (cli.h) and its entry, in its folder (run/,
// bench/, tools/): the parser, `cistern COMMAND --help` and docs/cli.md
// read those tables. Here: the table, `scenes`, `devices` and `help`.
#include "bench.h"
#include "cli.h"
#include "context.h"
#include "file_io.h"
#include "level_command.h"
#include "render.h"
#include "view.h"
#include "run.h"
#include "scene.h"
#include "scene_edit.h"
#include "sh_command.h"
#include "shader.h"
#include "scene_keys.h"
#include "sim.h"
#include "solvers.h"
#include "trace_command.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>


// `cistern scenes`: every scene, sorted, with its solvers, dimension and
// its "description".
static int list_scenes(void)
{
    const char *names[CS_CLI_MAX_SCENES];
    uint32_t n = cs_cli_scene_names(names, CS_CLI_MAX_SCENES);
    if (!n) {
        fprintf(stderr, "cistern: no scenes in %s/scenes\n", CS_SOURCE_DIR);
        return 1;
    }
    for (uint32_t k = 0; k < n; k++) {
        char path[800];
        snprintf(path, sizeof path, "%s/scenes/%s.json", CS_SOURCE_DIR, names[k]);
        cs_scene scene;
        cs_error err;
        if (cs_scene_load(path, &scene, &err)) {
            // The solvers of its fluids: "pbf", or "sph+pbf" for a world of two.
            char solvers[64] = "";
            size_t used = 0;
            for (uint32_t i = 0; i < scene.fluid_count && used < sizeof solvers; i++)
                used += (size_t)snprintf(solvers + used, sizeof solvers - used, "%s%s", i ? "+" : "",
                                         scene.fluids[i].solver);
            printf("%-22s %-9s %dD  %s\n", scene.name, solvers, scene.dim, scene.description);
            cs_scene_free(&scene);
        } else {
            printf("%-22s (broken: %s)\n", names[k], err.msg);
        }
    }
    return 0;
}

// ---- scenes, devices, help ------------------------------------------------

static const cs_cli_command scenes_command = {
    .name = "scenes",
    .summary = "list the scenes in scenes/ with their solvers and descriptions",
};

static int cmd_scenes(int argc, char **argv)
{
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&scenes_command, argc, argv, 2, NULL, &parsed))
        return 2;
    return list_scenes();
}

static const cs_cli_command devices_command = {
    .name = "devices",
    .summary = "list Vulkan devices, drivers and limits (the default marked)",
};

static int cmd_devices(int argc, char **argv)
{
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&devices_command, argc, argv, 2, NULL, &parsed))
        return 2;
    cs_error err;
    if (!cs_print_devices(stdout, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int cmd_help(int argc, char **argv);

static const cs_cli_command help_command = {
    .name = "help",
    .args = "[COMMAND]",
    .summary = "this text, or one command's options (= `cistern COMMAND --help`)",
    .positional = "command",
};

typedef struct command {
    const cs_cli_command *cli;
    int (*main)(int argc, char **argv);
} command;

static const command commands[] = {
    {&cs_run_cli, cs_run_main},     {&cs_bench_cli, cs_bench_main}, {&cs_sh_cli, cs_sh_main},
    {&cs_trace_cli, cs_trace_main}, {&cs_level_cli, cs_level_main}, {&cs_view_cli, cs_view_main},
    {&scenes_command, cmd_scenes},   {&devices_command, cmd_devices}, {&help_command, cmd_help},
};

static const char general_notes[] =
    "SCENE is a name under scenes/ (" CS_CLI_DEFAULT_SCENE ") or a path to a .json file. Scene and level files must\n"
    "be regular files of at most " CS_CLI_STR(CS_INPUT_FILE_MAX_MIB) " MiB; larger ones, directories, devices and FIFOs "
    "are refused.\n"
    "`cistern help --scene-keys-markdown` prints every scene key (type, unit, range, default) as in\n"
    "docs/scenes.md, \"Key reference\".\n"
    "\n"
    "environment (developer and test switches, read once at start: host/gpu/settings.c):\n";

static void usage(FILE *out)
{
    fprintf(out, "cistern — a Vulkan compute lab for real-time particle fluids and light\n\n"
                 "usage: cistern COMMAND [arguments] [options]; `cistern COMMAND --help` lists its options\n\n");
    char heads[CS_CLI_COUNT(commands)][96];
    int width = 0;
    for (uint32_t k = 0; k < CS_CLI_COUNT(commands); k++) {
        const cs_cli_command *c = commands[k].cli;
        int n = snprintf(heads[k], sizeof heads[k], "cistern %s%s%s", c->name, c->args ? " " : "",
                         c->args ? c->args : "");
        width = CS_MAX(width, n);
    }
    for (uint32_t k = 0; k < CS_CLI_COUNT(commands); k++)
        fprintf(out, "  %-*s  %s\n", width, heads[k], commands[k].cli->summary);
    fprintf(out, "\nrun, bench, sh, trace and view take --device N|NAME (a device by index or name substring, see\n"
                 "`cistern devices`) and --validation (Vulkan validation + synchronization validation, slow).\n\n%s",
            general_notes);
    cs_settings_print_help(out);
}

// docs/cli.md, whole: tests/cli_docs.sh compares it with this output.
static void print_markdown(FILE *out)
{
    fprintf(out, "# The cistern command line\n\n"
                 "<!-- Generated by `cistern help --markdown` from the option tables of host/app/;\n"
                 "     tests/cli_docs.sh fails when this file differs. Edit the tables, then run\n"
                 "     build/release/cistern help --markdown > docs/cli.md -->\n\n"
                 "| command | what |\n|---|---|\n");
    for (uint32_t k = 0; k < CS_CLI_COUNT(commands); k++) {
        const cs_cli_command *c = commands[k].cli;
        fprintf(out, "| `cistern %s%s", c->name, c->args ? " " : "");
        cs_cli_print_cell(out, c->args ? c->args : "");
        fprintf(out, "` | ");
        cs_cli_print_cell(out, c->summary);
        fprintf(out, " |\n");
    }
    fprintf(out, "\n```\n%s", general_notes);
    cs_settings_print_help(out);
    fprintf(out, "```\n\n");
    for (uint32_t k = 0; k < CS_CLI_COUNT(commands); k++)
        cs_cli_print_markdown(out, commands[k].cli);
}

// docs/scenes.md's key reference, between its markers: every block of the
// scene layer's key table, then each solver's block that has rows.
// tests/scene_keys_docs.sh compares it with the file.
static void print_scene_keys_markdown(FILE *out)
{
    fprintf(out, "<!-- Generated by `cistern help --scene-keys-markdown` from the key tables\n"
                 "     (host/scene/scene_key_tables.c, each solver's cs_sim_ops.keys); tests/scene_keys_docs.sh\n"
                 "     fails when this section differs. Edit the tables, then run\n"
                 "     bash tests/scene_keys_docs.sh build/release/cistern --write -->\n\n"
                 "Every key of the blocks below, from the tables the parser reads them with. "
                 "*live*: a parameter panel may change it while the scene runs. "
                 "Ranges are inclusive unless written with `>`.\n\n");
    uint32_t n;
    const cs_scene_key_block *const *blocks = cs_scene_key_blocks(&n);
    for (uint32_t b = 0; b < n; b++)
        cs_scene_keys_print_markdown(out, blocks[b]);
    for (int i = 0; cs_sim_registry[i]; i++)
        for (int k = 0; cs_sim_registry[i]->keys && cs_sim_registry[i]->keys[k]; k++)
            cs_scene_keys_print_markdown(out, cs_sim_registry[i]->keys[k]);
}

static const command *find_command(const char *name)
{
    for (uint32_t k = 0; k < CS_CLI_COUNT(commands); k++)
        if (strcmp(commands[k].cli->name, name) == 0)
            return &commands[k];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[CS_CLI_COUNT(commands)];
    for (uint32_t k = 0; k < CS_CLI_COUNT(commands); k++)
        names[k] = commands[k].cli->name;
    const char *near = cs_cli_nearest(name, names, CS_CLI_COUNT(commands));
    fprintf(stderr, "cistern: unknown command \"%s\"%s%s%s; `cistern help` lists them\n", name,
            near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
    return 2;
}

// `cistern help`, `cistern help COMMAND`, `cistern help --markdown` (docs/cli.md).
static int cmd_help(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[2], "--markdown") == 0) {
        print_markdown(stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[2], "--scene-keys-markdown") == 0) {
        print_scene_keys_markdown(stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[2], "--help") != 0 && strcmp(argv[2], "-h") != 0) {
        const command *c = find_command(argv[2]);
        if (!c)
            return unknown_command(argv[2]);
        cs_cli_print_help(stdout, c->cli);
        return 0;
    }
    usage(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    cs_cli_read_settings();
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return cmd_help(1, argv);
    const command *cmd = find_command(name);
    for (int i = 2; i < argc && cmd != &commands[CS_CLI_COUNT(commands) - 1]; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            if (cmd)
                cs_cli_print_help(stdout, cmd->cli);
            else
                usage(stdout);
            return 0;
        }
    if (!cmd)
        return unknown_command(name);
    return cmd->main(argc, argv);
}

