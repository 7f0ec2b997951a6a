#!/usr/bin/env bash
# Typing a value into the panel (docs/panel.md), in a window under Xvfb:
# Ctrl+click on fluids[0].materials[0].viscosity_linear opens its text
# entry; Ctrl+A, "0.2r5", Enter sets it to 0.25. The "r" is the text's
# (the decimal filter drops it), not the window's R: the run must not
# restart. Esc then quits as usual, and the run prints the edit.
# $1 is cistern.
# ctest labels: window,gpu -- 16 (Ctrl+click, type a value, Enter; the typed R does not restart)
set -uo pipefail
cistern=${1:?usage: panel_typing.sh path/to/cistern}
for tool in xvfb-run xdotool; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing"; exit 77; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out"

cat > "$tmp/drive.sh" <<'EOF'
set -uo pipefail
cistern=$1 out=$2 log=$3
"$cistern" run dam_break_2d --panel --size 1000x600 --out "$out" --no-watch --validation > "$log" 2>&1 &
pid=$!
wid=$(timeout 120 xdotool search --sync --onlyvisible --name "cistern" | head -1)
[ -n "$wid" ] || { echo "no window" >&2; kill "$pid"; exit 1; }
rows() { echo $(( $(wc -l < "$out/stats.csv" 2>/dev/null || echo 1) - 1 )); }
# The panel knows its window after its first frames: wait for a few rows.
for _ in $(seq 240); do [ "$(rows)" -ge 3 ] && break; sleep 0.5; done
sleep 2
xdotool mousemove --window "$wid" 60 347 click 1; sleep 2   # open fluids[0].materials[0]
xdotool mousemove --window "$wid" 110 458; sleep 0.5
xdotool keydown ctrl; sleep 0.5; xdotool click 1; sleep 0.5; xdotool keyup ctrl; sleep 2 # Ctrl+click: its text entry
xdotool key --window "$wid" ctrl+a; sleep 0.5
xdotool type --window "$wid" --delay 150 "0.2r5"; sleep 1
xdotool key --window "$wid" Return; sleep 2
xdotool mousemove --window "$wid" 900 500; sleep 1           # off the panel
xdotool key --window "$wid" Escape
wait "$pid"
EOF

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
timeout 600 xvfb-run -a -s "-screen 0 1280x800x24" bash "$tmp/drive.sh" "$cistern" "$out" "$tmp/log" \
  || fail "the window run failed: $(tail -20 "$tmp/log")"
grep -q "running headless" "$tmp/log" && fail "fell back to headless"
grep -q "validation error" "$tmp/log" && fail "validation errors: $(grep 'validation error' "$tmp/log" | head -3)"
edit=$(grep -A3 "panel edits of dam_break_2d" "$tmp/log" | grep -o "fluids\[0\]\.materials\[0\]\.viscosity_linear=[0-9.e+-]*")
echo "edit: ${edit:-none}"
[ "$edit" = "fluids[0].materials[0].viscosity_linear=0.25" ] || fail "typing 0.2r5 did not set 0.25: ${edit:-no edit printed}"
# stats.csv's restart column counts worlds made after the first: the "r"
# typed into the value must not have restarted the run.
col=$(head -1 "$out/stats.csv" | tr ',' '\n' | grep -n '^restart$' | cut -d: -f1)
[ -n "$col" ] || fail "stats.csv has no restart column"
restarts=$(cut -d, -f"${col:-1}" "$out/stats.csv" | tail -n +2 | sort -n | tail -1)
echo "restarts: ${restarts:-?}"
[ "${restarts:-1}" = 0 ] || fail "the R typed into the value restarted the run ($restarts)"
[ "$failures" = 0 ] || { tail -20 "$tmp/log" >&2; exit 1; }
echo "panel_typing: ok"
