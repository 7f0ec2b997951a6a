#!/usr/bin/env bash
# `cistern run` in a real window under Xvfb on lavapipe: the window opens (no
# headless fallback), frames are simulated and presented, stats are written,
# and --capture-frame saves a screenshot of the swapchain image. The pixels
# of window screenshots are checked against the headless renderer in
# test_window; here the whole program path is exercised, with the window's
# size from the scene and --panel keeping the scene's colour mode. $1 is cistern.
# ctest labels: window,gpu -- 25 (six window runs: sizes, the panel's colour, a surface, the viewer)
set -uo pipefail
cistern=${1:?usage: window_run.sh path/to/cistern}
if ! command -v xvfb-run >/dev/null; then echo "SKIP: xvfb-run missing"; exit 77; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

xvfb-run -a -s "-screen 0 1280x800x24" "$cistern" run dam_break_2d --frames 8 --capture-frame 5 \
  --size 640x480 --verbose --out "$tmp/out" --validation > "$tmp/log" 2>&1 || fail "cistern run in a window failed: $(cat "$tmp/log")"
grep -q "running headless" "$tmp/log" && fail "fell back to headless: $(cat "$tmp/log")"
rows=$(($(wc -l < "$tmp/out/stats.csv" 2>/dev/null || echo 1) - 1))
[ "$rows" -eq 8 ] || fail "stats.csv has $rows rows, wanted 8"
shot="$tmp/out/screenshot_000.png"
[ -f "$shot" ] || fail "no screenshot: $(cat "$tmp/log")"
[ -f "$shot" ] && [ "$(head -c 4 "$shot" | tail -c 3)" = "PNG" ] || fail "screenshot is not a PNG"
[ -f "$shot" ] && [ "$(stat -c %s "$shot")" -gt 20000 ] || fail "screenshot is suspiciously small (blank?)"
grep -q "validation error" "$tmp/log" && fail "validation errors: $(grep 'validation error' "$tmp/log" | head -3)"
# Frames in flight (run.c): one submit a frame (its stats, its present
# signal inside it), and the loop waits for the frame that last used the
# slot it reuses, never for the frame it just submitted, except the
# captured one (its screenshot). The loop before the ring submitted 3-4
# times a frame (frame, stats, stats read-back, present signal) and waited
# on every frame right after its submit.
loop=$(grep "frame loop:" "$tmp/log")
[ -n "$loop" ] || fail "no frame loop report: $(cat "$tmp/log")"
submits=$(sed -n 's/.* \([0-9.]*\) queue submits and \([0-9.]*\) fence waits a frame.*/\1/p' <<< "$loop")
waits=$(sed -n 's/.* \([0-9.]*\) fence waits a frame.*/\1/p' <<< "$loop")
latest=$(sed -n 's/.* \([0-9]*\) waited on before the next was recorded.*/\1/p' <<< "$loop")
awk -v s="${submits:-9}" -v w="${waits:-9}" 'BEGIN { exit !(s <= 1.2 && w <= 1.2) }' \
  || fail "wanted about one submit and one fence wait a frame: $loop"
[ "${latest:-99}" -le 1 ] || fail "the loop waited on frames right after submitting them: $loop"
# Without --size the window takes the scene's render.width and height
# (bodies_2d: 640 x 420), as --size's help says; it was 1280 x 720 whatever
# the scene said.
xvfb-run -a -s "-screen 0 1280x800x24" "$cistern" run bodies_2d --frames 3 --capture-frame 1 \
  --out "$tmp/sized" > "$tmp/sized.log" 2>&1 || fail "bodies_2d in a window failed: $(cat "$tmp/sized.log")"
size=$(python3 -c 'import struct,sys; d=open(sys.argv[1],"rb").read(24); print("%dx%d" % struct.unpack(">II", d[16:24]))' \
  "$tmp/sized/screenshot_000.png" 2>/dev/null)
[ "$size" = "640x420" ] || fail "the window of bodies_2d (render 640 x 420) is ${size:-not captured}: $(tail -3 "$tmp/sized.log")"
# --panel leaves the scene's render.color_mode (bodies_2d: speed) and
# render.draw as they are: right of the panel the frame is the one without
# it. The panel's first request was zeroed (material, particles) and
# applied before the panel had asked anything.
for p in "" --panel; do
  xvfb-run -a -s "-screen 0 1280x800x24" "$cistern" run bodies_2d --frames 3 --capture-frame 1 --size 1000x600 \
    $p --no-watch --out "$tmp/colour$p" > "$tmp/colour$p.log" 2>&1 || fail "bodies_2d $p failed: $(cat "$tmp/colour$p.log")"
