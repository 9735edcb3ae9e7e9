#!/usr/bin/env python3
"""Benchmark of `strata memtrace` (not a test; numbers go in notes).

Replays 1 M sequential and 1 M uniformly random 64 B requests (2/3 reads, no timestamps: as fast
as the controllers accept) on the HBM2 preset (configs/baseline_hbm2: 8 channels; the random trace
also on configs/hbm2_pseudo_channel: the same HBM2 as 16 pseudo-channels) and prints,
per trace, host seconds (median of N runs), requests per host second (median and best run),
simulated bandwidth and peak RSS. Traces are written once into WORKDIR by tools/gen_memtrace.py.

With --against OLD_STRATA the runs of OLD_STRATA and STRATA alternate (old, new, old, new, ...),
so both see the same machine load, and each gets a line with the best and the median requests per
host second (docs/memtrace.md "Benchmark" reports these). Both builds must give the same
simulated results; a difference is reported.

usage: bench_memtrace.py STRATA WORKDIR [--repeat N] [--count N] [--set key=value ...]
                         [--against OLD_STRATA] [--only CONFIG:PATTERN ...]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

CASES = (("baseline_hbm2", "seq"), ("baseline_hbm2", "random"), ("hbm2_pseudo_channel", "random"),
         ("hbm2_pseudo_channel", "seq"))
DEFAULT = CASES[:3]


def run(strata, config, path, extra):
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([strata, "memtrace", "--quiet", "--config", config, "--trace", path, "--out", d, *extra],
                       check=True)
        with open(os.path.join(d, "stats.json")) as f:
            return json.load(f)


def main():
    ap = argparse.ArgumentParser(prog="bench_memtrace.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("strata", help="the strata binary to measure")
    ap.add_argument("work", metavar="WORKDIR", help="folder for the generated traces (reused)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per build and trace (default 3)")
    ap.add_argument("--count", type=int, default=1000000, help="requests per trace (default 1 M)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override, repeatable")
    ap.add_argument("--against", metavar="OLD_STRATA", help="a second build, run alternately with STRATA")
    ap.add_argument("--only", action="append", default=[], metavar="CONFIG:PATTERN",
                    help="cases to run, e.g. baseline_hbm2:random (repeatable; default: the first three)")
    a = ap.parse_args()
    if a.repeat < 1 or a.count < 1:
        ap.error("--repeat and --count must be >= 1")
    strata, work, repeat, count, against = a.strata, a.work, a.repeat, a.count, a.against
    extra = [x for kv in a.set for x in ("--set", kv)]
    only = []
    for o in a.only:
        if o.count(":") != 1 or tuple(o.split(":")) not in CASES:
            ap.error(f"--only {o}: expected one of " + ", ".join(f"{c}:{p}" for c, p in CASES))
        only.append(tuple(o.split(":")))
    cases = [c for c in CASES if c in only] if only else DEFAULT
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_memtrace.py")
    os.makedirs(work, exist_ok=True)
    builds = [("old", against), ("new", strata)] if against else [("", strata)]
    print(f"{'config':<20} {'trace':<8} {'build':<5} {'requests':>9} {'host s (median)':>16} {'req/host s':>12} "
          f"{'best':>12} {'GB/s sim':>9} {'% peak':>7} {'row hits':>9} {'p99 ns':>8} {'RSS MiB':>8}")
    for config, pattern in cases:
        path = os.path.join(work, f"bench_{pattern}_{count}.trc")
        if not os.path.exists(path):
            subprocess.run([sys.executable, gen, path, "--pattern", pattern, "--count", str(count)], check=True)
        runs = {name: [] for name, _ in builds}
        for _ in range(repeat):
            for name, exe in builds:  # alternated: both builds see the same load
                runs[name].append(run(exe, config, path, extra))
        sims = []
        for name, _ in builds:
            rs = runs[name]
            secs = [r["host.seconds"] for r in rs]
            med, best = statistics.median(secs), min(secs)
            r = rs[0]
            sims.append({k: v for k, v in r.items() if not k.startswith("host.")})
            print(f"{config:<20} {pattern:<8} {name:<5} {r['memtrace.requests']:>9.0f} {med:>16.3f} "
                  f"{r['memtrace.requests'] / med:>12.0f} {r['memtrace.requests'] / best:>12.0f} "
                  f"{r['mem.bandwidth_gbps']:>9.1f} {100 * r['mem.bandwidth_gbps'] / r['mem.peak_bandwidth_gbps']:>7.1f} "
                  f"{r['mem.row_hit_rate']:>9.3f} {r['mem.read_latency_p99_ns']:>8.0f} "
                  f"{max(x['host.peak_rss_bytes'] for x in rs) / 2**20:>8.0f}")
        if len(sims) == 2 and sims[0] != sims[1]:
            both = sorted(set(sims[0]) & set(sims[1]))
            diff = [k for k in both if sims[0][k] != sims[1][k]]
            if diff:
                print(f"  WARNING: simulated results differ between the builds: {', '.join(diff[:8])}")
            only = sorted(set(sims[0]) ^ set(sims[1]))
            if only:  # stats one build has and the other not (added or removed stats), not a difference of results
                print(f"  note: stats in one build only: {', '.join(only[:8])}{' ...' if len(only) > 8 else ''}")


if __name__ == "__main__":
    main()
