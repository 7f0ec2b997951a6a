#!/usr/bin/env bash
# Messages for what a user gets wrong (issue 28's audit): each names the
# file or option and the knob to turn, never a bare exit code, and never
# advice about a knob that has nothing to do with it. $1 is the cistern
# binary. Every case is refused before any long work starts.
set -uo pipefail
cistern=${1:?usage: cli_messages.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
here=$(dirname "$0")
demo="$here/../levels/cistern_demo.phd"

# A room past the level's: said, with the level's range (exit 2 and
# nothing printed before).
expect 2 "\-\-room 99999: .*cistern_demo.phd has rooms 0..3" -- \
  "$cistern" view "$demo" --headless --room 99999 --out "$tmp/room"
expect 2 "\-\-room wants 0 to 2147483647" -- "$cistern" view "$demo" --headless --room 3000000000

# An empty --out is not a folder (it said ": cannot create directory").
expect 2 '\-\-out "": the output folder.s path is empty' -- \
  "$cistern" run rest_box_3d --headless --frames 1 --out ""
expect 2 '\-\-out "": the output folder.s path is empty' -- "$cistern" view "$demo" --headless --out ""
expect 2 '\-\-out "": the output folder.s path is empty' -- \
  "$cistern" bench reint_drops_2d --cells 32 --steps 1 --warmup 0 --quiet --out ""

exit $((failures > 0))
