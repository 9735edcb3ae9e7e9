#!/usr/bin/env python3
"""CTest driver for the per-technology memory stats (docs/memctrl.md "Technology ids").

  tech_stats_test.py sums STRATA OUTDIR KIND=TECH[+TECH...][,KIND=...] -- ARGS...
      run `strata ARGS`; for every KIND=TECHS pair: every mem.<tech>.{read_bytes,write_bytes,
      activations,energy_j,power_w} stat is there, some of them moved bytes, the techs' read and write
      bytes add up exactly to mem.<kind>.read_bytes / write_bytes and their energy to mem.<kind>.energy_j
      (to 1e-12 relative: a sum in another order), and no technology stat outside the list appears.
  tech_stats_test.py none STRATA OUTDIR -- ARGS...
      a run on one technology has no mem.<tech>.* stats (the default run's stats are unchanged).
"""
import json
import os
import shutil
import subprocess
import sys

TECHS = ["ddr3", "gddr5", "hbm2", "pcm", "sttram", "rram", "scm_slc", "scm_mlc", "scm_tlc"]
FIELDS = ["read_bytes", "write_bytes", "activations", "energy_j", "power_w"]


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, outdir, args):
    shutil.rmtree(outdir, ignore_errors=True)
    cmd = [strata, "--quiet", "--out", outdir, *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(os.path.join(outdir, "stats.json")) as f:
        return json.load(f)


def tech_stats(s):
    return sorted(k for k in s if k.split(".")[0] == "mem" and len(k.split(".")) == 3 and k.split(".")[1] in TECHS)


def sums(strata, outdir, spec, args):
    s = run(strata, outdir, args)
    listed = set()
    for pair in spec.split(","):
        kind, techs = pair.split("=")
        techs = techs.split("+")
        listed |= set(techs)
        for t in techs:
            for f in FIELDS:
                if f"mem.{t}.{f}" not in s:
                    fail(f"mem.{t}.{f} missing")
        for f in ["read_bytes", "write_bytes"]:
            got = sum(s[f"mem.{t}.{f}"] for t in techs)
            if got != s[f"mem.{kind}.{f}"]:
                fail(f"mem.{{{','.join(techs)}}}.{f} add up to {got}, mem.{kind}.{f} is {s[f'mem.{kind}.{f}']}")
        e = sum(s[f"mem.{t}.energy_j"] for t in techs)
        if abs(e - s[f"mem.{kind}.energy_j"]) > 1e-12 * s[f"mem.{kind}.energy_j"]:
            fail(f"technology energies add up to {e}, mem.{kind}.energy_j is {s[f'mem.{kind}.energy_j']}")
        if not all(s[f"mem.{t}.read_bytes"] + s[f"mem.{t}.write_bytes"] > 0 for t in techs):
            fail(f"a technology of {kind} moved no bytes: " +
                 ", ".join(f"{t} {s[f'mem.{t}.read_bytes']}+{s[f'mem.{t}.write_bytes']}" for t in techs))
    extra = [k for k in tech_stats(s) if k.split(".")[1] not in listed]
    if extra:
        fail("unexpected technology stats: " + ", ".join(extra))
    print("PASS: " + spec)


def none(strata, outdir, args):
    s = run(strata, outdir, args)
    if tech_stats(s):
        fail("technology stats on a one-technology run: " + ", ".join(tech_stats(s)))
    print("PASS: no technology stats")


def main():
    if "--" not in sys.argv:
        fail("usage: see the docstring")
    i = sys.argv.index("--")
    head, args = sys.argv[1:i], sys.argv[i + 1:]
    if head[0] == "sums" and len(head) == 4:
        sums(head[1], head[2], head[3], args)
    elif head[0] == "none" and len(head) == 3:
        none(head[1], head[2], args)
    else:
        fail("usage: see the docstring")


if __name__ == "__main__":
    main()
