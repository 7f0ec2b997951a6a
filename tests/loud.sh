#!/usr/bin/env bash
# Runs that go wrong say so (docs/fluids.md, "When a run goes wrong"), on lavapipe
# with validation on. $1 is the cistern binary. Scenes: tests/loud/.
#  - a WCSPH scene that blows up stops at the frame it does, with the frame,
#    the solver, NaN/Inf and the first pass that wrote them in the message, exit 1, the stats rows so far
#    and a particle dump of that frame, in seconds; `bench` stops too;
#  - a reint scene whose cells overfill the fixed-point capacity stops the
#    same way;
#  - a WCSPH scene refined without scaling the mass (8x rest density) is
#    refused with the implied density and the mass that fits; a moderate
#    mismatch (10%) runs with a warning; shipped scenes run without one.
# ctest labels: slow,gpu -- 34
set -uo pipefail
cistern=${1:?usage: loud.sh path/to/cistern}
here=$(cd "$(dirname "$0")" && pwd)
source "$(dirname "$0")/util/expect.sh"

# Blow-up: stops within the first frames of 40 (frame 2 on llvmpipe; which
# one depends on the solver's details, e.g. frame 3 before the wall
# collision margin), fast; the stats rows and the dump end at that frame.
start=$(date +%s)
expect 1 "frame [0-9]* (t = .*solver wcsph: [0-9]* of [0-9]* particles have NaN/Inf values" -- \
  "$cistern" run "$here/loud/blowup_wcsph_2d.json" --headless --frames 40 --png-every 0 --out "$tmp/blowup" \
  --validation --quiet
elapsed=$(( $(date +%s) - start ))
# ... and names the first pass whose output went non-finite (a solver pass
# of wcsph, not emit/predict/grid, whose inputs were finite) and the buffer.
grep -Eq 'first non-finite output: pass "wcsph: [a-z]+" \(wcsph \(wcsph\): [0-9]+ NaN/Inf values? in [a-z]+(\[[01]\])?\)' \
  <<<"$last_out" || fail "the blow-up does not name the first non-finite pass: $last_out"
[ "$elapsed" -le 60 ] || fail "the blow-up took $elapsed s to stop (want seconds)"
frame=$(grep -o "frame [0-9]* (t = " <<<"$last_out" | head -1 | grep -o "[0-9]*")
frame=${frame:-none}
[[ "$frame" =~ ^[0-9]+$ && "$frame" -ge 1 && "$frame" -le 10 ]] ||
  fail "the blow-up stopped at frame $frame, want one of the first (1-10)"
if [[ "$frame" =~ ^[0-9]+$ ]]; then
  rows=$(($(wc -l < "$tmp/blowup/stats.csv") - 1))
  [ "$rows" -eq $((frame + 1)) ] || fail "stats.csv of the blow-up has $rows frames, want $((frame + 1)) (0-$frame)"
  tail -1 "$tmp/blowup/stats.csv" | awk -F, -v f="$frame" '$1 != f || $9 == 0 { exit 1 }' ||
    fail "the last stats row is not frame $frame with a non-zero NaN count: $(tail -1 "$tmp/blowup/stats.csv")"
  dump=$(printf "particles_%05d.ply" "$frame")
  [ -s "$tmp/blowup/$dump" ] || fail "no particle dump of frame $frame ($dump): $(ls "$tmp/blowup")"
fi
expect 1 "stopped at step [0-9]*: solver wcsph: .* NaN/Inf" -- \
  "$cistern" bench "$here/loud/blowup_wcsph_2d.json" --particles 1000 --steps 40 --out "$tmp/bench" --quiet

# Reint: the corner cell passes 4096 rest masses at frame 3.
expect 1 "frame 3 (t = .*solver reint: .* overflowed the fixed-point mass capacity" -- \
  "$cistern" run "$here/loud/reint_overfill_2d.json" --headless --frames 12 --png-every 0 --out "$tmp/reint" \
  --validation --quiet
rows=$(($(wc -l < "$tmp/reint/stats.csv") - 1))
[ "$rows" -eq 4 ] || fail "stats.csv of the overfilled reint has $rows frames, want 4"

# Rest density: 8x refused before anything runs, with the numbers; 10% warned.
expect 2 'refined_mass_3d.json: fluids\[0\].blocks\[0\]: .*rho/rho0 = 8.01 .*"mass": 0.000999' -- \
  "$cistern" run "$here/loud/refined_mass_3d.json" --headless --frames 1 --png-every 0 --out "$tmp/refined" --quiet
[ ! -e "$tmp/refined/stats.csv" ] || fail "the refused scene ran (it wrote stats.csv)"
expect 0 'warning: .*heavy_mass_3d.json: fluids\[0\].blocks\[0\]: .*rho/rho0 = 1.1 ' -- \
  "$cistern" run "$here/loud/heavy_mass_3d.json" --headless --frames 1 --png-every 0 --out "$tmp/heavy" \
  --particles 1000 --quiet
# Every shipped scene starts at rest: no warning.
for scene in "$here"/../scenes/*.json; do
  expect 0 "" -- "$cistern" run "$scene" --headless --frames 1 --png-every 0 --out "$tmp/shipped" --overwrite --particles 1000 \
    --quiet
  if grep -q "warning" <<<"$last_out"; then fail "$(basename "$scene") warns: $last_out"; fi
done

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "loud.sh: all checks passed"
