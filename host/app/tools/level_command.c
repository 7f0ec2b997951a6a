// level_command.c — `cistern level FILE.PHD`: a Tomb Raider 1 level read
// with the strict reader and summarised, or the demo level written.
#include "level_command.h"
#include "cli.h"
#include "file_io.h"
#include "level_tr1.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>


typedef struct level_args {
    const char *file;
    const char *generate;
} level_args;

static const cs_cli_option level_options[] = {
    {.name = "--generate", .kind = CS_CLI_PATH, CS_CLI_AT(level_args, generate), .arg = "OUT.phd",
     .help = "write the generated demo level (levels/cistern_demo.phd) instead of reading FILE.PHD"},
};

const cs_cli_command cs_level_cli = {
    .name = "level",
    .args = "FILE.PHD",
    .summary = "check a Tomb Raider 1 level and summarise it (rooms, portals, ...)",
    .positional = "file",
    .positional_at = offsetof(level_args, file),
    .options = level_options,
    .option_count = CS_CLI_COUNT(level_options),
    .notes = "Prints the level's rooms, portals, sectors, textures and meshes, or the first thing wrong with it\n"
             "(file, byte offset, field).\n",
};

static int level_generate(const char *path)
{
    cs_tr1_level lvl;
    cs_tr1_generate_demo(&lvl);
    uint8_t *data = NULL;
    size_t size = 0;
    bool ok = cs_tr1_write(&lvl, &data, &size);
    cs_tr1_free(&lvl);
    cs_error err;
    if (!ok)
        cs_fail(&err, "a count of the demo level does not fit its field");
    ok = ok && cs_write_whole_file(path, data, size, false, &err);
    free(data);
    if (!ok) {
        fprintf(stderr, "cistern: level: %s\n", err.msg);
        return 1;
    }
    printf("wrote %s (%zu bytes)\n", path, size);
    return 0;
}

// `cistern level FILE.PHD`: reads the whole file with the strict reader
// (docs/levels.md) and prints what it holds, or the first thing wrong with it.
int cs_level_main(int argc, char **argv)
{
    level_args a = {0};
    cs_cli_parsed parsed;
    if (!cs_cli_parse(&cs_level_cli, argc, argv, 2, &a, &parsed))
        return 2;
    if (a.generate && !a.file)
        return level_generate(a.generate);
    if (!a.file || a.generate) {
        fprintf(stderr, "cistern: level wants one file: cistern level FILE.PHD (a Tomb Raider 1 level), "
                        "or cistern level --generate OUT.phd\n");
        return 2;
    }
    cs_error err;
    size_t size = 0;
    cs_tr1_level lvl;
    if (!cs_tr1_load(a.file, &lvl, &size, &err)) {
        fprintf(stderr, "cistern: %s\n", err.msg);
        return 1;
    }
    cs_tr1_stats s = cs_tr1_count(&lvl);
    printf("%s: Tomb Raider 1 level, %zu bytes\n", a.file, size);
    printf("  rooms            %u\n", s.rooms);
    printf("  portals          %u\n", s.portals);
    printf("  sectors          %u\n", s.sectors);
    printf("  room geometry    %u vertices, %u rectangles, %u triangles, %u sprites\n", s.vertices, s.rects, s.tris,
           s.sprites);
    printf("  room lights      %u\n", s.lights);
    printf("  room meshes      %u (placed static meshes)\n", s.room_meshes);
    printf("  textures         %u textiles (256x256), %u object textures, %u sprite textures\n", s.textiles,
           s.object_textures, s.sprite_textures);
    printf("  meshes           %u meshes, %u static meshes, %u moveables\n", s.meshes, s.static_meshes,
           s.moveables);
    printf("  entities         %u\n", s.entities);
    cs_tr1_free(&lvl);
    return 0;
}

