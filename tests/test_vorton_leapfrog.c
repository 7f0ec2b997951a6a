// test_vorton_leapfrog.c — the two coaxial rings of vorton_rings_3d (R 0.3,
// core 0.06, circulation 0.5, 0.25 apart along y; the scene's vortons and
// solver, no tracers) run until they have leapfrogged: the rear ring
// shrinks, speeds up and passes through the front one, which widens and
// slows; then the roles swap. Each ring's centre (mean y of its vortons)
// and radius (mean distance from the axis) are printed every 0.1 s; the
// test checks that the rear ring passes the front one (its centre ends
// ahead) while narrower where they draw level, and that the other passes
// back through it after.
// ctest labels: slow,gpu -- 20
#include "test_util.h"

#include "vorton.h"

typedef struct ring_state {
    double y, radius;
} ring_state;

static ring_state measure(const float *pos, uint32_t first, uint32_t count)
{
    double y = 0.0, r = 0.0;
    for (uint32_t i = first; i < first + count; i++) {
        y += pos[i * 4 + 1];
        r += sqrt((double)pos[i * 4] * pos[i * 4] + (double)pos[i * 4 + 2] * pos[i * 4 + 2]);
    }
    return (ring_state){y / count, r / count};
}

int main(void)
{
    cs_context ctx;
    test_context(&ctx);
    const float spacing = 0.03f, dt = 1.0f / 120.0f;
    cs_vorton_ring rings[2] = {
        {.centre = {0, 0, 0}, .axis = {0, 1, 0}, .radius = 0.3f, .core = 0.06f, .circulation = 0.5f},
        {.centre = {0, 0.25f, 0}, .axis = {0, 1, 0}, .radius = 0.3f, .core = 0.06f, .circulation = 0.5f},
    };
    uint32_t per_ring = cs_vorton_ring_fill(&rings[0], spacing, NULL, NULL, 0), n = 2 * per_ring;
    float *pos = calloc(n, 16), *vort = calloc(n, 16);
    for (int k = 0; k < 2; k++)
        cs_vorton_ring_fill(&rings[k], spacing, pos + 4 * k * per_ring, vort + 4 * k * per_ring, per_ring);
    for (uint32_t i = 0; i < n; i++)
        vort[i * 4 + 3] = 300.0f;
    cs_vorton_params p = {.dt = dt, .stretching = VORTON_STRETCH_TRANSPOSE, .viscosity = 1e-4f,
                          .ambient_temperature = 300.0f};
    cs_vorton *v;
    cs_error err;
    if (!cs_vorton_create(&ctx, &p, n, 0, &v, &err)) {
        CHECK(false, "%s", err.msg);
        return test_finish(&ctx);
    }
    cs_vorton_upload(v, pos, vort, n);
    cs_recorder rec;
    cs_recorder_create(&ctx, "leapfrog", &rec);
    const uint32_t every = 12, limit = 12 * 60; // 0.1 s, 6 s
    int passes = 0;      // how many times the trailing ring overtook the leading one
    int leader = 1;      // ring 1 starts ahead
    double first_pass = -1.0, second_pass = -1.0;
    bool narrower_when_passing = true;
    ring_state prev_a = {0}, prev_b = {0};
    printf("   t s   ring A y   ring A R   ring B y   ring B R   (A starts behind)\n");
    for (uint32_t s = 0; s <= limit && passes < 2; s += every) {
        if (s) {
            cs_recorder_begin(&rec);
            for (uint32_t k = 0; k < every; k++)
                cs_vorton_record_step(v, &rec);
            cs_recorder_submit_wait(&rec);
        }
        cs_vorton_download(v, pos, NULL);
        ring_state a = measure(pos, 0, per_ring), b = measure(pos, per_ring, per_ring);
        printf("%6.2f %10.4f %10.4f %10.4f %10.4f\n", s * dt, a.y, a.radius, b.y, b.radius);
        int ahead = a.y > b.y ? 0 : 1;
        if (ahead != leader) {
            // Through, not around: the passer is the narrower one where it
            // draws level (both rings' radii read linearly between the
            // samples at the time their centres cross). The last sample
            // before was the measure until issue 44; with the ring fill's
            // thinner blobs the second pass is slow (the rings travel
            // together for 0.3 s) and the radii there tie within 0.0003.
            ring_state passer0 = ahead == 0 ? prev_a : prev_b, passed0 = ahead == 0 ? prev_b : prev_a;
            ring_state passer1 = ahead == 0 ? a : b, passed1 = ahead == 0 ? b : a;
            double gap0 = passed0.y - passer0.y, gap1 = passer1.y - passed1.y; // both >= 0
            double f = gap0 + gap1 > 0.0 ? gap0 / (gap0 + gap1) : 0.5;
            double passer_r = passer0.radius + f * (passer1.radius - passer0.radius);
            double passed_r = passed0.radius + f * (passed1.radius - passed0.radius);
            printf("   pass at %.2f .. %.2f s: the passer's radius %.4f, the other's %.4f where they draw level\n",
                   (s - every) * dt, s * dt, passer_r, passed_r);
            narrower_when_passing &= passer_r < passed_r;
            passes++;
            leader = ahead;
            if (passes == 1)
                first_pass = s * dt;
            else
                second_pass = s * dt;
        }
        prev_a = a;
        prev_b = b;
    }
    printf("%u + %u vortons: the rear ring passed through the front one at t = %.2f s, the other back through it at "
           "t = %.2f s (-1: not within %.1f s)\n",
           per_ring, per_ring, first_pass, second_pass, limit * dt);
    CHECK(first_pass > 0.0, "the rear ring never passed the front one in %.1f s", limit * dt);
    CHECK(second_pass > 0.0, "the rings leapfrogged once but not back within %.1f s", limit * dt);
    CHECK(narrower_when_passing, "a ring passed the other without being the narrower one (around it, not through)");
    cs_recorder_destroy(&rec);
    cs_vorton_destroy(v);
    free(pos);
    free(vort);
    return test_finish(&ctx);
}
