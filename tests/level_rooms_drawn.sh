#!/usr/bin/env bash
# `cistern run` reports the level's rooms the portal walk drew (docs/levels.md,
# "Rooms drawn in a run"): two scene files on the shipped demo level, the
# same but for the camera, run headless for one frame. In the hall looking
# east through the doorway the walk reaches the lower east room too; in the
# loft looking level (its only portal, the floor opening, out of view) it
# draws the loft alone. The counts must differ that way, and each must be
# the one the stdout line states. $1 is the cistern binary.
# ctest labels: quick,gpu -- 4
set -uo pipefail
cistern=${1:?usage: level_rooms_drawn.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
level=$(cd "$(dirname "$0")/.." && pwd)/levels/cistern_demo.phd

# write_scene NAME CAMERA_POSITION CAMERA_TARGET
write_scene() {
  cat >"$tmp/$1.json" <<JSON
{
  "dim": 3, "domain": {"min": [0, 0, -8], "max": [8, 4, 0]}, "dt": 0.005, "substeps": 1,
  "level": {"file": "$level", "units_per_metre": 512},
  "fluids": [{"solver": "pbf", "particle_spacing": 0.2, "smoothing_radius": 0.4,
              "materials": [{"name": "water", "rest_density": 1000, "mass": 8.0}], "pbf": {},
              "blocks": [{"min": [1.0, 0.2, -5.0], "max": [2.0, 1.0, -3.0]}]}],
  "camera": {"position": $2, "target": $3, "fov_degrees": 70},
  "render": {"width": 160, "height": 90, "draw": "particles"}
}
JSON
}

# rooms NAME: runs the scene; $drawn gets the rooms drawn (X of the stdout
# line's "rooms X of 4 drawn"). Not in a subshell, so failures count.
rooms() {
  expect 0 "level: rooms [0-9]* of 4 drawn in the last image (frame 0)" -- \
    "$cistern" run "$tmp/$1.json" --headless --frames 1 --out "$tmp/out_$1"
  drawn=$(sed -n 's/.*level: rooms \([0-9]*\) of 4 drawn.*/\1/p' <<<"$last_out" | head -1)
}

write_scene hall_east "[2, 1.6, -4]" "[8, 1.0, -4]"
write_scene loft "[3, 7, -4]" "[8, 7, -4]"
rooms hall_east
hall=$drawn
rooms loft
loft=$drawn
echo "rooms drawn: hall looking east $hall of 4, loft $loft of 4"
[ -n "$hall" ] && [ -n "$loft" ] || fail "no room count on stdout"
[ "${hall:-0}" -ge 2 ] || fail "the hall looking through the east doorway drew $hall rooms (want >= 2)"
[ "${loft:-0}" -eq 1 ] || fail "the loft looking level drew $loft rooms (want 1)"
[ "${hall:-0}" -gt "${loft:-0}" ] || fail "moving the camera to the loft did not lower the count ($hall -> $loft)"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "level_rooms_drawn: ok"
