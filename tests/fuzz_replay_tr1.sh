#!/usr/bin/env bash
# fuzz_replay_tr1.sh — replays the TR1 level fuzzer's corpus
# (tests/fuzz/corpus/tr1) through the ordinary build's reader: test_level
# --corpus reads every file; each must be read and written back to the same
# bytes, or refused with "PATH: byte N: ..." . Under valgrind (when
# installed) any invalid access or leak fails the test, so the corpus and
# test_level's malformed table and random-corruption loop keep guarding what
# the libFuzzer + ASan run found, without clang. CTest passes the cistern
# binary as $1 and runs this in the build folder, where test_level lives.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
corpus="$here/fuzz/corpus/tr1"
driver="./test_level"
if [ ! -x "$driver" ]; then
  echo "fuzz_replay_tr1: no $driver in $(pwd) (build the test_level target)" >&2
  exit 1
fi
if command -v valgrind >/dev/null; then
  vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
  "${vg[@]}" "$driver" --corpus "$corpus"
  # The whole level test too: its malformed table walks every error path.
  exec "${vg[@]}" "$driver"
fi
echo "fuzz_replay_tr1: valgrind not installed; replaying without leak checks" >&2
exec "$driver" --corpus "$corpus"
