#!/usr/bin/env bash
# End-to-end tests of the `cistern` command line on lavapipe, with validation
# on: outputs of `run`, determinism of dumps, and bad input handled with
# messages and non-zero exits. $1 is the cistern binary.
# ctest labels: slow,gpu -- 42
set -uo pipefail
cistern=${1:?usage: cli.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

expect 0 "usage:" -- "$cistern" help
expect 0 "cistern run" -- "$cistern" run --help
expect 2 "usage:" -- "$cistern"
expect 2 'unknown command "frobnicate"' -- "$cistern" frobnicate
expect 2 "run: unknown option --frmes (did you mean --frames?)" -- "$cistern" run rest_box_3d --frmes 3
expect 2 "\-\-frames wants a whole number" -- "$cistern" run rest_box_3d --frames many

# Help from the option tables: `cistern help` one line a command and no
# command's options; `cistern COMMAND --help` (-h, `cistern help COMMAND`)
# that command's options with their values and defaults, and no other's.
expect 0 "cistern bench \[SCENE\] \[options\]" -- "$cistern" --help
for c in run bench sh trace level view scenes devices help; do
  [ "$(grep -c "^  cistern $c\b" <<<"$last_out")" -eq 1 ] || fail "cistern --help: not one line for $c: $last_out"
done
grep -q -e "--frames" -e "--spp" <<<"$last_out" && fail "cistern --help lists a command's options: $last_out"
expect 0 "usage: cistern run \[SCENE\]" -- "$cistern" run --help
grep -q -- "--png-every K .*\[default: 10\]" <<<"$last_out" || fail "run --help: no --png-every default: $last_out"
grep -q -- "--verbose" <<<"$last_out" || fail "run --help lacks --verbose: $last_out"
grep -q -e "--spp" -e "--nodes" -e "--cube" <<<"$last_out" && fail "run --help lists other commands' options: $last_out"
expect 0 "\-\-spp N .*\[default: 64\]" -- "$cistern" trace --help
grep -q -e "--headless" -e "--png-every" <<<"$last_out" && fail "trace --help lists other commands' options: $last_out"
expect 0 "\-\-nodes LIST" -- "$cistern" bench -h
expect 0 "\-\-light baked|radiosity" -- "$cistern" view --help
expect 0 "\-\-cube" -- "$cistern" help sh
expect 0 "\-\-generate OUT.phd" -- "$cistern" level --help
# Every option docs/cli.md lists for a command (the same tables) is in
# that command's --help.
docs="$(dirname "$0")/../docs/cli.md"
for c in run bench sh trace level view; do
  help=$("$cistern" "$c" --help)
  for o in $(awk -v c="## cistern $c" '/^## /{on = ($0 == c)} on && /^\| `--/{gsub(/[|` ]/, "", $2); print $2}' FS='|' "$docs"); do
    grep -q -- "^  $o\b" <<<"$help" || fail "cistern $c --help lacks $o (docs/cli.md has it)"
  done
done
# Mistyped options, commands and scenes: a message naming the nearest one,
# exit code 2; nothing near: no guess.
expect 2 "trace: unknown option --sp (did you mean --spp?)" -- "$cistern" trace cornell_box --sp 4
expect 2 "bench: unknown option --warmpu (did you mean --warmup?)" -- "$cistern" bench --warmpu 3
expect 2 "view: unknown option --zzzzzz; .cistern view --help. lists them" -- "$cistern" view levels/x.phd --zzzzzz
grep -q "did you mean" <<<"$last_out" && fail "a guess for --zzzzzz: $last_out"
expect 2 'unknown command "bnech" (did you mean bench?)' -- "$cistern" bnech
expect 2 'scene "dam_brake_3d": .*; did you mean dam_break_3d?' -- "$cistern" run dam_brake_3d --headless --frames 1
expect 2 'did you mean cornell_box?' -- "$cistern" trace cornel_box
expect 2 'did you mean rest_box_3d?' -- "$cistern" bench rest_box_3 --steps 1
expect 2 "scenes takes no arguments" -- "$cistern" scenes extra
# `cistern scenes`: sorted, with descriptions.
names=$("$cistern" scenes | awk '{print $1}')
[ "$names" = "$(LC_ALL=C sort <<<"$names")" ] || fail "cistern scenes is not sorted: $names"
grep -q "^rest_box_3d .*Water at rest" <<<"$("$cistern" scenes)" || fail "cistern scenes: no description for rest_box_3d"
# `cistern devices` marks the default device, and `cistern run` uses it
# (whatever the machine has: lavapipe, a GPU).
devices=$("$cistern" devices 2>&1)
default_block=$(awk '/^\[[0-9]+\] /{block=""} {block=block $0 "\n"} /the default device/{printf "%s", block}' <<<"$devices")
default_name=$(head -n 1 <<<"$default_block" | sed 's/^\[[0-9]*\] //')
[ -n "$default_name" ] || fail "cistern devices marks no default device: $devices"
expect 0 "device $default_name" -- "$cistern" run rest_box_3d --headless --frames 1 --particles 1000 --out "$tmp/device"
grep -q "frame loop:" <<<"$last_out" && fail "the frame-loop report without --verbose: $last_out"
expect 0 "dam_break_3d" -- "$cistern" scenes
expect 2 "no_such_scene" -- "$cistern" run no_such_scene --headless --frames 1
expect 2 "particles: cannot read" -- "$cistern" bench rest_box_3d --particles 16k,lots
expect 2 "\-\-nodes: 1 nodes per axis" -- "$cistern" bench --surface --nodes 1
expect 2 "\-\-nodes is a .bench --surface. option" -- "$cistern" bench --nodes 64
expect 2 "needs a 3D scene" -- "$cistern" bench --surface dam_break_2d --nodes 8 --frames 0 --quiet
# bench --radiosity with no scene takes the Cornell box (the particle
# benches' default scene has no geometry); stopped after its header line.
header=$("$cistern" bench --radiosity --steps 1 --warmup 0 --quiet 2>&1 | grep -m1 -e "^radiosity of" -e "^cistern:")
[[ "$header" == "radiosity of cornell_box on "* ]] || fail "bench --radiosity with no scene: wanted the Cornell box, got: ${header:-nothing}"

# Levels: the demo level summarised; a truncated one refused with the byte
# offset and the field; the generator gives the shipped bytes.
demo="$(dirname "$0")/../levels/cistern_demo.phd"
expect 0 "rooms            4" -- "$cistern" level "$demo"
expect 0 "cistern level FILE.PHD" -- "$cistern" help
head -c 131090 "$demo" > "$tmp/cut.phd"
expect 1 "cut.phd: byte 131084: rooms: count 4" -- "$cistern" level "$tmp/cut.phd"
expect 1 "no_such.phd" -- "$cistern" level "$tmp/no_such.phd"
expect 2 "cistern level FILE.PHD" -- "$cistern" level
expect 0 "wrote" -- "$cistern" level --generate "$tmp/gen.phd"
cmp -s "$tmp/gen.phd" "$demo" || fail "cistern level --generate differs from levels/cistern_demo.phd"

# A scene with an unknown key: the message names the file and the key path.
sed 's/"substeps"/"substepz"/' "$(dirname "$0")/../scenes/rest_box_3d.json" > "$tmp/typo.json"
expect 2 "typo.json.*substepz" -- "$cistern" run "$tmp/typo.json" --headless --frames 1
# Malformed JSON: the message has a line number.
head -c 200 "$(dirname "$0")/../scenes/rest_box_3d.json" > "$tmp/cut.json"
expect 2 "cut.json:[0-9]" -- "$cistern" run "$tmp/cut.json" --headless --frames 1
# A particle count the device cannot hold is refused before anything runs:
# just above what the default device holds, from its exact limits. Every
# particle has a 16-byte position buffer (refused above maxStorageBufferRange
# / 16) and at least 64 bytes in all (positions, velocities, twice each:
# refused above the largest heap / 64). --particles picks the nearest count a
# block lattice makes, within ~1% for millions: ask 2% more.
range=$(sed -n 's/.*bytes: maxStorageBufferRange \([0-9]*\),.*/\1/p' <<<"$default_block")
heap=$(sed -n 's/.*largest heap \([0-9]*\)$/\1/p' <<<"$default_block")
scene_max=$((1 << $(sed -n 's/.*define CS_SCENE_MAX_PARTICLES (1u << \([0-9]*\)).*/\1/p' "$(dirname "$0")/../host/scene/scene.h")))
if [ -z "$range" ] || [ -z "$heap" ]; then
  fail "cistern devices gives no exact limits for $default_name: $default_block"
else
  too_many=$(( range / 16 + 1 < heap / 64 + 1 ? range / 16 + 1 : heap / 64 + 1 ))
  ask=$(( too_many + too_many / 50 ))
  if [ "$ask" -le "$scene_max" ]; then
    expect 2 "particles do not fit on this device" -- \
      "$cistern" run rest_box_3d --headless --frames 1 --particles "$ask" --quiet
  else
    echo "skipped: $default_name holds $scene_max particles, the most a scene may have"
  fi
fi

# cistern sh: an environment made by make_hdr (stb_image_write), lat-long and
# a cube strip; missing, malformed and truncated files are refused with the
# file's name and a reason.
make_hdr="$(dirname "$cistern")/make_hdr"
expect 2 "sh wants an image" -- "$cistern" sh
expect 2 "no_such.hdr: cannot open: No such file" -- "$cistern" sh "$tmp/no_such.hdr"
echo "not an image" > "$tmp/text.hdr"
expect 2 "text.hdr: not a Radiance .hdr file" -- "$cistern" sh "$tmp/text.hdr"
if "$make_hdr" "$tmp/sky.hdr" 48x24 && "$make_hdr" "$tmp/cube.hdr" --cube 8; then
  expect 0 "radiance coefficients" -- "$cistern" sh "$tmp/sky.hdr" --out "$tmp/sh" --validation --quiet
  for f in irradiance_sh.png irradiance_brute.png compare.png; do
    [ "$(head -c 4 "$tmp/sh/$f" 2>/dev/null | tail -c 3)" = "PNG" ] || fail "sh: $f missing or not a PNG"
  done
  [ "$(wc -l < "$tmp/sh/coefficients.csv")" -eq 10 ] || fail "sh: coefficients.csv should have a header and 9 rows"
  expect 0 "cube map 8 x 8 per face" -- "$cistern" sh "$tmp/cube.hdr" --cube --out "$tmp/sh_cube" --quiet
  expect 2 "not a cube-map strip" -- "$cistern" sh "$tmp/sky.hdr" --cube --out "$tmp/sh_bad" --quiet
  head -c 300 "$tmp/sky.hdr" > "$tmp/cut.hdr"
  expect 2 "cut.hdr: damaged .hdr pixel data.*truncated" -- "$cistern" sh "$tmp/cut.hdr" --quiet
else
  fail "make_hdr could not write the test images"
fi
expect 2 "unknown option --exposure" -- "$cistern" sh "$tmp/sky.hdr" --exposure 2

# Input files: devices, directories and FIFOs are refused with what they
# are, files past the stated limit (64 MiB) with their size, before reading
# (a timeout keeps a regression from reading /dev/zero until memory runs out).
expect 2 "/dev/zero: is a character device" -- timeout 60 "$cistern" run /dev/zero --headless --frames 1
expect 2 "$tmp: is a directory" -- timeout 60 "$cistern" run "$tmp" --headless --frames 1
mkfifo "$tmp/pipe.json"
expect 2 "pipe.json: is a FIFO" -- timeout 60 "$cistern" run "$tmp/pipe.json" --headless --frames 1
truncate -s 65M "$tmp/huge.json" && cp --sparse=always "$tmp/huge.json" "$tmp/huge.phd"
expect 2 "huge.json: 65.0 MiB; scene and level files are limited to 64 MiB" -- \
  timeout 60 "$cistern" run "$tmp/huge.json" --headless --frames 1
expect 1 "huge.phd: 65.0 MiB; scene and level files are limited to 64 MiB" -- timeout 60 "$cistern" level "$tmp/huge.phd"
expect 1 "/dev/zero: is a character device" -- timeout 60 "$cistern" level /dev/zero
# The same reader for .hdr images (and shaders, --baseline): sh read
# /dev/zero until killed, blocked on a FIFO, said only "read error" for a
# directory.
expect 2 "/dev/zero: is a character device" -- timeout 60 "$cistern" sh /dev/zero --out "$tmp/sh_zero"
expect 2 "pipe.json: is a FIFO" -- timeout 60 "$cistern" sh "$tmp/pipe.json" --out "$tmp/sh_fifo"
expect 2 "$tmp: is a directory" -- timeout 60 "$cistern" sh "$tmp" --out "$tmp/sh_dir"
truncate -s 300M "$tmp/huge.hdr"
expect 2 "huge.hdr: 300.0 MiB; .hdr images are limited to 257 MiB" -- timeout 60 "$cistern" sh "$tmp/huge.hdr"
rm -f "$tmp/pipe.json" "$tmp/huge.json" "$tmp/huge.phd" "$tmp/huge.hdr"
expect 0 "64 MiB" -- "$cistern" run --help
# JSON nested past cJSON's limit says so, with the place.
python3 -c "print('[' * 1001 + ']' * 1001)" > "$tmp/deep.json"
expect 2 "deep.json:1:1001: JSON nested too deep" -- "$cistern" run "$tmp/deep.json" --headless --frames 1

# Options: counts where 0 (or nothing) would silently mean something else.
expect 2 "\-\-frames must be at least 1" -- "$cistern" run rest_box_3d --headless --frames 0 --out "$tmp/f0"
expect 2 "\-\-particles must be at least 1" -- "$cistern" run rest_box_3d --headless --particles 0 --out "$tmp/p0"
expect 2 "\-\-device wants an index or a name, not an empty string" -- \
  "$cistern" run rest_box_3d --headless --frames 1 --device "" --out "$tmp/d0"
expect 2 "\-\-frames wants a whole number (got \"nan\")" -- "$cistern" run rest_box_3d --frames nan
expect 2 "\-\-frames wants a whole number (got \"2.5\")" -- "$cistern" run rest_box_3d --frames 2.5
expect 2 "\-\-capture-frame wants 0 to 2147483647" -- "$cistern" run rest_box_3d --headless --frames 1 --capture-frame 3e9 --out "$tmp/c0"
expect 2 "\-\-size wants WIDTHxHEIGHT" -- "$cistern" run rest_box_3d --headless --frames 1 --size 64x48junk --out "$tmp/s0"
expect 2 "\-\-particles: cannot read a count at \"nan\"" -- "$cistern" bench rest_box_3d --particles nan
expect 2 "\-\-particles: 0.5 is not a whole count" -- "$cistern" bench rest_box_3d --particles 0.5
expect 2 "\-\-max-step-ms must be at least 1" -- "$cistern" bench rest_box_3d --max-step-ms 0
expect 2 "\-\-steps must be at least 1" -- "$cistern" bench rest_box_3d --steps 0

# The output folder, settled before Vulkan starts (the bad --device is never
# reached): a file is not a folder; a non-empty folder is refused unless
# --overwrite, which deletes cistern's own files there and nothing else.
touch "$tmp/a_file"
expect 2 "a_file: cannot use as a directory: Not a directory" -- \
  "$cistern" run rest_box_3d --headless --frames 1 --out "$tmp/a_file" --device no_such_gpu
mkdir -p "$tmp/used/notes.d"
touch "$tmp/used/particles_00099.ply" "$tmp/used/frame_00099.png" "$tmp/used/mesh_water_00004.obj" \
  "$tmp/used/particles_00099.vtu" "$tmp/used/mesh_water_00004.vtp" "$tmp/used/particles.pvd" \
  "$tmp/used/mesh_water.pvd.tmp" "$tmp/used/notes.txt" "$tmp/used/frame_final.png"
expect 2 "used is not empty (10 entries.*add --overwrite" -- \
  "$cistern" run rest_box_3d --headless --frames 1 --out "$tmp/used" --device no_such_gpu
[ -f "$tmp/used/particles_00099.ply" ] || fail "a refused run deleted files"
expect 0 "1 frames of rest_box_3d" -- \
  "$cistern" run rest_box_3d --headless --frames 1 --png-every 0 --out "$tmp/used" --overwrite
left=$(cd "$tmp/used" && echo *)
[ "$left" = "frame_final.png notes.d notes.txt stats.csv" ] || fail "--overwrite left '$left'"
# A directory where a dump goes: the rename says why, not "disk full?".
mkdir "$tmp/used/particles_00000.ply"
expect 1 "particles_00000.ply: cannot rename .*: Is a directory" -- \
  "$cistern" run rest_box_3d --headless --frames 1 --png-every 0 --dump-every 1 --out "$tmp/used" --overwrite --quiet

# Writes that fail (a 4 KiB file size limit: EFBIG; cistern ignores
# SIGXFSZ itself) stop the run with the reason and exit 1, leave no partial
# file (stats.csv keeps its whole rows: tests/cli_outputs.sh), and the
# summary counts only what was written.
limited() { (ulimit -f "$1"; shift; exec "$@"); }
expect 1 "stats.csv: cannot write (flush failed): File too large" -- \
  limited 4 "$cistern" run rest_box_3d --headless --frames 40 --png-every 0 --out "$tmp/full_stats" --quiet
expect 1 "frame_00000.png: cannot write (write failed): File too large" -- \
  limited 4 "$cistern" run rest_box_3d --headless --frames 2 --png-every 1 --out "$tmp/full_png"
ls "$tmp/full_png" | grep -q png && fail "a PNG was left behind: $(ls "$tmp/full_png")"
summary=$(limited 4 "$cistern" run rest_box_3d --headless --frames 2 --png-every 1 --out "$tmp/full_png2" 2>&1)
grep -q "stopped after 0 frames of rest_box_3d; wrote .*stats.csv (0 rows)$" <<<"$summary" \
  || fail "summary after a failed PNG: $summary"
expect 1 "particles_00000.ply: cannot write (write failed): File too large" -- \
  limited 40 "$cistern" run rest_box_3d --headless --frames 2 --png-every 0 --dump-every 1 --out "$tmp/full_ply" --quiet
expect 1 "particles_00000.vtu: cannot write (write failed): File too large" -- limited 40 "$cistern" run \
  rest_box_3d --headless --frames 2 --png-every 0 --dump-every 1 --dump-format vtu --out "$tmp/full_vtu" --quiet
[ -z "$(ls "$tmp/full_vtu" | grep -v stats.csv)" ] || fail "a failed .vtu left $(ls "$tmp/full_vtu")"
expect 1 "level: /dev/full: cannot write (.*): No space left on device" -- "$cistern" level --generate /dev/full
[ -c /dev/full ] || fail "/dev/full is no longer a device"

# Substeps past the old recorder pass limit (113) run.
sed 's/"substeps": 2/"substeps": 200/' "$(dirname "$0")/../scenes/rest_box_3d.json" > "$tmp/substeps.json"
grep -q '"substeps": 200' "$tmp/substeps.json" || fail "substeps.json was not made"
if "$cistern" run "$tmp/substeps.json" --headless --frames 1 --png-every 0 --out "$tmp/substeps" --quiet; then
  [ "$(wc -l < "$tmp/substeps/stats.csv")" -eq 2 ] || fail "substeps 200: stats.csv should have a header and 1 row"
else
  fail "a scene with 200 substeps failed"
fi

# A real run: stats rows, PLY dumps, PNG frames, validation on.
out="$tmp/run"
if "$cistern" run rest_box_3d --headless --frames 4 --dump-every 2 --png-every 3 --out "$out" --validation --quiet; then
  rows=$(($(wc -l < "$out/stats.csv") - 1))
  [ "$rows" -eq 4 ] || fail "stats.csv has $rows rows, wanted 4"
  head -1 "$out/stats.csv" | grep -q "mean_density_error" || fail "stats.csv header"
  [ -f "$out/particles_00000.ply" ] && [ -f "$out/particles_00002.ply" ] || fail "PLY dumps missing: $(ls "$out")"
  head -c 200 "$out/particles_00000.ply" | grep -q "format binary_little_endian 1.0" || fail "PLY header"
  [ -f "$out/frame_00000.png" ] && [ -f "$out/frame_00003.png" ] || fail "PNG frames missing: $(ls "$out")"
  [ "$(head -c 4 "$out/frame_00000.png" | tail -c 3)" = "PNG" ] || fail "frame_00000.png is not a PNG"
else
  fail "run rest_box_3d failed"
fi

# Surfaces: --mesh-every writes binary PLY meshes whose header counts match
# their size, or OBJ; two runs give the same bytes; the stats have the
# surface passes. rest_box_3d with its surface turned on (1 node per spacing).
scene_dir=$(dirname "$0")/../scenes
sed 's/"blocks": \[/"surface": {"enabled": true, "cells_per_spacing": 1},\n      "blocks": [/' \
  "$scene_dir/rest_box_3d.json" > "$tmp/surf.json"
# ply_check FILE: the header's counts give the file's size exactly (24 bytes
# a vertex, 13 a triangle) and there is at least one triangle.
ply_check() {
  local f=$1 header nv nf size
  header=$(head -c 400 "$f" | tr -d '\0' | sed '/end_header/q')
  nv=$(grep -a "element vertex" <<<"$header" | awk '{print $3}')
  nf=$(grep -a "element face" <<<"$header" | awk '{print $3}')
  size=$(stat -c %s "$f")
  [ -n "$nv" ] && [ -n "$nf" ] && [ "$nf" -gt 0 ] || { fail "$f: header without counts: $header"; return; }
  [ "$size" -eq $(( ${#header} + 1 + 24 * nv + 13 * nf )) ] \
    || fail "$f: $size bytes, header says $nv vertices and $nf faces"
}
out="$tmp/mesh"
if "$cistern" run "$tmp/surf.json" --headless --frames 3 --mesh-every 2 --png-every 2 --out "$out" --validation --quiet; then
  [ -f "$out/mesh_00000.ply" ] && [ -f "$out/mesh_00002.ply" ] && [ ! -f "$out/mesh_00001.ply" ] \
    || fail "mesh files: $(ls "$out")"
  for f in "$out"/mesh_*.ply; do ply_check "$f"; done
  head -1 "$out/stats.csv" | grep -q "gpu_ms:surface: emit" || fail "stats.csv lacks the surface passes"
  # Frame 1 meshes nothing (no mesh, no PNG): its surface cell is empty, not
  # 0 (a pass that did not run); frames 0 and 2 have a time.
  emit=$(head -1 "$out/stats.csv" | tr , '\n' | grep -nx "gpu_ms:surface: emit" | cut -d: -f1)
  cells=$(sed -n 2,4p "$out/stats.csv" | cut -d, -f"${emit:-1}" | tr '\n' ' ')
  [[ "$cells" =~ ^[0-9.]+\ \ [0-9.]+\ $ ]] || fail "surface emit cells of frames 0-2 should be 'ms, empty, ms': '$cells'"
  [ -f "$out/frame_00002.png" ] || fail "no PNG with the surface: $(ls "$out")"
  "$cistern" run "$tmp/surf.json" --headless --frames 3 --mesh-every 2 --png-every 0 --out "$tmp/mesh2" --quiet \
    || fail "second surface run failed"
  cmp -s "$out/mesh_00002.ply" "$tmp/mesh2/mesh_00002.ply" || fail "two runs give different meshes"
else
  fail "run with --mesh-every failed"
fi
if "$cistern" run "$tmp/surf.json" --headless --frames 1 --mesh-every 1 --mesh-format obj --png-every 0 \
    --out "$tmp/obj" --quiet; then
  obj="$tmp/obj/mesh_00000.obj"
  counts=$(sed -n 2p "$obj")
  nv=$(grep -c '^v ' "$obj"); nn=$(grep -c '^vn ' "$obj"); nf=$(grep -c '^f ' "$obj")
  [ "$counts" = "# $nv vertices, $nf triangles" ] && [ "$nn" -eq "$nv" ] && [ "$nf" -gt 0 ] \
    || fail "OBJ: '$counts' but $nv v, $nn vn, $nf f"
else
  fail "run with --mesh-format obj failed"
fi
# Meshes and sh outputs past a file size limit: the reason, exit 1, no file.
for format in ply obj vtp; do
  expect 1 "mesh_00000.$format: cannot write (write failed): File too large" -- limited 8 \
    "$cistern" run "$tmp/surf.json" --headless --frames 1 --mesh-every 1 --mesh-format $format --png-every 0 \
    --out "$tmp/full_mesh_$format" --quiet
  [ ! -e "$tmp/full_mesh_$format/mesh_00000.$format" ] || fail "a short mesh_00000.$format was left behind"
done
if [ -f "$tmp/sky.hdr" ]; then
  expect 1 "compare.png: cannot write (write failed): File too large" -- \
    limited 1 "$cistern" sh "$tmp/sky.hdr" --out "$tmp/full_sh" --quiet
fi
expect 2 "no fluid of rest_box_3d has a surface" -- "$cistern" run rest_box_3d --headless --frames 1 --mesh-every 1
expect 2 "\-\-mesh-format wants ply, obj or vtp" -- "$cistern" run rest_box_3d --mesh-format stl
expect 2 "\-\-dump-format wants ply or vtu" -- "$cistern" run rest_box_3d --dump-format vtk
sed 's/"blocks": \[/"surface": {"enabeld": true},\n      "blocks": [/' "$scene_dir/rest_box_3d.json" > "$tmp/badsurf.json"
expect 2 "badsurf.json: fluids\[0\].surface.enabeld: unknown key" -- "$cistern" run "$tmp/badsurf.json" --headless --frames 1
# Light probes: a fractional resolution is refused by the parser, a grid
# past the device's storage buffers (64^3 probes at 16384 rays) by the world,
# both naming radiosity.probes.resolution.
sed 's/"patch_size": 0.07}/"patch_size": 0.07, "probes": {"resolution": [8, 8.5, 8]}}/' "$scene_dir/cornell_box.json" > "$tmp/badprobes.json"
expect 2 "badprobes.json: radiosity.probes.resolution: must be 3 whole numbers" -- "$cistern" run "$tmp/badprobes.json" --headless --frames 1
sed 's/"patch_size": 0.07}/"patch_size": 0.07, "probes": {"resolution": [64, 64, 64], "rays": 16384}}/' "$scene_dir/cornell_box.json" > "$tmp/bigprobes.json"
expect 2 "bigprobes.json: radiosity.probes.resolution: 64 x 64 x 64 = 262144 probes at 16384 rays: .* holds at most" -- "$cistern" run "$tmp/bigprobes.json" --headless --frames 1
# bench --surface, tiny: every field and output file, the CPU reference agrees.
if "$cistern" bench --surface --nodes 12,16 --frames 1 --steps 1 --warmup 0 --cpu-runs 1 --quiet \
    --out "$tmp/bs" > "$tmp/bs.txt" 2>&1; then
  for f in results.json results.csv; do [ -s "$tmp/bs/$f" ] || fail "bench --surface: no $f"; done
  n=$(grep -c '"field"' "$tmp/bs/results.json")
  [ "$n" -eq 6 ] || fail "bench --surface: $n results, wanted 6 (2 sizes x 3 fields)"
  grep -q "COUNTS DIFFER" "$tmp/bs.txt" && fail "bench --surface: GPU and CPU meshes differ: $(cat "$tmp/bs.txt")"
  m=$(grep -c '"cpu_counts_match":[[:space:]]*true' "$tmp/bs/results.json")
  [ "$m" -eq 6 ] || fail "bench --surface: $m of 6 fields have CPU reference counts that match"
else
  fail "bench --surface failed: $(cat "$tmp/bs.txt")"
fi

# Determinism: the same scene and step count give byte-identical dumps.
for solver_scene in dam_break_3d dam_break_2d wcsph_tank_3d double_emitter_2d; do
  for k in 1 2; do
    "$cistern" run "$solver_scene" --headless --frames 6 --dump-every 5 --png-every 0 --out "$tmp/det$k" --quiet \
      || fail "run $solver_scene ($k) failed"
  done
  cmp -s "$tmp/det1/particles_00005.ply" "$tmp/det2/particles_00005.ply" \
    || fail "$solver_scene: two runs differ"
  rm -rf "$tmp/det1" "$tmp/det2"
done

# cistern view: the demo level headless, one image per room asked for, with
# the rooms the portal walk drew; bad arguments refused with what to do.
expect 0 "room   1: .* rooms drawn through portals" -- \
  "$cistern" view "$demo" --headless --room 1 --size 96x64 --out "$tmp/view" --validation
[ -s "$tmp/view/room_001.png" ] || fail "cistern view wrote no room_001.png"
expect 2 "room 9: .*has rooms 0..3" -- "$cistern" view "$demo" --headless --room 9 --out "$tmp/view"
expect 2 "cistern view FILE.PHD" -- "$cistern" view
expect 2 "\-\-scale wants" -- "$cistern" view "$demo" --scale -3
expect 1 "no_such.phd" -- "$cistern" view "$tmp/no_such.phd" --headless --out "$tmp/view"
expect 1 "cut.phd: byte 131084" -- "$cistern" view "$tmp/cut.phd" --headless --out "$tmp/view"

# The environment switches of the neighbour lists: a value they do not know
# is refused with the values they take, also where the lists are off (2D
# Clavet with one material), never ignored.
expect 2 "CISTERN_NB_LAYOUT=bad: expected particle or slot" -- env CISTERN_NB_LAYOUT=bad "$cistern" run \
  dam_break_3d --frames 1 --particles 2k --quiet --out "$tmp/env1"
expect 2 "CISTERN_NB_LAYOUT=bad: expected particle or slot" -- env CISTERN_NB_LAYOUT=bad "$cistern" run \
  dam_break_2d --frames 1 --quiet --out "$tmp/env2"
expect 2 "CISTERN_WCSPH_LISTS=x: expected on or off" -- env CISTERN_WCSPH_LISTS=x "$cistern" run \
  wcsph_tank_3d --frames 1 --particles 2k --quiet --out "$tmp/env3"
expect 2 "CISTERN_SPH_LISTS=maybe: expected on or off" -- env CISTERN_SPH_LISTS=maybe "$cistern" run \
  dam_break_2d --frames 1 --quiet --out "$tmp/env4"

# render.features names render features; a name no feature takes is refused
# with the file and key path before anything runs.
sed 's/"seed": 1,/"seed": 1, "render": {"features": "nonesuch"},/' "$(dirname "$0")/../scenes/rest_box_3d.json" \
  >"$tmp/features.json"
expect 2 'features.json: render.features: no render feature "nonesuch"' -- "$cistern" run "$tmp/features.json" \
  --headless --frames 1 --quiet --out "$tmp/features"

if [ "$failures" -ne 0 ]; then echo "FAILED: $failures check(s)" >&2; exit 1; fi
echo PASS
