#!/usr/bin/env python3
"""Progress reports and per-kernel stats (issue 14).

  progress_test.py heartbeat STRATA OUTDIR          stderr not a terminal: --heartbeat S prints one progress line
                                                   every S host seconds (percentage never falling, kernel n of N,
                                                   ETA, L2 and controller requests); --heartbeat 0 and --quiet
                                                   print none; the summary names controller requests as they do
  progress_test.py kernel-stats STRATA OUTDIR ACCELSIM_TRACE
                                                   kernel.<n>.<name>.* for each launch of bfs (several levels) and
                                                   of a three-kernel Accel-Sim trace: one set per launch, in order,
                                                   summing to gpu.cycles, gpu.instructions, ...; also for a run
                                                   stopped by sim.max_time_us (the running kernel counts)
"""
import json
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, outdir, args):
    shutil.rmtree(outdir, ignore_errors=True)
    p = subprocess.run([strata, "--out", outdir, *args], capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        fail(f"strata {' '.join(args)}: exit {p.returncode}: {p.stderr}")
    with open(os.path.join(outdir, "stats.json")) as f:
        return p, json.load(f)


HEARTBEAT = re.compile(r"^\[strata\] host (\d+) s: ([0-9.]+) us simulated, ([0-9.]+)% done \(kernel (\d+) of (\d+)\), "
                       r"ETA (\d+ s|\?), \S+ inst, \S+ L2 req, \S+ ctrl req \(\S+ ctrl req/s\)$")


def heartbeat(strata, outdir):
    # bfs: kernels of very different sizes, for about a second of host time
    args = ["--workload", "bfs", "--set", "workload.bfs.scale=14"]
    p, s = run(strata, outdir + "/hb", [*args, "--heartbeat", "0.02"])
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    beats = [HEARTBEAT.match(l) for l in lines]
    if not lines or not all(beats):
        fail(f"stderr lines that are not heartbeats: {[l for l, m in zip(lines, beats) if not m]}")
    if len(beats) < 3:
        fail(f"{len(beats)} heartbeat lines in {s['host.seconds']:.2f} s of host time at one per 0.02 s")
    pct = [float(m.group(3)) for m in beats]
    us = [float(m.group(2)) for m in beats]
    if pct != sorted(pct) or us != sorted(us) or pct[-1] <= pct[0] or pct[-1] > 100:
        fail(f"progress does not grow: {pct} % at {us} us")
    kernels = [int(m.group(4)) for m in beats]
    if kernels != sorted(kernels) or any(int(m.group(5)) != s["gpu.kernels"] for m in beats):
        fail(f"kernel n of N: {[(m.group(4), m.group(5)) for m in beats]}, the run had {s['gpu.kernels']} kernels")
    if "ctrl req/s (memory-controller requests per host second)" not in p.stdout:
        fail(f"the summary does not name controller requests as the heartbeat does: {p.stdout!r}")
    print(f"ok: {len(beats)} heartbeat lines, {pct[0]:.1f}% .. {pct[-1]:.1f}%, kernels {kernels[0]}..{kernels[-1]}")
    for extra in (["--heartbeat", "0"], ["--heartbeat", "0.05", "--quiet"]):
        p, _ = run(strata, outdir + "/quiet", [*args, *extra])
        if p.stderr.strip():
            fail(f"{' '.join(extra)}: expected no progress on stderr, got {p.stderr!r}")
    print("ok: --heartbeat 0 and --quiet print nothing on stderr")
    err = subprocess.run([strata, "--out", outdir + "/bad", "--heartbeat", "-1"], capture_output=True, text=True)
    if err.returncode != 2 or len(err.stderr.strip().splitlines()) != 1:
        fail(f"--heartbeat -1: exit {err.returncode}, {err.stderr!r}")
    print("ok: --heartbeat -1 is bad input")


FIELDS = {"cycles": "gpu.cycles", "instructions": "gpu.instructions", "warp_instructions": "gpu.warp_instructions",
          "mem_requests": "gpu.mem_requests", "l1_accesses": "l1.accesses", "l1_misses": "l1.misses"}


def check_kernels(s, where, names=None):
    per = {}
    for k, v in s.items():
        m = re.fullmatch(r"kernel\.(\d+)\.(\w+)\.(\w+)", k)
        if m:
            per.setdefault(int(m.group(1)), {"name": m.group(2)})[m.group(3)] = v
    n = len(per)
    if n < 2 or sorted(per) != list(range(1, n + 1)):
        fail(f"{where}: kernel launches numbered {sorted(per)}")
    if names is not None and [per[i]["name"] for i in range(1, n + 1)] != names:
        fail(f"{where}: kernel names {[per[i]['name'] for i in range(1, n + 1)]}, expected {names}")
    for f, total in FIELDS.items():
        got = sum(per[i][f] for i in per)
        if got != s[total]:
            fail(f"{where}: the kernels' {f} sum to {got}, {total} = {s[total]}")
    start = 0
    for i in range(1, n + 1):
        k = per[i]
        if k["start_cycle"] != start:
            fail(f"{where}: kernel {i} starts at cycle {k['start_cycle']}, the previous ones end at {start}")
        start += k["cycles"]
        if k["cycles"] and abs(k["ipc"] - k["instructions"] / k["cycles"]) > 1e-9 * k["ipc"]:
            fail(f"{where}: kernel {i}: ipc {k['ipc']} is not instructions / cycles")
    if all(per[i]["instructions"] == per[1]["instructions"] for i in per):
        fail(f"{where}: every kernel has the same instruction count: not per kernel")
    return n


def kernel_stats(strata, outdir, trace):
    _, s = run(strata, outdir + "/bfs", ["--quiet", "--workload", "bfs", "--set", "workload.bfs.scale=12"])
    n = check_kernels(s, "bfs")
    if n != s["gpu.kernels"]:
        fail(f"bfs: {n} kernel stat sets, gpu.kernels = {s['gpu.kernels']}")
    print(f"ok: bfs: {n} kernels, per-kernel stats sum to the totals")
    _, s = run(strata, outdir + "/accelsim", ["--quiet", "--trace", trace])
    n = check_kernels(s, "accelsim", ["k1_v3_modes", "k2_v4_lineinfo", "k3_v5_imm"])
    print(f"ok: Accel-Sim trace: {n} kernels named as traced, sums equal the totals")
    _, s = run(strata, outdir + "/limit", ["--quiet", "--workload", "bfs", "--set", "workload.bfs.scale=12",
                                           "--set", "sim.max_time_us=135"])
    if s["sim.partial"] != 1:
        fail("bfs with sim.max_time_us=135 was expected to stop early")
    n = check_kernels(s, "bfs stopped at 135 us")
    if n != s["gpu.kernels"] + 1:
        fail(f"stopped run: {n} kernel stat sets, expected the {s['gpu.kernels']} ended ones and the running one")
    print(f"ok: a run stopped by sim.max_time_us: {n} kernels (the last one partial), sums equal the totals")


def main():
    mode = sys.argv[1]
    if mode == "heartbeat":
        heartbeat(sys.argv[2], sys.argv[3])
    elif mode == "kernel-stats":
        kernel_stats(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
