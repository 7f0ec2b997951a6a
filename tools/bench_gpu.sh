#!/usr/bin/env bash
# The speed table of a real GPU (docs/benchmarks.md "A real GPU: the
# runbook"): the sizes a discrete GPU is judged at, in parts that each fit
# in a few minutes of a borrowed machine. Every part writes its bench
# results under bench/gpu/PART/; tools/bench_report.py then folds them into
# results/<device>.json and prints the per-pass table with the goals.
#
# Usage: tools/bench_gpu.sh [PART ...]      (default: all parts, in order)
#   sim        cistern bench: PBF 3D 1M..8M, WCSPH 3D 1M and 4M, DFSPH 3D 1M
#              and 4M, Clavet 2D 1M, reint 2D 4096^2 and 3D 256^3 (ms a
#              substep, per pass)
#   demo       cistern bench --demo: whole frames at 256k, 1M, 4M (PBF, WCSPH,
#              DFSPH), each in the physical and the real-time mode (PBF only)
#   draw       cistern bench --draw: the particles' draw at 256k, 1M and 4M, 720p and 1080p
#   radiosity  cistern bench --radiosity: rooms_radiosity at 1k..100k patches,
#              then its light probes (1k and 8k)
#   surface    cistern bench --surface: marching cubes on 128^3..512^3 fields
#   knobs      the per-device choices made without a GPU at hand, each way:
#              CISTERN_SORT=4|8, CISTERN_SORT_BLOCK=2048|8192 and
#              CISTERN_NB_LAYOUT=particle|slot on PBF at 1 M (the same results
#              every way; the report says which is fastest)
#   report     tools/bench_report.py on whatever the parts above left
# Environment: NO_WRITE=1 (the report leaves results/ alone), CISTERN (binary, default build/release/cistern), STEPS (30),
# WARMUP (5), OUT (default bench/gpu), SMALL=1 (every size tiny and 2 steps:
# a smoke test of the whole chain on any device, tests/bench_gpu.sh). A size
# the device cannot hold is skipped by the bench with the reason; the part
# goes on.
set -uo pipefail
cd "$(dirname "$0")/.."
cistern=${CISTERN:-build/release/cistern}
[ -x "$cistern" ] || bash tools/build.sh >/dev/null || exit 1
steps=${STEPS:-30}
warmup=${WARMUP:-5}
out=${OUT:-bench/gpu}
status=0
# The sizes: the issue's (PBF 1 M to 8 M, WCSPH 4 M, Clavet 1 M, reint
# 4096^2 and 256^3, demos and the draw at 256 k to 4 M, radiosity to
# 100 k patches), or tiny ones for the smoke test.
if [ "${SMALL:-0}" = 1 ]; then
  steps=2 warmup=1 frames=2 rsteps=2 knob=2k
  pbf=2k,4k wcsph=2k dfsph=2k clavet=2k drops=64 cube=16 demo=2k draw=2k patches=200 probes=8 nodes=32
else
  frames=20 rsteps=10 knob=1M nodes=128,256,512
  pbf=1M,2M,4M,8M wcsph=1M,4M dfsph=1M,4M clavet=1M drops=4096 cube=256 demo=256k,1M,4M draw=256k,1M,4M
  patches=1k,8k,32k,100k probes=1k,8k
fi

# run NAME [--log-only] [CISTERN_X=VALUE ...] ARGS...: one bench into
# OUT/PART/NAME/ (with those environment settings), its output in
# OUT/PART/NAME.log too; --log-only: a bench that writes no files (its
# table is the log), so no --out is passed (bench refuses one).
run() {
  local name=$1
  shift
  local out_args=(--out "$out/$part/$name" --overwrite)
  if [ "${1:-}" = --log-only ]; then
    out_args=()
    shift
  fi
  local settings=()
  while [ $# -gt 0 ] && [[ $1 == CISTERN_*=* ]]; do
    settings+=("$1")
    shift
  done
  mkdir -p "$out/$part"
  echo "== $part/$name: ${settings[*]} cistern $*" >&2
  local t0=$SECONDS
  env "${settings[@]}" "$cistern" "$@" "${out_args[@]}" 2>&1 | tee "$out/$part/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $part/$name: exit $rc after $((SECONDS - t0)) s" >&2
  [ "$rc" -eq 0 ] || status=1
}

part_sim() {
  local b=(bench --steps "$steps" --warmup "$warmup" --max-step-ms 2000)
  run dam_break_3d "${b[@]}" dam_break_3d --particles "$pbf"
  run wcsph_tank_3d "${b[@]}" wcsph_tank_3d --particles "$wcsph"
  run dfsph_tank_3d "${b[@]}" dfsph_tank_3d --particles "$dfsph"
  run dam_break_2d "${b[@]}" dam_break_2d --particles "$clavet"
  run reint_drops_2d "${b[@]}" reint_drops_2d --cells "$drops"
  run reint_cube_3d "${b[@]}" reint_cube_3d --cells "$cube"
}

part_demo() {
  local b=(bench --demo --steps "$frames" --warmup "$warmup" --particles "$demo")
  run dam_break_3d "${b[@]}" dam_break_3d
  run wcsph_tank_3d "${b[@]}" wcsph_tank_3d
  run dfsph_tank_3d "${b[@]}" dfsph_tank_3d
}

part_draw() {
  local b=(bench --draw --steps "$frames" --warmup "$warmup" --particles "$draw")
  run dam_break_3d_720p "${b[@]}" dam_break_3d --size 1280x720
  run dam_break_3d_1080p "${b[@]}" dam_break_3d --size 1920x1080
}

part_radiosity() {
  # The patch sweep, then the light probes' rows (1k and 8k probes on a GPU;
  # the smoke test's few, since 8k is too slow on lavapipe), in one log.
  run rooms_radiosity --log-only bench --radiosity scenes/rooms_radiosity.json --patches "$patches" \
    --probes "$probes" --steps "$rsteps" --warmup 1
}

part_surface() {
  run sphere_and_scene bench --surface --nodes "$nodes" --steps "$rsteps" --warmup 1 --cpu-runs 1
}

part_knobs() {
  local b=(bench dam_break_3d --particles "$knob" --steps "$steps" --warmup "$warmup")
  run sort4 CISTERN_SORT=4 "${b[@]}"
  run sort8_block2048 CISTERN_SORT=8 CISTERN_SORT_BLOCK=2048 "${b[@]}"
  run sort8_block8192 CISTERN_SORT=8 CISTERN_SORT_BLOCK=8192 "${b[@]}"
  run lists_particle CISTERN_NB_LAYOUT=particle "${b[@]}"
  run lists_slot CISTERN_NB_LAYOUT=slot "${b[@]}"
}

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(sim demo draw radiosity surface knobs report)
for part in "${parts[@]}"; do
  case $part in
    sim | demo | draw | radiosity | surface | knobs) "part_$part" ;;
    report) python3 tools/bench_report.py "$out" ${NO_WRITE:+--no-write} || status=1 ;;
    *)
      echo "bench_gpu.sh: unknown part '$part' (sim, demo, draw, radiosity, surface, knobs, report)" >&2
      exit 2
      ;;
  esac
done
exit $status
