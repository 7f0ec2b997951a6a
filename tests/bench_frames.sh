#!/usr/bin/env bash
# `cistern bench` times substeps; the per-frame work (reint's stats and
# points) must run once per frame of the scaled scene, as in a run, not in
# every timed step, and be reported as its mean per step. $1 is the cistern
# binary. reint_drops_2d at 32 cells: a frame is 40 substeps, so 85 steps
# from the start close 2 frames.
# ctest labels: quick,gpu -- 1
set -uo pipefail
cistern=${1:?usage: bench_frames.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

steps=85
expect 0 "reint: stats" -- "$cistern" bench reint_drops_2d --cells 32 --steps $steps --batches 1 --warmup 0 --quiet --out "$tmp/b"
per_frame=$(awk '$1 == 1024 && $NF == "stable" { print $(NF - 1) }' <<<"$last_out")
[ -n "$per_frame" ] && [ "$per_frame" -gt 1 ] || fail "no steps-per-frame figure above 1 in: $last_out"
frames=$((steps / ${per_frame:-1}))
for pass in stats points; do
  line=$(grep "reint: $pass " <<<"$last_out")
  grep -q "ran in $frames of $steps steps: mean per step" <<<"$line" ||
    fail "reint: $pass should run once per frame ($frames of $steps steps, $per_frame steps a frame): $line"
done
# The solver's own passes still run in every step.
grep "reint: advect " <<<"$last_out" | grep -q "ran in" && fail "reint: advect did not run in every step: $last_out"
grep -Eq '"runs":[[:space:]]*2' "$tmp/b/results.json" || fail "results.json lacks the per-frame passes' run counts"
exit $((failures > 0))
