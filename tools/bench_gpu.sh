#!/usr/bin/env bash
# The speed table of a real GPU (docs/benchmarks.md "A real GPU: the
# runbook"): the sizes a discrete GPU is judged at, in parts that each fit
# in a few minutes of a borrowed machine. Every part writes its bench
# results under bench/gpu/PART/; tools/bench_report.py then folds them into
# results/<device>.json and prints the per-pass table with the goals.
#
# Usage: tools/bench_gpu.sh [PART ...]      (default: all parts, in order)
#   sim        cistern bench: PBF 3D 1M..8M, WCSPH 3D 1M and 4M, Clavet 2D
#              1M, reint 2D 4096^2 and 3D 256^3 (ms a substep, per pass)
#   demo       cistern bench --demo: whole frames at 256k, 1M, 4M (PBF, WCSPH)
#   draw       cistern bench --draw: the particles' draw at 1M, 720p and 1080p
#   radiosity  cistern bench --radiosity: rooms_radiosity at 1k..100k patches
#   report     tools/bench_report.py on whatever the parts above left
# Environment: CISTERN (binary, default build/release/cistern), STEPS (30),
# WARMUP (5). A size the device cannot hold is skipped by the bench with
# the reason; the part goes on.
set -uo pipefail
cd "$(dirname "$0")/.."
cistern=${CISTERN:-build/release/cistern}
[ -x "$cistern" ] || bash tools/build.sh >/dev/null || exit 1
steps=${STEPS:-30}
warmup=${WARMUP:-5}
status=0

# run NAME ARGS...: one bench, its output in bench/gpu/PART/NAME.log too.
run() {
  local name=$1
  shift
  mkdir -p "bench/gpu/$part"
  echo "== $part/$name: cistern $*" >&2
  local t0=$SECONDS
  "$cistern" "$@" --out "bench/gpu/$part/$name" 2>&1 | tee "bench/gpu/$part/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $part/$name: exit $rc after $((SECONDS - t0)) s" >&2
  [ "$rc" -eq 0 ] || status=1
}

part_sim() {
  local b=(bench --steps "$steps" --warmup "$warmup" --max-step-ms 2000)
  run dam_break_3d "${b[@]}" dam_break_3d --particles 1M,2M,4M,8M
  run wcsph_tank_3d "${b[@]}" wcsph_tank_3d --particles 1M,4M
  run dam_break_2d "${b[@]}" dam_break_2d --particles 1M
  run reint_drops_2d "${b[@]}" reint_drops_2d --cells 4096
  run reint_cube_3d "${b[@]}" reint_cube_3d --cells 256
}

part_demo() {
  run dam_break_3d bench --demo dam_break_3d --particles 256k,1M,4M --steps 20 --warmup 3
  run wcsph_tank_3d bench --demo wcsph_tank_3d --particles 256k,1M,4M --steps 20 --warmup 3
}

part_draw() {
  run dam_break_3d_720p bench --draw dam_break_3d --particles 256k,1M,4M --size 1280x720 --steps 20 --warmup 3
  run dam_break_3d_1080p bench --draw dam_break_3d --particles 256k,1M,4M --size 1920x1080 --steps 20 --warmup 3
}

part_radiosity() {
  run rooms_radiosity bench --radiosity scenes/rooms_radiosity.json --patches 1k,8k,32k,100k --steps 10 --warmup 2
}

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(sim demo draw radiosity report)
for part in "${parts[@]}"; do
  case $part in
    sim | demo | draw | radiosity) "part_$part" ;;
    report) python3 tools/bench_report.py bench/gpu || status=1 ;;
    *)
      echo "bench_gpu.sh: unknown part '$part' (sim, demo, draw, radiosity, report)" >&2
      exit 2
      ;;
  esac
done
exit $status
