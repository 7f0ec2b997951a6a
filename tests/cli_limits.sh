#!/usr/bin/env bash
# Sizes and set-ups refused at once (issue 28's audit, 4.3, 4.4, 4.6): a
# scene that asks for more than the device or the host holds, or that
# cannot run, is refused before any long work starts, with the arithmetic
# and the knob to turn. $1 is the cistern binary. Each run is bounded by
# `timeout` (and, without ASan, by `ulimit -v`) so a regression fails here
# instead of taking the machine down.
set -uo pipefail
cistern=${1:?usage: cli_limits.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
here=$(dirname "$0")
scenes="$here/../scenes"
# ASan reserves terabytes of address space: no ulimit -v under it.
if ldd "$cistern" 2>/dev/null | grep -q libasan; then vmem=unlimited; else vmem=1500000; fi
bounded() { (ulimit -v "$vmem"; exec timeout 60 "$@"); }

# 4.3: vortons past the device, refused before the host arrays are filled
# (it filled 1.1 GB for 6.6 s, and under a 1.5 GB limit died by SIGSEGV).
sed 's/"spacing": 0.04/"spacing": 0.001/' "$scenes/vorton_plume_3d.json" > "$tmp/vortons_001.json"
grep -q '"spacing": 0.001' "$tmp/vortons_001.json" || fail "vortons_001.json was not made"
start=$(date +%s)
expect 2 "vorton.spacing 0.001 gives 33507735 vortons" -- \
  bounded "$cistern" run "$tmp/vortons_001.json" --headless --frames 1 --out "$tmp/v1"
# Past one storage buffer but under the workgroup limit: the arithmetic,
# how many fit and the spacing that would.
range=$("$cistern" devices 2>&1 | sed -n 's/.*bytes: maxStorageBufferRange \([0-9]*\),.*/\1/p' | head -1)
if [ -n "$range" ] && [ "$range" -le 134217728 ]; then
  sed 's/"spacing": 0.04/"spacing": 0.0021/' "$scenes/vorton_plume_3d.json" > "$tmp/vortons_0021.json"
  expect 2 "vorton.spacing 0.0021 gives 3.6 M vortons, too many; one buffer of them holds 3.6 M x 48 B = .*; at most .* fit: raise vorton.spacing to at least 0.00" -- \
    bounded "$cistern" run "$tmp/vortons_0021.json" --headless --frames 1 --out "$tmp/v2"
else
  echo "skipped: vortons past one storage buffer (maxStorageBufferRange ${range:-unknown} is past 128 MiB)"
fi
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
  out=$( (ulimit -v "$vmem"; timeout 20 "$cistern" run "$tmp/rooms1000.json" --headless --frames 1 --out "$tmp/rooms") 2>&1)
  grep -q "level field: baking ([0-9]* s): .* M of 21.2 M nodes, about [0-9]* s left" <<<"$out" ||
    fail "the 1000-room bake printed no progress in 20 s: $out"
else
  fail "make_rooms_level did not write the 1000-room level"
fi

exit $((failures > 0))
