#!/usr/bin/env python3
"""Folds the results of tools/bench_gpu.sh into results/<device>.json and
prints the speed table (Markdown) with the goals a discrete GPU is held to.

Usage: tools/bench_report.py [DIR] [--no-write]
  DIR        what tools/bench_gpu.sh wrote (default bench/gpu): DIR/sim/*/,
             DIR/demo/*/, DIR/draw/*/, DIR/knobs/*/ results.json files
  --no-write print the table only; leave results/ alone

Each goal row takes the size of its bench nearest to the goal's size and
says which size it read, so a partial run (or a small device) still gives a
table whose every figure says what it is. Python 3 standard library only.
"""
import glob
import json
import math
import os
import re
import sys

# (label, part, scene, mode, goal size, what is compared, goal, larger is better)
# mode: "step" = median ms a substep; "growth" = growth exponent of the sweep;
# "fps" = demo frames/s; "draw1080" / "draw720" = draw ms at that image size.
GOALS = [
    ("dam_break_3d (PBF, 4 iterations)", "sim", "dam_break_3d", "step", 1_000_000, "ms a substep", 2.0, False),
    ("dam_break_3d growth, 1 M to 8 M", "sim", "dam_break_3d", "growth", None, "exponent", 1.05, False),
    ("wcsph_tank_3d (WCSPH)", "sim", "wcsph_tank_3d", "step", 4_194_304, "ms a substep", 3.3, False),
    ("dam_break_2d (Clavet)", "sim", "dam_break_2d", "step", 1_000_000, "ms a substep", 0.8, False),
    ("reint_drops_2d", "sim", "reint_drops_2d", "step", 4096 * 4096, "ms a substep", 1.0, False),
    ("reint_cube_3d", "sim", "reint_cube_3d", "step", 256 ** 3, "ms a substep", 3.3, False),
    ("draw, 1920x1080", "draw", "dam_break_3d_1080p", "draw", 1_000_000, "ms a frame", 1.0, False),
    ("demo: PBF dam break", "demo", "dam_break_3d", "fps", 1_000_000, "frames/s", 60.0, True),
    ("demo: WCSPH tank", "demo", "wcsph_tank_3d", "fps", 4_194_304, "frames/s", 30.0, True),
]


def load(directory, part):
    """{name: results.json} for every bench of one part."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, part, "*", "results.json"))):
        with open(path) as f:
            out[os.path.basename(os.path.dirname(path))] = json.load(f)
    return out


def size_of(entry):
    """Elements of one size entry: particles, or cells for grid pipelines."""
    for key in ("particles", "cells"):
        if key in entry:
            return entry[key]
    return entry.get("requested", 0)


def nearest(sizes, want):
    usable = [s for s in sizes if "skipped" not in s and size_of(s) > 0]
    if not usable:
        return None
    return min(usable, key=lambda s: abs(math.log(size_of(s) / want)))


def fmt_count(n):
    if n >= 1_000_000:
        return "%.2f M" % (n / 1e6)
    if n >= 1000:
        return "%.0f k" % (n / 1e3)
    return str(n)


def top_passes(passes, count=5):
    """The COUNT costliest passes, 'name ms' each (values: number or {median_ms})."""
    ms = {k: (v["median_ms"] if isinstance(v, dict) else v) for k, v in passes.items()}
    best = sorted(ms.items(), key=lambda kv: -kv[1])[:count]
    return ", ".join("%s %.2f" % (k, v) for k, v in best)


def goal_row(goal, results):
    label, part, name, mode, want, unit, target, larger = goal
    bench = results[part].get(name)
    if bench is None:
        return "| %s | not run | | | %s %s |" % (label, "≥" if larger else "≤", target)
    if mode == "growth":
        value = bench.get("growth_exponent")
        sizes = [size_of(s) for s in bench["sizes"] if "skipped" not in s]
        size = "%s to %s" % (fmt_count(min(sizes)), fmt_count(max(sizes))) if sizes else "-"
        detail = ""
    else:
        entry = nearest(bench["sizes"], want)
        if entry is None:
            return "| %s | every size skipped | | | %s %s |" % (label, "≥" if larger else "≤", target)
        size = fmt_count(size_of(entry))
        if mode == "step":
            value, detail = entry["median_ms"], top_passes(entry.get("passes", {}))
        elif mode == "fps":
            value = entry["frames_per_s"]
            detail = "frame %.2f ms: sim %.2f, draw %.2f GPU ms" % (
                entry["frame_mean_ms"], entry["sim_gpu_median_ms"], entry["draw_gpu_median_ms"])
        else:
            value, detail = entry["draw_median_ms"], "%d one-pixel, %.1f M triangle pixels" % (
                entry["one_pixel"], entry["triangle_pixels"] / 1e6)
    if value is None or (isinstance(value, float) and math.isnan(value)):
        verdict = "-"
        shown = "-"
    else:
        met = value >= target if larger else value <= target
        verdict = "met" if met else "not met"
        shown = "%.3g %s" % (value, unit)
    return "| %s | %s | %s | %s | %s %s (%s) |" % (label, size, shown, detail, "≥" if larger else "≤", target,
                                                   verdict)


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    write = "--no-write" not in argv
    directory = args[0] if args else "bench/gpu"
    results = {part: load(directory, part) for part in ("sim", "demo", "draw")}
    every = [b for part in results.values() for b in part.values()]
    if not every:
        print("bench_report.py: no results.json under %s/{sim,demo,draw}/*/: run tools/bench_gpu.sh first"
              % directory, file=sys.stderr)
        return 1
    device = every[0]["device_and_driver"]
    # The sweep's JSON names the device alone (as tools/bench_all.sh's file
    # name does); --demo and --draw carry only device_and_driver.
    device_name = next((b["device"] for b in every if "device" in b), device)
    print("Device: %s\n" % device)
    print("| what | size | now | costliest passes (ms) / detail | goal |")
    print("|---|---|---|---|---|")
    for goal in GOALS:
        print(goal_row(goal, results))
    knobs = load(directory, "knobs")
    if knobs:
        # The per-device defaults chosen without a GPU (CISTERN_SORT,
        # CISTERN_SORT_BLOCK, CISTERN_NB_LAYOUT): each way, the same results.
        print("\nPer-device choices, PBF dam break (ms a substep; the same results every way):\n")
        print("| setting | particles | step | grid: sort | grid: neighbours | pbf: lambda | pbf: delta |")
        print("|---|---|---|---|---|---|---|")
        for name, bench in knobs.items():
            for entry in bench["sizes"]:
                if "skipped" in entry:
                    continue
                p = {k: (v["median_ms"] if isinstance(v, dict) else v) for k, v in entry.get("passes", {}).items()}
                print("| %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f |" % (
                    name, fmt_count(size_of(entry)), entry["median_ms"], p.get("grid: sort", float("nan")),
                    p.get("grid: neighbours", float("nan")), p.get("pbf: lambda", float("nan")),
                    p.get("pbf: delta", float("nan"))))
    radiosity = os.path.join(directory, "radiosity", "rooms_radiosity.log")
    if os.path.exists(radiosity):
        print("\nRadiosity (cistern bench --radiosity, the log as printed): %s" % radiosity)
    if write:
        slug = re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")
        out = {"device": device_name, "device_and_driver": device,
               "benches": list(results["sim"].values()), "demo": list(results["demo"].values()),
               "draw": list(results["draw"].values())}
        path = os.path.join("results", "%s.json" % slug)
        os.makedirs("results", exist_ok=True)
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
        print("\nwrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
