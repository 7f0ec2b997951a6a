#!/usr/bin/env bash
# `cistern trace` end to end on lavapipe with validation on. $1 is the
# cistern binary.
#  - the Cornell box at 48x32, 8 paths a pixel, probes: trace.png,
#    trace.pfm and patches.csv exist; the PFM header is "PF", "48 32", a
#    negative scale (little-endian), and the file is exactly the header plus
#    48 x 32 x 3 floats; its rows go bottom up (the ceiling light, in the
#    image's top rows, is in the file's last rows); patches.csv has a row
#    per triangle (38) with a finite, positive B on the light;
#  - a non-empty --out is refused, --overwrite replaces cistern's files and
#    keeps the others;
#  - bad arguments are refused with a message that says what to write;
#  - --radiosity writes radiosity.png and compare.png (both side by side).
# ctest labels: quick,gpu -- 5
set -uo pipefail
cistern=${1:?usage: trace.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

out="$tmp/cornell"
expect 0 "wrote $out/: trace.png" -- "$cistern" trace cornell_box --size 48x32 --spp 8 --probes --probe-paths 128 \
  --out "$out" --validation
grep -q "validation on" <<<"$last_out" || fail "trace did not run with validation: $last_out"
grep -q "ms a batch" <<<"$last_out" || fail "trace printed no batch timing: $last_out"
for f in trace.png trace.pfm patches.csv; do
  [ -s "$out/$f" ] || fail "trace wrote no $f"
done
[ "$(head -c 8 "$out/trace.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "trace.png is not a PNG"

# PFM: three header lines, then the floats.
header=$(head -n 3 "$out/trace.pfm")
[ "$(sed -n 1p <<<"$header")" = "PF" ] || fail "trace.pfm: first line is not PF: $header"
[ "$(sed -n 2p <<<"$header")" = "48 32" ] || fail "trace.pfm: size line is not '48 32': $header"
scale=$(sed -n 3p <<<"$header")
awk -v s="$scale" 'BEGIN { exit !(s + 0 < 0) }' || fail "trace.pfm: scale $scale is not negative (little-endian)"
header_bytes=$(head -n 3 "$out/trace.pfm" | wc -c)
size=$(stat -c %s "$out/trace.pfm")
[ "$size" -eq $((header_bytes + 48 * 32 * 3 * 4)) ] ||
  fail "trace.pfm: $size bytes, want $header_bytes + 48 x 32 x 12"
# Bottom-up rows: the brightest pixel (the light) lies in the file's last
# quarter of rows. od -f reads host-order floats (this host: little-endian).
brightest_row=$(tail -c $((48 * 32 * 12)) "$out/trace.pfm" | od -An -v -w12 -f |
  awk '{ l = $1 + $2 + $3; if (l > best) { best = l; row = int((NR - 1) / 48) } } END { print row }')
[ "$brightest_row" -ge 24 ] || fail "trace.pfm: the light is in file row $brightest_row of 32, not at the end (rows not bottom-up?)"

# patches.csv: header + 38 triangles; the light's triangles (element 5)
# have the largest B.
rows=$(tail -n +2 "$out/patches.csv" | wc -l)
[ "$rows" -eq 38 ] || fail "patches.csv: $rows rows, want 38 (the Cornell box's triangles)"
head -n 1 "$out/patches.csv" | grep -q "^triangle,element,area_m2,B_r,B_g,B_b,se_r,se_g,se_b,paths$" ||
  fail "patches.csv header: $(head -n 1 "$out/patches.csv")"
top_element=$(tail -n +2 "$out/patches.csv" | sort -t, -k4 -g -r | head -n 1 | cut -d, -f2)
[ "$top_element" = 5 ] || fail "patches.csv: the largest B_r is on element $top_element, not the light (5)"

# Non-empty --out: refused; --overwrite deletes only cistern's files.
touch "$out/notes.txt"
expect 2 "is not empty" -- "$cistern" trace cornell_box --size 8x8 --spp 1 --out "$out" --quiet
expect 0 "" -- "$cistern" trace cornell_box --size 8x8 --spp 1 --out "$out" --overwrite --quiet
[ -f "$out/notes.txt" ] || fail "--overwrite deleted a file that is not cistern's"
[ -f "$out/patches.csv" ] && fail "--overwrite kept an earlier run's patches.csv"
[ "$(sed -n 2p "$out/trace.pfm")" = "8 8" ] || fail "--overwrite: trace.pfm is not the new 8x8 image"

# Bad arguments.
expect 2 "trace wants a scene" -- "$cistern" trace
expect 2 "\-\-spp wants 1 to" -- "$cistern" trace cornell_box --spp 0
expect 2 "\-\-spp wants a whole number" -- "$cistern" trace cornell_box --spp many
expect 2 "\-\-size wants WIDTHxHEIGHT" -- "$cistern" trace cornell_box --size 64
expect 2 "\-\-variance wants N,K" -- "$cistern" trace cornell_box --variance 10
expect 2 "\-\-variance: 100 pixels, but the image has 64" -- "$cistern" trace cornell_box --size 8x8 --variance 100,4 \
  --out "$tmp/v"
expect 2 "unknown option \-\-sp" -- "$cistern" trace cornell_box --sp 4
expect 2 "one scene at a time" -- "$cistern" trace cornell_box rest_box_3d
expect 2 "no \"geometry\" to trace" -- "$cistern" trace rest_box_3d --out "$tmp/none"
expect 2 "no_such_scene" -- "$cistern" trace no_such_scene
expect 0 "cistern trace SCENE" -- "$cistern" help

# The variance pass runs (and writes the same files).
expect 0 "variance pass" -- "$cistern" trace cornell_box --size 16x16 --spp 4 --variance 20,8 --out "$tmp/var"
[ -s "$tmp/var/trace.pfm" ] || fail "trace --variance wrote no trace.pfm"

# --radiosity: the radiosity solution beside the path tracer, 16 + 4 + 16 wide.
expect 0 "radiosity: patches of 0.28 m" -- "$cistern" trace cornell_box --size 16x16 --spp 2 --radiosity 0.28 \
  --out "$tmp/rad"
[ -s "$tmp/rad/radiosity.png" ] || fail "trace --radiosity wrote no radiosity.png"
width=$(od -An -j16 -N4 -tu1 "$tmp/rad/compare.png" | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
[ "$width" = 36 ] || fail "compare.png is $width pixels wide, want 36 (16 | 4 | 16)"
expect 2 "\-\-radiosity wants a patch size" -- "$cistern" trace cornell_box --radiosity big

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "trace.sh: all checks passed"
