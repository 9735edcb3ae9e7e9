#!/usr/bin/env python3
"""CTest driver for the hybrid graphics memory's migration policy (memside.policy = hgm, docs/hybrid_graphics.md).

  hgm_test.py STRATA OUTDIR -- ARGS...

Runs ARGS (configs/hybrid_graphics with a workload whose rows are used, left idle and used again, under --check)
twice and checks: exit 0 with the golden-memory checker clean (every move to RRAM or STT-RAM, every NVM read and
every move back before a GPU write keeps the data); rows moved both ways and to both NVM ranks; GPU reads served by
NVM; gated rows woken; the NVM ranks' background energy from the powered rows only (per-row gating), above 0 and
below half the ungated rank's; memside.moved_bytes = 2 KiB per move and memside.moves = the policy's migrations; no more
rows back than out; the two runs identical (host.* aside). With mem.leakage = capacity the same timing and each
rank's background energy scaled by its capacity (the 128 MiB GDDR5 rank: as its preset; STT-RAM rows: a 16th); the
GDDR5 channel's empty second slot takes no request and draws nothing. Then with memside.hgm.min_intensity = 1 (no period is that busy) nothing moves and every period counts as
disabled.
"""
import json
import os
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, out, args):
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([strata, "--quiet", "--out", out, "--check", *args], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    with open(os.path.join(out, "stats.json")) as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("host.")}


def main(argv):
    sep = argv.index("--")
    strata, out = argv[1], argv[2]
    args = argv[sep + 1:]
    base = args + ["--set", "mem.leakage=rank"]  # per-rank figures first; capacity below
    a = run(strata, os.path.join(out, "a"), base)
    b = run(strata, os.path.join(out, "b"), base)
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    if diff:
        fail(f"two runs differ in {diff[:10]}")
    # the GDDR5 channel's second slot is empty ('none'): no request, no refresh, no energy
    for c in range(0, 32, 2):
        for k in ("read_atoms", "write_atoms", "activations", "energy_j"):
            if a.get(f"mem.ch{c}.rank1.{k}") != 0:
                fail(f"mem.ch{c}.rank1.{k} = {a.get(f'mem.ch{c}.rank1.{k}')}: the empty rank slot was used")
        if a.get(f"mem.ch{c}.rank1.device.none") != 1:
            fail(f"mem.ch{c} rank 1 is not the empty slot")
    for k in ("hgm.migrations_to_rram", "hgm.migrations_to_stt", "hgm.migrations_to_dram", "hgm.nvm_reads",
              "hgm.wakeups", "hgm.gated_row_ns", "hgm.powered_row_ns"):
        if a.get(k, 0) <= 0:
            fail(f"{k} = {a.get(k)}, expected > 0")
    moves = a["hgm.migrations_to_rram"] + a["hgm.migrations_to_stt"] + a["hgm.migrations_to_dram"]
    if a["memside.moves"] != moves:
        fail(f"memside.moves {a['memside.moves']} != the policy's {moves} migrations")
    if a["memside.moved_bytes"] != 2048 * moves:
        fail(f"memside.moved_bytes {a['memside.moved_bytes']} != 2048 x {moves}")
    if a["hgm.migrations_to_dram"] > a["hgm.migrations_to_rram"] + a["hgm.migrations_to_stt"]:
        fail("more rows moved back to DRAM than moved out")
    if not 0 < a["hgm.gated_fraction"] <= 1:
        fail(f"hgm.gated_fraction {a['hgm.gated_fraction']}")
    # per-row gating: each NVM rank leaks bg_mw x its powered row-time / its rows, far below the whole rank's
    full = {0: 0.096, 1: 0.074}  # W: rram and sttram bg_mw (dram.c: 48 % and 37 % of gddr5_1000's 200 mW)
    nvm_bg = 0.0
    for c in range(1, 32, 2):
        for r, w in full.items():
            bg = a[f"mem.ch{c}.rank{r}.energy.bg_j"]
            if not 0 <= bg < 0.5 * w * a["sim.seconds"]:
                fail(f"mem.ch{c}.rank{r}.energy.bg_j {bg} J: not below half the ungated {w * a['sim.seconds']} J")
            nvm_bg += bg
    if nvm_bg <= 0:
        fail("the NVM ranks' background energy is 0 with rows in NVM")
    # leakage per capacity (mem.leakage = capacity): no timing moves; the 128 MiB GDDR5 rank leaks its preset's
    # 128 MiB figure, the empty slot beside it nothing; a powered NVM row leaks bg_mw x 2 KiB / 128 MiB, which is the per-rank share on the
    # 128 MiB RRAM rank and a 16th of it on the 8 MiB STT-RAM rank
    cap = run(strata, os.path.join(out, "cap"), args + ["--set", "mem.leakage=capacity"])
    for k in ("gpu.cycles", "memside.moves", "hgm.nvm_reads", "hgm.powered_row_ns", "mem.read_bytes"):
        if cap.get(k) != a.get(k):
            fail(f"mem.leakage = capacity changed {k}: {a.get(k)} -> {cap.get(k)}")
    for c in range(32):
        for r in (0, 1):
            k = f"mem.ch{c}.rank{r}.energy.bg_j"
            want = a[k] * (1.0 if c % 2 == 0 else 1.0 if r == 0 else 1.0 / 16)
            if abs(cap[k] - want) > 1e-9 * max(want, 1e-12):
                fail(f"mem.leakage = capacity: {k} {cap[k]} J, expected {want} J (from {a[k]} J per rank)")
    # the system figures (gpu_power.enabled in the config): parts add up, system = GPU + memory, IPS / W
    parts = sum(cap[f"gpu.power_w.{p}"] for p in ("core", "cache", "noc", "mc"))
    checks = [("gpu.power_w", parts), ("sys.power_w", cap["gpu.power_w"] + cap["mem.power_w"]),
              ("sim.ips", cap["gpu.instructions"] / cap["sim.seconds"]),
              ("sim.ips_per_w", cap["sim.ips"] / cap["sys.power_w"])]
    for k, want in checks:
        if not cap.get(k, 0) > 0 or abs(cap[k] - want) > 1e-9 * want:
            fail(f"{k} = {cap.get(k)}, expected {want}")
    off = run(strata, os.path.join(out, "off"), args + ["--set", "memside.hgm.min_intensity=1"])
    if off["memside.moves"] != 0 or off["hgm.nvm_reads"] != 0 or off["hgm.migration_disabled_ns"] <= 0:
        fail(f"min_intensity = 1: {off['memside.moves']} moves, {off['hgm.nvm_reads']} NVM reads, "
             f"{off['hgm.migration_disabled_ns']} ns disabled")
    print(f"ok: {a['hgm.migrations_to_rram']} rows to RRAM, {a['hgm.migrations_to_stt']} to STT-RAM, "
          f"{a['hgm.migrations_to_dram']} back, {a['hgm.nvm_reads']} NVM reads, {a['hgm.wakeups']} wake-ups, "
          f"gated {a['hgm.gated_fraction']:.3f}; off: {off['hgm.migration_disabled_ns']} ns disabled")


if __name__ == "__main__":
    main(sys.argv)
