#!/usr/bin/env bash
# `cistern view --flood` and the viewer's options (issue 41): --flood runs
# the flooded level as `cistern run` does, so the options a run has are
# honoured (--panel drawn into its frames, --no-fog as the scene's
# render.fog_density 0) and the viewer's own (--room, --camera, --light,
# --patch-size) are refused with the reason, as are --flood's options
# without --flood. All of them were once ignored without a word. $1 is
# the cistern binary.
# ctest labels: quick,gpu -- 8 (view --flood: the viewer's options refused, --panel drawn; two 300-particle runs)
set -uo pipefail
cistern=${1:?usage: view_flood_options.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
demo="$(dirname "$0")/../levels/cistern_demo.phd"

expect 2 "view \-\-flood: \-\-room is the level viewer.s.*drop \-\-room" -- \
  "$cistern" view "$demo" --headless --flood --room 1 --out "$tmp/r"
expect 2 "view \-\-flood: \-\-light is the level viewer.s" -- \
  "$cistern" view "$demo" --headless --flood --light radiosity --out "$tmp/l"
expect 2 "view: \-\-flood-rooms applies only with \-\-flood" -- \
  "$cistern" view "$demo" --headless --flood-rooms 3 --out "$tmp/f"

# --panel: the frames of the flood differ from the same run's without it
# (the panel is drawn into them); --no-fog reaches the scene as an edit
# the run accepts.
for p in "" --panel; do
  expect 0 "flood: the scene is" -- "$cistern" view "$demo" --headless --flood --flood-particles 300 --frames 1 \
    $p --no-fog --out "$tmp/flood$p"
done
differ=$(python3 "$(dirname "$0")/util/png_diff.py" "$tmp/flood/frame_00000.png" "$tmp/flood--panel/frame_00000.png" 0)
[ "${differ:-0}" != size ] && [ "${differ:-0}" -gt 10000 ] \
  || fail "--flood --panel drew no panel: ${differ:-?} pixels differ from the run without it"
[ "$failures" -eq 0 ] && echo "PASS"
exit $((failures > 0))
