#!/usr/bin/env bash
# What cistern writes, when writing goes wrong (issue 28's audit): a file
# size limit with SIGXFSZ at its default action (cistern ignores it itself:
# the write fails with EFBIG and is reported, no .tmp left), a stats.csv
# that keeps its whole rows when a write fails, a symbolic link in --out
# never written through. $1 is the cistern binary.
# ctest labels: quick,gpu -- 3
set -uo pipefail
cistern=${1:?usage: cli_outputs.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

# A file size limit, SIGXFSZ left at its default (it kills the process
# unless ignored: exit 153, no message).
limited() { (trap - XFSZ; ulimit -f "$1"; shift; exec "$@"); }
expect 1 "frame_00000.png: cannot write (write failed): File too large" -- \
  limited 4 "$cistern" run rest_box_3d --headless --frames 2 --png-every 1 --out "$tmp/xfsz_png"
left=$(cd "$tmp/xfsz_png" 2>/dev/null && ls)
grep -q -e '\.tmp$' -e '^frame_' <<<"$left" && fail "a partial image was left: $left"

# stats.csv past the limit: the run stops with the reason and exit 1, and
# the rows flushed before stay (whole lines, the header's columns).
expect 1 "stats.csv: cannot write (flush failed): File too large" -- \
  limited 4 "$cistern" run rest_box_3d --headless --frames 40 --png-every 0 --out "$tmp/xfsz_stats"
grep -q "stats.csv ([1-9][0-9]* rows before the write failed)" <<<"$last_out" \
  || fail "the summary does not count the rows kept: $last_out"
stats="$tmp/xfsz_stats/stats.csv"
if [ -s "$stats" ]; then
  [ "$(tail -c 1 "$stats" | od -An -c | tr -d ' ')" = '\n' ] || fail "stats.csv ends in a partial row"
  awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad || NR < 2 }' "$stats" \
    || fail "stats.csv rows do not match its header: $(head -c 300 "$stats")"
else
  fail "stats.csv was removed (or left empty) after a failed write: its rows are lost"
fi

# --overwrite with a stats.csv that is a symbolic link: refused, the file
# it points to (outside --out) untouched.
mkdir -p "$tmp/linked"
echo "precious" > "$tmp/victim.txt"
ln -s "$tmp/victim.txt" "$tmp/linked/stats.csv"
expect 2 "linked/stats.csv: is a symbolic link" -- \
  "$cistern" run rest_box_3d --headless --frames 1 --png-every 0 --out "$tmp/linked" --overwrite --quiet
[ "$(cat "$tmp/victim.txt")" = "precious" ] || fail "--overwrite wrote through the stats.csv link"
[ -L "$tmp/linked/stats.csv" ] || fail "the link itself was removed"

# view, sh and bench follow run's rule for --out: empty or new, or
# --overwrite, which deletes only cistern's own files of that command
# (a stale room_007.png of another level must not stay beside new images).
demo="$(dirname "$0")/../levels/cistern_demo.phd"
expect 0 "room_001.png" -- "$cistern" view "$demo" --headless --room 1 --size 48x32 --out "$tmp/view"
expect 2 "view is not empty (1 entry, e.g. room_001.png).*add --overwrite" -- \
  "$cistern" view "$demo" --headless --room 2 --size 48x32 --out "$tmp/view"
touch "$tmp/view/notes.txt"
expect 0 "room_002.png" -- \
  "$cistern" view "$demo" --headless --room 2 --size 48x32 --out "$tmp/view" --overwrite
left=$(cd "$tmp/view" && echo *)
[ "$left" = "notes.txt room_002.png" ] || fail "view --overwrite left '$left'"

make_hdr="$(dirname "$cistern")/make_hdr"
if "$make_hdr" "$tmp/sky.hdr" 16x8; then
  expect 0 "radiance coefficients" -- "$cistern" sh "$tmp/sky.hdr" --out "$tmp/sh" --quiet
  expect 2 "sh is not empty (4 entries.*add --overwrite" -- "$cistern" sh "$tmp/sky.hdr" --out "$tmp/sh" --quiet
  touch "$tmp/sh/notes.txt"
  expect 0 "radiance coefficients" -- "$cistern" sh "$tmp/sky.hdr" --out "$tmp/sh" --quiet --overwrite
  [ -f "$tmp/sh/notes.txt" ] && [ -f "$tmp/sh/coefficients.csv" ] || fail "sh --overwrite: $(ls "$tmp/sh")"
else
  fail "make_hdr could not write the test image"
fi

bench=(bench reint_drops_2d --cells 32 --steps 1 --warmup 0 --quiet)
expect 0 "" -- "$cistern" "${bench[@]}" --out "$tmp/bench"
[ -f "$tmp/bench/results.json" ] || fail "bench wrote no results.json: $last_out"
# Refused before the benchmark runs (no device line, nothing timed).
expect 2 "bench is not empty (.*add --overwrite" -- "$cistern" "${bench[@]}" --out "$tmp/bench"
grep -q "reint" <<<"$last_out" && fail "bench ran before refusing its --out: $last_out"
touch "$tmp/bench/notes.txt"
expect 0 "" -- "$cistern" "${bench[@]}" --out "$tmp/bench" --overwrite
[ -f "$tmp/bench/notes.txt" ] && [ -f "$tmp/bench/results.json" ] || fail "bench --overwrite: $(ls "$tmp/bench")"

exit $((failures > 0))
