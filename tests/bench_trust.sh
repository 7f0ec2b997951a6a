#!/usr/bin/env bash
# Benchmarks one can trust and compare (docs/benchmarks.md "Provenance,
# noise and baselines"):
#   1. every results.json carries its provenance (commit, build type, date,
#      cores, load at start and end, command line, settings, scene hash)
#      and each size its spread and batches;
#   2. a planted noisy run (CISTERN_BENCH_PLANT_NOISE=3: every third timed
#      step does four steps' work) is flagged, in the JSON and on stderr;
#   3. --baseline matches rows by scene, size and pass: against its own
#      results it exits 0 with ratios; against a per-device file (a
#      "benches" list) too; against a file missing a row or a pass, or of
#      another scene, it exits 3 and says what is missing; each row says
#      whether the baseline (and this run) was noisy;
#   4. the plot marks the noise: p10-p90 bars on the total, noisy sizes
#      circled.
# ctest labels: quick,gpu -- 6 rest_box_3d benches at 2k particles
set -uo pipefail
cistern=${1:?usage: bench_trust.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
loud=(bench rest_box_3d --particles 2k --steps 6 --warmup 1)
b=("${loud[@]}" --quiet)

expect 0 "cistern: build [0-9a-f]\{7,\}" -- "$cistern" "${loud[@]}" --out "$tmp/a"
python3 - "$tmp/a/results.json" <<'PY' || fail "provenance or spread missing in results.json"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["provenance"]
for key in ("commit", "dirty", "build_type", "date_utc", "host_cores", "load_start", "load_end", "command_line",
            "settings", "scene_file", "scene_fnv1a64"):
    assert key in p, "provenance lacks " + key
assert len(p["commit"]) >= 7 and p["host_cores"] >= 1 and len(p["load_start"]) == 3, p
assert "bench rest_box_3d" in p["command_line"], p["command_line"]
for s in d["sizes"]:
    for key in ("p10_ms", "median_ms", "p90_ms", "spread", "batch_median_ms", "noisy", "timed_steps"):
        assert key in s, "size lacks " + key
    assert s["p10_ms"] <= s["median_ms"] <= s["p90_ms"], s
    assert 1 <= len(s["batch_median_ms"]) <= d["max_batches"], s
PY

# The other benches' results carry the provenance and a spread too.
"$cistern" bench --demo rest_box_3d --particles 2k --steps 3 --warmup 1 --quiet --out "$tmp/demo" >/dev/null 2>&1 ||
  fail "bench --demo failed"
"$cistern" bench --draw rest_box_3d --particles 2k --steps 3 --warmup 1 --quiet --out "$tmp/draw" >/dev/null 2>&1 ||
  fail "bench --draw failed"
"$cistern" bench --surface --nodes 12 --frames 1 --steps 3 --warmup 0 --cpu-runs 0 --quiet --out "$tmp/surface" \
  >/dev/null 2>&1 || fail "bench --surface failed"
python3 - "$tmp" <<'PY' || fail "--demo, --draw or --surface results lack provenance or spread"
import json, sys
for name, rows, keys in (("demo", "sizes", ("frame_p10_ms", "frame_p90_ms", "spread")),
                         ("draw", "sizes", ("draw_p10_ms", "draw_p90_ms", "spread")),
                         ("surface", "results", ("extract_p10_ms", "extract_p90_ms", "spread"))):
    d = json.load(open("%s/%s/results.json" % (sys.argv[1], name)))
    assert "commit" in d["provenance"] and "load_start" in d["provenance"], name
    for r in d[rows]:
        if "skipped" not in r:
            for k in keys:
                assert k in r, "%s lacks %s" % (name, k)
PY

# 2. Planted noise: flagged, with the spread it made.
out=$(CISTERN_BENCH_PLANT_NOISE=3 "$cistern" "${b[@]}" --out "$tmp/noisy" 2>&1) || fail "planted run failed: $out"
grep -q "noisy timing: the steps spread" <<<"$out" || fail "planted noise not warned on stderr: $out"
python3 - "$tmp/noisy/results.json" <<'PY' || fail "planted noise not marked in results.json"
import json, sys
s = json.load(open(sys.argv[1]))["sizes"][0]
assert s["noisy"] and "spread" in s["noise"] and s["spread"] >= 1.5, s
assert "CISTERN_BENCH_PLANT_NOISE=3" in json.load(open(sys.argv[1]))["provenance"]["settings"]
PY

# 3. Baselines.
expect 0 "against baseline" -- "$cistern" "${b[@]}" --out "$tmp/c" --baseline "$tmp/a/results.json"
grep -q "grid: sort .* x[0-9.]* \[" <<<"$last_out" || fail "--baseline: no per-pass ratio with its range: $last_out"
python3 - "$tmp/a/results.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump({"device": "x", "device_and_driver": "x", "benches": [dict(d, scene="other"), d]},
          open(sys.argv[2] + "/device.json", "w"))
