#!/usr/bin/env bash
# fuzz_replay.sh — replays the scene fuzzer's corpus (tests/fuzz/corpus/scene)
# through the ordinary build's parser: test_scene --corpus parses, fills,
# scales and frees every file; each must parse or be refused with a message.
# Under valgrind (when installed) any invalid access or leak fails the test,
# so the corpus (and test_scene's bad-input table) keeps guarding what the libFuzzer + ASan run found, without
# clang. CTest passes the cistern binary as $1 and runs this in the build
# folder, where test_scene lives.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$here/fuzz/corpus/scene"
driver="./test_scene"
if [ ! -x "$driver" ]; then
  echo "fuzz_replay: no $driver in $(pwd) (build the test_scene target)" >&2
  exit 1
fi
if command -v valgrind >/dev/null; then
  vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
  "${vg[@]}" "$driver" --corpus "$corpus"
  # The whole scene test too: its bad-input table walks every error path.
  exec "${vg[@]}" "$driver"
fi
echo "fuzz_replay: valgrind not installed; replaying without leak checks" >&2
exec "$driver" --corpus "$corpus"
