#!/usr/bin/env python3
"""64 B DRAM-cache lines against 128 B lines (docs/hms.md "64 B lines"; the HMS paper's baselines use 64 B
lines, Sec. IV-A): on the random workload (4 B updates: an L2 access touches one 32 B sector, so a 128 B
fill moves bytes nobody reads) BEARi, McCachei and RedCachei with 64 B lines must move fewer fill bytes
(line x fills) and read fewer SCM bytes than with 128 B lines, at a hit rate at least as high; the 64 B runs
split L2 accesses into pieces (memside.split) and the 128 B runs do not (no such stat). Every run --check.
Usage: dcache_line64_test.py STRATA OUTDIR"""
import json
import os
import subprocess
import sys


def run(strata, out, config, line):
    cmd = [strata, "--quiet", "--force", "--check", "--out", out, "--config", config, "--workload", "random",
           "--set", "l2.size=256KiB", "--set", "memside.dcache.size=64KiB",
           "--set", f"memside.dcache.line_bytes={line}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {r.returncode}: {r.stderr.strip()}")
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)


def main():
    strata, outdir = sys.argv[1], sys.argv[2]
    for design in ("beari", "mccachei", "redcachei"):
        s = {line: run(strata, os.path.join(outdir, f"{design}_{line}"), design, line) for line in (64, 128)}
        fill = {line: line * s[line]["dcache.fills"] for line in s}
        scm = {line: s[line]["scm.read_bytes"] for line in s}
        hit = {line: s[line]["dcache.hit_rate"] for line in s}
        if s[64]["memside.moved_bytes"] != 64 * (s[64]["dcache.fills"] + s[64]["dcache.writebacks"]):
            sys.exit(f"FAIL: {design}: memside.moved_bytes {s[64]['memside.moved_bytes']} is not 64 B per fill "
                     f"and write-back")
        if not fill[64] < 0.75 * fill[128]:
            sys.exit(f"FAIL: {design}: fill bytes {fill[64]:.0f} with 64 B lines, {fill[128]:.0f} with 128 B: "
                     f"expected under 3/4")
        if not scm[64] < scm[128]:
            sys.exit(f"FAIL: {design}: SCM read bytes {scm[64]:.0f} with 64 B lines, {scm[128]:.0f} with 128 B")
        if not hit[64] >= hit[128]:
            sys.exit(f"FAIL: {design}: hit rate {hit[64]:.4f} with 64 B lines, {hit[128]:.4f} with 128 B")
        if not s[64].get("memside.split") or "memside.split" in s[128]:
            sys.exit(f"FAIL: {design}: memside.split {s[64].get('memside.split')} with 64 B lines, "
                     f"{s[128].get('memside.split')} with 128 B (expected > 0 and absent)")
        print(f"ok: {design}: fill bytes {fill[64]:.0f} / {fill[128]:.0f}, SCM reads {scm[64]:.0f} / {scm[128]:.0f}, "
              f"hit rate {hit[64]:.4f} / {hit[128]:.4f} (64 B / 128 B lines), {s[64]['memside.split']:.0f} split")


if __name__ == "__main__":
    main()
