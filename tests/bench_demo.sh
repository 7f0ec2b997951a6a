#!/usr/bin/env bash
# `cistern bench --demo` times whole frames (substeps + draw, headless): at a
# tiny particle count every figure it promises is in results.json and on
# stdout and is a finite number (cJSON writes NaN and Inf as null, which the
# number pattern refuses), and a bad --particles list is refused with a
# message naming the bad item. Frames go through the ring of frames in
# flight: about one submit and one fence wait a frame. Validation (with synchronization) is on. $1 is the cistern binary.
# ctest labels: quick,gpu -- 9 (load 8); 18 at load 10 with the real-time rows (issue 40)
set -uo pipefail
cistern=${1:?usage: bench_demo.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

number='-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'
expect 0 "frames/s" -- "$cistern" bench --demo dam_break_3d --particles 2k --steps 2 --warmup 1 --validation \
  --set realtime.substeps=1 --out "$tmp/d"
json=$tmp/d/results.json
[ -f "$json" ] || fail "no results.json in $tmp/d: $last_out"
for field in particles substeps frames_timed frame_mean_ms frame_median_ms frame_p90_ms frames_per_s gpu_median_ms \
             sim_gpu_median_ms draw_gpu_median_ms queue_submits_per_frame fence_waits_per_frame \
             waited_on_latest frames_overlapped dispatches_per_frame barriers_per_frame; do
  grep -Eq "\"$field\":[[:space:]]*$number,?$" "$json" || fail "results.json: \"$field\" missing or not finite"
done
# Both halves of the frame were timed: a simulation pass and a draw pass,
# each with a finite time, and the split is not all on one side.
grep -Eq "\"pbf: lambda\":[[:space:]]*$number" "$json" || fail "results.json: no finite \"pbf: lambda\" pass"
grep -Eq "\"draw\":[[:space:]]*$number" "$json" || fail "results.json: no finite \"draw\" pass"
for field in sim_gpu_median_ms draw_gpu_median_ms; do
  grep -Eq "\"$field\":[[:space:]]*0,?$" "$json" && fail "results.json: $field is 0"
done
# The stdout table: a row for the size with its frame ms and frames/s.
awk '$1 ~ /^[0-9]+$/ && $2 + 0 >= 1 && $3 + 0 > 0 && $4 + 0 > 0 && $NF == "stable" { found = 1 }
     END { exit !found }' <<<"$last_out" ||
  fail "no table row (particles, substeps, frame ms, frames/s ... stable) on stdout: $last_out"

# Both stepping modes (issue 40), from the run above: every count runs in
# the physical mode (the file's clock scaled: 2 substeps at 2k) and in the
# real-time mode (the scene's "realtime" block on, here 1 substep a frame),
# each row with its substeps a frame; the real-time one with its clamp.
python3 - "$json" <<'PY' || fail "results.json: not one physical row of 2 substeps and one real-time row of 1"
import json, sys
sizes = json.load(open(sys.argv[1]))["sizes"]
modes = {s.get("stepping"): s for s in sizes}
ok = len(sizes) == 2 and modes.get("physical", {}).get("substeps") == 2 and \
     modes.get("realtime", {}).get("substeps") == 1 and modes["realtime"].get("speed_limit_m_per_s", 0) > 0
sys.exit(0 if ok else 1)
PY
awk '$NF == "stable" && $(NF - 1) == "real-time" && $2 == 1 { found = 1 } END { exit !found }' <<<"$last_out" ||
  fail "no real-time row of 1 substep on stdout: $last_out"

# Frames cannot come faster than the device draws them: the frame period
# (the timed span over the frames) is at least about the GPU time of a
# frame. Read from the loop's period alone, 2 frames into an empty ring of
# 2 never waited: 0.1 ms against 4.7 ms of GPU work.
jvalue() { sed -En "s/.*\"$2\":[[:space:]]*($number).*/\1/p" "$1" | head -1; }
expect 0 "frames/s" -- "$cistern" bench --demo double_emitter_2d --particles 600 --steps 2 --warmup 1 \
  --out "$tmp/period"
# A scene the mode refuses (Clavet SPH) still runs its physical row, and says why.
grep -q "real-time skipped: .*PBF fluids only" <<<"$last_out" || fail "no skipped real-time row for SPH: $last_out"
period=$(jvalue "$tmp/period/results.json" frame_mean_ms) gpu=$(jvalue "$tmp/period/results.json" gpu_median_ms)
awk -v p="${period:-0}" -v g="${gpu:-1}" 'BEGIN { exit !(p >= 0.5 * g) }' ||
  fail "frame period $period ms is under half the GPU time of a frame ($gpu ms)"

# Frames in flight (the ring run's loop uses): a scene drawn as particles
# is one submit a frame, its stats inside it, and the loop waits only for
# the frame that last used the slot it reuses, never for the frame it just
# submitted. The loop before the ring submitted and waited on each frame,
# then submitted and waited again for its stats: 2 submits, 2 waits.
expect 0 "frames/s" -- "$cistern" bench --demo double_emitter_2d --particles 600 --steps 6 --warmup 2 \
  --validation --out "$tmp/ring"
ring=$tmp/ring/results.json
value() { sed -En "s/.*\"$1\":[[:space:]]*($number).*/\1/p" "$ring" | head -1; }
submits=$(value queue_submits_per_frame) waits=$(value fence_waits_per_frame) latest=$(value waited_on_latest)
awk -v s="${submits:-9}" -v w="${waits:-9}" 'BEGIN { exit !(s <= 1.2 && w <= 1.2) }' ||
  fail "wanted about one submit and one fence wait a frame: submits $submits, waits $waits"
[ "${latest:-99}" = 0 ] || fail "the loop waited on $latest frame(s) right after submitting them"

expect 2 'cannot read a count at "x"' -- "$cistern" bench --demo dam_break_3d --particles 2k,x --out "$tmp/e"
expect 2 'unexpected "q"' -- "$cistern" bench --demo dam_break_3d --particles 4q --out "$tmp/e"
[ -e "$tmp/e" ] && fail "a refused --particles still wrote $tmp/e"
exit $((failures > 0))
