#!/usr/bin/env python3
"""Write synthetic DRAM request traces for `strata memtrace` (benchmarks and tests).

usage: gen_memtrace.py OUT --pattern seq|random --count N [--bytes 64] [--read-frac 0.6667]
                       [--format addr|stl|dramsim3] [--footprint BYTES] [--seed S] [--interval CYCLES]

seq: consecutive request-sized blocks; random: uniform block addresses over the footprint.
Reads and writes are mixed by a seeded generator (read-frac of them reads). Timestamps (stl,
dramsim3) advance by --interval cycles per request (0 = all at cycle 0: as fast as accepted).
"""
import argparse
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--pattern", choices=["seq", "random"], required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--bytes", type=int, default=64)
    ap.add_argument("--read-frac", type=float, default=2.0 / 3.0)
    ap.add_argument("--format", choices=["addr", "stl", "dramsim3"], default="addr")
    ap.add_argument("--footprint", type=int, default=1 << 32)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--interval", type=int, default=0)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    blocks = a.footprint // a.bytes
    lines = []
    for i in range(a.count):
        addr = (i % blocks if a.pattern == "seq" else rng.randrange(blocks)) * a.bytes
        rd = rng.random() < a.read_frac
        t = i * a.interval
        if a.format == "addr":
            lines.append(f"0x{addr:x} {'R' if rd else 'W'}")
        elif a.format == "stl":
            lines.append(f"{t}:\t{'read' if rd else 'write'}\t0x{addr:x}")
        else:
            lines.append(f"0x{addr:x} {'READ' if rd else 'WRITE'} {t}")
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
