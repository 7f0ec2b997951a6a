#!/usr/bin/env python3
"""Folds the results of tools/bench_gpu.sh into results/<device>.json and
prints the speed table (Markdown) with the goals a discrete GPU is held to.

Usage: tools/bench_report.py [DIR] [--no-write]
       tools/bench_report.py --compare A.json B.json [--plot OUT.svg]
  DIR        what tools/bench_gpu.sh wrote (default bench/gpu): DIR/sim/*/,
             DIR/demo/*/, DIR/draw/*/, DIR/knobs/*/ results.json files
  --no-write print the table only; leave results/ alone
  --compare  two results files (a bench's results.json or a per-device
             results/<device>.json; two commits or two devices): one table of
             every row both have, matched by scene, size and pass, with the
             ratio A / B (>1: B is faster) and the range the spreads allow;
             rows only one file has are listed. --plot writes a bar chart of
             the ratios (SVG, no dependency). Exit 1 when nothing matches.

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
# "fps" = demo frames/s in the physical mode, "fps_rt" in the real-time mode
# (bench --demo runs both; a size entry's "stepping"); "draw1080" / "draw720"
# = draw ms at that image size.
GOALS = [
    ("dam_break_3d (PBF, 4 iterations)", "sim", "dam_break_3d", "step", 1_000_000, "ms a substep", 2.0, False),
    ("dam_break_3d growth, 1 M to 8 M", "sim", "dam_break_3d", "growth", None, "exponent", 1.05, False),
    ("wcsph_tank_3d (WCSPH)", "sim", "wcsph_tank_3d", "step", 4_194_304, "ms a substep", 3.3, False),
    ("dam_break_2d (Clavet)", "sim", "dam_break_2d", "step", 1_000_000, "ms a substep", 0.8, False),
    ("reint_drops_2d", "sim", "reint_drops_2d", "step", 4096 * 4096, "ms a substep", 1.0, False),
    ("reint_cube_3d", "sim", "reint_cube_3d", "step", 256 ** 3, "ms a substep", 3.3, False),
    ("draw, 1920x1080", "draw", "dam_break_3d_1080p", "draw", 1_000_000, "ms a frame", 1.0, False),
    ("demo: PBF dam break, real-time mode", "demo", "dam_break_3d", "fps_rt", 1_000_000, "frames/s", 60.0, True),
    ("demo: PBF dam break, physical mode", "demo", "dam_break_3d", "fps", 1_000_000, "frames/s", 60.0, True),
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
        sizes = bench["sizes"]
        if mode in ("fps", "fps_rt"):
            stepping = "realtime" if mode == "fps_rt" else "physical"
            sizes = [s for s in sizes if s.get("stepping", "physical") == stepping]
        entry = nearest(sizes, want)
        if entry is None:
            return "| %s | every size skipped | | | %s %s |" % (label, "≥" if larger else "≤", target)
        size = fmt_count(size_of(entry))
        if mode == "step":
            value, detail = entry["median_ms"], top_passes(entry.get("passes", {}))
        elif mode in ("fps", "fps_rt"):
            value = entry["frames_per_s"]
            detail = "%d substeps, frame %.2f ms: sim %.2f, draw %.2f GPU ms" % (
                entry["substeps"], entry["frame_mean_ms"], entry["sim_gpu_median_ms"], entry["draw_gpu_median_ms"])
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


def benches_of(path):
    """{(scene, unit): bench} of a results file of either shape."""
    with open(path) as f:
        root = json.load(f)
    benches = root.get("benches") if isinstance(root, dict) and "benches" in root else [root]
    return {(b.get("scene", "?"), b.get("unit", "particles")): b for b in benches if "sizes" in b}


def pass_stats(p):
    """(median, p10, p90) of a pass entry: a number (old files) or a dict."""
    if isinstance(p, dict):
        m = p.get("median_ms")
        return m, p.get("p10_ms", m), p.get("p90_ms", m)
    return p, p, p


def compare(path_a, path_b, plot):
    a, b = benches_of(path_a), benches_of(path_b)
    rows, only = [], []
    for key in sorted(set(a) | set(b)):
        if key not in a or key not in b:
            only.append("%s (%s): only in %s" % (key[0], key[1], path_a if key in a else path_b))
            continue
        sizes_b = {s["requested"]: s for s in b[key]["sizes"] if "skipped" not in s}
        sizes_a = {s["requested"] for s in a[key]["sizes"] if "skipped" not in s}
        only += ["%s %s %s: only in %s" % (key[0], r, key[1], path_b) for r in sorted(set(sizes_b) - sizes_a)]
        for sa in a[key]["sizes"]:
            if "skipped" in sa:
                continue
            sb = sizes_b.get(sa["requested"])
            if sb is None:
                only.append("%s %s %s: only in %s" % (key[0], sa["requested"], key[1], path_a))
                continue
            entries = [("total", (sa["median_ms"], sa.get("p10_ms", sa["median_ms"]), sa["p90_ms"]),
                        (sb["median_ms"], sb.get("p10_ms", sb["median_ms"]), sb["p90_ms"]))]
            for name, pa in sa.get("passes", {}).items():
                if name in sb.get("passes", {}):
                    entries.append((name, pass_stats(pa), pass_stats(sb["passes"][name])))
            for name, (ma, la, ha), (mb, lb, hb) in entries:
                if ma and mb and ma > 0 and mb > 0:
                    rows.append((key[0], size_of(sa), name, ma, mb, ma / mb, la / hb, ha / lb,
                                 sa.get("noisy") or sb.get("noisy")))
    print("A: %s\nB: %s\nratio = A ms / B ms (>1: B is faster), [range the p10-p90 spreads allow]\n" % (path_a, path_b))
    print("| scene | size | pass | A ms | B ms | A / B | range | |")
    print("|---|---|---|---|---|---|---|---|")
    for scene, size, name, ma, mb, r, lo, hi, noisy in rows:
        print("| %s | %s | %s | %.3f | %.3f | %.2f | %.2f-%.2f | %s |" % (scene, fmt_count(size), name, ma, mb, r, lo, hi,
                                                                       "noisy" if noisy else ""))
    for line in only:
        print("not compared: " + line)
    if plot and rows:
        write_ratio_svg(plot, [r for r in rows if r[2] == "total"] or rows, path_a, path_b)
        print("\nwrote %s" % plot)
    return 0 if rows else 1


def write_ratio_svg(path, rows, name_a, name_b):
    """A horizontal bar a row: log2 of A / B, the spread as a line."""
    bar_h, left, width = 18, 260, 420
    height = 60 + bar_h * len(rows)
    span = max(1.0, max(abs(math.log2(max(r[6], 1e-9))) for r in rows), max(abs(math.log2(max(r[7], 1e-9))) for r in rows))
    x0 = left + width / 2
    scale = (width / 2) / span
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">'
           % (left + width + 20, height),
           '<text x="10" y="16">A / B (right: B faster), log scale: A = %s, B = %s</text>'
           % (os.path.basename(name_a), os.path.basename(name_b)),
           '<line x1="%g" y1="24" x2="%g" y2="%d" stroke="black"/>' % (x0, x0, height - 10)]
    for i, (scene, size, name, ma, mb, r, lo, hi, noisy) in enumerate(rows):
        y = 30 + i * bar_h
        v = math.log2(r) * scale
        out.append('<text x="10" y="%d">%s %s %s</text>' % (y + 12, scene, fmt_count(size), name))
        out.append('<rect x="%g" y="%d" width="%g" height="%d" fill="%s"/>'
                   % (min(x0, x0 + v), y + 2, abs(v), bar_h - 6, "#c44" if noisy else "#48c"))
        out.append('<line x1="%g" y1="%d" x2="%g" y2="%d" stroke="black"/>'
                   % (x0 + math.log2(max(lo, 1e-9)) * scale, y + bar_h / 2, x0 + math.log2(max(hi, 1e-9)) * scale,
                      y + bar_h / 2))
        out.append('<text x="%g" y="%d">x%.2f</text>' % (left + width + 2 - 40, y + 12, r))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def probe_rows(log):
    """The probe rows of a bench --radiosity log: | N (n^3) | rays | gather ms | finish ms | ns a ray |."""
    rows = []
    with open(log) as f:
        for line in f:
            m = re.match(r"\|\s*(\d+) \(\d+\^3\)\s*\|\s*(\d+)\s*\|\s*([0-9.]+)\s*\|\s*([0-9.]+)\s*\|", line)
            if m:
                rows.append({"probes": int(m.group(1)), "rays": int(m.group(2)), "gather_ms": float(m.group(3)),
                             "finish_ms": float(m.group(4))})
    return rows


def main(argv):
    if "--compare" in argv:
        rest = [a for a in argv if a != "--compare"]
        plot = None
        if "--plot" in rest:
            k = rest.index("--plot")
            plot = rest[k + 1] if k + 1 < len(rest) else None
            rest = rest[:k] + rest[k + 2:]
        if len(rest) != 2 or plot is None and "--plot" in argv:
            print("usage: tools/bench_report.py --compare A.json B.json [--plot OUT.svg]", file=sys.stderr)
            return 2
        return compare(rest[0], rest[1], plot)
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
    probes = []
    if os.path.exists(radiosity):
        print("\nRadiosity (cistern bench --radiosity, the log as printed): %s" % radiosity)
        probes = probe_rows(radiosity)
        for row in probes:
            # The goal (issue 40): 8 k probes gathered in at most 1 ms.
            verdict = " (goal ≤ 1 ms: %s)" % ("met" if row["gather_ms"] <= 1.0 else "not met") \
                if row["probes"] == 8000 else ""
            print("light probes %d: gather %.3f ms, finish %.3f ms, %d rays each%s" % (
                row["probes"], row["gather_ms"], row["finish_ms"], row["rays"], verdict))
    if write:
        slug = re.sub(r"[^a-z0-9]+", "-", device_name.lower()).strip("-")
        out = {"device": device_name, "device_and_driver": device,
               "benches": list(results["sim"].values()), "demo": list(results["demo"].values()),
               "draw": list(results["draw"].values()), "probes": probes}
        path = os.path.join("results", "%s.json" % slug)
        os.makedirs("results", exist_ok=True)
        with open(path, "w") as f:
            json.dump(out, f, indent=1)
        print("\nwrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
