#!/usr/bin/env bash
# Frames in flight for the grid solvers' cousins: reint and vortons record
# their stats into the frame (sim.h record_stats / read_stats), so a
# headless run is one submit a frame and waits only for the frame that last
# used the slot it reuses. Before, each frame was waited on at once and its
# stats read by submits of their own (reint 4 submits and waits a frame,
# vortons 3). The stats rows are checked for sense here; that they are the
# same numbers as the per-frame read was checked by hand (docs/benchmarks.md).
# Validation (with synchronization) is on. $1 is the cistern binary.
# ctest labels: slow,gpu -- 45 s CPU: 8 short runs (rows compared with a run waited on every frame)
set -uo pipefail
cistern=${1:?usage: stats_in_frame.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

for run in "reint_dam_2d 8" "vorton_rings_3d 4"; do
  read -r scene frames <<<"$run"
  expect 0 "frame loop:" -- "$cistern" run "$scene" --frames "$frames" --png-every 0 --validation --verbose --out "$tmp/$scene"
  grep -q "validation error" <<<"$last_out" && fail "$scene: validation errors: $(grep 'validation error' <<<"$last_out" | head -3)"
  loop=$(tr '\r' '\n' <<<"$last_out" | grep "frame loop:")
  submits=$(sed -n 's/.* \([0-9.]*\) queue submits and.*/\1/p' <<<"$loop")
  waits=$(sed -n 's/.* \([0-9.]*\) fence waits a frame.*/\1/p' <<<"$loop")
  latest=$(sed -n 's/.* \([0-9]*\) waited on before the next was recorded.*/\1/p' <<<"$loop")
  awk -v s="${submits:-9}" -v w="${waits:-9}" 'BEGIN { exit !(s <= 1.2 && w <= 1.2) }' ||
    fail "$scene: wanted about one submit and one fence wait a frame: $loop"
  [ "${latest:-99}" = 0 ] || fail "$scene: frames waited on right after their submit: $loop"
  # One row a frame, each read from its own frame's copy: particles, a
  # positive finite top speed (a copy never filled reads 0), none non-finite.
  rows=$(awk -F, 'NR > 1 && $3 > 0 && $6 > 0 && $6 != "nan" && $6 != "inf" && $9 == 0 { n++ } END { print n + 0 }' \
         "$tmp/$scene/stats.csv" 2>/dev/null)
  [ "$rows" = "$frames" ] || fail "$scene: $rows sensible stats rows of $frames"
done

# A frame the host needs at once (its PNG, its dump) is finished after the
# frame before it, so every row, check and dump is labelled with its own
# frame. Reference: --png-every 1 / --dump-every 1, where every frame is
# waited on before the next is recorded. Before the fix, frame N was
# finished before frame N - 1: the row labelled N - 1 held frame N's stats,
# and reint's frame-N PLY had frame N - 1's particle count.
scene=reint_dam_2d frames=8
deterministic() { cut -d, -f1-10 "$1" 2>/dev/null; }
for every in 1 3; do
  expect 0 "frame loop:" -- "$cistern" run "$scene" --frames "$frames" --png-every "$every" --verbose --out "$tmp/png$every"
  expect 0 "frame loop:" -- "$cistern" run "$scene" --frames "$frames" --png-every 0 --dump-every "$every" --verbose \
    --out "$tmp/dump$every"
done
[ "$(deterministic "$tmp/png1/stats.csv" | wc -l)" = $((frames + 1)) ] || fail "png1: not $frames stats rows"
diff <(deterministic "$tmp/png1/stats.csv") <(deterministic "$tmp/png3/stats.csv") >"$tmp/png.diff" ||
  fail "--png-every 3 rows differ from --png-every 1's: $(head -6 "$tmp/png.diff")"
diff <(deterministic "$tmp/dump1/stats.csv") <(deterministic "$tmp/dump3/stats.csv") >"$tmp/dump.diff" ||
  fail "--dump-every 3 rows differ from --dump-every 1's: $(head -6 "$tmp/dump.diff")"
for f in 00003 00006; do
  cmp -s "$tmp/dump1/particles_$f.ply" "$tmp/dump3/particles_$f.ply" ||
    fail "particles_$f.ply of --dump-every 3 differs from --dump-every 1's"
done
# The progress line's GPU ms are the latest finished frame's, copied when it
# finished: before, the line read its recorder after the next frame had
# begun it again (timings cleared), so it showed 0.00. The line is drawn
# only on a terminal: script(1) gives the run one.
if command -v script >/dev/null; then
  script -qec "'$cistern' run dam_break_2d --frames 4 --png-every 0 --out '$tmp/progress'" /dev/null \
    >"$tmp/progress.txt" 2>&1 || fail "dam_break_2d on a terminal: $(tail -3 "$tmp/progress.txt")"
  ms=$(tr '\r' '\n' <"$tmp/progress.txt" | sed -n 's/.*  \([0-9.]*\) ms GPU per frame.*/\1/p' | tail -1)
  awk -v ms="${ms:-0}" 'BEGIN { exit !(ms > 0) }' || fail "progress line's GPU ms is '${ms}', wanted > 0"
else
  echo "stats_in_frame.sh: no script(1): the progress line's GPU ms not checked"
fi
exit $((failures > 0))
