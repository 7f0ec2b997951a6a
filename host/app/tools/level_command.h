// level_command.h — `cistern level`: its option table and entry (main.c's
// command table).
#pragma once
#include "cli.h"

extern const cs_cli_command cs_level_cli;
int cs_level_main(int argc, char **argv);
