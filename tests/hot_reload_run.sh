#!/usr/bin/env bash
# Hot reload during a real `cistern run --watch` (headless, lavapipe), on a
# copy of the shader tree:
#   1. edit a constant in a shader: the next frames' stats change;
#   2. break the shader: the run goes on, the error names file:line, and
#      the next PNG frames carry the error's text in the alert red
#      (feature_overlay.c's CS_OVERLAY_ALERT);
#   3. fix it: the run recovers and the red text leaves the frames; then an empty file, a binary file, an
#      include cycle and a self-include: each a short message with file:line
#      while the previous shader keeps running;
#   4. edit a primitive (the radix sort's scatter under the neighbour grid:
#      the one this device runs, as the run's start line names it,
#      prim/sort_scatter.comp on CPUs, prim/sort8_scatter.comp on GPUs) and
#      a render shader (render/particles.frag) at once: both rebuilt, both
#      reported, the run goes on drawing frames.
# The edit scales the stats pass's per-particle mass by 1000, so the
# total_mass column of stats.csv shows which shader is running. Every save is
# an atomic rename, as editors do. $1 is the cistern binary.
# ctest labels: quick,gpu -- 7
set -uo pipefail
cistern=${1:?usage: hot_reload_run.sh path/to/cistern}
src=$(cd "$(dirname "$0")/../shaders" && pwd)
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; sleep 0.5; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
cp -r "$src" "$tmp/shaders"
stats_shader="$tmp/shaders/fluid/stats.comp"
cp "$stats_shader" "$tmp/stats.orig"
grep -q "mass\[i\] = CS_MASS(m);" "$stats_shader" || { echo "FAIL: stats.comp no longer has the line this test edits"; exit 1; }

save() { cp "$1" "$stats_shader.tmp~" && mv "$stats_shader.tmp~" "$stats_shader"; }
last_mass() { tail -n 1 "$tmp/out/stats.csv" 2>/dev/null | cut -d, -f8; }
. "$(dirname "$0")/util/watch_run.sh" # col, rows, wait_for, rows_at_least, restart_is
ratio_is() { awk -v a="$(last_mass)" -v b="$m0" -v r="$1" 'BEGIN { exit !(b > 0 && a / b > r * 0.999 && a / b < r * 1.001) }'; }

CISTERN_SHADER_DIR="$tmp/shaders" "$cistern" run rest_box_3d --headless --watch --frames 1000000 \
  --png-every 1 --size 64x48 --validation --out "$tmp/out" > "$tmp/log" 2>&1 &
pid=$!
wait_for "first frames" rows_at_least 3
m0=$(last_mass)
echo "total mass before the edit: $m0"

# alert_pixels PNG: how many pixels have the shader error's red
# (tests/util/alert_pixels.py, shared with the scene reload and viewer tests).
util=$(cd "$(dirname "$0")/util" && pwd)
alert_pixels() { /usr/bin/python3 "$util/alert_pixels.py" "$1"; }
# The newest PNG written whole: the one before the newest (which may be
# being written now).
settled_png() { ls "$tmp/out"/frame_*.png 2>/dev/null | sort | tail -n 2 | head -n 1; }
red_in_latest() { local n; n=$(alert_pixels "$(settled_png)") && [ "$n" -ge "$1" ]; }
no_red_in_latest() { local n; n=$(alert_pixels "$(settled_png)") && [ "$n" -eq 0 ]; }
clean_red=$(alert_pixels "$(settled_png)")
[ "$clean_red" -eq 0 ] || fail "a clean frame has $clean_red pixels of the alert red"

# 1. Edit a constant.
sed 's/mass\[i\] = CS_MASS(m);/mass[i] = 1000.0 * CS_MASS(m);/' "$tmp/stats.orig" > "$tmp/stats.edit"
save "$tmp/stats.edit"
wait_for "the edited shader's output (mass x1000)" ratio_is 1000 && echo "edit seen: total mass $(last_mass)"

# 2. Break it: the run continues with the previous pipeline, error names file:line.
sed 's/mass\[i\] = 1000.0 \* CS_MASS(m);/mass[i] = 1000.0 * CS_MASS(m) +;/' "$tmp/stats.edit" > "$tmp/stats.broken"
save "$tmp/stats.broken"
wait_for "a compile error naming stats.comp:LINE" grep -q "fluid/stats.comp:[0-9]*: error" "$tmp/log"
before=$(rows)
wait_for "frames after the error" rows_at_least $((before + 4))
kill -0 "$pid" 2>/dev/null || fail "the run died after a broken shader"
ratio_is 1000 || fail "after the failed reload the previous (edited) shader should still run; mass $(last_mass)"
grep -q "previous shader keeps running" "$tmp/log" || fail "the log does not say the previous shader keeps running"
# The error stays in the image: the frames after it carry its text in red.
wait_for "the error's red text in the frames" red_in_latest 20 &&
  echo "error drawn: $(alert_pixels "$(settled_png)") red pixels in $(basename "$(settled_png)")"

# 3. Fix it: back to the original.
save "$tmp/stats.orig"
wait_for "recovery (mass back to the original)" ratio_is 1
kill -0 "$pid" 2>/dev/null || fail "the run died"
wait_for "the error's text gone from the frames" no_red_in_latest && echo "error text gone after the fix"

