#!/usr/bin/env python3
"""Summarise a Verilator coverage.dat: covered/total points per kind (line, toggle,
branch, ...) and per RTL file. Usage: cov_summary.py coverage.dat"""
import collections
import re
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: cov_summary.py coverage.dat")
    tot = collections.Counter()
    hit = collections.Counter()
    for line in open(sys.argv[1], encoding="latin-1"):
        m = re.match(r"C '(.*)' (\d+)$", line.rstrip("\n"))
        if not m:
            continue
        fields = dict(kv.split("\x02", 1) for kv in m.group(1).split("\x01") if "\x02" in kv)
        kind = fields.get("page", "?").split("/")[0]
        f = fields.get("f", "?").split("/")[-1]
        for key in ((kind, "all"), (kind, f)):
            tot[key] += 1
            hit[key] += int(m.group(2)) > 0
    for key in sorted(tot):
        pct = 100.0 * hit[key] / tot[key]
        print(f"{key[0]:10s} {key[1]:16s} {hit[key]:6d}/{tot[key]:<6d} {pct:6.2f}%")


if __name__ == "__main__":
    main()
