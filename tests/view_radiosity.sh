#!/usr/bin/env bash
# `cistern view --light radiosity` (docs/levels.md, "Drawing"): the shipped
# demo level drawn headless in its east room (room 1) with TR1's baked
# vertex light and lit by radiosity (its room lights and two bounces, 4 m
# patches). The radiosity run compiles the level (756 patches, 4 room
# lights), draws every room (no portal walk), and its image is not the
# baked one; both are neither black nor white. Bad --light and --patch-size
# values are refused. $1 is the cistern binary.
# ctest labels: quick,gpu -- 5.4 (14 under load)
set -uo pipefail
cistern=${1:?usage: view_radiosity.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
level=$(cd "$(dirname "$0")/.." && pwd)/levels/cistern_demo.phd

# view LIGHT: one image of room 1; $mean gets the line's mean byte value.
view() {
  expect 0 "room   1: $2" -- \
    "$cistern" view "$level" --headless --room 1 --size 160x90 --light "$1" --out "$tmp/$1"
  mean=$(sed -n 's/.*mean \([0-9.]*\) ->.*/\1/p' <<<"$last_out" | head -1)
}

view baked "baked light, [0-9] of 4 rooms drawn through portals"
baked=$mean
view radiosity "radiosity, 4 of 4 rooms drawn (radiosity: no portal walk)"
radiosity=$mean
grep -q "radiosity: 756 patches at 4 m, 4 room lights" <<<"$last_out" ||
  fail "the radiosity run does not report the level's 756 patches and 4 room lights: $last_out"
echo "view room 1: mean byte baked $baked, radiosity $radiosity"
[ -f "$tmp/baked/room_001.png" ] && [ -f "$tmp/radiosity/room_001.png" ] || fail "an image is missing"
cmp -s "$tmp/baked/room_001.png" "$tmp/radiosity/room_001.png" && fail "the radiosity image is the baked one"
for m in "${baked:-0}" "${radiosity:-0}"; do
  awk -v m="$m" 'BEGIN { exit !(m > 20 && m < 235) }' || fail "mean byte $m: black or white"
done

expect 2 "--light wants baked or radiosity" -- "$cistern" view "$level" --headless --light sun
expect 2 "--patch-size wants metres" -- "$cistern" view "$level" --headless --patch-size 0.01

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "view_radiosity: ok"
