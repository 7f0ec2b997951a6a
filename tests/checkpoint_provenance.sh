#!/usr/bin/env bash
# A checkpoint resumes only under the parameters that made its state
# (docs/usage.md, "Checkpoints"): the scene as the world was built from it,
# --set edits included, and after a --watch reload the reloaded file.
#   1. a checkpoint made with --set gravity[1]=-5: refused without the --set,
#      resumed with it;
#   2. a run whose file is edited while it runs (--watch): a checkpoint
#      written after the reload resumes with the edited file and is refused
#      with the file as it was when the run started.
# $1 is cistern.
# ctest labels: quick,gpu -- 4 (--set and a --watch reload change what resumes)
set -uo pipefail
cistern=${1:?usage: checkpoint_provenance.sh path/to/cistern}
. "$(dirname "$0")/util/expect.sh"
src=$(cd "$(dirname "$0")/../scenes" && pwd)/dam_break_2d.json
common=(--png-every 0 --quiet --particles 400)

# 1. --set
"$cistern" run "$src" --frames 2 --checkpoint-every 2 "${common[@]}" --set 'gravity[1]=-5' --out "$tmp/set" \
  > "$tmp/set.log" 2>&1 || fail "the run with --set failed: $(cat "$tmp/set.log")"
ckpt="$tmp/set/checkpoint_00002.ckpt"
expect 2 "made from another scene" -- "$cistern" run "$src" --frames 4 "${common[@]}" --resume "$ckpt"
expect 0 "" -- "$cistern" run "$src" --frames 4 "${common[@]}" --set 'gravity[1]=-5' --resume "$ckpt"

# 2. a reload while checkpoints are written
scene="$tmp/s.json"
cp "$src" "$scene"
cp "$src" "$tmp/original.json"
pid=
"$cistern" run "$scene" --headless --watch --frames 1000000 --checkpoint-every 2 "${common[@]}" --out "$tmp/out" \
  > "$tmp/log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
. "$(dirname "$0")/util/watch_run.sh"
wait_for "first frames" rows_at_least 3
sed "s/\"gravity\": \[0, -9.8\]/\"gravity\": [0, -5.0]/" "$src" > "$tmp/edit.json"
cmp -s "$src" "$tmp/edit.json" && fail "dam_break_2d.json no longer has the gravity this test edits"
cp "$tmp/edit.json" "$scene.tmp~" && mv "$scene.tmp~" "$scene"
wait_for "the reload (restart 1 in stats.csv)" restart_is 1
reloaded_at=$(rows)
wait_for "two checkpoints after the reload" rows_at_least $((reloaded_at + 5))
kill "$pid"; wait "$pid" 2>/dev/null; pid=
latest=$(ls "$tmp/out"/checkpoint_*.ckpt | sort | tail -1)
frames=$(( $(basename "$latest" .ckpt | sed 's/checkpoint_0*//') + 2 ))
echo "reloaded at row $reloaded_at; resuming $latest to frame $frames"
expect 0 "" -- "$cistern" run "$tmp/edit.json" --frames "$frames" "${common[@]}" --resume "$latest"
expect 2 "made from another scene" -- "$cistern" run "$tmp/original.json" --frames "$frames" "${common[@]}" \
  --resume "$latest" --out "$tmp/r_orig"
[ "$failures" = 0 ] || exit 1
echo "checkpoint_provenance: ok"
