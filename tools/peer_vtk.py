#!/usr/bin/python3
"""Marching cubes against VTK's flying edges, on the same field, one after
the other on the same machine.

The field is `cistern bench --surface`'s sphere (bench_surface.c,
sphere_field): f = 0.3 - |p - c| on n^3 nodes over [-0.5, 0.5]^3, the centre
shifted off the nodes by (0.0123, 0.7 x 0.0123, 0.3 x 0.0123), iso 0.
For each n the runs alternate, ROUNDS times: VTK's vtkFlyingEdges3D (its
SMP backend's threads, the scalars already in memory: the filter's Update()
alone is timed, median of REPEATS), then `cistern bench --surface --nodes n
--frames 0 --cpu-runs 0` (the extraction's wall ms: its two submits and the
read-back, median of its steps). Printed and written (OUT/peer_vtk.json):
both medians, the triangle counts (they must agree), the ratio cistern /
VTK, and the CPU seconds of each side (this process's own for VTK, the
child's for cistern, which include its start-up).

Usage: tools/peer_vtk.py [--small] [--nodes 128,256] [--rounds 2]
                         [--cistern build/release/cistern] [--out DIR]
  --small   16^3 and 24^3, one round: the CI's check that the script runs
Needs Debian's python3-vtk9 and python3-numpy (tools/install-deps.sh).
"""
import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    import vtk
    from vtk.util import numpy_support
except ImportError as e:
    sys.exit("peer_vtk.py: %s: install Debian's python3-vtk9 (bash tools/install-deps.sh), "
             "and run this with /usr/bin/python3" % e)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sphere_image(n):
    h = 1.0 / (n - 1)
    shift = 0.0123
    axis = -0.5 + np.arange(n) * h
    z, y, x = np.meshgrid(axis - 0.3 * shift, axis - 0.7 * shift, axis - shift, indexing="ij")
    f = (0.3 - np.sqrt(x * x + y * y + z * z)).astype(np.float32)  # float, as cistern's field
    image = vtk.vtkImageData()
    image.SetDimensions(n, n, n)
    image.SetSpacing(h, h, h)
    image.SetOrigin(-0.5, -0.5, -0.5)
    scalars = numpy_support.numpy_to_vtk(f.ravel(order="C"), deep=True)  # x fastest, as cistern's i + n (j + n k)
    image.GetPointData().SetScalars(scalars)
    return image


def time_vtk(n, repeats):
    image = sphere_image(n)
    fe = vtk.vtkFlyingEdges3D()
    fe.SetInputData(image)
    fe.SetValue(0, 0.0)
    fe.ComputeNormalsOff()  # cistern's extraction writes normals; VTK's gradients are an extra pass
    times = []
    cpu0 = time.process_time()
    for _ in range(repeats):
        fe.Modified()
        t0 = time.perf_counter()
        fe.Update()
        times.append((time.perf_counter() - t0) * 1e3)
    cpu = time.process_time() - cpu0
    return statistics.median(times), fe.GetOutput().GetNumberOfPolys(), cpu


def time_cistern(cistern, n, steps, out):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    cmd = [cistern, "bench", "--surface", "--nodes", str(n), "--frames", "0", "--cpu-runs", "0",
           "--steps", str(steps), "--warmup", "1", "--quiet", "--out", out]
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        sys.exit("peer_vtk.py: %s failed:\n%s" % (" ".join(cmd), run.stdout))
    with open(os.path.join(out, "results.json")) as f:
        rows = [r for r in json.load(f)["results"] if r["field"] == "sphere" and r["nodes_per_axis"] == n]
    if not rows or "skipped" in rows[0]:
        sys.exit("peer_vtk.py: cistern skipped %d^3: %s" % (n, rows[0].get("skipped") if rows else "no row"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rows[0]["extract_wall_median_ms"], rows[0]["extract_median_ms"], rows[0]["triangles"], cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--nodes", default="128,256")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--cistern", default=os.path.join(ROOT, "build/release/cistern"))
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    nodes = [16, 24] if a.small else [int(v) for v in a.nodes.split(",")]
    rounds = 1 if a.small else a.rounds
    out = a.out or tempfile.mkdtemp(prefix="peer_vtk_")
    os.makedirs(out, exist_ok=True)
    smp = vtk.vtkSMPTools()
    print("VTK %s, SMP backend %s, %d threads; host %d cores, load %.2f" % (
        vtk.vtkVersion.GetVTKVersion(), smp.GetBackend(), smp.GetEstimatedNumberOfThreads(), os.cpu_count(),
        os.getloadavg()[0]))
    rows = []
    status = 0
    for n in nodes:
        v_ms, c_wall, c_gpu, v_cpu, c_cpu = [], [], [], [], []
        for r in range(rounds):
            ms, v_tris, cpu = time_vtk(n, a.repeats)
            v_ms.append(ms), v_cpu.append(cpu)
            wall, gpu, c_tris, cpu = time_cistern(a.cistern, n, a.repeats, os.path.join(out, "cistern_%d_%d" % (n, r)))
            c_wall.append(wall), c_gpu.append(gpu), c_cpu.append(cpu)
        same = v_tris == c_tris
        status |= 0 if same else 1
        row = {"nodes": n, "vtk_ms": statistics.median(v_ms), "cistern_wall_ms": statistics.median(c_wall),
               "cistern_gpu_ms": statistics.median(c_gpu), "vtk_triangles": v_tris, "cistern_triangles": c_tris,
               "vtk_cpu_s": statistics.median(v_cpu), "cistern_process_cpu_s": statistics.median(c_cpu),
               "rounds": rounds}
        row["ratio_cistern_over_vtk"] = row["cistern_wall_ms"] / row["vtk_ms"] if row["vtk_ms"] > 0 else math.inf
        rows.append(row)
        print("%4d^3: VTK flying edges %.2f ms (%d triangles) | cistern %.2f ms wall, %.2f GPU ms (%d triangles)"
              " | cistern / VTK x%.1f%s" % (n, row["vtk_ms"], v_tris, row["cistern_wall_ms"], row["cistern_gpu_ms"],
                                           c_tris, row["ratio_cistern_over_vtk"],
                                           "" if same else "  TRIANGLE COUNTS DIFFER"))
    with open(os.path.join(out, "peer_vtk.json"), "w") as f:
        json.dump({"peer": "vtkFlyingEdges3D", "vtk": vtk.vtkVersion.GetVTKVersion(), "rows": rows}, f, indent=1)
    print("wrote %s" % os.path.join(out, "peer_vtk.json"))
    return status


if __name__ == "__main__":
    sys.exit(main())
