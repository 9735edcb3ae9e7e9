#!/usr/bin/env python3
"""Merge the Verilator coverage files of an RTL block's testbench runs and summarise them
(build target <block>_coverage, cmake/rtl.cmake).

usage: rtl_coverage.py [--title NAME] [--rank] OUTDIR COV.dat|GLOB...
Writes OUTDIR/merged.dat, OUTDIR/coverage_annotated/ (verilator_coverage --annotate),
OUTDIR/coverage.info (lcov) and OUTDIR/coverage_summary.txt: covered/total points per coverage
kind (line, branch, toggle, expr, ...) and per kind and RTL file. Points are identified by file,
line, column and name, so several Verilated models of the same RTL (parameter variants) are merged
per source point. --rank also prints verilator_coverage --rank (which run adds what).
"""
import argparse
import collections
import glob
import pathlib
import re
import subprocess
import sys


def points(dat):
    """{(file, line, name, column, kind): count} of a coverage.dat."""
    pts = {}
    for line in pathlib.Path(dat).read_text(encoding="latin-1").splitlines():
        m = re.match(r"C '(.*)' (\d+)$", line)
        if not m:
            continue
        fields = dict(kv.split("\x02", 1) for kv in m.group(1).split("\x01") if "\x02" in kv)
        kind = fields.get("page", "?").split("/")[0].removeprefix("v_")
        key = (fields.get("f", "?"), fields.get("l"), fields.get("n"), fields.get("o"), kind)
        pts[key] = pts.get(key, 0) + int(m.group(2))
    return pts


def summary(pts):
    tot, hit = collections.Counter(), collections.Counter()
    for (f, _l, _n, _o, kind), c in pts.items():
        for k in (kind, f"{pathlib.Path(f).name}:{kind}"):
            tot[k] += 1
            hit[k] += c > 0
    return [f"  {k:28s} {hit[k]:6d}/{tot[k]:<6d} {100.0 * hit[k] / tot[k]:6.1f}%" for k in sorted(tot)]


def main():
    ap = argparse.ArgumentParser(prog="rtl_coverage.py")
    ap.add_argument("--title", default="RTL")
    ap.add_argument("--rank", action="store_true")
    ap.add_argument("outdir")
    ap.add_argument("dats", nargs="+")
    a = ap.parse_args()
    dats = sorted({d for pat in a.dats for d in (glob.glob(pat) or [pat]) if pathlib.Path(d).is_file()})
    if not dats:
        sys.exit("rtl_coverage.py: no coverage files (run the block's CTests first: ctest -L rtl)")
    out = pathlib.Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    merged = out / "merged.dat"
    subprocess.run(["verilator_coverage", "--write", str(merged)] + dats, check=True)
    subprocess.run(["verilator_coverage", "--annotate", str(out / "coverage_annotated"), "--annotate-min", "1",
                    str(merged)], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["verilator_coverage", "--write-info", str(out / "coverage.info"), str(merged)], check=True)
    if a.rank:
        subprocess.run(["verilator_coverage", "--rank"] + dats, check=True)
    lines = [f"{a.title} coverage (merged over " + ", ".join(pathlib.Path(d).name for d in dats) + ")"]
    lines += summary(points(merged))
    text = "\n".join(lines) + "\n"
    (out / "coverage_summary.txt").write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
