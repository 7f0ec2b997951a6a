#!/usr/bin/env bash
# `cistern bench --radiosity --patches LIST` (host/app/bench/bench_radiosity.c):
# tiny patch counts on the Cornell box give one row each with every timing
# finite; a count whose links cannot fit is reported as such with the
# estimate, not compiled and not a crash; bad lists are refused with what
# to write. $1 is the cistern binary.
# ctest labels: quick,gpu -- 1.1
set -uo pipefail
cistern=${1:?usage: bench_radiosity.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

# 3M patches must be refused, never compiled, on any device; which of the
# bench's two documented refusals it gets depends on the device
# (host/app/bench/bench_radiosity.c, worth_compiling):
#  - "does not fit: ...": the patches (~183 MiB) or the estimated links
#    (~7e8 from the 200-patch row, ~5.3 GiB) exceed what the device's
#    storage buffers or heaps hold: lavapipe's 128 MiB maxStorageBufferRange;
#  - "not compiled: an estimated S s compile ..., more than the bench's B s":
#    they fit (an H200 binds 4 GiB per buffer, two link buffers), and the
#    estimated compile time (hours) refuses it instead.
# The test takes either, and checks the one it gets against the device
# (`cistern devices`' exact maxStorageBufferRange) and against itself.
devices=$("$cistern" devices 2>&1)
default_block=$(awk '/^\[[0-9]+\] /{block=""} {block=block $0 "\n"} /the default device/{printf "%s", block}' <<<"$devices")
range=$(sed -n 's/.*bytes: maxStorageBufferRange \([0-9]*\),.*/\1/p' <<<"$default_block")
[[ "$range" =~ ^[0-9]+$ ]] || fail "no maxStorageBufferRange for the default device in: $devices"
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
big=$(grep "^| 3000000 |" <<<"$last_out")
compiles=$(grep -c "^bench: compiling at" <<<"$last_out")
# Only 60 and 200 patches may be compiled.
[ "$compiles" -eq 2 ] || fail "$compiles compiles started, want 2 (60 and 200 patches; 3M refused): $last_out"
if [ -z "$big" ]; then
  fail "no row for 3M patches: $last_out"
elif grep -q "| does not fit: " <<<"$big"; then
  # Too large for the device: the message names the limit it exceeds.
  grep -Eq "maxStorageBufferRange|heap|2\^30 links|at most [0-9]+ patches|maxMemoryAllocationSize" <<<"$big" ||
    fail "3M patches refused as too large without naming a limit: $big"
  echo "3M patches: does not fit this device (maxStorageBufferRange $range B)"
elif grep -q "| not compiled: an estimated [0-9]* s compile" <<<"$big"; then
  # Refused for its compile time: then the estimated links fit (at most
  # two link buffers of maxStorageBufferRange), and the estimate is over
  # the bench's budget, both as the row prints them.
  read -r link_num link_unit <<<"$(sed -n 's/^| 3000000 |[^|]*|[^|]*|[^|]*| ~[0-9.]* M (\([0-9.]*\) \([KMGT]*i*B\)).*/\1 \2/p' <<<"$big")"
  read -r est budget <<<"$(sed -n "s/.*an estimated \([0-9]*\) s compile.*more than the bench's \([0-9]*\) s.*/\1 \2/p" <<<"$big")"
  if awk -v n="$link_num" -v u="$link_unit" -v range="$range" -v est="$est" -v budget="$budget" 'BEGIN {
      scale["B"] = 1; scale["KiB"] = 1024; scale["MiB"] = 1024^2; scale["GiB"] = 1024^3; scale["TiB"] = 1024^4
      if (n == "" || !(u in scale)) { print "no estimated link bytes in the row"; exit 1 }
      # The row rounds to 0.1 of its unit.
      if (n * scale[u] > 2 * range * 1.05) { print "estimated " n " " u " of links exceed two buffers of " range " B, yet not called too large"; exit 1 }
      if (est == "" || budget == "") { print "no estimated compile time or budget in the row"; exit 1 }
      if (est + 0 <= budget + 0) { print "estimated " est " s is within the budget of " budget " s"; exit 1 }
    }'; then
    echo "3M patches: fits this device's buffers (maxStorageBufferRange $range B); refused for its estimated compile time"
  else
    fail "3M patches refused for compile time inconsistently: $big"
  fi
else
  fail "3M patches not refused (neither too large nor too long to compile): $big"
fi

expect 2 "give 16 to" -- "$cistern" bench --radiosity --patches 8
expect 2 "give 16 to" -- "$cistern" bench --radiosity --patches 1k,5M
expect 2 "--patches wants a list of patch counts" -- "$cistern" bench --radiosity --patches 1k,lots
expect 2 "--patches wants a list of patch counts" -- "$cistern" bench --radiosity --patches
expect 2 "is a \`bench --radiosity\` option" -- "$cistern" bench --patches 1k
exit $((failures > 0))