no_row = json.loads(json.dumps(d)); no_row["sizes"][0]["requested"] = 12345
json.dump(no_row, open(sys.argv[2] + "/no_row.json", "w"))
no_pass = json.loads(json.dumps(d)); del no_pass["sizes"][0]["passes"]["grid: sort"]
json.dump(no_pass, open(sys.argv[2] + "/no_pass.json", "w"))
json.dump(dict(d, scene="other"), open(sys.argv[2] + "/other.json", "w"))
PY
expect 0 "against baseline" -- "$cistern" "${b[@]}" --out "$tmp/d" --baseline "$tmp/device.json"
# Whether the baseline was noisy is said, with its reason (the planted run
# of 2. as the baseline); a quiet one says so too.
expect 0 "the baseline was noisy.*: the steps spread" -- "$cistern" "${b[@]}" --out "$tmp/n" \
  --baseline "$tmp/noisy/results.json"
grep -q "[0-9]* particles: .*x[0-9.]* \[.*noisy" <<<"$last_out" || fail "--baseline: the noise note is not on the size's row: $last_out"
# The plot marks noise: the total's p10-p90 bars, and the noisy sizes
# (the planted run) as points of their own; plot.dat holds the percentiles.
if command -v gnuplot >/dev/null; then
  grep -q "yerrorbars" "$tmp/a/plot.gp" || fail "plot.gp draws no p10-p90 bars: $(cat "$tmp/a/plot.gp")"
  grep -q "title 'noisy" "$tmp/noisy/plot.gp" || fail "plot.gp of a noisy run marks no noisy size"
  # Run a may be noisy on a busy machine: marked exactly when a size is.
  a_noisy=$(python3 -c 'import json,sys; print(int(any(s.get("noisy") for s in json.load(open(sys.argv[1]))["sizes"])))' \
    "$tmp/a/results.json")
  a_marked=$(grep -c "title 'noisy" "$tmp/a/plot.gp")
  [ $((a_marked > 0)) = "$a_noisy" ] || fail "run a: noisy $a_noisy but $a_marked noisy marks in plot.gp"
  awk '/^# total/ { t = 1; next } t && NF == 4 { n++ } t && NF == 0 { exit } END { exit !(n >= 1) }' \
    "$tmp/noisy/plot.dat" || fail "plot.dat's total lacks p10 and p90: $(head -5 "$tmp/noisy/plot.dat")"
  [ -s "$tmp/noisy/plot.png" ] || fail "gnuplot drew no plot.png from the script: $(ls "$tmp/noisy")"
fi
expect 3 "no row for 2000 particles" -- "$cistern" "${b[@]}" --out "$tmp/e" --baseline "$tmp/no_row.json"
expect 3 "no pass \"grid: sort\"" -- "$cistern" "${b[@]}" --out "$tmp/f" --baseline "$tmp/no_pass.json"
expect 3 "cannot open" -- "$cistern" "${b[@]}" --out "$tmp/g" --baseline "$tmp/missing.json"
expect 3 "no bench of scene rest_box_3d" -- "$cistern" "${b[@]}" --out "$tmp/h" --baseline "$tmp/other.json"
# tools/bench_report.py --compare: two results files as one table and a plot.
cmp=$(python3 "$(dirname "$0")/../tools/bench_report.py" --compare "$tmp/a/results.json" "$tmp/c/results.json" \
      --plot "$tmp/cmp.svg") || fail "bench_report.py --compare failed: $cmp"
grep -q "^| rest_box_3d | 2 k | grid: sort | " <<<"$cmp" || fail "--compare: no per-pass row: $cmp"
grep -q "<svg" "$tmp/cmp.svg" || fail "--compare: no plot"
python3 "$(dirname "$0")/../tools/bench_report.py" --compare "$tmp/a/results.json" "$tmp/other.json" >/dev/null &&
  fail "--compare of two different scenes should exit non-zero (nothing matches)"
exit $((failures > 0))
