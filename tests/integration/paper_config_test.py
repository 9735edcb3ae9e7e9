#!/usr/bin/env python3
"""A shipped config holds its paper's parameters (the effective configuration a run records).

  paper_config_test.py STRATA OUTDIR CONFIG KEY=VALUE... -- RUN_ARGS...

Runs CONFIG with RUN_ARGS (a tiny workload) and checks that config.txt in the run's folder gives every
KEY the VALUE the paper states (as config.txt prints it). The HAC case pins Table I of
shared/papers/hac-l2-for-hybrid-memory.txt on configs/hac_gtx480_hybrid: 15 SMs at 700 MHz, 1024 threads
= 32 warps per SM (issue 15: Fermi's 48 warps had been used and hid memory latency, docs/hac.md
"Calibration"), 12 channels, a 768 KB 16-way L2 with FR-FCFS, a GDDR5 and a PCM rank per channel.
"""
import os
import shutil
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    sep = argv.index("--")
    strata, out, config = argv[0], argv[1], argv[2]
    want = dict(kv.split("=", 1) for kv in argv[3:sep])
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([strata, "--quiet", "--out", out, "--config", config] + argv[sep + 1:],
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"FAIL: strata exit {r.returncode}\n{r.stdout}{r.stderr}")
        return 1
    got = {}
    with open(os.path.join(out, "config.txt")) as f:
        for line in f:
            if line.startswith("#") or "=" not in line:
                continue
            key, rest = line.split("=", 1)
            got[key.strip()] = rest.split("#", 1)[0].strip().strip('"')
    bad = [f"{k} = {got.get(k, '(missing)')}, the paper: {v}" for k, v in want.items() if got.get(k) != v]
    if bad:
        print(f"FAIL: {config}:\n  " + "\n  ".join(bad))
        return 1
    print(f"ok: {config}: {len(want)} keys as the paper states")
    return 0


if __name__ == "__main__":
    sys.exit(main())
