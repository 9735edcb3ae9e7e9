#!/usr/bin/env python3
"""Check that every signal of a GTKWave save file exists in a VCD written by the testbench,
and that the VCD is well formed (header, declared ids only, monotonic timestamps).
usage: check_gtkw.py SAVEFILE.gtkw TRACE.vcd"""
import re
import sys


def vcd_signals(path):
    names, ids, scope, last_t, changes = set(), set(), [], -1, 0
    with open(path) as f:
        in_header = True
        for line in f:
            tok = line.split()
            if not tok:
                continue
            if in_header:
                if tok[0] == "$scope":
                    scope.append(tok[2])
                elif tok[0] == "$upscope":
                    scope.pop()
                elif tok[0] == "$var":
                    ids.add(tok[3])
                    names.add(".".join(scope + [tok[4]]))
                elif tok[0] == "$enddefinitions":
                    in_header = False
                continue
            if tok[0].startswith("#"):
                t = int(tok[0][1:])
                if t < last_t:
                    sys.exit(f"{path}: time goes backwards at #{t}")
                last_t = t
            elif tok[0][0] in "01xzXZ" and not tok[0].startswith("$"):
                if tok[0][1:] not in ids:
                    sys.exit(f"{path}: undeclared id {tok[0][1:]!r}")
                changes += 1
            elif tok[0][0] in "bBrR":
                if len(tok) < 2 or tok[1] not in ids:
                    sys.exit(f"{path}: undeclared id in {line.strip()!r}")
                changes += 1
    if in_header or last_t <= 0 or changes == 0:
        sys.exit(f"{path}: no value changes")
    return names


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    have = vcd_signals(sys.argv[2])
    missing = []
    n = 0
    for line in open(sys.argv[1]):
        line = line.strip()
        if not line or line[0] in "[@-*":
            continue
        n += 1
        name = re.sub(r"\[\d+:\d+\]$", "", line)
        if name not in have:
            missing.append(line)
    if missing or n == 0:
        sys.exit(f"{sys.argv[1]}: signals not in {sys.argv[2]}: {missing or 'none listed'}")
    print(f"{sys.argv[1]}: all {n} signals present in the trace")


if __name__ == "__main__":
    main()
