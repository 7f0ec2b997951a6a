#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and runs the
# default scene — in a window when there is a display, otherwise headless on
# lavapipe, writing images and saying where. Extra arguments go to
# `cistern run` (e.g. tools/run.sh dam_break_2d --frames 300).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh >/dev/null
exec build/release/cistern run "$@"
