#!/usr/bin/env bash
# Frames in flight for the grid solvers' cousins: reint and vortons record
# their stats into the frame (sim.h record_stats / read_stats), so a
# headless run is one submit a frame and waits only for the frame that last
# used the slot it reuses. Before, each frame was waited on at once and its
# stats read by submits of their own (reint 4 submits and waits a frame,
# vortons 3). The stats rows are checked for sense here; that they are the
# same numbers as the per-frame read was checked by hand (docs/benchmarks.md).
# Validation (with synchronization) is on. $1 is the cistern binary.
set -uo pipefail
cistern=${1:?usage: stats_in_frame.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"

for run in "reint_dam_2d 8" "vorton_rings_3d 4"; do
  read -r scene frames <<<"$run"
  expect 0 "frame loop:" -- "$cistern" run "$scene" --frames "$frames" --png-every 0 --validation --out "$tmp/$scene"
  grep -q "validation error" <<<"$last_out" && fail "$scene: validation errors: $(grep 'validation error' <<<"$last_out" | head -3)"
  loop=$(tr '\r' '\n' <<<"$last_out" | grep "frame loop:")
  submits=$(sed -n 's/.* \([0-9.]*\) queue submits and.*/\1/p' <<<"$loop")
  waits=$(sed -n 's/.* \([0-9.]*\) fence waits a frame.*/\1/p' <<<"$loop")
  latest=$(sed -n 's/.* \([0-9]*\) waited on before the next was recorded.*/\1/p' <<<"$loop")
  awk -v s="${submits:-9}" -v w="${waits:-9}" 'BEGIN { exit !(s <= 1.2 && w <= 1.2) }' ||
    fail "$scene: wanted about one submit and one fence wait a frame: $loop"
  [ "${latest:-99}" = 0 ] || fail "$scene: frames waited on right after their submit: $loop"
  # One row a frame, each read from its own frame's copy: particles, a
  # positive finite top speed (a copy never filled reads 0), none non-finite.
  rows=$(awk -F, 'NR > 1 && $3 > 0 && $6 > 0 && $6 != "nan" && $6 != "inf" && $9 == 0 { n++ } END { print n + 0 }' \
         "$tmp/$scene/stats.csv" 2>/dev/null)
  [ "$rows" = "$frames" ] || fail "$scene: $rows sensible stats rows of $frames"
done
exit $((failures > 0))
