// fuzz_tr1.c — libFuzzer target for the Tomb Raider 1 level reader: any bytes
// go through cs_tr1_read; a refusal must carry a message, and anything the
// reader accepts must write back to exactly the same bytes (the reader keeps
// nothing it could not write). ASan/UBSan catch memory errors and leaks.
//
//   cmake --preset fuzz && cmake --build build/fuzz --target fuzz_tr1
//   build/fuzz/fuzz_tr1 -max_total_time=120 -max_len=200000 /tmp/tr1_corpus tests/fuzz/corpus/tr1
#include "level_tr1.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cs_tr1_level level;
    cs_error err;
    err.msg[0] = 0;
    if (!cs_tr1_read(data, size, "fuzz.phd", &level, &err)) {
        if (strncmp(err.msg, "fuzz.phd: byte ", 15) != 0)
            abort(); // a refusal names the file and the offset
        cs_tr1_free(&level);
        return 0;
    }
    cs_tr1_stats stats = cs_tr1_count(&level);
    (void)stats;
    // The floor data walks stay in the section, whatever it holds, and a
    // slant only lowers a floor and raises a ceiling.
    for (uint32_t r = 0; r < level.room_count; r++)
        for (uint32_t k = 0; k < (uint32_t)level.rooms[r].x_sectors * level.rooms[r].z_sectors; k++) {
            const cs_tr1_sector *s = &level.rooms[r].sectors[k];
            cs_tr1_slant f, c;
            cs_tr1_sector_slants(&level, s, &f, &c);
            (void)cs_tr1_sector_door(&level, s);
            if (cs_tr1_floor_height(s, f, 1024, 1024) < s->floor * 256.0 ||
                cs_tr1_ceiling_height(s, c, 0, 0) > s->ceiling * 256.0)
                abort();
        }
    uint8_t *out = NULL;
    size_t out_size = 0;
    if (!cs_tr1_write(&level, &out, &out_size))
        abort();
    if (out_size != size || memcmp(out, data, size) != 0)
        abort(); // write(read(x)) == x
    free(out);
    cs_tr1_free(&level);
    return 0;
}
