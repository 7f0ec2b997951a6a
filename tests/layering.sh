#!/usr/bin/env bash
# The layers (CMakeLists.txt, docs/architecture.md "Folders") include only downwards. CMake
# enforces it through include directories; this catches the one way around
# that: a relative include ("../world/world.h") that reaches another layer.
# Relative includes of shaders/*/…_shared.h (data layouts shared with GLSL)
# are the allowed exception.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(grep -rn --include='*.c' --include='*.h' -E '#include "\.\./' host pipelines |
      grep -v -E '#include "(\.\./)+shaders/[a-z_]+/[a-z_]+\.h"' || true)
if [ -n "$bad" ]; then
  echo "layering: relative includes that step around the layer rules:"
  echo "$bad"
  echo "include the header by name and add the dependency in CMakeLists.txt (downwards only)"
  exit 1
fi
echo "layering: ok"
