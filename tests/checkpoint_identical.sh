#!/usr/bin/env bash
# The same scene and frames give the same checkpoint file, byte for byte
# (determinism covers what is saved, not only the particles): three runs
# of each scene, their checkpoints compared. A buffer saved but left as
# allocated (PBF's curl array without vorticity, a body's unused contact
# slots) made these differ now and then: two_fluids_2d in 2 of 3 runs.
# $1 is cistern.
# ctest labels: quick,gpu -- 9 (3 scenes x 3 runs: checkpoint files byte for byte)
set -uo pipefail
cistern=${1:?usage: checkpoint_identical.sh path/to/cistern}
. "$(dirname "$0")/util/expect.sh"
for scene in two_fluids_2d bodies_2d dfsph_dam_break_2d; do
  for k in 1 2 3; do
    "$cistern" run "$scene" --frames 5 --checkpoint-every 2 --png-every 0 --quiet \
      --out "$tmp/$scene/$k" > "$tmp/$scene.$k.log" 2>&1 || fail "$scene run $k: $(tail -3 "$tmp/$scene.$k.log")"
  done
  for k in 2 3; do
    cmp -s "$tmp/$scene/1/checkpoint_00004.ckpt" "$tmp/$scene/$k/checkpoint_00004.ckpt" ||
      fail "$scene: run $k's checkpoint differs from run 1's: $(python3 "$(dirname "$0")/util/checkpoint_diff.py" \
        "$tmp/$scene/1/checkpoint_00004.ckpt" "$tmp/$scene/$k/checkpoint_00004.ckpt" 2>&1 | head -3)"
  done
done
[ "$failures" = 0 ] || exit 1
echo "checkpoint_identical: ok"
