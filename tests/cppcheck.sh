#!/usr/bin/env bash
# Static analysis of the C and C++ sources under host/ and pipelines/ with
# cppcheck (Debian's package, tools/install-deps.sh), kept at zero findings
# so that a new one stands out: warning, style, performance and portability.
#
# Left out for the whole tree, on purpose:
# - constVariable, constParameter: "can be declared as const array" (about
#   fifty local arrays); advice on const style the code does not follow, no
#   bug behind any of them;
# - objectIndex: the structs shared with GLSL (vec4 in
#   shaders/common/cs_shared.h is {float x, y, z, w}) are read as float[4]
#   through &v.x, on purpose and throughout (ten places);
# - missingInclude*: system and library headers (Vulkan, cJSON, ImGui) are not
#   given to cppcheck; it reads only the repository's own includes.
# - toomanyconfigs: cppcheck reads one preprocessor configuration (the one
#   with no -D given, --max-configs=1), not every #ifdef combination: half
#   the time.
# Where cppcheck is wrong about one line, that line carries an inline
# "// cppcheck-suppress ID ; why" and the reason.
#
# Exits 77 (skipped) without cppcheck. CTest passes the cistern binary as
# $1; this check does not need it.
# ctest labels: quick -- 12-30 (static analysis of host/ and pipelines/ at zero findings; skipped without cppcheck)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cppcheck >/dev/null; then
  echo "cppcheck: not installed (tools/install-deps.sh installs it); skipped"
  exit 77
fi

# The include folders the targets use (CMakeLists.txt): every layer's
# folder, shaders/common, and tests/ref for bench --surface's CPU reference.
includes=()
while IFS= read -r dir; do
  includes+=(-I "$dir")
done < <(find host pipelines -type d | sort; echo shaders/common; echo tests/ref)

jobs=$(nproc 2>/dev/null || echo 2)
out=$(cppcheck --quiet -j "$jobs" --max-configs=1 --std=c11 --language=c "${includes[@]}" \
  --enable=warning,style,performance,portability --inline-suppr \
  --suppress=constVariable --suppress=constParameter --suppress=objectIndex \
  --suppress=missingInclude --suppress=missingIncludeSystem --suppress=toomanyconfigs \
  --template='{file}:{line}: {severity}: {message} [{id}]' \
  $(find host pipelines -name '*.c' | sort) 2>&1) || true
# The panel is C++ (Dear ImGui): the same checks in C++17.
out_cpp=$(cppcheck --quiet --max-configs=1 --std=c++17 --language=c++ "${includes[@]}" \
  --enable=warning,style,performance,portability --inline-suppr \
  --suppress=constVariable --suppress=constParameter --suppress=objectIndex \
  --suppress=missingInclude --suppress=missingIncludeSystem --suppress=toomanyconfigs \
  --template='{file}:{line}: {severity}: {message} [{id}]' \
  $(find host pipelines -name '*.cpp' | sort) 2>&1) || true
findings=$(printf '%s\n%s\n' "$out" "$out_cpp" | grep -v '^$' || true)
if [ -n "$findings" ]; then
  echo "$findings"
  echo "cppcheck: $(wc -l <<<"$findings") finding(s) above: fix them, or where cppcheck is wrong add" \
       "\"// cppcheck-suppress ID ; why\" on the line before"
  exit 1
fi
echo "cppcheck: ok ($(find host pipelines -name '*.c' -o -name '*.cpp' | wc -l) files, no findings)"
