#!/usr/bin/env bash
# The 4-bit and the 8-bit radix sort (CISTERN_SORT=4|8, docs/primitives.md),
# the 8-bit one with blocks of 8192 and 2048 keys (CISTERN_SORT_BLOCK), give
# the same stable order, so the neighbour grid and the fluid keep every
# bit: dam_break_3d at 16k particles (2 or 8 blocks: the multi-block
# passes) dumps the same PLY bytes for frames 0-10 every way.
# CISTERN_SORT=5 and CISTERN_SORT_BLOCK=3000 must be refused by the run,
# which shows the variables reach the grid's sort (test_prim_sort checks
# what they choose). Validation (with synchronization) is on. $1 is the
# cistern binary.
# ctest labels: slow,gpu -- ~38 (three 11-frame 16k runs with validation, PLYs compared)
set -uo pipefail
cistern=${1:?usage: sort_digits.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

frames=11
# name, CISTERN_SORT, CISTERN_SORT_BLOCK
shapes=("sort4 4 8192" "sort8 8 8192" "sort8b2048 8 2048")
for shape in "${shapes[@]}"; do
  read -r name digits block <<<"$shape"
  expect 0 "11 PLY dumps" -- env CISTERN_SORT=$digits CISTERN_SORT_BLOCK=$block "$cistern" run dam_break_3d \
    --headless --particles 16k --frames $frames --dump-every 1 --png-every 0 --validation --out "$tmp/$name"
  grep -q "validation error" <<<"$last_out" &&
    fail "$name: validation errors: $(grep 'validation error' <<<"$last_out" | head -3)"
done
for name in sort8 sort8b2048; do
  dumps=0
  for ply in "$tmp"/sort4/particles_*.ply; do
    [ -e "$ply" ] || continue
    dumps=$((dumps + 1))
    cmp -s "$ply" "$tmp/$name/$(basename "$ply")" || fail "$(basename "$ply") differs between sort4 and $name"
  done
  [ "$dumps" = "$frames" ] || fail "$dumps PLY dumps of $frames"
done

expect 2 "CISTERN_SORT=5: expected 4 or 8" -- env CISTERN_SORT=5 "$cistern" run dam_break_3d --headless \
  --particles 16k --frames 1 --png-every 0 --out "$tmp/sort5"
expect 2 "CISTERN_SORT_BLOCK=3000: expected a power of two from 128 to 65536" -- env CISTERN_SORT=8 \
  CISTERN_SORT_BLOCK=3000 "$cistern" run dam_break_3d --headless --particles 16k --frames 1 --png-every 0 \
  --out "$tmp/sort_block3000"

[ "$failures" = 0 ] || exit 1
echo "sort_digits: PASS"
