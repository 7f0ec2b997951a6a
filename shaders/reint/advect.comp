#version 450
// advect.comp — reintegration tracking: every cell gathers the distributions
// that land on it after one step.
//
// Each source cell j holds one distribution: integer mass m_j, centre of mass
// x_j, velocity v_j. After the step it is a uniform box of half-size r
// (the diffusion radius) centred on x_j + v_j dt. This cell receives the part
// of the box that overlaps it: that mass, at the centre of the overlap box,
// carrying v_j. The sums are then averaged by mass; a cell nothing lands on is
// vacuum (mass 0).
//
// Exact mass: the box is separable, so the mass is split one axis at a time.
// Along an axis, every overlapped cell but one gets floor(m * w) of the mass
// reaching that axis (w: its overlap fraction in 24-bit fixed point); the
// cell holding the box centre gets the rest. The split of source j is
// computed in j's own frame from j's data only, so every target that reads j
// computes the same numbers, and the pieces sum to m_j exactly: total mass is
// conserved bit for bit, by construction.
//
// Locality: the forces pass limits |v| dt to R - r; here each displacement
// component is clamped to [-(R - r), R - r] again so that float rounding can
// never carry a box past the search radius R.
//
// Walls: a centre that would leave the domain stops on the wall, and its
// velocity component into that wall is reversed and scaled by the
// restitution e. The part of a box that reaches past a wall is mirrored back
// inside (a reflecting wall): nothing leaves, and a wall cell at rest trades
// with its neighbours exactly as a cell in open fluid does, so a wall alone
// does not stir a resting pool.
//
// Level (pc.scale.w != 0; pipelines/reint/reint.c, "cell flags"): a piece of a
// box that would land in a solid cell, or cross a blocked face (a wall,
// including a zero-thickness wall between two rooms) on its way, stays in
// its source cell instead: the source keeps that mass, at the piece's centre
// clamped into the source cell, with the velocity components that pointed
// into the wall reversed and scaled by the restitution. Whether a piece is
// refused depends only on the source's and the target's flags, so the
// target (which skips it) and the source (which keeps it) decide alike and
// total mass stays exact. Needs search radius 1 (pieces land at most one
// cell away on each axis; reint.c refuses more with a level).
#include "reint_common.glsl"

REINT_LOCAL_SIZE;

layout(std430, binding = 0) readonly buffer Mass { uint mass[]; };
layout(std430, binding = 1) readonly buffer Pos { VSTORE pos[]; };
layout(std430, binding = 2) readonly buffer Vel { VSTORE vel[]; };
layout(std430, binding = 3) writeonly buffer MassOut { uint mass_out[]; };
layout(std430, binding = 4) writeonly buffer PosOut { VSTORE pos_out[]; };
layout(std430, binding = 5) writeonly buffer VelOut { VSTORE vel_out[]; };
// x: cells whose gather overflowed a u32 (more than 4096 rest masses), summed
// over every step; the host reads it with the stats (cs_reint_read_stats).
layout(std430, binding = 6) buffer Overflow { uvec4 overflow; };
// REINT_CELL_SOLID and REINT_FACE_BIT per cell; a placeholder without a level.
layout(std430, binding = 7) readonly buffer CellFlags { uint cell_flags[]; };

bool reint_has_level() { return pc.scale.w != 0.0; }

// Length and centre of the overlap of [a0, a1] with [b0, b1] (length 0 if
// they do not meet).
vec2 reint_overlap(float a0, float a1, float b0, float b1)
{
    float lo = max(a0, b0), hi = min(a1, b1);
    return hi > lo ? vec2(hi - lo, 0.5 * (lo + hi)) : vec2(0.0);
}

// One source distribution along one axis, in the source cell's frame (the
// source cell spans [0, 1]; cell c of the frame is source cell + c). The box
// [lo, hi] is folded at the walls w0 and w1: a part past a wall is mirrored
// back inside, so the axis' mass density is the box clipped to the domain
// plus up to two mirrored slivers, and still integrates to 1.
struct reint_axis {
    float lo, hi;              // the advected box (may cross a wall)
    float w0, w1;              // the walls
    int c_lo, c_hi;            // cells the folded box overlaps
    int c_rem;                 // the cell that takes the rounding remainder
    float v;                   // velocity after the wall
};

