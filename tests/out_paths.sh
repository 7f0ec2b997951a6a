#!/usr/bin/env bash
# What cistern writes goes where it was asked (issue 45): a scene "name"
# or a fluid "name" of "../.." (they name out/<scene> and the dumps'
# files) is refused with the key, and nothing is written beside out/ even
# with --overwrite; `view --flood --out X` refuses to replace an X.json
# that is there already (without --overwrite) and leaves it as it was.
# $1 is the cistern binary.
# ctest labels: quick,gpu -- 3 (names of ../.. refused; view --flood keeps an existing X.json)
set -uo pipefail
cistern=${1:?usage: out_paths.sh path/to/cistern}
cistern=$(cd "$(dirname "$cistern")" && pwd)/$(basename "$cistern") # the runs below change folder
here=$(cd "$(dirname "$0")" && pwd)
source "$here/util/expect.sh"
scenes=$here/../scenes

# The scene renamed: out/../.. from $tmp/a/b/c is $tmp/a/b.
# A fluid's name names its dumps when a scene has several (two_fluids_2d).
named() { # key (world|fluid), name, output file
  python3 - "$scenes/two_fluids_2d.json" "$1" "$2" "$3" <<'PY'
import json, sys
scene = json.load(open(sys.argv[1]))
if sys.argv[2] == 'world':
    scene['name'] = sys.argv[3]
else:
    scene['name'] = 'renamed'
    scene['fluids'][0]['name'] = sys.argv[3]
json.dump(scene, open(sys.argv[4], 'w'))
PY
}
mkdir -p "$tmp/a/b/c"
named world "../.." "$tmp/up.json"
(cd "$tmp/a/b/c" && expect 2 'name: "\.\./\.\." names files and folders of the run' -- \
  "$cistern" run "$tmp/up.json" --headless --frames 1 --png-every 0 --overwrite; exit "$failures") || failures=$((failures + 1))
left=$(cd "$tmp/a/b" && ls)
[ "$left" = c ] || fail "a scene named ../.. wrote beside out/: $tmp/a/b holds $(tr '\n' ' ' <<<"$left")"
named fluid "../../x" "$tmp/fluid_up.json"
mkdir -p "$tmp/f/b/c"
if grep -q '"../../x"' "$tmp/fluid_up.json"; then
  (cd "$tmp/f/b/c" && expect 2 'name: "\.\./\.\./x" names files and folders of the run' -- \
    "$cistern" run "$tmp/fluid_up.json" --headless --frames 1 --png-every 0 --dump-every 1; exit "$failures") ||
    failures=$((failures + 1))
  [ "$(cd "$tmp/f/b/c" && ls)" = "" ] || fail "a fluid named ../../x was not refused before the run wrote: $(cd "$tmp/f/b/c" && find . | head -5 | tr '\n' ' ')"
else
  fail "fluid_up.json was not made"
fi

# view --flood --out X writes X.json beside X: one there is not replaced.
level=$here/../levels/cistern_demo.phd
echo precious >"$tmp/X.json"
expect 2 "X.json exists .*add --overwrite to replace it, or give another --out" -- \
  "$cistern" view "$level" --flood --headless --frames 1 --flood-particles 500 --out "$tmp/X"
[ "$(cat "$tmp/X.json")" = precious ] || fail "view --flood replaced an existing X.json"
[ -e "$tmp/X" ] && fail "view --flood refused, yet made its folder $tmp/X"
expect 0 "flood: the scene is $tmp/X.json" -- \
  "$cistern" view "$level" --flood --headless --frames 1 --flood-particles 500 --out "$tmp/X" --overwrite
grep -q '"description": "cistern view --flood' "$tmp/X.json" || fail "view --flood --overwrite did not write X.json"

exit $((failures > 0))
