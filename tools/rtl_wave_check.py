#!/usr/bin/env python3
"""Check a GTKWave save file against the trace a testbench writes (CTest rtl_<block>_trace).

Runs the harness command given after `--` with `--trace WORKDIR/<name>.fst` appended, converts the
FST to VCD with fst2vcd and parses the VCD: header ($scope/$upscope/$var/$enddefinitions), every
value change refers to a declared id (several $var may share one id: aliases), timestamps never go
backwards, and there are value changes. Fails (exit 1) if a signal named in the save file is not
in the trace (a `[msb:lsb]` suffix is ignored) or if a signal given with --toggles changes value
fewer than --min-toggles times.

usage: rtl_wave_check.py --gtkw FILE.gtkw --workdir DIR [--fst2vcd PROG]
                         [--toggles SIGNAL]... [--min-toggles N] -- HARNESS ARGS...
"""
import argparse
import pathlib
import re
import subprocess
import sys


def parse_vcd(path):
    """Full names of the declared signals and the number of value changes of each."""
    scope, ids, changes = [], {}, {}
    last_t, total, in_header = -1, 0, True
    with open(path) as f:
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
                    ids.setdefault(tok[3], []).append(".".join(scope + [tok[4]]))
                elif tok[0] == "$enddefinitions":
                    in_header = False
                continue
            if tok[0][0] == "#":
                t = int(tok[0][1:])
                if t < last_t:
                    sys.exit(f"{path}: time goes backwards at #{t}")
                last_t = t
                continue
            if tok[0][0] == "$":
                continue  # $dumpvars / $end / ...
            if tok[0][0] in "01xzXZ":
                key = tok[0][1:]
            elif tok[0][0] in "bBrR" and len(tok) >= 2:
                key = tok[1]
            else:
                sys.exit(f"{path}: unexpected line {line.strip()!r}")
            if key not in ids:
                sys.exit(f"{path}: undeclared id {key!r}")
            changes[key] = changes.get(key, 0) + 1
            total += 1
    if in_header or last_t <= 0 or total == 0:
        sys.exit(f"{path}: no value changes")
    per_name = {}
    for key, names in ids.items():
        for n in names:
            per_name[n] = changes.get(key, 0)
    return per_name


def gtkw_signals(path):
    out = []
    for line in pathlib.Path(path).read_text().splitlines():
        line = line.strip()
        if not line or line[0] in "[@-*#^":
            continue
        out.append(re.sub(r"\[\d+:\d+\]$", "", line))
    return out


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit(__doc__)
    cut = argv.index("--")
    ap = argparse.ArgumentParser(prog="rtl_wave_check.py")
    ap.add_argument("--gtkw", required=True)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--fst2vcd", default="fst2vcd")
    ap.add_argument("--toggles", action="append", default=[])
    ap.add_argument("--min-toggles", type=int, default=4)
    a = ap.parse_args(argv[:cut])
    harness = argv[cut + 1:]
    if not harness:
        sys.exit("rtl_wave_check.py: no harness command after --")
    wd = pathlib.Path(a.workdir)
    wd.mkdir(parents=True, exist_ok=True)
    stem = pathlib.Path(a.gtkw).stem
    fst, vcd = wd / f"{stem}_trace.fst", wd / f"{stem}_trace.vcd"
    subprocess.run(harness + ["--trace", str(fst)], check=True)
    subprocess.run([a.fst2vcd, "-f", str(fst), "-o", str(vcd)], check=True, capture_output=True)
    have = parse_vcd(vcd)
    wanted = gtkw_signals(a.gtkw)
    if not wanted:
        sys.exit(f"rtl_wave_check.py: no signals in {a.gtkw}")
    missing = [w for w in wanted if w not in have]
    if missing:
        sys.exit(f"rtl_wave_check.py: signals of {a.gtkw} not in the trace: " + ", ".join(missing))
    for s in a.toggles:
        if have.get(s, 0) < a.min_toggles:
            sys.exit(f"rtl_wave_check.py: {s} changes {have.get(s, 0)} times in the trace "
                     f"(at least {a.min_toggles} wanted)")
    print(f"rtl_wave_check.py: all {len(wanted)} signals of {pathlib.Path(a.gtkw).name} in the trace"
          + (f", {len(a.toggles)} handshake signals toggle" if a.toggles else ""))


if __name__ == "__main__":
    main()
