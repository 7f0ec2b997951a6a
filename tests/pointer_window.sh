#!/usr/bin/env bash
# The pointer in a window under Xvfb, worked with the mouse (xdotool) as a
# user would: a 2D pool at rest (a 1 x 0.6 m box, water 0.3 m deep,
# "pointer" radius 0.3 m, no track); hold Ctrl and the left button at the
# window's middle (the domain's centre: the middle of the water's surface)
# for 3 s, let go; the run's stats.csv shows the water pulled up: its
# kinetic energy while held peaks at least 10 times the pool's highest at
# rest (frames 40-60, before the press; the first frames settle the
# lattice). Then the same with the right button: the push digs a crater.
# Validation stays quiet.
# $1 is cistern.
# ctest labels: window,gpu -- 15 (xdotool: Ctrl + left pulls, Ctrl + right pushes a 2D pool)
set -uo pipefail
cistern=${1:?usage: pointer_window.sh path/to/cistern}
for tool in xvfb-run xdotool python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing"; exit 77; }
done
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT; [ -n "${KEEP:-}" ] && trap - EXIT

cat > "$tmp/pool.json" <<'EOF'
{ "description": "a 2D pool at rest for the pointer window test",
  "dim": 2, "domain": {"min": [0, 0], "max": [1, 0.6]}, "gravity": [0, -9.81], "dt": 0.002, "substeps": 4,
  "pointer": {"radius": 0.3},
  "fluids": [{"solver": "pbf", "particle_spacing": 0.02, "materials": [{"name": "water", "rest_density": 1000}],
     "blocks": [{"min": [0, 0], "max": [1, 0.3]}], "pbf": {}}] }
EOF

cat > "$tmp/drive.sh" <<'EOF'
set -uo pipefail
cistern=$1 scene=$2 out=$3 log=$4 button=$5
"$cistern" run "$scene" --size 600x600 --out "$out" --no-watch --validation > "$log" 2>&1 &
pid=$!
wid=$(timeout 120 xdotool search --sync --onlyvisible --name "cistern" | head -1)
[ -n "$wid" ] || { echo "no window" >&2; kill "$pid"; exit 1; }
rows() { echo $(( $(wc -l < "$out/stats.csv" 2>/dev/null || echo 1) - 1 )); }
for _ in $(seq 600); do [ "$(rows)" -ge 60 ] && break; sleep 0.5; done
echo "press at row $(rows)" > "$out/press.txt"
xdotool mousemove --window "$wid" 300 300
xdotool keydown ctrl mousedown "$button"
sleep 3
xdotool mouseup "$button" keyup ctrl
echo "release at row $(rows)" >> "$out/press.txt"
sleep 1
xdotool key --window "$wid" Escape
wait "$pid"
EOF

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
for button in 1 3; do
  out="$tmp/out$button"
  timeout 600 xvfb-run -a -s "-screen 0 1280x800x24" bash "$tmp/drive.sh" "$cistern" "$tmp/pool.json" "$out" \
    "$tmp/log$button" "$button" || fail "button $button: the window run failed: $(tail -20 "$tmp/log$button")"
  grep -q "running headless" "$tmp/log$button" && fail "button $button: fell back to headless"
  grep -q "validation error" "$tmp/log$button" && fail "button $button: validation errors"
  python3 - "$out" "$button" <<'PY' || failures=$((failures + 1))
import csv, sys
out, button = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f'{out}/stats.csv')))
press = [int(l.split()[-1]) for l in open(f'{out}/press.txt')]
ke = [float(r['kinetic_energy']) for r in rows]
rest = max(ke[40:60])
held = max(ke[press[0]:press[1] + 2]) if press[1] > press[0] else 0.0
what = 'pull (left)' if button == '1' else 'push (right)'
print(f'{what}: {len(rows)} frames, pressed at {press[0]}, released at {press[1]}; kinetic energy at rest '
      f'at most {rest:.4g} J, while held up to {held:.4g} J')
if not (held > 10 * rest and held > 0):
    print(f'FAIL: the {what} did not move the water ({held:.4g} J against {rest:.4g} J at rest)', file=sys.stderr)
    sys.exit(1)
PY
done
[ "$failures" = 0 ] && echo PASS
exit "$failures"
