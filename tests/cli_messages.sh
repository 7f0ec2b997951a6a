#!/usr/bin/env bash
# Messages for what a user gets wrong (issue 28's audit): each names the
# file or option and the knob to turn, never a bare exit code, and never
# advice about a knob that has nothing to do with it. $1 is the cistern
# binary. Every case is refused before any long work starts.
set -uo pipefail
cistern=${1:?usage: cli_messages.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
here=$(dirname "$0")
demo="$here/../levels/cistern_demo.phd"

# A room past the level's: said, with the level's range (exit 2 and
# nothing printed before).
expect 2 "\-\-room 99999: .*cistern_demo.phd has rooms 0..3" -- \
  "$cistern" view "$demo" --headless --room 99999 --out "$tmp/room"
expect 2 "\-\-room wants 0 to 2147483647" -- "$cistern" view "$demo" --headless --room 3000000000

# An empty --out is not a folder (it said ": cannot create directory").
expect 2 '\-\-out "": the output folder.s path is empty' -- \
  "$cistern" run rest_box_3d --headless --frames 1 --out ""
expect 2 '\-\-out "": the output folder.s path is empty' -- "$cistern" view "$demo" --headless --out ""
expect 2 '\-\-out "": the output folder.s path is empty' -- \
  "$cistern" bench reint_drops_2d --cells 32 --steps 1 --warmup 0 --quiet --out ""

# Buffers too large for the device name what sizes them, not "the particle
# or cell count": an image (--size), radiosity patches (--patch-size), the
# neighbour grid's cells (domain / smoothing radius). Sized past lavapipe's
# 128 MiB and any GPU's 4 GiB storage-buffer range only where the device
# says so.
devices=$("$cistern" devices 2>&1)
default_block=$(awk '/^\[[0-9]+\] /{block=""} {block=block $0 "\n"} /the default device/{printf "%s", block}' <<<"$devices")
range=$(sed -n 's/.*bytes: maxStorageBufferRange \([0-9]*\),.*/\1/p' <<<"$default_block")
if [ -n "$range" ] && [ "$range" -le 134217728 ]; then
  expect 1 "offscreen readback.*; lower \-\-size (the image is 8192 x 4200)" -- \
    "$cistern" run rest_box_3d --headless --frames 1 --size 8192x4200 --out "$tmp/image"
  grep -q "particle or cell count" <<<"$last_out" && fail "an image's buffer advises the particle count: $last_out"
  expect 1 "radiosity.patch_size: buffer .*; raise \-\-patch-size (fewer patches)" -- \
    "$cistern" view "$demo" --headless --light radiosity --patch-size 0.05 --room 0 --out "$tmp/patches"
else
  echo "skipped: image and patch buffers (maxStorageBufferRange ${range:-unknown} is past 128 MiB)"
fi
sed 's/"max": \[0.4, 0.4, 0.4\]}/"max": [20, 20, 20]}/' "$here/../scenes/rest_box_3d.json" > "$tmp/bigdomain.json"
grep -q "20, 20, 20" "$tmp/bigdomain.json" || fail "bigdomain.json was not made"
expect 2 "grid cell ranges.*cells of 0.05 m over the domain: make the smoothing radius larger or the domain smaller" -- \
  "$cistern" run "$tmp/bigdomain.json" --headless --frames 1 --out "$tmp/grid"

# Vortons past the workgroup limit: the numbers in the right order (it
# read "(65535 of 64)") and the count that would fit.
limit=$(sed -n 's/.*max groups \([0-9]*\) x.*/\1/p' <<<"$default_block")
if [ -n "$limit" ] && [ "$limit" -le 65535 ]; then
  expect 2 "workgroups of 64, more than the $limit .*use at most $((limit * 64)) vortons" -- \
    "$cistern" run vorton_bench_direct_3d --headless --frames 1 --particles 4400k --out "$tmp/vortons"
  grep -q "($limit of 64)" <<<"$last_out" && fail "the workgroup numbers read backwards: $last_out"
else
  echo "skipped: vortons past the workgroup limit (${limit:-unknown} x 64 is too many to make here)"
fi

# An .hdr at RGBE's largest exponent: refused (it printed L00 = inf, exit 0).
python3 -c "
import sys
w, h = 16, 8
sys.stdout.buffer.write(b'#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n' % (h, w) + bytes([255] * 4) * (w * h))
" > "$tmp/max.hdr"
expect 2 "max.hdr: texel (0, 0) red is 1.69.*e+38, outside 0 to 1e+30" -- "$cistern" sh "$tmp/max.hdr" --out "$tmp/sh"
grep -q "inf" <<<"$last_out" && fail "sh printed an infinity: $last_out"

exit $((failures > 0))
