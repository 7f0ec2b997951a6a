#!/usr/bin/env bash
# `cistern run --record FILE.mp4` (host/app/io/record.c): frames piped to an
# ffmpeg child. Headless on lavapipe:
#   1. no ffmpeg on PATH: refused before the run (exit 2), naming the package;
#   2. 20 frames of a small 2D scene at an odd size: ffprobe reads back 20
#      frames, the size padded to even, the simulated frame rate (1 / (dt *
#      substeps)), H.264 in yuv420p; --png-every still writes its PNGs;
#   3. a second recording of the same run is byte-identical (docs/usage.md
#      says so; -bitexact and one encoder thread);
#   4. an existing file is refused without --overwrite, replaced with it;
#   5. ffmpeg killed mid-run: the recording stops with a message, the run
#      goes on to its last frame and exits 1 (not by SIGPIPE).
# Skipped (77) without ffmpeg/ffprobe (tools/install-deps.sh installs them).
# $1 is the cistern binary.
# ctest labels: quick,gpu -- 8 (five short runs through ffmpeg; skipped without it)
set -uo pipefail
cistern=${1:?usage: record.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
scene=dam_break_2d
scene_file="$(cd "$(dirname "$0")/.." && pwd)/scenes/$scene.json"

# 1. Without ffmpeg (checked first: it needs none).
expect 2 "apt-get install ffmpeg" -- env PATH=/nonexistent "$cistern" run "$scene" --headless --frames 2 \
  --record "$tmp/none.mp4" --out "$tmp/none"
[ -e "$tmp/none" ] && fail "a refused --record still made the output folder"

if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null; then
  echo "SKIP: no ffmpeg/ffprobe (apt-get install ffmpeg)"
  [ "$failures" -eq 0 ] || exit 1
  exit 77
fi

# 2. Record and read back.
expect 0 "recorded 20 frames" -- "$cistern" run "$scene" --headless --frames 20 --png-every 5 --size 160x91 \
  --record "$tmp/a.mp4" --out "$tmp/a"
probe() {
  ffprobe -v error -count_frames -select_streams v:0 \
    -show_entries stream=codec_name,pix_fmt,width,height,r_frame_rate,nb_read_frames -of default=nw=1 "$1"
}
info=$(probe "$tmp/a.mp4") || fail "ffprobe cannot read the recording: $info"
field() { sed -n "s/^$1=//p" <<<"$info"; }
echo "$info" | tr '\n' ' '; echo
[ "$(field nb_read_frames)" = 20 ] || fail "frames: $(field nb_read_frames), want 20"
[ "$(field width)x$(field height)" = 160x92 ] || fail "size: $(field width)x$(field height), want 160x92 (91 padded)"
[ "$(field pix_fmt)" = yuv420p ] || fail "pixel format: $(field pix_fmt)"
case "$(field codec_name)" in h264 | mpeg4) ;; *) fail "codec: $(field codec_name)" ;; esac
want_fps=$(/usr/bin/python3 -c "import json, sys; s = json.load(open(sys.argv[1])); print(1 / (s['dt'] * s['substeps']))" \
  "$scene_file")
awk -v r="$(field r_frame_rate)" -v w="$want_fps" 'BEGIN { split(r, q, "/"); f = q[1] / q[2];
  exit !(f > w * 0.9999 && f < w * 1.0001) }' || fail "frame rate $(field r_frame_rate), want $want_fps"
pngs=$(ls "$tmp/a"/frame_*.png 2>/dev/null | wc -l)
[ "$pngs" -eq 5 ] || fail "--png-every 5 with --record: $pngs PNGs, want 5 (0, 5, 10, 15 and the last)"

# 3. The same run again: the same bytes.
expect 0 "recorded 20 frames" -- "$cistern" run "$scene" --headless --frames 20 --png-every 0 --size 160x91 \
  --record "$tmp/b.mp4" --out "$tmp/b"
cmp -s "$tmp/a.mp4" "$tmp/b.mp4" && echo "two recordings are byte-identical" ||
  fail "two recordings of one run differ ($(stat -c %s "$tmp/a.mp4") and $(stat -c %s "$tmp/b.mp4") bytes)"

# 4. An existing file.
expect 2 "b.mp4 exists; --overwrite replaces it" -- "$cistern" run "$scene" --headless --frames 2 \
  --record "$tmp/b.mp4" --out "$tmp/c"
expect 0 "recorded 3 frames" -- "$cistern" run "$scene" --headless --frames 3 --png-every 0 --size 160x91 \
  --record "$tmp/b.mp4" --out "$tmp/c" --overwrite
info=$(probe "$tmp/b.mp4")
[ "$(field nb_read_frames)" = 3 ] || fail "--overwrite: $(field nb_read_frames) frames, want 3"

# 5. ffmpeg dies mid-run: the pipe breaks, cistern goes on without it.
"$cistern" run "$scene" --headless --frames 40 --png-every 0 --size 160x91 --record "$tmp/d.mp4" \
  --out "$tmp/d" > "$tmp/d.log" 2>&1 &
pid=$!
child=
for _ in $(seq 600); do
  child=$(pgrep -P "$pid" -x ffmpeg) && break
  sleep 0.05
done
if [ -n "$child" ]; then
  kill -KILL "$child"
  wait "$pid"; rc=$?
  [ "$rc" -eq 1 ] || fail "after ffmpeg was killed cistern exited $rc, want 1: $(tail -5 "$tmp/d.log")"
  grep -q "ffmpeg was killed by signal 9 after [0-9]* frames* (broken pipe); recording stopped" "$tmp/d.log" ||
    fail "no broken-pipe message: $(tail -5 "$tmp/d.log")"
  rows=$(($(wc -l < "$tmp/d/stats.csv") - 1))
  [ "$rows" -eq 40 ] || fail "the run stopped with the recording: $rows of 40 stats rows"
  echo "ffmpeg killed: $(grep -m1 'recording stopped' "$tmp/d.log")"
else
  wait "$pid"
  fail "never saw the ffmpeg child of cistern (pid $pid): $(tail -5 "$tmp/d.log")"
fi

if [ "$failures" -ne 0 ]; then echo "FAILED: $failures check(s)"; exit 1; fi
echo PASS
