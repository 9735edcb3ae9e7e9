#!/usr/bin/env python3
"""Check that waveforms/ctc.gtkw matches what tb_ctc --trace writes: run a short
traced simulation, convert the FST to VCD (fst2vcd), parse the VCD header and
fail if a signal named in the save file is missing, or the trace has no value
changes of the handshake signals.
Usage: check_wave.py --tb TB --gtkw FILE --workdir DIR"""
import argparse
import pathlib
import re
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tb", required=True)
    ap.add_argument("--gtkw", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    wd = pathlib.Path(a.workdir)
    wd.mkdir(parents=True, exist_ok=True)
    fst, vcd = wd / "ctc.fst", wd / "ctc.vcd"
    subprocess.run([a.tb, "--mode", "random", "--count", "400", "--seed", "3", "--trace", str(fst), "--quiet"],
                   check=True)
    subprocess.run(["fst2vcd", "-f", str(fst), "-o", str(vcd)], check=True, capture_output=True)
    scope, names, ids = [], set(), {}
    changes = {}
    in_header = True
    for line in vcd.read_text().splitlines():
        t = line.split()
        if not t:
            continue
        if in_header:
            if t[0] == "$scope":
                scope.append(t[2])
            elif t[0] == "$upscope":
                scope.pop()
            elif t[0] == "$var":
                name = ".".join(scope + [t[4]])
                names.add(name)
                ids.setdefault(t[3], []).append(name)
            elif t[0] == "$enddefinitions":
                in_header = False
            continue
        if line[0] in "01xz":
            key = line[1:]
        elif line[0] in "br":
            key = t[1]
        else:
            continue
        for n in ids.get(key, []):
            changes[n] = changes.get(n, 0) + 1
    wanted = []
    for line in pathlib.Path(a.gtkw).read_text().splitlines():
        if not line or line[0] in "@*-[" or line.startswith("#"):
            continue
        wanted.append(re.sub(r"\[\d+:\d+\]$", "", line.strip()))
    if not wanted:
        sys.exit("check_wave.py: no signals in the save file")
    missing = [w for w in wanted if w not in names]
    if missing:
        sys.exit("check_wave.py: signals of the .gtkw not in the trace: " + ", ".join(missing))
    for s in ("TOP.ctc.req_valid_i", "TOP.ctc.rsp_valid_o", "TOP.ctc.wb_valid_o"):
        if changes.get(s, 0) < 4:
            sys.exit(f"check_wave.py: {s} hardly toggles in the trace")
    print(f"check_wave.py: {len(wanted)} signals of {pathlib.Path(a.gtkw).name} found in the trace")


if __name__ == "__main__":
    main()
