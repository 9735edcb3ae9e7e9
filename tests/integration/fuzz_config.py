#!/usr/bin/env python3
"""Mutation fuzzing of the config parser and validator through the `strata` executable.

Takes a shipped config, applies seeded random mutations (byte flips, deleted/duplicated lines,
numbers replaced by extremes, truncation, garbage), and runs strata on each with a tiny
simulated-time limit. Every run must end with status 0 or 2; status 2 must come with exactly
one stderr line starting with "strata: ". A crash, a hang, or any other status fails.
Usage: fuzz_config.py STRATA CONFIG COUNT SEED
"""
import os
import random
import subprocess
import sys
import tempfile

EXTREMES = ["0", "-1", "1e308", "99999999999999999999", "\"\"", "nan", "inf", "true", "\"8EiB\"", "[1,2]", "{}"]


def mutate(text, rng):
    lines = text.split("\n")
    for _ in range(rng.randint(1, 3)):
        kind = rng.randrange(7)
        i = rng.randrange(len(lines))
        if kind == 0 and lines[i]:
            j = rng.randrange(len(lines[i]))
            lines[i] = lines[i][:j] + chr(rng.randrange(32, 127)) + lines[i][j + 1:]
        elif kind == 1:
            del lines[i]
        elif kind == 2:
            lines.insert(i, lines[rng.randrange(len(lines))])
        elif kind == 3 and "=" in lines[i]:
            k = lines[i].split("=")[0]
            lines[i] = k + "= " + rng.choice(EXTREMES)
        elif kind == 4:
            lines = lines[: rng.randrange(len(lines)) + 1]
        elif kind == 5:
            lines.insert(i, "".join(chr(rng.randrange(1, 256)) for _ in range(rng.randrange(1, 20))))
        else:
            lines[i] = lines[i].replace("[", "[[", 1)
        if not lines:
            lines = [""]
    return "\n".join(lines)


def main():
    strata, config, count, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    base = open(config).read()
    stats = {0: 0, 2: 0}
    with tempfile.TemporaryDirectory() as d:
        for n in range(count):
            text = mutate(base, rng)
            path = os.path.join(d, f"case{n}.toml")
            with open(path, "w", errors="replace") as f:
                f.write(text)
            cmd = [strata, "--quiet", "--force", "--config", path, "--out", os.path.join(d, "out"),
                   "--set", "sim.max_time_us=0.05", "--set", "workload.stream.n=4096",
                   "--set", "workload.bfs.scale=8", "--set", "workload.random.table_words=4096",
                   "--set", "workload.random.updates=1024", "--set", "workload.stencil2d.nx=64",
                   "--set", "workload.stencil2d.ny=64"]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=60, errors="replace")
            except subprocess.TimeoutExpired:
                print(f"FAIL: case {n} hangs\n{text}")
                sys.exit(1)
            if p.returncode not in (0, 2):
                print(f"FAIL: case {n} exit {p.returncode}\n--- config ---\n{text}\n--- stderr ---\n{p.stderr}")
                sys.exit(1)
            if p.returncode == 2:
                lines = [l for l in p.stderr.splitlines() if l.strip()]
                if len(lines) != 1 or not lines[0].startswith("strata: "):
                    print(f"FAIL: case {n}: expected one 'strata: ' error line, got {p.stderr!r}\n{text}")
                    sys.exit(1)
            stats[p.returncode] += 1
    print(f"ok: {count} mutated configs, {stats[0]} accepted, {stats[2]} rejected cleanly")


if __name__ == "__main__":
    main()