done
differ=$(python3 "$(dirname "$0")/util/png_diff.py" "$tmp/colour/screenshot_000.png" \
  "$tmp/colour--panel/screenshot_000.png" 480)
[ "$differ" = 0 ] || fail "--panel changed the frame right of the panel ($differ pixels): its colour mode or draw mode"
# A 3D scene drawn as its surface: each frame meshes it (two submits, the
# second one presenting), the screenshot is not blank, validation stays quiet.
sed 's/"blocks": \[/"surface": {"enabled": true, "cells_per_spacing": 1},\n      "blocks": [/' \
  "$(dirname "$0")/../scenes/rest_box_3d.json" > "$tmp/surf.json"
xvfb-run -a -s "-screen 0 1280x800x24" "$cistern" run "$tmp/surf.json" --frames 4 --capture-frame 2 \
  --size 480x360 --out "$tmp/surf" --validation > "$tmp/surf.log" 2>&1 \
  || fail "surface scene in a window failed: $(cat "$tmp/surf.log")"
shot="$tmp/surf/screenshot_000.png"
[ -f "$shot" ] && [ "$(stat -c %s "$shot")" -gt 10000 ] || fail "surface screenshot missing or blank: $(ls "$tmp/surf")"
head -1 "$tmp/surf/stats.csv" 2>/dev/null | grep -q "gpu_ms:surface: emit" || fail "window frames did not mesh the surface"
grep -q "validation error" "$tmp/surf.log" && fail "validation errors: $(grep 'validation error' "$tmp/surf.log" | head -3)"
# cistern view in a window: the same ring (one submit a frame, its present
# semaphores inside it, a wait only for the frame two back). Before it, each
# frame was submitted and waited on (2 submits with the present's, 3 waits
# with the acquire fence).
demo="$(dirname "$0")/../levels/cistern_demo.phd"
xvfb-run -a -s "-screen 0 1280x800x24" "$cistern" view "$demo" --frames 30 --size 320x240 --validation \
  > "$tmp/view.log" 2>&1 || fail "cistern view in a window failed: $(cat "$tmp/view.log")"
grep -q "validation error" "$tmp/view.log" && fail "view: validation errors: $(grep 'validation error' "$tmp/view.log" | head -3)"
vloop=$(grep "view: frame loop:" "$tmp/view.log")
vsubmits=$(sed -n 's/.* \([0-9.]*\) queue submits and.*/\1/p' <<< "$vloop")
vwaits=$(sed -n 's/.* \([0-9.]*\) fence waits a frame.*/\1/p' <<< "$vloop")
awk -v s="${vsubmits:-9}" -v w="${vwaits:-9}" 'BEGIN { exit !(s <= 1.2 && w <= 1.2) }' \
  || fail "view: wanted about one submit and one fence wait a frame: ${vloop:-no frame loop line: $(cat "$tmp/view.log")}"
# --record in a window: every simulated frame from the swapchain copy into
# ffmpeg (host/app/io/record.c), an odd width padded to even.
if command -v ffprobe >/dev/null; then
  xvfb-run -a -s "-screen 0 1280x800x24" "$cistern" run dam_break_2d --frames 12 --size 321x240 \
    --record "$tmp/win.mp4" --out "$tmp/rec" --validation > "$tmp/rec.log" 2>&1 \
    || fail "--record in a window failed: $(cat "$tmp/rec.log")"
  grep -q "validation error" "$tmp/rec.log" && fail "--record: validation errors: $(grep 'validation error' "$tmp/rec.log" | head -3)"
  got=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames,width,height \
    -of csv=p=0 "$tmp/win.mp4" 2>&1)
  [ "$got" = "322,240,12" ] || fail "--record in a window: width,height,frames $got, want 322,240,12"
fi
if [ "$failures" -ne 0 ]; then echo "FAILED: $failures check(s)" >&2; exit 1; fi
echo PASS