// Overlap of the folded box with [c0, c1]: x = length, y = length * centre.
vec2 reint_folded_overlap(reint_axis a, float c0, float c1)
{
    vec2 inside = reint_overlap(max(a.lo, a.w0), min(a.hi, a.w1), c0, c1);
    vec2 below = a.lo < a.w0 ? reint_overlap(a.w0, 2.0 * a.w0 - a.lo, c0, c1) : vec2(0.0);
    vec2 above = a.hi > a.w1 ? reint_overlap(2.0 * a.w1 - a.hi, a.w1, c0, c1) : vec2(0.0);
    return vec2(inside.x + below.x + above.x, inside.x * inside.y + below.x * below.y + above.x * above.y);
}

// x: centre of mass (offset in the source cell), v: velocity (cells/s),
// j: source cell index and n: cells along this axis.
reint_axis reint_advect_axis(float x, float v, int j, int n)
{
    float dt = pc.gravity_dt.w;
    float r = pc.radii.x;
    float max_step = pc.radii.y;
    float e = pc.radii.w;
    reint_axis a;
    a.w0 = -float(j);
    a.w1 = float(n - j);
    float xn = x + clamp(v * dt, -max_step, max_step);
    if (xn < a.w0) {
        xn = a.w0;
        if (v < 0.0)
            v = -e * v;
    } else if (xn > a.w1) {
        xn = a.w1;
        if (v > 0.0)
            v = -e * v;
    }
    a.lo = xn - r;
    a.hi = xn + r;
    // The mirrored slivers lie inside the clipped box's cells (r < 1 <= n).
    a.c_lo = int(floor(max(a.lo, a.w0)));
    a.c_hi = int(ceil(min(a.hi, a.w1))) - 1;
    a.c_rem = clamp(int(floor(xn)), a.c_lo, a.c_hi);
    a.v = v;
    return a;
}

// Share of the source's mass along this axis that cell c holds, in
// REINT_WEIGHT_BITS fixed point (rounded down).
uint reint_weight(reint_axis a, int c)
{
    float f = reint_folded_overlap(a, float(c), float(c + 1)).x / (2.0 * pc.radii.x);
    return uint(min(f, 1.0) * float(REINT_WEIGHT_ONE_F));
}

// floor(m * w / 2^WEIGHT_BITS) without 64-bit integers.
uint reint_mul_weight(uint m, uint w)
{
    uint hi, lo;
    umulExtended(m, w, hi, lo);
    return (hi << (32 - REINT_WEIGHT_BITS)) | (lo >> REINT_WEIGHT_BITS);
}

// The part of mass m that cell ct receives along this axis. Cells are visited
// in a fixed order and no piece may exceed what is left, so the pieces of all
// cells sum to m exactly.
uint reint_split(uint m, reint_axis a, int ct)
{
    uint given = 0u;
    uint mine = 0u;
    for (int k = 0; k < REINT_MAX_SPAN; k++) {
        int c = a.c_lo + k;
        if (c > a.c_hi)
            break;
        if (c == a.c_rem)
            continue;
        uint q = min(reint_mul_weight(m, reint_weight(a, c)), m - given);
        given += q;
        if (c == ct)
            mine = q;
    }
    return ct == a.c_rem ? m - given : mine;
}

// True when the piece of a distribution in the cell with flags `from` that
// lands at offset c (each component -1, 0 or 1) in the cell with flags `to`
// may not go there: the target is solid, or a face it crosses is blocked on
// either side.
bool reint_refused(uint from, uint to, IVEC c)
{
    if (c == IVEC(0))
        return false;
    if ((to & REINT_CELL_SOLID) != 0u)
        return true;
    for (int a = 0; a < DIM; a++) {
        if (c[a] == 0)
            continue;
        uint high = c[a] > 0 ? 1u : 0u;
        if ((from & REINT_FACE_BIT(a, high)) != 0u || (to & REINT_FACE_BIT(a, 1u - high)) != 0u)
            return true;
    }
    return false;
}

// The mass of a source distribution (mass m, advected axes ax) that lands in
// cell c of the source's frame, and the centre of that piece in the same
// frame. The axes are split in order, each from what the previous left.
uint reint_piece(uint m, reint_axis ax[3], IVEC c, out VEC centre)
{
    uint deposit = m;
    centre = VEC(0.0);
    for (int a = 0; a < DIM; a++) {
        if (c[a] < ax[a].c_lo || c[a] > ax[a].c_hi)
            return 0u;
        deposit = reint_split(deposit, ax[a], c[a]);
        if (deposit == 0u)
            return 0u;
        vec2 ov = reint_folded_overlap(ax[a], float(c[a]), float(c[a] + 1));
        centre[a] = ov.y / ov.x;
    }
    return deposit;
}

