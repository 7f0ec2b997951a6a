// main.c — the `cistern` command line.
#include "context.h"
#include "shader.h"

static void usage(FILE *out)
{
    fprintf(out,
            "cistern — a Vulkan compute lab for real-time particle fluids and light\n"
            "\n"
            "usage: cistern COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  devices                 list Vulkan devices with driver and key limits\n"
            "  help                    this text\n"
            "\n"
            "common options:\n"
            "  --device N|NAME         pick a device by index or name substring\n"
            "  --validation            enable Vulkan validation + synchronization validation\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    cs_error err;
    if (strcmp(argv[1], "devices") == 0) {
        if (!cs_print_devices(stdout, &err)) {
            fprintf(stderr, "cistern: %s\n", err.msg);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "cistern: unknown command '%s'; `cistern --help` lists them\n", argv[1]);
    return 2;
}
