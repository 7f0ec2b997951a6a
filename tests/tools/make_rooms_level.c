// make_rooms_level.c — writes a valid TR1 level of many small rooms for
// tests/cli_limits.sh (issue 28's audit, 4.4: 1000 small rooms kept the
// level's field bake busy for minutes with no output):
//   make_rooms_level OUT.phd [ROOMS]     (default 1000)
// The demo level (cs_tr1_generate_demo) with its rooms replaced: each 3 x 3
// sectors, walls round one open sector, on a 32-wide grid every 3 sectors
// and shifted off the sector grid by a few hundred units (so every room
// adds its own lattice planes), floors at 7 heights; no faces or portals.
#include "level_tr1.h"

static void free_room(cs_tr1_room *r)
{
    free(r->vertices), free(r->rects), free(r->tris), free(r->sprites), free(r->portals);
    free(r->sectors), free(r->lights), free(r->meshes), free(r->extra_data);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: make_rooms_level OUT.phd [ROOMS]\n");
        return 2;
    }
    uint32_t count = argc >= 3 ? (uint32_t)atoi(argv[2]) : 1000;
    if (count < 1 || count > 4096) {
        fprintf(stderr, "make_rooms_level: ROOMS wants 1 to 4096 (got %s)\n", argv[2]);
        return 2;
    }
    cs_tr1_level level;
    cs_tr1_generate_demo(&level);
    for (uint32_t r = 0; r < level.room_count; r++)
        free_room(&level.rooms[r]);
    free(level.rooms);
    level.room_count = count;
    level.rooms = calloc(count, sizeof *level.rooms);
    for (uint32_t k = 0; k < count; k++) {
        cs_tr1_room *room = &level.rooms[k];
        int floor = (int)(k % 7) * 256, ceiling = floor - 4 * 256;
        *room = (cs_tr1_room){.x = (int32_t)(k % 32) * 3 * 1024 + (int32_t)(k * 97 % 1024),
                              .z = (int32_t)(k / 32) * 3 * 1024 + (int32_t)(k * 61 % 1024),
                              .y_bottom = floor,
                              .y_top = ceiling,
                              .x_sectors = 3,
                              .z_sectors = 3,
                              .alternate_room = -1,
                              .ambient = 4096};
        room->sectors = calloc(9, sizeof *room->sectors);
        for (int s = 0; s < 9; s++)
            room->sectors[s] = (cs_tr1_sector){.box_index = 0xffff, .room_below = CS_TR1_NO_ROOM,
                                               .room_above = CS_TR1_NO_ROOM, .floor = -127, .ceiling = -127};
        room->sectors[4].floor = (int8_t)(floor / 256);
        room->sectors[4].ceiling = (int8_t)(ceiling / 256);
    }
    uint8_t *data;
    size_t size;
    bool ok = cs_tr1_write(&level, &data, &size);
    cs_tr1_free(&level);
    if (!ok) {
        fprintf(stderr, "make_rooms_level: the level was not written\n");
        return 1;
    }
    FILE *out = fopen(argv[1], "wb");
    if (!out || fwrite(data, 1, size, out) != size || fclose(out) != 0) {
        fprintf(stderr, "make_rooms_level: cannot write %s\n", argv[1]);
        free(data);
        return 1;
    }
    free(data);
    printf("%s: %u rooms, %zu bytes\n", argv[1], count, size);
    return 0;
}
