#!/usr/bin/env bash
# The panel's scene picker in a window under Xvfb (xdotool), with --out DIR:
# dam_break_2d writes DIR/stats.csv; bodies_2d picked from the list runs
# with its files in DIR/bodies_2d; picked again, in DIR/bodies_2d_2 (the
# folder it had holds files now). Every run ends with exit 0: the picked
# run once found the first run's stats.csv in DIR and ended the process
# with exit 2. $1 is cistern.
# ctest labels: window,gpu -- 40 (the scene picker with --out: three window runs)
set -uo pipefail
cistern=${1:?usage: picker_window.sh path/to/cistern}
for tool in xvfb-run xdotool; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"

cat > "$tmp/drive.sh" <<'EOF'
set -uo pipefail
cistern=$1 out=$2 log=$3
"$cistern" run dam_break_2d --panel --size 1000x600 --out "$out" --no-watch > "$log" 2>&1 &
pid=$!
# The combo under the scene's name (150, 60) opens the list; its first
# entry, bodies_2d, is at (60, 87) (the list is scenes/*.json, sorted). A
# click in the panel's first frames, before ImGui knows its window, is
# lost: try until the run says it picked.
pick() {
  local picks=$1 wid
  wid=$(timeout 120 xdotool search --sync --onlyvisible --name "cistern" | tail -1)
  [ -n "$wid" ] || { echo "no window" >&2; return 1; }
  for _ in $(seq 10); do
    sleep 3
    kill -0 "$pid" 2>/dev/null || return 1
    xdotool mousemove --window "$wid" 150 60 click 1; sleep 2
    xdotool mousemove --window "$wid" 60 87 click 1; sleep 2
    [ "$(grep -c "cistern: picked" "$log")" -ge "$picks" ] && return 0
  done
  echo "the picker did not pick" >&2; return 1
}
pick 1 && pick 2 || { kill "$pid"; wait "$pid"; exit 1; }
wid=$(timeout 120 xdotool search --sync --onlyvisible --name "cistern" | tail -1)
for _ in $(seq 60); do [ -s "$out/bodies_2d_2/stats.csv" ] && break; sleep 1; done
sleep 2
xdotool key --window "$wid" Escape
wait "$pid"
EOF

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
timeout 600 xvfb-run -a -s "-screen 0 1280x800x24" bash "$tmp/drive.sh" "$cistern" "$out" "$tmp/log" \
  || fail "the window run failed (exit $?): $(tail -20 "$tmp/log")"
grep -q "running headless" "$tmp/log" && fail "fell back to headless"
[ -s "$out/stats.csv" ] || fail "the first scene wrote no $out/stats.csv"
grep -q "picked .*bodies_2d.json: its files go to $out/bodies_2d\$" "$tmp/log" \
  || fail "the first pick does not name its folder: $(grep picked "$tmp/log")"
grep -q "picked .*bodies_2d.json: its files go to $out/bodies_2d_2\$" "$tmp/log" \
  || fail "the second pick does not name its numbered folder: $(grep picked "$tmp/log")"
for d in bodies_2d bodies_2d_2; do
  [ -s "$out/$d/stats.csv" ] || fail "no $out/$d/stats.csv: $(ls -R "$out" | head -20)"
done
grep -q "is not empty" "$tmp/log" && fail "a picked run was refused: $(grep 'is not empty' "$tmp/log")"
[ "$failures" -eq 0 ] && echo "PASS: the first scene in $out, the picked ones in bodies_2d and bodies_2d_2"
exit $((failures > 0))
