#!/usr/bin/env python3
"""Fast-forward error and speed (issue 24 item 5; docs/performance.md "Fast-forward"). Not a test.

For each workload, one measurement window of M warp instructions that starts after S warp instructions,
simulated three ways, and the window's stats compared:
  detailed  the whole program detailed; sim.warmup_instructions = S, sim.max_instructions = M (the reference)
  ff        sim.fast_forward_instructions = S - D (L1s and L2 warmed), then D detailed (sim.warmup_instructions
            = D), then the window
  cold      the same with sim.fast_forward_warm = false (caches cold after the fast-forward)
and, for speed, the fast-forward's warp instructions per host second against the detailed run's.
S defaults to 60 % of the program's warp instructions, M to 20 %, D to 2 %.

Usage: ff_error.py STRATA [--config NAME] [--workload W ...] [--set KEY=VALUE ...] [--start F] [--window F]
       [--detail F] [--markdown]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

METRICS = [  # (stat, label, kind): rel = relative error, abs = absolute difference (rates in 0..1)
    ("gpu.ipc", "IPC", "rel"),
    ("l2.hit_rate", "L2 hit rate", "abs"),
    ("mem.bandwidth_gbps", "DRAM GB/s", "rel"),
    ("mem.row_hit_rate", "row hit rate", "abs"),
    ("mem.avg_read_latency_ns", "read latency", "rel"),
]
DEFAULT_WORKLOADS = ["stream", "stencil2d", "kmeans", "hotspot3d", "srad", "bfs"]


def run(strata, config, wl, sets, out):
    cmd = [strata, "--quiet", "--force", "--config", config, "--workload", wl, "--out", out]
    for s in sets:
        cmd += ["--set", s]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"ff_error.py: {' '.join(cmd)} failed (exit status {p.returncode}): {p.stderr.strip()}")
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)


def err(kind, ref, x):
    if kind == "abs":
        return x - ref
    return (x - ref) / ref if ref else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strata")
    ap.add_argument("--config", default="baseline_hbm2")
    ap.add_argument("--workload", action="append")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--start", type=float, default=0.6, help="window start, share of the program's warp instructions")
    ap.add_argument("--window", type=float, default=0.2, help="window length, share")
    ap.add_argument("--detail", type=float, default=0.02, help="detailed warm-up after the fast-forward, share")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for wl in a.workload or DEFAULT_WORKLOADS:
            full = run(a.strata, a.config, wl, a.set, os.path.join(d, "full"))
            n = int(full["gpu.warp_instructions"])
            s, m, dd = int(n * a.start), int(n * a.window), int(n * a.detail)
            ref = run(a.strata, a.config, wl, a.set + [f"sim.warmup_instructions={s}", f"sim.max_instructions={m}"],
                      os.path.join(d, "ref"))
            ffs = a.set + [f"sim.fast_forward_instructions={s - dd}", f"sim.warmup_instructions={dd}",
                           f"sim.max_instructions={m}"]
            ff = run(a.strata, a.config, wl, ffs, os.path.join(d, "ff"))
            cold = run(a.strata, a.config, wl, ffs + ["sim.fast_forward_warm=false"], os.path.join(d, "cold"))
            det_rate = n / full["host.seconds"]
            ff_rate = ff["host.fast_forward_warp_instructions_per_second"]
            rows.append((wl, n, ref, ff, cold, det_rate, ff_rate,
                         full["host.seconds"], ref["host.seconds"] + ref["host.setup_seconds"],
                         ff["host.seconds"] + ff["host.setup_seconds"]))
    if a.markdown:
        print("| workload | warp insts | " + " | ".join(f"{lab} ref / ff / cold" for _, lab, _ in METRICS) +
              " | ff speed (warp insts/s) | x detailed |")
        print("|---|---:|" + "---:|" * len(METRICS) + "---:|---:|")
    for wl, n, ref, ff, cold, det_rate, ff_rate, *_ in rows:
        cells = []
        for st, lab, kind in METRICS:
            r, f, c = ref.get(st, 0.0), ff.get(st, 0.0), cold.get(st, 0.0)
            if kind == "abs":
                cells.append(f"{r:.3f} / {err(kind, r, f):+.3f} / {err(kind, r, c):+.3f}")
            else:
                cells.append(f"{r:.4g} / {100 * err(kind, r, f):+.1f} % / {100 * err(kind, r, c):+.1f} %")
        if a.markdown:
            print(f"| {wl} | {n} | " + " | ".join(cells) + f" | {ff_rate:.3g} | {ff_rate / det_rate:.1f} |")
        else:
            print(f"{wl:12s} {n:9d}  " + "  ".join(f"{lab}: {c}" for (_, lab, _), c in zip(METRICS, cells)) +
                  f"  ff {ff_rate:.3g}/s = {ff_rate / det_rate:.1f}x detailed")


if __name__ == "__main__":
    main()
