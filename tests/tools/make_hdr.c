// make_hdr.c — writes a small synthetic environment as a Radiance .hdr with
// stb_image_write, for tests/cli.sh (`cistern sh` needs an image to read):
//   make_hdr OUT.hdr [WIDTHxHEIGHT]     lat-long (default 64x32)
//   make_hdr OUT.hdr --cube N           a strip of six N x N cube faces
// The sky: a blue-to-white gradient above the horizon, brown ground below,
// and a small bright sun at 40 degrees elevation.
#include "env.h"

#include <math.h>
#include <stb/stb_image_write.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: make_hdr OUT.hdr [WIDTHxHEIGHT | --cube N]\n");
        return 2;
    }
    uint32_t layout = CS_SH_LATLONG, w = 64, h = 32;
    if (argc >= 4 && strcmp(argv[2], "--cube") == 0) {
        layout = CS_SH_CUBE;
        w = h = (uint32_t)atoi(argv[3]);
    } else if (argc >= 3 && sscanf(argv[2], "%ux%u", &w, &h) != 2) {
        fprintf(stderr, "make_hdr: size wants WIDTHxHEIGHT (got %s)\n", argv[2]);
        return 2;
    }
    cs_env env;
    cs_error err;
    if (!cs_env_create(&env, layout, w, h, argv[1], &err)) {
        fprintf(stderr, "make_hdr: %s\n", err.msg);
        return 2;
    }
    const double pi = 3.14159265358979323846, el = 40.0 * pi / 180.0;
    const double sun[3] = {cos(el), 0.0, sin(el)};
    uint32_t n = cs_env_texel_count(&env);
    for (uint32_t t = 0; t < n; t++) {
        double d[3];
        cs_env_texel_direction(layout, w, h, t, d);
        float *c = &env.rgb[3 * (size_t)t];
        if (d[2] >= 0.0) {
            double k = pow(d[2], 0.4);
            c[0] = (float)(1.0 - 0.8 * k), c[1] = (float)(0.9 - 0.5 * k), c[2] = (float)(0.75 + 0.25 * k);
        } else {
            c[0] = 0.3f, c[1] = 0.25f, c[2] = 0.2f;
        }
        if (d[0] * sun[0] + d[1] * sun[1] + d[2] * sun[2] > cos(6.0 * pi / 180.0))
            c[0] += 200.0f, c[1] += 190.0f, c[2] += 170.0f;
    }
    // Lat-long is written as is; a cube as a strip of its faces side by side.
    uint32_t iw = layout == CS_SH_CUBE ? 6 * w : w;
    float *img = malloc((size_t)iw * h * 3 * sizeof(float));
    if (!img)
        return 1;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < iw; x++) {
            uint32_t t = layout == CS_SH_CUBE ? (x / w) * w * w + y * w + x % w : y * w + x;
            memcpy(&img[3 * ((size_t)y * iw + x)], &env.rgb[3 * (size_t)t], 3 * sizeof(float));
        }
    int ok = stbi_write_hdr(argv[1], (int)iw, (int)h, 3, img);
    free(img);
    cs_env_free(&env);
    if (!ok) {
        fprintf(stderr, "make_hdr: cannot write %s\n", argv[1]);
        return 1;
    }
    return 0;
}
