#!/usr/bin/env bash
# The radiosity bench of the generated mesh scene (tools/mesh_scene.py,
# docs/light.md "A generated mesh scene"): writes the scene at each
# triangle count into OUT_DIR (default build/release/mesh_scene; the OBJ
# files are megabytes, never committed), then one `cistern bench
# --radiosity A,B,...` row a count, smallest first: a count whose links
# are estimated not to fit the device (from the largest compiled before)
# is a row saying so, not a compile.
# Usage: tools/bench_mesh_scene.sh [CISTERN] [OUT_DIR] [COUNTS] [bench args...]
#   COUNTS: comma-separated triangle counts, default 2000,8000,12000,20000,50000
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cistern=${1:-$here/build/release/cistern}
out_dir=${2:-$here/build/release/mesh_scene}
counts=${3:-2000,8000,12000,20000,50000}
shift $(($# < 3 ? $# : 3))
scenes=()
for n in ${counts//,/ }; do
  python3 "$here/tools/mesh_scene.py" "$out_dir/$n" --triangles "$n" >&2
  scenes+=("$out_dir/$n/mesh_scene.json")
done
list=$(IFS=,; echo "${scenes[*]}")
exec "$cistern" bench --radiosity "$list" --steps 3 --warmup 1 "$@"
