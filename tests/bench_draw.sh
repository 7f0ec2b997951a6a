#!/usr/bin/env bash
# `cistern bench --draw` times the particles' draw alone, and drawn as water:
# at tiny counts and a small image each size gets a table row with finite,
# positive GPU ms (both) and
# pixel estimates, the estimates grow with the image (the same particles
# cover more pixels at 2x the size), results.json carries the same figures
# as the table, and a bad --size is refused.
# Validation (with synchronization) is on. $1 is the cistern binary.
# ctest labels: quick,gpu -- 4.6
set -uo pipefail
cistern=${1:?usage: bench_draw.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

# Row: particles radius draw_ms draw_p90 one_pixel tri_Mpx disc_Mpx water_ms water/draw.
rows() { awk '$1 ~ /^[0-9]+$/ && NF == 9' <<<"$1"; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
expect 0 "draw ms" -- "$cistern" bench --draw dam_break_3d --particles 2k,4k --steps 2 --warmup 1 --size 160x90 \
  --validation --out "$out/draw"
small=$last_out
[ "$(rows "$small" | wc -l)" -eq 2 ] || fail "two table rows wanted: $small"
rows "$small" | awk '!($2 > 0 && $3 > 0 && $4 >= $3 && $6 > 0 && $7 > 0 && $7 <= $6 && $8 > 0) { bad = 1 } END { exit bad }' ||
  fail "a row with a non-positive time or estimate (or discs over triangles): $small"
# The JSON's sizes: the table's particle counts and draw ms (3 decimals).
json_rows=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["mode"] == "draw" and d["width"] == 160 and d["height"] == 90, d
for s in d["sizes"]:
    print(s["particles"], "%.3f" % s["draw_median_ms"])
' "$out/draw/results.json") || fail "results.json missing or malformed"
[ "$json_rows" = "$(rows "$small" | awk '{ print $1, $3 }')" ] ||
  fail "results.json sizes differ from the table: $json_rows"
expect 0 "draw ms" -- "$cistern" bench --draw dam_break_3d --particles 2k --steps 1 --warmup 0 --size 320x180 \
  --out "$out/big"
big=$last_out
small_px=$(rows "$small" | awk 'NR == 1 { print $7 }')
big_px=$(rows "$big" | awk 'NR == 1 { print $7 }')
awk -v s="$small_px" -v b="$big_px" 'BEGIN { exit !(b > 3.5 * s && b < 4.5 * s) }' ||
  fail "twice the image size should cover ~4x the disc pixels: $small_px vs $big_px Mpx"
expect 2 "" -- "$cistern" bench --draw dam_break_3d --size 160by90
exit $((failures > 0))