// Adds a piece to this cell's sums.
void reint_receive(uint deposit, VEC centre, VEC v, inout uint total, inout bool overfull, inout VEC com,
                   inout VEC mom)
{
    uint carry;
    total = uaddCarry(total, deposit, carry);
    overfull = overfull || carry != 0u;
    com += float(deposit) * centre;
    mom += float(deposit) * v;
}

// The pieces of this cell's own distribution that the level refuses
// elsewhere, kept here (see the header comment).
void reint_keep_refused(IVEC t, uint m, uint flags, reint_axis ax[3], inout uint total, inout bool overfull,
                        inout VEC com, inout VEC mom)
{
    int reach_z = DIM == 3 ? 1 : 0;
    for (int cz = -reach_z; cz <= reach_z; cz++)
        for (int cy = -1; cy <= 1; cy++)
            for (int cx = -1; cx <= 1; cx++) {
                IVEC c = TRIM3(ivec3(cx, cy, cz));
                if (c == IVEC(0) || !reint_in_grid(t + c))
                    continue;
                if (!reint_refused(flags, cell_flags[reint_index(t + c)], c))
                    continue;
                VEC centre;
                uint deposit = reint_piece(m, ax, c, centre);
                if (deposit == 0u)
                    continue;
                VEC v;
                for (int a = 0; a < DIM; a++) {
                    v[a] = ax[a].v;
                    if (v[a] * float(c[a]) > 0.0)
                        v[a] = -pc.radii.w * v[a];
                }
                reint_receive(deposit, clamp(centre, 0.0, 1.0), v, total, overfull, com, mom);
            }
}

void main()
{
    IVEC t;
    if (!reint_cell(t))
        return;
    IVEC n = TRIM3(ivec3(pc.dims.xyz));
    int radius = pc.reach.x;
    int radius_z = DIM == 3 ? radius : 0;
    bool level = reint_has_level();
    uint ti = reint_index(t);
    uint flags_t = level ? cell_flags[ti] : 0u;

    uint total = 0u;
    bool overfull = false;
    VEC com = VEC(0.0);  // sum of deposit * overlap centre (this cell's frame)
    VEC mom = VEC(0.0);  // sum of deposit * velocity
    for (int oz = -radius_z; oz <= radius_z; oz++)
        for (int oy = -radius; oy <= radius; oy++)
            for (int ox = -radius; ox <= radius; ox++) {
                IVEC o = TRIM3(ivec3(ox, oy, oz));
                IVEC j = t + o;
                if (!reint_in_grid(j))
                    continue;
                uint si = reint_index(j);
                uint m = mass[si];
                if (m == 0u)
                    continue;
                VEC x = FROM_STORE(pos[si]);
                VEC v = FROM_STORE(vel[si]);
                reint_axis ax[3];
                VEC v_after;
                for (int a = 0; a < DIM; a++) {
                    ax[a] = reint_advect_axis(x[a], v[a], j[a], n[a]);
                    v_after[a] = ax[a].v;
                }
                uint flags_j = level ? cell_flags[si] : 0u;
                if (level && o == IVEC(0))
                    reint_keep_refused(t, m, flags_j, ax, total, overfull, com, mom);
                // This cell, in the source's frame, is -o.
                if (level && reint_refused(flags_j, flags_t, -o))
                    continue;
                VEC centre;
                uint deposit = reint_piece(m, ax, -o, centre);
                if (deposit == 0u)
                    continue;
                // Centre of what lands here, moved from the source's frame to ours.
                reint_receive(deposit, centre + VEC(o), v_after, total, overfull, com, mom);
            }

    // Past the fixed-point capacity: saturate (the wrapped sum would look
    // like a nearly empty cell) and count it; the run reports it and stops.
    if (overfull) {
        total = 0xffffffffu;
        atomicAdd(overflow.x, 1u);
    }
    mass_out[ti] = total;
    if (total > 0u) {
        // The mean of overlap centres inside this cell lies inside it; the
        // clamp only removes rounding.
        pos_out[ti] = TO_STORE(clamp(com / float(total), 0.0, 1.0));
        vel_out[ti] = TO_STORE(mom / float(total));
    } else {
        pos_out[ti] = TO_STORE(VEC(0.5));
        vel_out[ti] = TO_STORE(VEC(0.0));
    }
}
