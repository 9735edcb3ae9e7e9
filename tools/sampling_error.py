#!/usr/bin/env python3
"""Kernel sampling error and speed-up (issue 24 item 5; docs/performance.md "Kernel sampling"). Not a test.

Each case runs twice: all launches detailed (the reference), and with sim.kernel_sampling = true (the first
sim.kernel_sampling_detailed launches of each signature detailed, the rest functional and extrapolated). It
compares the sampled run's whole-program estimate with the reference: sampling.est_cycles against gpu.cycles
(runtime), sampling.est_ipc against gpu.ipc, and host seconds (setup included) for the speed-up. Prints one row
per case, then the geometric mean of |error| (each error's magnitude, floored at 0.01 % so an exact case does not
zero the mean) and the worst case.

Cases: built-in workloads (--workload W, with --set for their sizes) on --config, and the [[workloads]] of an
experiment spec (--spec FILE [--design NAME]: its CUDA programs with their args, built-ins with their sets, on
the design's config and sets; CUDA programs from BUILD/workloads/cuda/bin).

Usage: sampling_error.py STRATA [--config NAME] [--workload W ...] [--set KEY=VALUE ...]
       [--spec FILE [--design NAME]] [--detailed N] [--markdown]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import tomllib


def run(strata, base, out, sets):
    cmd = [strata] + base[0] + ["--quiet", "--force", "--out", out]
    for s in sets:
        cmd += ["--set", s]
    cmd += base[1]
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"sampling_error.py: {' '.join(cmd)} failed (exit status {p.returncode}): {p.stderr.strip()}")
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)


def cases(a):
    out = []
    for w in a.workload or []:
        out.append((w, (["--config", a.config, "--workload", w], []), list(a.set)))
    if a.spec:
        with open(a.spec, "rb") as f:
            spec = tomllib.load(f)
        designs = spec.get("designs", [])
        d = next((x for x in designs if x["name"] == a.design), designs[0] if designs else {"config": a.config})
        cfg = d.get("config", a.config)
        dsets = list(d.get("set", [])) + list(a.set)
        bindir = os.path.join(os.path.dirname(os.path.abspath(a.strata)), "workloads", "cuda", "bin")
        for w in spec.get("workloads", []):
            if "cuda" in w:
                name = os.path.splitext(os.path.basename(w["cuda"]))[0]
                out.append((name + " (CUDA)", (["cuda", "run", os.path.join(bindir, name), "--config", cfg],
                                               ["--"] + [str(x) for x in w.get("args", [])]),
                            dsets + list(w.get("set", []))))
            else:
                out.append((w["name"], (["--config", cfg, "--workload", w["name"]], []), dsets + list(w.get("set", []))))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("strata")
    ap.add_argument("--config", default="baseline_hbm2")
    ap.add_argument("--workload", action="append")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--spec")
    ap.add_argument("--design")
    ap.add_argument("--detailed", type=int, default=1, help="sim.kernel_sampling_detailed")
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for label, base, sets in cases(a):
            full = run(a.strata, base, os.path.join(d, "full"), sets)
            smp = run(a.strata, base, os.path.join(d, "smp"),
                      sets + ["sim.kernel_sampling=true", f"sim.kernel_sampling_detailed={a.detailed}"])
            launches = int(smp["sampling.detailed_launches"] + smp["sampling.functional_launches"])
            ec = smp["sampling.est_cycles"] / full["gpu.cycles"] - 1
            ei = smp["sampling.est_ipc"] / full["gpu.ipc"] - 1 if full["gpu.ipc"] else 0.0
            hf = full["host.seconds"] + full["host.setup_seconds"]
            hs = smp["host.seconds"] + smp["host.setup_seconds"]
            rows.append((label, launches, int(smp["sampling.signatures"]), int(smp["sampling.functional_launches"]),
                         full["gpu.cycles"], ec, ei, hf, hs))
    if a.markdown:
        print("| case | launches | signatures | functional | cycles (detailed) | est. cycles error | est. IPC error "
              "| host s detailed / sampled | speed-up |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, n, sg, fn, cyc, ec, ei, hf, hs in rows:
        if a.markdown:
            print(f"| {label} | {n} | {sg} | {fn} | {cyc:.0f} | {100 * ec:+.2f} % | {100 * ei:+.2f} % "
                  f"| {hf:.2f} / {hs:.2f} | {hf / hs:.1f} |")
        else:
            print(f"{label:24s} launches {n:4d} signatures {sg:3d} functional {fn:4d}  cycles {cyc:10.0f}  "
                  f"error cycles {100 * ec:+6.2f} %  IPC {100 * ei:+6.2f} %  host {hf:7.2f} s -> {hs:7.2f} s "
                  f"({hf / hs:.1f}x)")
    if rows:
        g = math.exp(sum(math.log(max(abs(r[5]), 1e-4)) for r in rows) / len(rows))
        worst = max(rows, key=lambda r: abs(r[5]))
        speed = math.exp(sum(math.log(r[7] / r[8]) for r in rows) / len(rows))
        print(("\n" if a.markdown else "") +
              f"geomean |cycles error| {100 * g:.2f} %, worst {worst[0]} {100 * worst[5]:+.2f} %, "
              f"geomean speed-up {speed:.2f}x over {len(rows)} cases")


if __name__ == "__main__":
    main()
