#!/usr/bin/env python3
"""Measurement windows (sim.warmup_instructions, sim.max_instructions; issue 15).

  window_test.py STRATA OUTDIR WARMUP WINDOW -- ARGS...

Runs the same config and workload (ARGS) four ways -- F complete, S stopped at WARMUP warp instructions,
M with a warm-up of WARMUP, W with a warm-up of WARMUP and a window of WINDOW (twice) -- and checks:
  * the window is stats-only: M ends at F's simulated time, and every "delta" stat (stats.txt's window
    column) of S plus M equals F's, exactly for counts (the warm-up's stats plus the window's are the run's);
  * every "ratio" stat of M and W equals its numerator over its denominator in the window (IPC, miss rates,
    bandwidth, power, average latency recomputed from the window's own counts);
  * W covers exactly WINDOW warp instructions, stops with exit 0, sim.partial 1, sim.stop_reason 4,
    sim.window 1, says WINDOW in the summary, and is deterministic (the same stats twice, host.* aside);
  * W's L2 accesses are fewer than F's, its time series starts after the warm-up and counts from it;
  * the per-kernel stats (kernel.N.NAME.*) of F, M and W add up to the run's or the window's totals.
"""
import csv
import json
import os
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, out, args, expect=0):
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([strata, "--out", out] + args, capture_output=True, text=True)
    if r.returncode != expect:
        fail(f"{' '.join(args)}: exit {r.returncode}, expected {expect}\n{r.stdout}{r.stderr}")
    with open(os.path.join(out, "stats.json")) as f:
        s = json.load(f)
    kinds = {}
    with open(os.path.join(out, "stats.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            p = line.split()
            kinds[p[0]] = p[3]
    return s, kinds, r.stdout


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def main():
    sep = sys.argv.index("--")
    strata, outdir, warmup, window = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    args = sys.argv[sep + 1:] + ["--quiet"]
    os.makedirs(outdir, exist_ok=True)
    F, kinds, _ = run(strata, os.path.join(outdir, "F"), args)
    S, _, _ = run(strata, os.path.join(outdir, "S"), args + ["--set", f"sim.max_instructions={warmup}"])
    M, _, _ = run(strata, os.path.join(outdir, "M"), args + ["--set", f"sim.warmup_instructions={warmup}"])
    wargs = [x for x in args if x != "--quiet"] + ["--set", f"sim.warmup_instructions={warmup}",
                                                   "--set", f"sim.max_instructions={window}"]
    W, _, summary = run(strata, os.path.join(outdir, "W"), wargs)
    W2, _, _ = run(strata, os.path.join(outdir, "W2"), wargs + ["--quiet"])

    if F["gpu.warp_instructions"] <= warmup + window:
        fail(f"the workload ({F['gpu.warp_instructions']} warp instructions) is too short for this test")
    for k in ("delta", "ratio", "level"):
        if k not in kinds.values():
            fail(f"stats.txt names no '{k}' stat")

    # The window is stats-only: the simulation is the same.
    if not close(M["sim.window_start_seconds"] + M["sim.seconds"], F["sim.seconds"], 1e-12):
        fail(f"warm-up run ends at {M['sim.window_start_seconds'] + M['sim.seconds']} s, the full run at "
             f"{F['sim.seconds']} s: the window changed the simulation")
    if M["gpu.warp_instructions"] != F["gpu.warp_instructions"] - warmup:
        fail(f"warm-up run: {M['gpu.warp_instructions']} warp instructions, expected "
             f"{F['gpu.warp_instructions']} - {warmup}")
    ndelta = 0
    for k, kind in kinds.items():
        if kind != "delta" or k.startswith("host."):
            continue
        ndelta += 1
        if k == "sim.seconds":
            continue  # checked above (S stops at the mark's time, M starts there)
        if not close(S[k] + M[k], F[k]):
            fail(f"{k}: warm-up {S[k]} + window {M[k]} != whole run {F[k]}")
    for name, s in (("M", M), ("W", W)):
        checks = [("gpu.ipc", s["gpu.instructions"] / s["gpu.cycles"]),
                  ("l2.miss_rate", s["l2.misses"] / s["l2.accesses"]),
                  ("l1.miss_rate", s["l1.misses"] / s["l1.accesses"]),
                  ("mem.bandwidth_gbps", (s["mem.read_bytes"] + s["mem.write_bytes"]) / s["sim.seconds"] / 1e9),
                  ("mem.power_w", s["mem.energy_j"] / s["sim.seconds"]),
                  ("mem.ch0.power_w", s["mem.ch0.energy_j"] / s["sim.seconds"])]
        for k, want in checks:
            if kinds[k] != "ratio" or not close(s[k], want):
                fail(f"{name}: {k} = {s[k]} ({kinds[k]}), expected {want} from the window's own counts")
        if s["sim.window"] != 1 or s["sim.warmup_warp_instructions"] != warmup or s["sim.window_start_seconds"] <= 0:
            fail(f"{name}: sim.window {s['sim.window']}, sim.warmup_warp_instructions "
                 f"{s['sim.warmup_warp_instructions']}, sim.window_start_seconds {s['sim.window_start_seconds']}")
    for name, s in (("M", M), ("W", W), ("F", F)):  # per-kernel stats cover the window and add up to it
        for stat, total in (("warp_instructions", "gpu.warp_instructions"), ("cycles", "gpu.cycles"),
                            ("l1_accesses", "l1.accesses")):
            ks = sum(v for k, v in s.items() if k.startswith("kernel.") and k.endswith("." + stat))
            if ks != s[total]:
                fail(f"{name}: kernel.*.{stat} add up to {ks}, {total} is {s[total]}")
    if F["sim.window"] != 0 or F["sim.window_start_seconds"] != 0:
        fail("a run without a window must say sim.window 0")
    if M["sim.partial"] != 0 or M["sim.stop_reason"] != 0:
        fail("a warm-up run that completes is not partial")

    # The window: exact length, a requested stop, clearly marked, deterministic.
    if W["gpu.warp_instructions"] != window:
        fail(f"window covers {W['gpu.warp_instructions']} warp instructions, expected {window}")
    if W["sim.partial"] != 1 or W["sim.stop_reason"] != 4:
        fail(f"window: sim.partial {W['sim.partial']}, sim.stop_reason {W['sim.stop_reason']}, expected 1 and 4")
    if "instruction limit" not in summary or "WINDOW" not in summary or "not a completed program" not in summary:
        fail("the summary must say the run is an instruction window:\n" + summary)
    if not W["l2.accesses"] < F["l2.accesses"] or not W["l2.accesses"] < M["l2.accesses"]:
        fail(f"window l2.accesses {W['l2.accesses']} not below the full run's {F['l2.accesses']}")
    diff = [k for k in W if not k.startswith("host.") and W[k] != W2.get(k)]
    if diff:
        fail(f"two identical window runs differ in {diff[:5]}")

    # Time series: from the window's start, instructions counted from there.
    with open(os.path.join(outdir, "W", "timeseries.csv")) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        fail("window run wrote no time series")
    t0 = float(rows[0]["time_ns"]) * 1e-9
    if t0 <= W["sim.window_start_seconds"]:
        fail(f"time series starts at {t0} s, before the window ({W['sim.window_start_seconds']} s)")
    last = float(rows[-1]["gpu.instructions"])
    if not 0 < last <= W["gpu.instructions"]:
        fail(f"time series gpu.instructions {last} not within the window's {W['gpu.instructions']}")
    print(f"ok: {ndelta} delta stats add up (warm-up + window = run); window of {window} warp instructions after "
          f"{warmup}: IPC {W['gpu.ipc']:.2f} (whole run {F['gpu.ipc']:.2f}), l2.accesses {W['l2.accesses']:.0f} "
          f"of {F['l2.accesses']:.0f}, deterministic")


if __name__ == "__main__":
    main()
