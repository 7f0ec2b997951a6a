#!/usr/bin/env bash
# `cistern bench --radiosity --patches LIST` (host/app/bench_radiosity.c):
# tiny patch counts on the Cornell box give one row each with every timing
# finite; a count whose links cannot fit is reported as such with the
# estimate, not compiled and not a crash; bad lists are refused with what
# to write. $1 is the cistern binary.
set -uo pipefail
cistern=${1:?usage: bench_radiosity.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

# 3M patches: estimated from the 200-patch row, far past the 2^30 links a
# compile holds on any device.
expect 0 "patches asked" -- "$cistern" bench --radiosity cornell_box --patches 60,200,3M --steps 1 --warmup 0 --quiet
for asked in 60 200; do
  row=$(grep "^| $asked |" <<<"$last_out")
  [ -n "$row" ] || fail "no row for $asked patches in: $last_out"
  # | asked | patch_size | patches | clusters | links (MiB) | compile s | 10 timings |
  awk -F'|' -v asked="$asked" '{
      if (NF != 18) { print "wrong column count " NF; exit 1 }
      if ($4 + 0 < 16) { print "too few patches: " $4; exit 1 }
      for (i = 3; i <= 17; i++) {
        if ($i ~ /nan|inf|—/) { print "column " i " is not a finite number: " $i; exit 1 }
        split($i, w, " "); if (w[1] !~ /^[0-9.]+$/) { print "column " i " is not a number: " $i; exit 1 }
      }
      if ($8 + 0 <= 0) { print "no frame time: " $8; exit 1 }
    }' <<<"$row" || fail "row for $asked patches: $row"
done
grep -q "^| 3000000 | .*does not fit" <<<"$last_out" || fail "3M patches not reported as too large: $last_out"

expect 2 "give 16 to" -- "$cistern" bench --radiosity --patches 8
expect 2 "give 16 to" -- "$cistern" bench --radiosity --patches 1k,5M
expect 2 "--patches wants a list of patch counts" -- "$cistern" bench --radiosity --patches 1k,lots
expect 2 "--patches wants a list of patch counts" -- "$cistern" bench --radiosity --patches
expect 2 "is a \`bench --radiosity\` option" -- "$cistern" bench --patches 1k
exit $((failures > 0))
