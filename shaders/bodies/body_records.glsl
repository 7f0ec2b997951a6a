// body_records.glsl — what a particle gives the moving bodies, written into
// its own contact records (bodies_shared.h CS_BODY_RECORDS_PER_PARTICLE
// records of CS_BODY_RECORD_FLOATS floats, at particle * records). The
// records of one body are summed per substep by the bodies module: sorted by
// body slot (a stable sort keeps the particle order) and summed per slot in
// a fixed tree (bodies/records_sum.comp), so no float atomics and the same
// bits every run, and the cost grows with the particles, not bodies times
// particles. One invocation per particle writes only its own records.
//
// Declare the records buffer as `impulses` (float[]) before including.
#ifndef CS_BODY_RECORDS_GLSL
#define CS_BODY_RECORDS_GLSL

#include "bodies_shared.h"

// Adds impulse j and angular impulse l for the body in impulse slot `slot`
// to particle's records: into the record that already holds that slot, else
// into the first unused one. With all records holding other bodies the
// impulse is dropped and the particle's overflow mark set (the module counts
// the marks: cs_bodies_overflow).
void cs_body_record_add(uint particle, uint slot, vec3 j, vec3 l)
{
    uint first = particle * CS_BODY_RECORDS_PER_PARTICLE;
    float key = float(slot);
    for (uint k = 0u; k < CS_BODY_RECORDS_PER_PARTICLE; k++) {
        uint at = (first + k) * CS_BODY_RECORD_FLOATS;
        float held = impulses[at];
        if (held == CS_BODY_RECORD_NONE) {
            impulses[at] = key;
            for (uint t = 0u; t < 3u; t++) {
                impulses[at + 1u + t] = j[t];
                impulses[at + 4u + t] = l[t];
            }
            return;
        }
        if (held == key) {
            for (uint t = 0u; t < 3u; t++) {
                impulses[at + 1u + t] += j[t];
                impulses[at + 4u + t] += l[t];
            }
            return;
        }
    }
    impulses[first * CS_BODY_RECORD_FLOATS + 7u] = CS_BODY_RECORD_OVERFLOW;
}

#endif
