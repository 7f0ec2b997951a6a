#!/usr/bin/env bash
# Sizes and set-ups refused at once (issue 28's audit, 4.3, 4.4, 4.6): a
# scene that asks for more than the device or the host holds, or that
# cannot run, is refused before any long work starts, with the arithmetic
# and the knob to turn. $1 is the cistern binary. Each run is bounded by
# `timeout` (and, without ASan, by `ulimit -v`) so a regression fails here
# instead of taking the machine down.
# ctest labels: quick,gpu -- 30 (sizes and set-ups refused at once; a 20 s bake watched)
set -uo pipefail
cistern=${1:?usage: cli_limits.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
here=$(cd "$(dirname "$0")" && pwd)
scenes="$here/../scenes"
# ASan reserves terabytes of address space, and a GPU driver maps the
# device's memory: ulimit -v only on a CPU device (lavapipe) without ASan.
devices=$("$cistern" devices 2>&1)
default_block=$(awk '/^\[[0-9]+\] /{block=""} {block=block $0 "\n"} /the default device/{printf "%s", block}' <<<"$devices")
vmem=unlimited
if grep -q "type CPU" <<<"$default_block" && ! ldd "$cistern" 2>/dev/null | grep -q libasan; then vmem=1500000; fi
bounded() { (ulimit -v "$vmem"; exec timeout 60 "$@"); }

# 4.3: vortons past the device, refused before the host arrays are filled
# (it filled 1.1 GB for 6.6 s, and under a 1.5 GB limit died by SIGSEGV).
range=$(sed -n 's/.*bytes: maxStorageBufferRange \([0-9]*\),.*/\1/p' <<<"$default_block")
start=$(date +%s)
# Refused where one buffer of 33.5 M vortons (16 B each) is past the
# device's range; a device that holds them would run it (for hours).
if [ -n "$range" ] && [ "$range" -lt 536121760 ]; then
  sed 's/"spacing": 0.04/"spacing": 0.001/' "$scenes/vorton_plume_3d.json" > "$tmp/vortons_001.json"
  grep -q '"spacing": 0.001' "$tmp/vortons_001.json" || fail "vortons_001.json was not made"
  expect 2 "vorton.spacing 0.001 gives 33" -- \
    bounded "$cistern" run "$tmp/vortons_001.json" --headless --frames 1 --out "$tmp/v1"
else
  echo "skipped: 33.5 M vortons (maxStorageBufferRange ${range:-unknown} holds them)"
fi
# Past one storage buffer but under the workgroup limit: the arithmetic,
# how many fit and the spacing that would.
if [ -n "$range" ] && [ "$range" -le 134217728 ]; then
  sed 's/"spacing": 0.04/"spacing": 0.0021/' "$scenes/vorton_plume_3d.json" > "$tmp/vortons_0021.json"
  expect 2 "vorton.spacing 0.0021 gives 3.6 M vortons, too many; one buffer of them holds 3.6 M x 48 B = .*; at most .* fit: raise vorton.spacing to at least 0.00" -- \
    bounded "$cistern" run "$tmp/vortons_0021.json" --headless --frames 1 --out "$tmp/v2"
else
  echo "skipped: vortons past one storage buffer (maxStorageBufferRange ${range:-unknown} is past 128 MiB)"
fi
# The key's own minimum (issue 45): counting the heat ball's lattice one
# point at a time visited 6.4e10 points (an hour, no output). Refused from
# the ball's size alone, with the arithmetic: 4/3 pi (0.2/0.0001 - 0.87)^3
# = 3.35e10 vortons, past any count; and at 0.0002 (4.18e9, within a count)
# by the device's check, before the walk.
sed 's/"spacing": 0.04/"spacing": 0.0001/' "$scenes/vorton_plume_3d.json" > "$tmp/vortons_0001.json"
grep -q '"spacing": 0.0001' "$tmp/vortons_0001.json" || fail "vortons_0001.json was not made"
expect 2 "vorton.spacing 0.0001 makes at least 3.35e+10 vortons (heat ball 0: 4/3 pi (0.2/0.0001 - 0.87)^3 = 3.35e+10), past the 4294967295" -- \
  bounded "$cistern" run "$tmp/vortons_0001.json" --headless --frames 1 --out "$tmp/v3"
sed 's/"spacing": 0.04/"spacing": 0.0002/' "$scenes/vorton_plume_3d.json" > "$tmp/vortons_0002.json"
expect 2 "at least (heat ball 0: 4/3 pi (0.2/0.0002 - 0.87)^3 = 4.18e+09): vorton: vorton.spacing 0.0002 gives 41" -- \
  bounded "$cistern" run "$tmp/vortons_0002.json" --headless --frames 1 --out "$tmp/v4"
elapsed=$(($(date +%s) - start))
[ "$elapsed" -le 20 ] || fail "the vorton refusals took $elapsed s (wanted at once)"

# 4.4: flat radiosity links ("hierarchy": false) are estimated before the
# n^2 pairs are walked (patch_size 0.2 on the demo level walked 115 k^2
# pairs, silent, past 40 s and 1.3 GB); a compile that fits says where it is.
sed 's#"../levels/#"'"$here"'/../levels/#; s/"patch_size": 4,/"patch_size": 0.2, "hierarchy": false,/' \
  "$scenes/level_radiosity_3d.json" > "$tmp/flat_links.json"
grep -q '"hierarchy": false' "$tmp/flat_links.json" || fail "flat_links.json was not made"
start=$(date +%s)
expect 2 'radiosity.patch_size: .*"hierarchy": false.*115.0 k patches at patch_size 0.2 give about .* links x 8 B = .*; raise patch_size to at least 0.3' -- \
  bounded "$cistern" run "$tmp/flat_links.json" --headless --frames 1 --out "$tmp/r1"
elapsed=$(($(date +%s) - start))
[ "$elapsed" -le 20 ] || fail "the flat-link refusal took $elapsed s (wanted at once)"

# 4.6: a fluid block two-thirds inside the demo level's floor ran at
# 180-290 m/s for 30 frames, exit 0: the particles in solid are left out
# and counted, the rest start at rest; all of them in solid is refused.
sed 's#"../levels/#"'"$here"'/../levels/#; s/"min": \[5.0, 0.0, -5.0\], "max": \[7.9, 0.6, -3.0\]/"min": [5.0, -1.2, -5.0], "max": [7.9, 0.6, -3.0]/' \
  "$scenes/level_pour_3d.json" > "$tmp/in_floor.json"
grep -q '5.0, -1.2, -5.0' "$tmp/in_floor.json" || fail "in_floor.json was not made"
expect 0 'fluid "pbf": 6960 of 10440 block particles start inside the level or the geometry and are left out' -- \
  bounded "$cistern" run "$tmp/in_floor.json" --headless --frames 3 --png-every 0 --out "$tmp/floor"
awk -F, 'NR > 1 && $6 > 20 { bad = 1 } END { exit bad }' "$tmp/floor/stats.csv" ||
  fail "the block in the floor still runs fast: $(cut -d, -f1-6 "$tmp/floor/stats.csv")"
sed 's/"max": \[7.9, 0.6, -3.0\]/"max": [7.9, -0.2, -3.0]/' "$tmp/in_floor.json" > "$tmp/all_floor.json"
expect 2 'all 5800 block particles start inside the level or the geometry .*; move the blocks into open space' -- \
  bounded "$cistern" run "$tmp/all_floor.json" --headless --frames 1 --png-every 0 --out "$tmp/all_floor"

# 4.6: a moving body larger than the domain (a 5 m sphere in a 1.2 m box
# reached 1.8e10 m/s, exit 0) is refused with both sizes.
sed 's/"radius": 0.06/"radius": 2.5/; s/"max": \[0.8, 0.8, 0.5\]/"max": [1.2, 1.2, 1.2]/' \
  "$scenes/sinking_sphere_3d.json" > "$tmp/big_body.json"
expect 2 'bodies\[0\].radius: the sphere is 5 m across on x but the domain is 1.2 m' -- \
  bounded "$cistern" run "$tmp/big_body.json" --headless --frames 1 --png-every 0 --out "$tmp/big_body"

# 4.6: speeds past 3 kernel supports a substep stop the run (the fluid has
# come apart), with the speed and the limit: a block thrown at 200 m/s in
# rest_box_3d (h 0.05 m, substeps of 0.008333 s: 18 m/s).
sed 's/"material": "water"}\]/"material": "water", "velocity": [200, 0, 0]}]/' "$scenes/rest_box_3d.json" > "$tmp/thrown.json"
grep -q '200, 0, 0' "$tmp/thrown.json" || fail "thrown.json was not made"
expect 1 'frame 0 (t = .*solver pbf: the fastest of 2048 particles moves .* m/s, past 18 m/s' -- \
  bounded "$cistern" run "$tmp/thrown.json" --headless --frames 5 --png-every 0 --out "$tmp/thrown"

# 4.4: a valid level of 1000 small rooms off the sector grid (257 KB) keeps
# the level field's bake busy for minutes (3.5 on llvmpipe's 2 shared
# cores): it says where it is and what is left every 5 s instead of nothing.
if "$(dirname "$cistern")/make_rooms_level" "$tmp/rooms1000.phd" 1000 >/dev/null; then
  cat > "$tmp/rooms1000.json" <<'JSON'
{
  "description": "1000 small rooms off the sector grid: the level field bake is long (issue 28's audit, 4.4).",
  "dim": 3,
  "domain": {"min": [0, -2, -97], "max": [97, 2, 0]},
  "gravity": [0, -9.81, 0],
  "dt": 0.005,
  "substeps": 2,
  "level": {"file": "rooms1000.phd", "units_per_metre": 1024},
  "fluids": [
    {
      "solver": "pbf",
      "particle_spacing": 0.1,
      "smoothing_radius": 0.2,
      "materials": [{"name": "water", "rest_density": 1000, "mass": 1.0, "color": [0.15, 0.4, 0.85]}],
      "blocks": [{"min": [1.1, 0.05, -1.9], "max": [1.9, 0.5, -1.1], "material": "water"}],
      "pbf": {"iterations": 4}
    }
  ]
}
JSON
  out=$( (ulimit -v "$vmem"; timeout 40 "$cistern" run "$tmp/rooms1000.json" --headless --frames 1 --out "$tmp/rooms") 2>&1)
  grep -q "level field: baking ([0-9]* s): .* M of 21.2 M nodes, about [0-9]* s left" <<<"$out" ||
    fail "the 1000-room bake printed no progress in 40 s: $out"
else
  fail "make_rooms_level did not write the 1000-room level"
fi

exit $((failures > 0))
