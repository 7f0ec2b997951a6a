#!/usr/bin/env bash
# Messages for what a user gets wrong (issue 28's audit): each names the
# file or option and the knob to turn, never a bare exit code, and never
# advice about a knob that has nothing to do with it. $1 is the cistern
# binary. Every case is refused before any long work starts.
# ctest labels: quick,gpu -- 3
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

# Options that would have no effect say so and exit 2 (they ran and exited
# 0 with nothing to show for it): PBF's material mass (it derives its own),
# --cells on a scene without a grid fluid (every size skipped), --out with
# bench --radiosity (which writes no files), --png-every in a window (no PNG
# frames there). Nothing runs before the refusal.
expect 2 "fluids\[1\].materials\[0\].mass: PBF does not use a material.s mass (got 5).*remove \"mass\"" -- \
  "$cistern" run two_fluids_2d --headless --frames 1 --out "$tmp/pbf_mass" --set 'fluids[1].materials[0].mass=5'
[ -e "$tmp/pbf_mass/stats.csv" ] && [ "$(wc -l < "$tmp/pbf_mass/stats.csv")" -gt 0 ] && fail "a refused PBF mass ran frames"
expect 2 "bench \-\-cells: dam_break_2d has no grid fluid (solver \"reint\"), so \-\-cells would size nothing; use \-\-particles" -- \
  "$cistern" bench dam_break_2d --cells 64 --steps 1 --warmup 0 --out "$tmp/cells"
[ -e "$tmp/cells/results.json" ] && fail "bench --cells on a particle scene wrote results"
expect 2 "bench \-\-radiosity prints its table (markdown) and writes no files.*> FILE.md" -- \
  "$cistern" bench --radiosity --out "$tmp/radiosity"
if command -v xvfb-run >/dev/null; then
  expect 2 "\-\-png-every writes frame_NNNNN.png headless only; add \-\-headless" -- \
    xvfb-run -a "$cistern" run dam_break_2d --png-every 5 --frames 2 --out "$tmp/window_png"
else
  expect 2 "\-\-png-every writes frame_NNNNN.png headless only" -- \
    env DISPLAY=:cistern-none "$cistern" run dam_break_2d --png-every 5 --frames 2 --out "$tmp/window_png"
fi

# A scene that does not load is bad input to every bench sweep: exit 2
# (bench --draw exited 1), said before the device starts (no device line)
# and with nothing written.
printf '{"dim": 2, "fluids": [{"solver": "pbf"}]}' > "$tmp/bad_scene.json"
for sweep in "" --demo --draw --surface --radiosity; do
  out_args=(--out "$tmp/bad_bench${sweep}")
  [ "$sweep" = --radiosity ] && out_args=() # it writes no files and refuses --out
  expect 2 "bad_scene.json: domain: missing (required)" -- \
    "$cistern" bench "$tmp/bad_scene.json" $sweep --steps 1 --warmup 0 "${out_args[@]}"
  grep -q "cistern: device " <<<"$last_out" && fail "bench $sweep started the device for a scene that does not load"
  [ -e "$tmp/bad_bench${sweep}" ] && fail "bench $sweep made its output folder for a scene that does not load"
done

# --set: a bad path or value names the key path and exits 2, before anything runs.
expect 2 "fluids\[0\].materials\[0\].viscosty_linear: unknown key (did you mean \"viscosity_linear\"" -- \
  "$cistern" run dam_break_2d --headless --frames 1 --out "$tmp/set1" --set 'fluids[0].materials[0].viscosty_linear=1'
# A material key the fluid's solver does not read: refused with its keys
# named, from --set and from a file alike (it once looked live and did nothing).
expect 2 "fluids\[0\].materials\[0\].stiffness: the pbf solver does not read it (its material keys: name, mass, rest_density, color, absorption)" -- \
  "$cistern" run dam_break_3d --headless --frames 1 --out "$tmp/set_unread" --set 'fluids[0].materials[0].stiffness=0.1'
sed 's/"rest_density": 1000,/"rest_density": 1000, "viscosity": 0.01,/' "$(dirname "$0")/../scenes/dam_break_3d.json" \
  > "$tmp/unread.json"
expect 2 "unread.json: fluids\[0\].materials\[0\].viscosity: the pbf solver does not read it" -- \
  "$cistern" run "$tmp/unread.json" --headless --frames 1 --out "$tmp/unread_out"
expect 2 "edit fluids\[4\].solver=pbf: fluids\[4\]: the array holds 1 entry" -- \
  "$cistern" run dam_break_2d --headless --frames 1 --out "$tmp/set2" --set 'fluids[4].solver=pbf'
# A misspelled solver names the value and the nearest solver (it was
# "fluids[0].sph: unknown key", about the block); a real solver whose block
# is still the old one's names that block.
expect 2 "fluids\[0\].solver: \"wcsh\" is not a solver: did you mean \"wcsph\"? (solvers: \"pbf\", \"sph\", \"wcsph\"" -- \
  "$cistern" run dam_break_2d --headless --frames 1 --out "$tmp/set4" --set 'fluids[0].solver=wcsh'
expect 2 "fluids\[0\].sph: is the block of solver \"sph\" but the fluid.s \"solver\" is \"wcsph\"" -- \
  "$cistern" run dam_break_2d --headless --frames 1 --out "$tmp/set5" --set 'fluids[0].solver=wcsph'
expect 2 "\-\-set gravity: wants KEY.PATH=VALUE" -- "$cistern" run dam_break_2d --headless --set gravity
expect 2 "fluids\[0\].sph.split: .*(set by the edit fluids\[0\].sph.split=0)" -- \
  "$cistern" run dam_break_2d --headless --frames 1 --out "$tmp/set3" --set 'fluids[0].sph.split=0'
expect 2 "radiosity.bonces: unknown key (did you mean \"bounces\"" -- \
  "$cistern" trace cornell_box --spp 1 --size 8x8 --out "$tmp/set4" --set radiosity.bonces=2

exit $((failures > 0))
