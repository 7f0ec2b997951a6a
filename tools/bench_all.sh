#!/usr/bin/env bash
# The standard benchmark sweep: every solver at growing sizes, then one JSON
# per device in results/ (results/<device>.json) and the plots in bench/.
# Usage: tools/bench_all.sh [--device N] [extra cistern bench options]
# Sizes can be overridden: PARTICLES_3D=16k,64k,256k,1M CELLS_2D=512,2048 ...
set -euo pipefail
cd "$(dirname "$0")/.."
cistern=${CISTERN:-build/release/cistern}
[ -x "$cistern" ] || bash tools/build.sh >/dev/null
p3=${PARTICLES_3D:-16k,64k,256k}
p2=${PARTICLES_2D:-3024,16k,64k}
c2=${CELLS_2D:-512,2048}
c3=${CELLS_3D:-64,128}
steps=${STEPS:-20}
runs=(
  "dam_break_3d --particles $p3"
  "wcsph_tank_3d --particles $p3"
  "dfsph_tank_3d --particles $p3"
  "dam_break_2d --particles $p2"
  "reint_drops_2d --cells $c2"
  "reint_cube_3d --cells $c3"
)
for spec in "${runs[@]}"; do
  scene=${spec%% *}
  # shellcheck disable=SC2086
  "$cistern" bench $spec --steps "$steps" --warmup 3 --out "bench/$scene" --overwrite "$@"
done
python3 - "${runs[@]%% *}" <<'PY'
import json, re, sys
benches = [json.load(open("bench/%s/results.json" % s)) for s in sys.argv[1:]]
device = benches[0]["device"]
slug = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")
out = {"device": device, "device_and_driver": benches[0]["device_and_driver"], "benches": benches}
path = "results/%s.json" % slug
json.dump(out, open(path, "w"), indent=1)
print("wrote", path)
PY
