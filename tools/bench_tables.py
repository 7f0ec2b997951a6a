#!/usr/bin/env python3
"""The speed tables in the docs, made from the committed results files.

A table is a block in a Markdown file (`bench-headline` instead of
`bench-table`: one row a bench, the size nearest a million):

    <!-- bench-table results/nvidia-h200.json -->
    ...generated rows...
    <!-- /bench-table -->

and its rows are the sweep of that results file (every bench, every size:
median, p10, p90 ms a step, throughput, memory, and "noisy" where the run
flagged itself). Nothing between the markers is written by hand.

Usage: tools/bench_tables.py [--check] [--root DIR] [FILE.md ...]
  (default files: README.md docs/benchmarks.md)
  --check  write nothing; exit 1 and name every block whose text differs
           from its data (a hand-edited number, results regenerated without
           the docs), or whose results file is missing
  --root   the checkout to work in (default: this script's)
Python 3 standard library only.
"""
import json
import os
import re
import sys

BLOCK = re.compile(r"(<!-- bench-(table|headline) (\S+) -->\n)(.*?)(<!-- /bench-\2 -->)", re.S)


def fmt_size(size):
    unit = "particles"
    n = size.get("particles", 0)
    req = size.get("requested", 0)
    if "cells" in size or size.get("_unit") == "cells":
        unit = "cells"
    if unit == "cells" and req and n == req * req:
        return "%d² cells" % req
    if unit == "cells" and req and n == req ** 3:
        return "%d³ cells" % req
    return "{:,}".format(n).replace(",", " ")


def fmt_bytes(b):
    for unit, scale in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if b >= scale:
            return "%.1f %s" % (b / scale, unit)
    return "%d B" % b


def table(results):
    benches = results["benches"] if "benches" in results else [results]
    lines = ["| scene | size | median ms/step | p10 ms | p90 ms | steps/s × size | memory | |",
             "|---|---|---|---|---|---|---|---|"]
    for b in benches:
        for s in b["sizes"]:
            if "skipped" in s:
                continue
            s = dict(s, _unit=b.get("unit", "particles"))
            p10 = s.get("p10_ms")
            rate = s.get("particle_steps_per_s", 0)
            what = "cell-steps/s" if s["_unit"] == "cells" else "particle-steps/s"
            flags = []
            if not s.get("stable", True):
                flags.append("UNSTABLE")
            if s.get("noisy"):
                flags.append("noisy")
            lines.append("| %s | %s | %.3f | %s | %.3f | %.3g M %s | %s | %s |" % (
                b["scene"], fmt_size(s), s["median_ms"], "%.3f" % p10 if p10 is not None else "-", s["p90_ms"],
                rate / 1e6, what, fmt_bytes(s.get("memory_bytes", 0)), ", ".join(flags)))
    prov = benches[0].get("provenance") if benches else None
    device = benches[0].get("device_and_driver", "?") if benches else "?"
    if prov:
        lines.append("\nDevice: %s; build %s%s (%s), %s, %s host cores, load %.2f at the start." % (
            device, prov["commit"][:12], " + changes" if prov.get("dirty") else "", prov["build_type"],
            prov["date_utc"], prov["host_cores"], prov["load_start"][0]))
    else:
        lines.append("\nDevice: %s (no provenance recorded in this file: made before issue 29)." % device)
    return "\n".join(lines) + "\n"


def headline(results):
    """One row a bench: the size nearest a million elements (the README's)."""
    import math
    benches = results["benches"] if "benches" in results else [results]
    lines = ["| scene | size | median ms a step | p90 ms |", "|---|---|---|---|"]
    for b in benches:
        sizes = [dict(s, _unit=b.get("unit", "particles")) for s in b["sizes"]
                 if "skipped" not in s and s.get("particles", 0) > 0]
        if not sizes:
            continue
        s = min(sizes, key=lambda s: abs(math.log(s["particles"] / 1e6)))
        lines.append("| %s | %s | %.2f | %.2f |" % (b["scene"], fmt_size(s), s["median_ms"], s["p90_ms"]))
    device = benches[0].get("device_and_driver", "?") if benches else "?"
    return "\n".join(lines) + "\n\n" + device + "\n"


def process(root, path, check):
    full = os.path.join(root, path)
    with open(full) as f:
        text = f.read()
    problems = []

    def fill(m):
        kind, data = m.group(2), m.group(3)
        data_path = os.path.join(root, data)
        if not os.path.exists(data_path):
            problems.append("%s: block for %s: no such results file" % (path, data))
            return m.group(0)
        with open(data_path) as f:
            results = json.load(f)
        want = table(results) if kind == "table" else headline(results)
        if m.group(4) != want and check:
            problems.append("%s: the %s of %s differs from its data (regenerate: tools/bench_tables.py)"
                            % (path, kind, data))
        return m.group(1) + want + m.group(5)

    new = BLOCK.sub(fill, text)
    if not check and new != text:
        with open(full, "w") as f:
            f.write(new)
    return problems, len(BLOCK.findall(text))


def main(argv):
    check = "--check" in argv
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    args = [a for a in argv if a != "--check"]
    if "--root" in args:
        k = args.index("--root")
        root = args[k + 1]
        args = args[:k] + args[k + 2:]
    files = args or ["README.md", "docs/benchmarks.md"]
    problems, blocks = [], 0
    for path in files:
        p, n = process(root, path, check)
        problems += p
        blocks += n
    for p in problems:
        print("bench_tables: " + p, file=sys.stderr)
    if check:
        print("bench_tables: %d table(s) checked, %d differ" % (blocks, len(problems)))
        return 1 if problems else 0
    print("bench_tables: %d table(s) written" % blocks)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
