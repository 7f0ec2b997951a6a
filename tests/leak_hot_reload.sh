#!/usr/bin/env bash
# test_hot_reload under valgrind: 100+ reloads (compile, reflect, rebuild,
# destroy) must leak no host memory. Device objects are covered inside the
# test by the validation layer's object tracker. Runs from the build dir.
# ctest labels: slow,gpu -- 43 (valgrind)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v valgrind >/dev/null; then
  echo "SKIP: valgrind missing (tools/install-deps.sh installs it)"; exit 77
fi
valgrind --quiet --keep-debuginfo=yes --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite \
  --suppressions="$here/tools/vulkan.supp" --error-exitcode=9 ./test_hot_reload
rc=$?
[ $rc -eq 0 ] && echo PASS || echo "FAILED (valgrind exit $rc)"
exit $rc
