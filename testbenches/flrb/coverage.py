#!/usr/bin/env python3
"""Merge the Verilator coverage files of the flrb testbench runs and report.

usage: coverage.py OUTDIR cov1.dat [cov2.dat ...]
Writes OUTDIR/merged.dat, OUTDIR/coverage_annotated/ (verilator_coverage
--annotate), OUTDIR/coverage.info (lcov) and OUTDIR/coverage_summary.txt with
hit/total per coverage type (line, branch, toggle, expr) and per file.
Points are identified by file, line, column and name, so the small and full
instances (two Verilated models of the same RTL) are merged per source point.
"""
import collections
import pathlib
import re
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: coverage.py OUTDIR cov.dat...")
    out = pathlib.Path(sys.argv[1])
    dats = [d for d in sys.argv[2:] if pathlib.Path(d).exists()]
    if not dats:
        sys.exit("coverage.py: no coverage files (run ctest -R rtl_flrb first)")
    merged = out / "merged.dat"
    subprocess.run(["verilator_coverage", "--write", str(merged)] + dats, check=True)
    subprocess.run(["verilator_coverage", "--annotate", str(out / "coverage_annotated"), str(merged)],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["verilator_coverage", "--write-info", str(out / "coverage.info"), str(merged)], check=True)
    pts = {}
    for line in merged.read_text(errors="replace").splitlines():
        m = re.match(r"C '(.*)' (\d+)$", line)
        if not m:
            continue
        fields = dict(kv.split("\x02", 1) for kv in m.group(1).split("\x01") if "\x02" in kv)
        kind = fields.get("page", "?").split("/")[0].removeprefix("v_")
        key = (fields.get("f"), fields.get("l"), fields.get("n"), fields.get("o"), kind)
        pts[key] = pts.get(key, 0) + int(m.group(2))
    tot = collections.Counter()
    hit = collections.Counter()
    for (f, _l, _n, _o, kind), c in pts.items():
        name = f"{pathlib.Path(f).name}:{kind}"
        for k in (kind, name):
            tot[k] += 1
            hit[k] += c > 0
    lines = ["flrb RTL coverage (merged over " + ", ".join(pathlib.Path(d).name for d in dats) + ")"]
    for k in sorted(tot):
        lines.append(f"  {k:28s} {hit[k]:6d}/{tot[k]:<6d} {100.0 * hit[k] / tot[k]:6.1f}%")
    text = "\n".join(lines) + "\n"
    (out / "coverage_summary.txt").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
