#!/usr/bin/env bash
# tools/bench_gpu.sh, the runbook for a real GPU, end to end at tiny sizes
# (SMALL=1) on whatever device the tests run on: every part runs, each bench
# leaves its results.json (the log too), and tools/bench_report.py turns
# them into the goals table (a row per goal, each with a size and a figure
# or "not run") and writes results/<device>.json with the sweep, demo and
# draw results, and a table of the per-device choices each way. A part name it does not know is refused. $1 is the cistern
# binary.
# ctest labels: slow,gpu -- the GPU runbook at tiny sizes
set -uo pipefail
cistern=$(realpath "${1:?usage: bench_gpu.sh path/to/cistern}")
source "$(dirname "$0")/util/expect.sh"
root=$(cd "$(dirname "$0")/.." && pwd)

# The report writes results/ under the current directory: run from a
# scratch copy of the tools so the repository's results/ stay untouched.
work=$tmp/work
mkdir -p "$work/tools" && cp "$root/tools/bench_gpu.sh" "$root/tools/bench_report.py" "$work/tools/"
ln -s "$root/scenes" "$work/scenes"
ln -s "$root/shaders" "$work/shaders" 2>/dev/null || true
cd "$work" || exit 1
expect 0 "wrote results/" -- env CISTERN="$cistern" SMALL=1 OUT="$work/out" bash tools/bench_gpu.sh
report=$last_out
for f in sim/dam_break_3d sim/wcsph_tank_3d sim/dam_break_2d sim/reint_drops_2d sim/reint_cube_3d \
         demo/dam_break_3d demo/wcsph_tank_3d draw/dam_break_3d_720p draw/dam_break_3d_1080p; do
  [ -s "out/$f/results.json" ] || fail "no results.json for $f"
  [ -s "out/$f.log" ] || fail "no log for $f"
done
[ -s out/radiosity/rooms_radiosity.log ] || fail "no radiosity log"
# The per-device choices, each way: five rows in the report.
knob_rows=$(grep -c '^| \(sort4\|sort8_block2048\|sort8_block8192\|lists_particle\|lists_slot\) |' <<<"$report")
[ "$knob_rows" -eq 5 ] || fail "wanted 5 per-device choice rows, got $knob_rows: $report"
# Ten goal rows, each measured (a number and a unit, a verdict): the PBF
# demo in the real-time mode and in the physical one (issue 40).
rows=$(grep -c '^| .* (met)\|^| .* (not met)' <<<"$report")
[ "$rows" -eq 10 ] || fail "wanted 10 measured goal rows, got $rows: $report"
grep -q '^| demo: PBF dam break, real-time mode | .* frames/s | 2 substeps' <<<"$report" ||
  fail "no real-time demo row of 2 substeps: $report"
# The light probes' rows come in the radiosity part's one run (issue 40).
grep -q '^| 8 (2^3) | 256 |' out/radiosity/rooms_radiosity.log || fail "no probe row in the radiosity log"
grep -q '^light probes 8: gather [0-9.]* ms' <<<"$report" || fail "the report lacks the probe row: $report"
json=$(ls results/*.json 2>/dev/null | head -1)
[ -n "$json" ] || fail "no results/<device>.json written"
python3 - "$json" <<'PY' || fail "results json lacks the sweep, demo or draw results"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["benches"]) == 6 and len(d["demo"]) == 3 and len(d["draw"]) == 2, (d.keys(), len(d["benches"]), len(d["demo"]))
assert all(b["sizes"] for b in d["benches"] + d["demo"] + d["draw"])
assert [p["probes"] for p in d["probes"]] == [8], d["probes"]
PY
expect 2 "unknown part 'fast'" -- env CISTERN="$cistern" bash tools/bench_gpu.sh fast
exit $((failures > 0))
