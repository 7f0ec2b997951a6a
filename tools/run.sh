#!/usr/bin/env bash
# The README's run command: installs what is missing, builds, and runs the
# default scene — in a window when there is a display, otherwise headless on
# lavapipe, writing images and saying where. Extra arguments go to
# `cistern run` (e.g. tools/run.sh dam_break_2d --frames 300).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh >/dev/null
# A rerun replaces the files of the previous one: without --out the output
# folder (out/SCENE) is this script's own, so --overwrite lets cistern delete
# its earlier stats.csv, frames and dumps there (and nothing else). With
# --out, the folder is the user's, and a non-empty one is refused as usual.
overwrite=(--overwrite)
for arg in "$@"; do
  if [ "$arg" = --out ]; then overwrite=(); fi
done
exec build/release/cistern run "$@" "${overwrite[@]}"