# 3b. Files that are not shaders, each saved over stats.comp and then
# restored: an empty save, a binary file (the cistern executable's first 4 KiB:
# NUL and control bytes, the same every run), an include cycle a -> b -> a and
# a self-include. Each is refused in a short message naming file:line (an
# empty file used to print glslang's ~4500 built-in lines), and the run goes
# on with the previous shader.
log_lines() { wc -l < "$tmp/log"; }
# refused WHAT PATTERN: waits for a compile error matching PATTERN printed
# after line $mark of the log, then checks that the run goes on with the
# original shader and that the error took few lines.
refused() {
  local what=$1 pattern=$2
  wait_for "$what: an error matching '$pattern'" sh -c "tail -n +$((mark + 1)) '$tmp/log' | grep -q '$pattern'" || return
  local before; before=$(rows)
  wait_for "$what: frames after the error" rows_at_least $((before + 2))
  kill -0 "$pid" 2>/dev/null || fail "$what: the run died"
  ratio_is 1 || fail "$what: the previous shader should still run; mass $(last_mass)"
  local printed; printed=$(tail -n +$((mark + 1)) "$tmp/log" | wc -l)
  [ "$printed" -le 15 ] || fail "$what: $printed lines printed, want a short message: $(tail -n +$((mark + 1)) "$tmp/log" | head -5)"
  echo "$what refused: $(tail -n +$((mark + 1)) "$tmp/log" | grep -m1 'error')"
}
# restored WHAT: saves the original stats.comp back; waits for the rebuild.
restored() {
  mark=$(log_lines)
  save "$tmp/stats.orig"
  wait_for "$1: rebuild after restoring" sh -c "tail -n +$((mark + 1)) '$tmp/log' | grep -q 'changed: rebuilt'"
}
mark=$(log_lines); : > "$tmp/empty"; save "$tmp/empty"
refused "empty stats.comp" "fluid/stats.comp:1: error"
restored "empty"
mark=$(log_lines); head -c 4096 "$cistern" > "$tmp/binary"; save "$tmp/binary"
refused "binary stats.comp" "fluid/stats.comp:[0-9]*: error: not a GLSL text file"
restored "binary"
printf '#include "cycle_b.glsl"\n' > "$tmp/shaders/fluid/cycle_a.glsl"
printf '// b\n#include "cycle_a.glsl"\n' > "$tmp/shaders/fluid/cycle_b.glsl"
sed '0,/^#version.*/s//&\n#include "cycle_a.glsl"/' "$tmp/stats.orig" > "$tmp/stats.cycle"
mark=$(log_lines); save "$tmp/stats.cycle"
refused "include cycle a -> b -> a" \
  "fluid/cycle_b.glsl:2: error: include cycle: fluid/cycle_a.glsl -> fluid/cycle_b.glsl -> fluid/cycle_a.glsl"
mark=$(log_lines)
printf '#include "cycle_a.glsl"\n' > "$tmp/edit~" && mv "$tmp/edit~" "$tmp/shaders/fluid/cycle_a.glsl"
refused "self-include" "fluid/cycle_a.glsl:1: error: include cycle: fluid/cycle_a.glsl -> fluid/cycle_a.glsl"
restored "cycle"

# 4. A primitive and a render shader, saved together (comment-only edits:
# the results must not change, the programs must be rebuilt and said so).
# The scatter is the one the run says its sort runs (README, Hot reload):
# the 4-bit sort's on CPU devices, the 8-bit sort's on GPUs.
scatter=$(grep -m1 -o "for shader edits (radix sort: [48]-bit digits, prim/sort8*_scatter\.comp)" "$tmp/log" |
  grep -o "prim/sort8*_scatter\.comp")
if [ -z "$scatter" ]; then
  fail "the run does not say which radix sort scatter it runs: $(grep -m1 'watching' "$tmp/log")"
  scatter=prim/sort_scatter.comp
fi
echo "the grid's sort runs $scatter"
for f in "$scatter" render/particles.frag; do
  { cat "$tmp/shaders/$f"; echo "// edited by hot_reload_run.sh"; } > "$tmp/edit~" && mv "$tmp/edit~" "$tmp/shaders/$f"
done
# They may arrive as one burst ("2 files changed: rebuilt ...") or two.
wait_for "the primitive's rebuild reported" grep -q "changed: rebuilt [0-9]* programs* (.*$scatter" "$tmp/log"
wait_for "the render shader's rebuild reported" grep -q "changed: rebuilt [0-9]* programs* (.*render particles" "$tmp/log"
before=$(rows)
pngs_before=$(ls "$tmp/out"/frame_*.png 2>/dev/null | wc -l)
wait_for "frames after both rebuilds" rows_at_least $((before + 3))
ratio_is 1 || fail "a comment-only edit changed the results: mass $(last_mass)"
pngs_after=$(ls "$tmp/out"/frame_*.png 2>/dev/null | wc -l)
[ "$pngs_after" -gt "$pngs_before" ] || fail "no frames drawn after the rebuilds ($pngs_before -> $pngs_after PNGs)"
grep -q "validation error" "$tmp/log" && fail "validation errors: $(grep -m3 'validation error' "$tmp/log")"
grep -E "error|changed" "$tmp/log" | head -8
if [ "$failures" -ne 0 ]; then echo "FAILED: $failures check(s)"; cat "$tmp/log" | tail -20; exit 1; fi
echo PASS
