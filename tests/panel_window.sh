#!/usr/bin/env bash
# The panel in a window under Xvfb, worked with the mouse (xdotool) as a
# user would: pause with its button, restart (R) and step 20 frames (N)
# twice without an edit, then open fluids[0].materials[0] and drag
# viscosity_linear, Save as, restart and step 20 frames again. The two unedited
# screenshots are the same outside the panel (steps are deterministic),
# the edited one differs there (the fluid took the new viscosity), the
# run prints the edit as key.path=value, the saved scene holds it and
# runs, and validation stays quiet.
# The panel is collapsed to its title bar for the screenshots. $1 is cistern.
# ctest labels: window,gpu -- 45-60 at load 13 (xdotool works the panel: pause, restart, 60 steps, a drag)
set -uo pipefail
cistern=${1:?usage: panel_window.sh path/to/cistern}
for tool in xvfb-run xdotool python3; do
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
shots() { ls "$out"/screenshot_*.png 2>/dev/null | wc -l; }
click() { xdotool mousemove --window "$wid" "$1" "$2" click 1; sleep 1; }
# Rows are written one frame late; wait until they stop coming.
settle() {
  local last=-1 now
  for _ in $(seq 300); do now=$(rows); [ "$now" = "$last" ] && return 0; last=$now; sleep 1; done
  return 1
}
steps() { # restart, then 20 single steps, each one frame (run.c steps_due)
  xdotool key --window "$wid" r; sleep 2; settle
  local base; base=$(rows)
  for _ in $(seq 20); do xdotool key --window "$wid" n; sleep 0.1; done
  for _ in $(seq 600); do [ "$(rows)" -ge $((base + 20)) ] && break; sleep 0.5; done
  settle
  local n; n=$(shots)
  xdotool key --window "$wid" F12
  for _ in $(seq 300); do [ "$(shots)" -gt "$n" ] && return 0; sleep 0.5; done
  echo "no screenshot" >&2; return 1
}
# Pause (its button under the scene picker), until the rows stop: a click
# in the panel's first frames, before ImGui knows its window, is lost.
paused=0
for _ in $(seq 8); do
  sleep 2
  click 38 87
  sleep 4 # the frames in flight finish (their rows come one frame late)
  before=$(rows); sleep 4
  [ "$(rows)" = "$before" ] && { paused=1; break; }
done
[ "$paused" = 1 ] || { echo "the Pause button did not pause" >&2; kill "$pid"; exit 1; }
click 21 19        # collapse the panel to its title bar
steps              # screenshot_000: 20 frames from the start
steps              # screenshot_001: the same 20 frames again
click 21 19        # open the panel
click 60 347       # open fluids[0].materials[0] (under world, pointer, render, fluids[0]; the stepping line above)
xdotool mousemove --window "$wid" 110 458 mousedown 1; sleep 1
xdotool mousemove --window "$wid" 200 458; sleep 1
xdotool mousemove --window "$wid" 330 458; sleep 1
xdotool mouseup 1; sleep 1
click 100 544      # Save as (under the edits): OUT/dam_break_2d_edited.json (Clavet's seven material rows above, absorption among them)
sleep 2
click 21 19        # collapse it again
steps              # screenshot_002: 20 frames with the new viscosity
xdotool key --window "$wid" Escape
wait "$pid"
EOF

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
timeout 900 xvfb-run -a -s "-screen 0 1280x800x24" bash "$tmp/drive.sh" "$cistern" "$out" "$tmp/log" \
  || fail "the window run failed: $(tail -20 "$tmp/log")"
grep -q "running headless" "$tmp/log" && fail "fell back to headless"
grep -q "validation error" "$tmp/log" && fail "validation errors: $(grep 'validation error' "$tmp/log" | head -3)"
edit=$(grep -A3 "panel edits of dam_break_2d" "$tmp/log" | grep -o "fluids\[0\]\.materials\[0\]\.viscosity_linear=[0-9.e+-]*")
[ -n "$edit" ] || fail "no viscosity edit printed: $(tail -5 "$tmp/log")"
[ "$edit" = "fluids[0].materials[0].viscosity_linear=0.5" ] && fail "the drag left the viscosity at 0.5"
echo "edit: $edit"
# Save as wrote the scene with the edit, and it runs.
saved="$out/dam_break_2d_edited.json"
value=${edit#*=}
grep -q "\"viscosity_linear\":[[:space:]]*$value," "$saved" 2>/dev/null \
  || fail "Save as: $saved lacks viscosity_linear $value: $(grep -h 'panel:' "$tmp/log")"
"$cistern" run "$saved" --headless --frames 1 --quiet --out "$tmp/saved_run" > "$tmp/saved.log" 2>&1 \
  || fail "the saved scene does not run: $(cat "$tmp/saved.log")"

# Pixels right of where the open panel reaches (x >= 460; the fluid's
# front has passed there after 20 frames): the same for the two unedited
# runs of 20 steps, different with the edit.
python3 - "$out" <<'EOF' || failures=$((failures + 1))
import struct, sys, zlib

def load(path):
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', path
    pos, idat, w = 8, b'', 0
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 4 if ctype == 6 else 3
        elif kind == b'IDAT':
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return w, h, rows

out = sys.argv[1]
shots = [load(f'{out}/screenshot_{i:03d}.png') for i in range(3)]
def px(s, x, y):
    n = len(s[2][y]) // s[0]
    return s[2][y][x * n:x * n + 3]
def region(s):
    return [(x, y) for y in range(40, s[1]) for x in range(460, s[0])]
def differing(s, t):
    return sum(px(s, x, y) != px(t, x, y) for x, y in region(s))
fluid = sum(min(px(shots[0], x, y)) > 120 for x, y in region(shots[0]))
same, edited = differing(shots[0], shots[1]), differing(shots[0], shots[2])
print(f'right of the panel: {fluid} fluid pixels; the unedited runs differ in {same}, the edited run in {edited}')
ok = same == 0 and edited > 100 and fluid > 500
if not ok:
    print('FAIL: wanted fluid there, the unedited runs identical and the edited run different', file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
[ "$failures" -eq 0 ] && echo PASS || { echo "FAILED ($failures)"; exit 1; }
