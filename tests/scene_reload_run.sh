#!/usr/bin/env bash
# Scene reload during a real `cistern run --watch` (headless, lavapipe), on a
# copy of dam_break_2d.json, with --set edits that must hold across reloads:
#   --set mass=2, rest_density=164 (twice the file's): total_mass = 2 x particles;
#   1. a good edit (the block half as wide): the world is rebuilt, stats.csv's
#      restart column goes to 1, time_s starts again, the particle count
#      halves and total_mass is still 2 x particles (the --set applied again);
#   2. a JSON syntax error: refused with s.json:LINE:COLUMN, the previous world
#      keeps running (rows keep coming, restart stays 1), and the PNG frames
#      carry the message in the alert red (feature_overlay.c);
#   3. a bad key (viscosty): refused with its key path and "did you mean";
#      4. a bad value in the solver's block (read when the world is made):
#      refused with its key path, the world keeps running;
#   5. the fix: reloaded, restart 2, the red leaves the frames.
# Every save is an atomic rename, as editors do. $1 is the cistern binary.
# ctest labels: quick,gpu -- 5 s CPU, 14 s wall (waits on saves and reloads)
set -uo pipefail
cistern=${1:?usage: scene_reload_run.sh path/to/cistern}
src=$(cd "$(dirname "$0")/../scenes" && pwd)/dam_break_2d.json
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null; sleep 0.5; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
scene="$tmp/s.json"
cp "$src" "$scene"
grep -q '"max": \[4.0, 6.9\]' "$scene" || { echo "FAIL: dam_break_2d.json no longer has the block this test edits"; exit 1; }

save() { cp "$1" "$scene.tmp~" && mv "$scene.tmp~" "$scene"; }
# edited SED: the original scene through sed, saved.
edited() { sed "$1" "$src" > "$tmp/edit.json" && save "$tmp/edit.json"; }
. "$(dirname "$0")/util/watch_run.sh" # col, rows, wait_for, rows_at_least, restart_is
log_after() { tail -n +$((mark + 1)) "$tmp/log" | tr '\r' '\n' | grep -q -- "$1"; }
mark=0

"$cistern" run "$scene" --headless --watch --frames 1000000 --png-every 1 --size 96x72 --validation \
  --set 'fluids[0].materials[0].mass=2' --set 'fluids[0].materials[0].rest_density=164' --out "$tmp/out" \
  > "$tmp/log" 2>&1 &
pid=$!
wait_for "first frames" rows_at_least 3
head -1 "$tmp/out/stats.csv" | cut -d, -f13 | grep -qx restart || fail "stats.csv has no restart column (13th)"
p0=$(col 3); m0=$(col 8)
echo "before: $p0 particles, total mass $m0, restart $(col 13)"
awk -v p="$p0" -v m="$m0" 'BEGIN { exit !(p > 0 && m == 2 * p) }' || fail "--set mass=2: total_mass $m0 is not 2 x $p0"

# alert_pixels PNG: pixels of the alert red.
alert_pixels() { /usr/bin/python3 "$(dirname "$0")/util/alert_pixels.py" "$1"; }
settled_png() { ls "$tmp/out"/frame_*.png 2>/dev/null | sort | tail -n 2 | head -n 1; }
red_in_latest() { local n; n=$(alert_pixels "$(settled_png)") && [ "$n" -ge "$1" ]; }
no_red_in_latest() { local n; n=$(alert_pixels "$(settled_png)") && [ "$n" -eq 0 ]; }
[ "$(alert_pixels "$(settled_png)")" -eq 0 ] || fail "a clean frame has the alert red"

# 1. A good edit: the block half as wide.
mark=$(wc -l < "$tmp/log")
edited 's/"max": \[4.0, 6.9\]/"max": [2.0, 6.9]/'
wait_for "the reload (restart 1 in stats.csv)" restart_is 1
log_after "changed: reloaded" || fail "the log does not say the scene was reloaded"
p1=$(col 3); m1=$(col 8); t1=$(col 2)
echo "after the edit: $p1 particles, total mass $m1, time_s $t1, restart $(col 13)"
awk -v a="$p1" -v b="$p0" 'BEGIN { exit !(a > 0.4 * b && a < 0.6 * b) }' || fail "the edit did not halve the particles ($p0 -> $p1)"
awk -v p="$p1" -v m="$m1" 'BEGIN { exit !(m == 2 * p) }' || fail "the --set mass=2 was not applied again on reload ($m1 for $p1)"
first_t=$(awk -F, '$13 == 1 { print $2; exit }' "$tmp/out/stats.csv")
awk -v t="$first_t" 'BEGIN { exit !(t > 0.0214 && t < 0.0215) }' || fail "time_s does not start again after the reload ($first_t)"

# 2. A JSON syntax error (line 5: a comma missing).
mark=$(wc -l < "$tmp/log")
edited 's/"gravity": \[0, -9.8\],/"gravity": [0, -9.8]/'
wait_for "the syntax error with s.json:LINE:COLUMN" log_after "s.json:[0-9]*:[0-9]*: JSON syntax error"
tail -n +$((mark + 1)) "$tmp/log" | tr '\r' '\n' | grep -m1 "JSON syntax"
before=$(rows)
wait_for "frames after the error" rows_at_least $((before + 4))
restart_is 1 || fail "a refused reload changed the world (restart $(col 13))"
[ "$(col 3)" = "$p1" ] || fail "after a refused reload the previous world should run ($(col 3) particles, want $p1)"
wait_for "the error's red text in the frames" red_in_latest 20 &&
  echo "error drawn: $(alert_pixels "$(settled_png)") red pixels in $(basename "$(settled_png)")"

# 3. An unknown key.
mark=$(wc -l < "$tmp/log")
edited 's/"viscosity_linear"/"viscosty_linear"/'
wait_for "the bad key named by its path" log_after 'fluids\[0\].materials\[0\].viscosty_linear: unknown key (did you mean "viscosity_linear"'
before=$(rows)
wait_for "frames after the bad key" rows_at_least $((before + 3))
restart_is 1 || fail "a bad key changed the world"

# 4. A bad value in the solver's block (read by the solver when the world is made).
mark=$(wc -l < "$tmp/log")
edited 's/"split": 2/"split": -1/'
wait_for "the solver block's bad value named by its path" log_after 'fluids\[0\].sph.split'
before=$(rows)
wait_for "frames after the bad solver value" rows_at_least $((before + 3))
restart_is 1 || fail "a bad solver value changed the world"
[ "$(col 3)" = "$p1" ] || fail "after a refused world the previous one should run"

# 5. The fix.
mark=$(wc -l < "$tmp/log")
save "$src"
wait_for "the fixed scene reloaded (restart 2)" restart_is 2
log_after "the error is fixed" || fail "the log does not say the error is fixed"
[ "$(col 3)" = "$p0" ] || fail "the original scene should have $p0 particles, has $(col 3)"
wait_for "the error's text gone from the frames" no_red_in_latest && echo "error text gone after the fix"

kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
grep -q "VUID\|SYNC-HAZARD" "$tmp/log" && fail "validation messages: $(grep -m3 'VUID\|SYNC-HAZARD' "$tmp/log")"
[ "$failures" -eq 0 ] || { echo "$failures failure(s); log:"; tr '\r' '\n' < "$tmp/log" | grep -v 'ms GPU per frame' | tail -30; exit 1; }
echo "scene reload: good edit applied with the --set edits, bad edits refused with their place, fix applied"
