#!/usr/bin/env bash
# The README's test command: installs what is missing, builds, runs CTest on
# lavapipe (or the best device) with validation on in every GPU test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
cd build/release
ctest --output-on-failure -j2 "$@"
