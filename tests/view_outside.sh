#!/usr/bin/env bash
# `cistern view` outside every room: the level draws nothing there (the
# portal walk starts from the camera's room), and a black image without a
# word looked like a broken renderer. Headless, lavapipe, the demo level:
#   - --camera far outside: camera.png carries the alert text in red
#     (feature_overlay.c's CS_OVERLAY_ALERT) and stdout says "outside every
#     room";
#   - --camera in room 0's middle, and the room images: no alert red.
# $1 is the cistern binary.
# ctest labels: quick,gpu -- 2 (two headless views of the demo level)
set -uo pipefail
cistern=${1:?usage: view_outside.sh path/to/cistern}
source "$(dirname "$0")/util/expect.sh"
demo="$(dirname "$0")/../levels/cistern_demo.phd"
alert_pixels() { /usr/bin/python3 "$(dirname "$0")/util/alert_pixels.py" "$1"; }

expect 0 "camera at (1000, 1000, 1000): outside every room" -- \
  "$cistern" view "$demo" --headless --camera 1000,1000,1000 --validation --out "$tmp/outside"
red=$(alert_pixels "$tmp/outside/camera.png")
echo "outside: $red pixels of alert red"
[ "$red" -ge 500 ] || fail "outside every room, camera.png has $red pixels of the alert text's red (want the message)"

expect 0 "room   0: baked light" -- "$cistern" view "$demo" --headless --room 0 --validation --out "$tmp/room"
red=$(alert_pixels "$tmp/room/room_000.png")
[ "$red" -eq 0 ] || fail "inside room 0, room_000.png has $red pixels of the alert red"
expect 2 "\-\-camera wants X,Y,Z in metres" -- "$cistern" view "$demo" --headless --camera 1,2 --out "$tmp/bad"
exit $((failures > 0))
