#!/usr/bin/python3
"""WCSPH against PySPH's 3D dam break, at the same fluid particle count, one
after the other on the same machine.

PySPH (Debian's python3-pysph): `python3 -m pysph.examples.dam_break_3d
--dx DX --max-steps S --openmp --disable-output`, its "Run took" seconds
(the solver loop; the set-up, which compiles its kernels, is not counted),
with its fluid particle count from the log. cistern: `cistern bench
wcsph_tank_3d --particles N --steps S --batches 1` at that fluid count (the
tank's walls are a distance function, PySPH's are 2-4 layers of boundary
particles: both sides count fluid particles only), its wall ms a step (the
submit and the wait). The runs alternate ROUNDS times. Printed and written
(OUT/peer_pysph.json): fluid particle-steps per second of each, their ratio
cistern / PySPH (>1: cistern is faster), and the CPU seconds of each whole
process (PySPH's include its set-up, cistern's its start-up).

Usage: tools/peer_pysph.py [--small] [--dx 0.02] [--steps 40] [--rounds 2]
                           [--cistern build/release/cistern] [--out DIR]
  --small   dx 0.1 (540 fluid particles), 5 steps, one round: the CI's check
Needs Debian's python3-pysph (tools/install-deps.sh) and a C compiler
(PySPH compiles its kernels on first use, into ~/.pysph).
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def child_cpu(before, after):
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_pysph(dx, steps, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = ["/usr/bin/python3", "-m", "pysph.examples.dam_break_3d", "--dx", str(dx), "--max-steps", str(steps),
           "--openmp", "--disable-output", "-d", out]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cpu = child_cpu(before, resource.getrusage(resource.RUSAGE_CHILDREN))
    fluid = re.search(r"fluid:\s*(\d+)", run.stdout)
    took = re.search(r"Run took:\s*([0-9.]+)", run.stdout)
    if run.returncode != 0 or not fluid or not took:
        sys.exit("peer_pysph.py: %s failed (install python3-pysph: bash tools/install-deps.sh):\n%s"
                 % (" ".join(cmd), run.stdout[-3000:]))
    return int(fluid.group(1)), float(took.group(1)), cpu


def run_cistern(cistern, particles, steps, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [cistern, "bench", "wcsph_tank_3d", "--particles", str(particles), "--steps", str(steps), "--batches", "1",
           "--warmup", "3", "--quiet", "--out", out]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    cpu = child_cpu(before, resource.getrusage(resource.RUSAGE_CHILDREN))
    if run.returncode != 0:
        sys.exit("peer_pysph.py: %s failed:\n%s" % (" ".join(cmd), run.stdout[-3000:]))
    with open(os.path.join(out, "results.json")) as f:
        size = json.load(f)["sizes"][0]
    if "skipped" in size:
        sys.exit("peer_pysph.py: cistern skipped %d particles: %s" % (particles, size["skipped"]))
    return size["particles"], size["wall_median_ms"], size["median_ms"], cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--dx", type=float, default=0.02)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--cistern", default=os.path.join(ROOT, "build/release/cistern"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    dx, steps, rounds = (0.1, 5, 1) if a.small else (a.dx, a.steps, a.rounds)
    out = a.out or tempfile.mkdtemp(prefix="peer_pysph_")
    os.makedirs(out, exist_ok=True)
    print("host %d cores, load %.2f; OMP_NUM_THREADS %s" % (os.cpu_count(), os.getloadavg()[0],
                                                           os.environ.get("OMP_NUM_THREADS", "(all)")))
    # One untimed PySPH run first: it compiles its kernels into ~/.pysph.
    fluid, _, _ = run_pysph(dx, 1, os.path.join(out, "pysph_warm"))
    p_rate, c_rate, p_cpu, c_cpu, c_gpu = [], [], [], [], []
    for r in range(rounds):
        fluid, took, cpu = run_pysph(dx, steps, os.path.join(out, "pysph_%d" % r))
        p_rate.append(fluid * steps / took), p_cpu.append(cpu)
        particles, wall_ms, gpu_ms, cpu = run_cistern(a.cistern, fluid, steps, os.path.join(out, "cistern_%d" % r))
        c_rate.append(particles / (wall_ms * 1e-3)), c_cpu.append(cpu), c_gpu.append(gpu_ms)
        print("round %d: PySPH %d fluid particles, %d steps in %.2f s: %.3f M particle-steps/s | cistern %d "
              "particles, %.2f ms a step (wall): %.3f M particle-steps/s" % (
                  r + 1, fluid, steps, took, p_rate[-1] / 1e6, particles, wall_ms, c_rate[-1] / 1e6))
    row = {"pysph_fluid_particles": fluid, "steps": steps, "rounds": rounds,
           "pysph_particle_steps_per_s": statistics.median(p_rate),
           "cistern_particle_steps_per_s": statistics.median(c_rate),
           "cistern_gpu_ms_a_step": statistics.median(c_gpu),
           "pysph_process_cpu_s": statistics.median(p_cpu), "cistern_process_cpu_s": statistics.median(c_cpu)}
    row["ratio_cistern_over_pysph"] = row["cistern_particle_steps_per_s"] / row["pysph_particle_steps_per_s"]
    print("median: PySPH %.3f M, cistern %.3f M fluid particle-steps/s: cistern / PySPH x%.2f; process CPU s: "
          "PySPH %.1f, cistern %.1f" % (row["pysph_particle_steps_per_s"] / 1e6, row["cistern_particle_steps_per_s"] / 1e6,
                                         row["ratio_cistern_over_pysph"], row["pysph_process_cpu_s"],
                                         row["cistern_process_cpu_s"]))
    with open(os.path.join(out, "peer_pysph.json"), "w") as f:
        json.dump(row, f, indent=1)
    print("wrote %s" % os.path.join(out, "peer_pysph.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
