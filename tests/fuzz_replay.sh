#!/usr/bin/env bash
# fuzz_replay.sh — replays every fuzzer's corpus through the ordinary
# build's parsers, without clang:
#   scene  tests/fuzz/corpus/scene through test_scene --corpus (parse, fill,
#          scale, free; each file parses or is refused with a message);
#   tr1    tests/fuzz/corpus/tr1 through test_level --corpus (each level is
#          read and written back to the same bytes, or refused with
#          "PATH: byte N: ...").
#   mesh   tests/fuzz/corpus/mesh through fuzz_mesh_replay (the fuzz_mesh
#          target: a scene's mesh through the child-process import; the
#          audit's hostile files: a truncated binary PLY, a 30 000-deep
#          glTF node chain, a .glb chunk past its file, a buffer naming a
#          FIFO), each in triangles or a refusal naming the file.
#   file   tests/fuzz/corpus/file through fuzz_file_replay (the fuzz_file
#          target with a replaying main): the path loaders cs_scene_load and
#          cs_tr1_load on a regular file, a directory, a FIFO and a file past
#          the size limit; the first byte of each entry picks which.
# Under valgrind (when installed) any invalid access or leak fails the test,
# and each driver's whole test runs too (its bad-input tables walk every
# error path), so the corpora keep guarding what the libFuzzer + ASan runs
# found. CTest passes the cistern binary as $1 and runs this in the build
# folder, where the test drivers live.
# ctest labels: quick -- 7 (valgrind, when installed)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
vg=()
if command -v valgrind >/dev/null; then
  vg=(valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect)
else
  echo "fuzz_replay: valgrind not installed; replaying without leak checks" >&2
fi
# corpus folder : driver
for pair in scene:test_scene tr1:test_level; do
  corpus="$here/fuzz/corpus/${pair%%:*}" driver="./${pair##*:}"
  if [ ! -x "$driver" ]; then
    echo "fuzz_replay: no $driver in $(pwd) (build the ${pair##*:} target)" >&2
    exit 1
  fi
  "${vg[@]}" "$driver" --corpus "$corpus"
  if [ ${#vg[@]} -gt 0 ]; then "${vg[@]}" "$driver"; fi
done
if [ ! -x ./fuzz_file_replay ]; then
  echo "fuzz_replay: no ./fuzz_file_replay in $(pwd) (build the fuzz_file_replay target)" >&2
  exit 1
fi
"${vg[@]}" ./fuzz_file_replay "$here/fuzz/corpus/file"
echo PASS
if [ ! -x ./fuzz_mesh_replay ]; then
  echo "fuzz_replay: no ./fuzz_mesh_replay in $(pwd) (build the fuzz_mesh_replay target)" >&2
  exit 1
fi
"${vg[@]}" ./fuzz_mesh_replay "$here/fuzz/corpus/mesh"
