#!/usr/bin/env bash
# What cistern writes, when writing goes wrong (issue 28's audit): a file
# size limit with SIGXFSZ at its default action (cistern ignores it itself:
# the write fails with EFBIG and is reported, no .tmp left), a stats.csv
# that keeps its whole rows when a write fails, a symbolic link in --out
# never written through. $1 is the cistern binary.
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

exit $((failures > 0))
