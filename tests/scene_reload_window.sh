#!/usr/bin/env bash
# Scene reload in a real window under Xvfb (lavapipe): the window's loop
# watches the scene file by default (no --watch needed). A bad save is
# refused with its key path while frames keep coming; a good save rebuilds
# the world (stats.csv's restart column goes to 1, the new block size shows
# in the particle count). The headless path is tests/scene_reload_run.sh.
# $1 is the cistern binary.
# ctest labels: window,gpu -- 10 wall (waits on two saves)
set -uo pipefail
cistern=${1:?usage: scene_reload_window.sh path/to/cistern}
if ! command -v xvfb-run >/dev/null; then echo "SKIP: xvfb-run missing"; exit 77; fi
src=$(cd "$(dirname "$0")/../scenes" && pwd)/dam_break_2d.json
tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then stop; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# The run is its own process group (setsid): xvfb-run, Xvfb and cistern go together.
stop() {
  kill -- -"$pid" 2>/dev/null; sleep 0.5; kill -9 -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null; pid=
}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
scene="$tmp/s.json"
cp "$src" "$scene"
grep -q '"max": \[4.0, 6.9\]' "$scene" || { echo "FAIL: dam_break_2d.json no longer has the block this test edits"; exit 1; }
edited() { sed "$1" "$src" > "$scene.tmp~" && mv "$scene.tmp~" "$scene"; }
. "$(dirname "$0")/util/watch_run.sh" # col, rows, wait_for, rows_at_least, restart_is
in_log() { grep -q -- "$1" "$tmp/log"; }

setsid xvfb-run -a -s "-screen 0 1024x768x24" "$cistern" run "$scene" --size 320x240 --validation --out "$tmp/out" \
  > "$tmp/log" 2>&1 &
pid=$!
wait_for "first frames" rows_at_least 3
in_log "running headless" && fail "fell back to headless: $(cat "$tmp/log")"
in_log "watching .*s.json for scene edits" || fail "the window does not watch the scene file: $(cat "$tmp/log")"
p0=$(col 3)

edited 's/"stiffness": 0.08/"stiffness": -1/'
wait_for "the bad value refused with its key path" in_log 'fluids\[0\].materials\[0\].stiffness: .*previous scene keeps running'
before=$(rows)
wait_for "frames after the refusal" rows_at_least $((before + 3))
restart_is 0 || fail "a refused save changed the world"

edited 's/"max": \[4.0, 6.9\]/"max": [2.0, 6.9]/'
wait_for "the reload (restart 1)" restart_is 1
p1=$(col 3)
awk -v a="$p1" -v b="$p0" 'BEGIN { exit !(a > 0.4 * b && a < 0.6 * b) }' || fail "the edit did not halve the particles ($p0 -> $p1)"
echo "window: bad save refused, good save reloaded ($p0 -> $p1 particles)"
stop
grep -q "VUID\|SYNC-HAZARD" "$tmp/log" && fail "validation messages: $(grep -m3 'VUID\|SYNC-HAZARD' "$tmp/log")"
exit $((failures > 0))
