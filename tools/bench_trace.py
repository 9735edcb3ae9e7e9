#!/usr/bin/env python3
"""Streaming-reader benchmark (not a test; numbers go in notes and docs/accelsim_traces.md):
generates synthetic Accel-Sim traces of growing size (tools/gen_accelsim_trace.py) and runs
`strata --trace` on each with the golden-memory checker, printing trace size, host seconds,
warp instructions, line requests per host second and peak RSS. A reader that streams keeps the
peak RSS flat as the trace grows (the data footprint is fixed at 48 MiB).

  bench_trace.py STRATA WORK_DIR [--sizes 64MiB,256MiB,1GiB] [--config baseline_hbm2]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("strata")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="64MiB,256MiB,1GiB")
    ap.add_argument("--config", default="baseline_hbm2")
    a = ap.parse_args()
    print(f"{'trace':>8} {'MiB':>6} {'host s':>8} {'warp inst':>10} {'req/host s':>11} {'peak RSS MiB':>13}")
    for s in a.sizes.split(","):
        d = os.path.join(a.work, "trace_" + s)
        if not os.path.exists(os.path.join(d, "kernel-1.traceg")):
            subprocess.run([sys.executable, os.path.join(HERE, "gen_accelsim_trace.py"), d, "--bytes", s],
                           check=True, stdout=subprocess.DEVNULL)
        out = os.path.join(a.work, "run_" + s)
        t0 = time.time()
        # A child per run, so RUSAGE_CHILDREN's max RSS is this run's (runs grow in size).
        p = subprocess.run([a.strata, "--quiet", "--check", "--config", a.config, "--trace", d, "--out", out])
        if p.returncode != 0:
            sys.exit(f"bench_trace: strata exited {p.returncode} on {d}")
        wall = time.time() - t0
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        with open(os.path.join(out, "stats.json")) as f:
            st = json.load(f)
        mib = os.path.getsize(os.path.join(d, "kernel-1.traceg")) / 2**20
        req = st["mem.reads"] + st["mem.writes"]
        print(f"{s:>8} {mib:6.0f} {wall:8.2f} {st['gpu.warp_instructions'] if 'gpu.warp_instructions' in st else st['gpu.instructions'] / 32:10.0f} "
              f"{req / st['host.seconds']:11.0f} {rss:13.0f}")


if __name__ == "__main__":
    main()
