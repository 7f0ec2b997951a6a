// view.h — `cistern view FILE.PHD`: fly through a Tomb Raider 1 level in a
// window (Tab jumps to the next room), or headless: one image per room,
// seen from its middle, with the rooms the portal walk drew. Either TR1's
// baked vertex light or radiosity (the room lights and their bounces).
#pragma once

#include "cli.h"
#include "common.h"

typedef struct cs_view_options {
    const char *level;         // .PHD path
    const char *out_dir;       // headless images (default out/view/NAME)
    bool overwrite;            // a non-empty out_dir: delete its room_*.png first
    const char *device;
    bool validation;
    bool headless;             // forced; also when no display exists
    int room;                  // headless: only this room (-1: every room)
    uint32_t width, height;    // 0: 640 x 360 headless, 1280 x 720 window
    uint32_t frames;           // window: stop after N frames (0: until closed)
    double units_per_metre;    // 0: CS_LEVEL_DEFAULT_UNITS_PER_METRE
    bool no_fog;
    bool quiet;
    bool radiosity;            // --light radiosity: lit by the room lights and their bounces (B switches in a window)
    double patch_size;         // radiosity patches, m (main.c's default: 4)
    bool panel;                // the rooms panel (panel.h): the rooms, the camera's, a jump to each
    bool camera_given;         // headless --camera: one image from `camera` instead of one per room
    double camera[3];          // metres, world coordinates of the level (looking along -z)
    // --flood: the water rooms (or flood_rooms, "3,5") filled with PBF water
    // of at most flood_particles particles (0: 20000) and run as a scene
    // (level_flood.h), in the window or headless (frames: default 120, a
    // PNG every 10th, in out_dir, default out/view/NAME_flood).
    bool flood;
    const char *flood_rooms;
    uint32_t flood_particles;
} cs_view_options;

int cs_view_command(const cs_view_options *opt);

// `cistern view` on the command line: its option table (cli.h) and its
// entry, called by main.c with the whole argv (the command is argv[1]).
extern const cs_cli_command cs_view_cli;
int cs_view_main(int argc, char **argv);
