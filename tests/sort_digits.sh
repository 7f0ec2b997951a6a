#!/usr/bin/env bash
# The 4-bit and the 8-bit radix sort (CISTERN_SORT=4|8, docs/primitives.md)
# give the same stable order, so the neighbour grid and the fluid keep every
# bit: dam_break_3d at 16k particles (two blocks of 8192 keys: the
# multi-block passes) dumps the same PLY bytes for frames 0-10 either way.
# CISTERN_SORT=5 must be refused by the run, which shows the variable
# reaches the grid's sort (test_prim_sort checks 8 gives 8-bit digits).
# Validation (with synchronization) is on. $1 is the cistern binary.
set -uo pipefail
cistern=${1:?usage: sort_digits.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

frames=11
for digits in 4 8; do
  expect 0 "11 PLY dumps" -- env CISTERN_SORT=$digits "$cistern" run dam_break_3d --headless --particles 16k \
    --frames $frames --dump-every 1 --png-every 0 --validation --out "$tmp/sort$digits"
  grep -q "validation error" <<<"$last_out" &&
    fail "CISTERN_SORT=$digits: validation errors: $(grep 'validation error' <<<"$last_out" | head -3)"
done
dumps=0
for ply in "$tmp"/sort4/particles_*.ply; do
  [ -e "$ply" ] || continue
  dumps=$((dumps + 1))
  cmp -s "$ply" "$tmp/sort8/$(basename "$ply")" || fail "$(basename "$ply") differs between CISTERN_SORT=4 and 8"
done
[ "$dumps" = "$frames" ] || fail "$dumps PLY dumps of $frames"

expect 2 "CISTERN_SORT=5: expected 4 or 8" -- env CISTERN_SORT=5 "$cistern" run dam_break_3d --headless \
  --particles 16k --frames 1 --png-every 0 --out "$tmp/sort5"

[ "$failures" = 0 ] || exit 1
echo "sort_digits: PASS"
