#!/usr/bin/env python3
"""Every size and count key at its documented maximum (and minimum): never a crash, an abort or a silent
wrap (issue 23: `--set l2.size=4GiB` aborted with "cache: size 0 bytes", a 32-bit truncation).

  limits_test.py STRATA WORKDIR

Reads each Int and Size key's range from `strata --list-keys` ("...; in [4 KiB, 64 GiB]") and runs a
short simulation (sim.max_time_us = 1, a tiny stream) with the key at its maximum and at its minimum.
Each must exit 0 (and config.txt must hold the value set: nothing truncated on the way), or exit 2 with
one line naming a key (a rule that ties the key to others, such as l2.banks a multiple of the memory partitions).
Any other exit status, a signal, "terminate called", a traceback or a second stderr line is a failure.
l2.size at 4 GiB (the issue's reproducer) must run (exit 0).
"""
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "PiB": 1 << 50, "EiB": 1 << 60}
BASE = ["--workload", "stream", "--set", "workload.stream.n=1024", "--set", "sim.max_time_us=1", "--quiet"]


def bound(text):
    """'64 GiB' -> ('64GiB', bytes); '4096' -> ('4096', 4096); None for a non-integer bound."""
    m = re.fullmatch(r"(\d+) (B|KiB|MiB|GiB|TiB|PiB|EiB)", text)
    if m:
        return m.group(1) + ("" if m.group(2) == "B" else m.group(2)), int(m.group(1)) * UNITS[m.group(2)]
    if re.fullmatch(r"-?\d+", text):
        return text, int(text)
    return None


def keys(strata):
    p = subprocess.run([strata, "--list-keys"], capture_output=True, text=True, check=True)
    out = []
    for line in p.stdout.splitlines():
        m = re.match(r"(\S+)\s+default .*; in \[([^,\]]+), ([^\]]+)\]$", line)
        if not m:
            continue
        lo, hi = bound(m.group(2)), bound(m.group(3))
        if lo and hi:
            out.append((m.group(1), lo, hi))
    return out


def one(strata, work, key, text, value):
    out = os.path.join(work, re.sub(r"[^A-Za-z0-9_.-]", "_", f"{key}={text}"))
    shutil.rmtree(out, ignore_errors=True)
    try:
        p = subprocess.run([strata, "--out", out, *BASE, "--set", f"{key}={text}"], capture_output=True, text=True,
                           timeout=120)
    except subprocess.TimeoutExpired:
        return f"{key}={text}: no answer in 120 s"
    err = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode == 2:
        if len(err) != 1 or "key '" not in err[0] or "Traceback" in p.stderr:
            return f"{key}={text}: exit 2 without one line naming a key: {p.stderr.strip()[-300:]!r}"
        return None
    if p.returncode != 0:
        return f"{key}={text}: exit {p.returncode}: {p.stderr.strip()[-300:]!r}"
    with open(os.path.join(out, "config.txt")) as f:
        got = next((l.split("=", 1)[1].split("#")[0].strip().strip('"') for l in f if l.startswith(key + " = ")), None)
    ok = got is not None and (got == text or bound_of_config(got) == value)
    shutil.rmtree(out, ignore_errors=True)
    return None if ok else f"{key}={text}: config.txt holds {got!r}"


def bound_of_config(text):
    m = re.fullmatch(r"(\d+)\s*(B|KiB|MiB|GiB|TiB|PiB|EiB)?", text)
    return int(m.group(1)) * UNITS[m.group(2) or "B"] if m else None


def main():
    strata, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    ks = keys(strata)
    if len(ks) < 30:
        print(f"FAIL: only {len(ks)} keys with an integer range in --list-keys")
        return 1
    cases = [(k, hi[0], hi[1]) for k, lo, hi in ks] + [(k, lo[0], lo[1]) for k, lo, hi in ks]
    with ThreadPoolExecutor(max_workers=2) as ex:
        res = list(ex.map(lambda c: one(strata, work, *c), cases))
    bad = [r for r in res if r]
    p = subprocess.run([strata, "--out", os.path.join(work, "l2_4gib"), *BASE, "--set", "l2.size=4GiB", "--force"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        bad.append(f"l2.size=4GiB: exit {p.returncode}: {p.stderr.strip()[-300:]!r}")
    for b in bad:
        print("FAIL: " + b)
    print(f"limits: {len(ks)} keys at their maximum and minimum, {len(bad)} failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
