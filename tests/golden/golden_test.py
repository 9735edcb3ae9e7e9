#!/usr/bin/env python3
"""Golden-stats regression: a run's stats.json must equal the stored one (all keys but host.*).

  golden_test.py check  STRATA GOLDEN.json WORKDIR -- ARGS...   run `strata ARGS`, compare with GOLDEN.json
  golden_test.py update STRATA GOLDEN.json WORKDIR -- ARGS...   run and (re)write GOLDEN.json

A change that alters simulated behaviour on purpose updates the files in the same commit
(`cmake --build build --target update_golden`) and says why in the commit message; an unintended
difference is a regression. Values are compared exactly: same config and seed give bit-identical
stats (DESIGN.md), and the files are written by the Release build CI runs.
"""
import json
import os
import shutil
import subprocess
import sys


def run(strata, work, args):
    shutil.rmtree(work, ignore_errors=True)
    cmd = [strata, *args[:1], "--quiet", "--out", work, *args[1:]] if args and args[0] == "memtrace" else \
        [strata, "--quiet", "--out", work, *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: {' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
        sys.exit(1)
    with open(os.path.join(work, "stats.json")) as f:
        return {k: v for k, v in json.load(f).items() if not k.startswith("host.")}


def portable(args):
    # paths differ between checkouts: compare arguments with files named by their last two parts
    return ["/".join(os.path.normpath(a).split(os.sep)[-2:]) if os.path.exists(a) else a for a in args]


def main():
    mode, strata, golden, work = sys.argv[1:5]
    args = sys.argv[sys.argv.index("--") + 1:]
    s = run(strata, work, args)
    args = portable(args)
    if mode == "update":
        with open(golden, "w") as f:
            json.dump({"args": args, "stats": s}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {golden} ({len(s)} stats)")
        return
    with open(golden) as f:
        g = json.load(f)
    if g["args"] != args:
        print(f"FAIL: {golden} was written for {g['args']}, the test runs {args}: update it")
        sys.exit(1)
    want = g["stats"]
    missing = sorted(set(want) - set(s))
    extra = sorted(set(s) - set(want))
    diff = sorted(k for k in want if k in s and s[k] != want[k])
    if missing or extra or diff:
        print(f"FAIL: stats differ from {os.path.basename(golden)} "
              f"({len(diff)} changed, {len(missing)} missing, {len(extra)} new)")
        for k in diff[:25]:
            print(f"  {k}: {want[k]!r} -> {s[k]!r}")
        for k in missing[:10]:
            print(f"  missing: {k}")
        for k in extra[:10]:
            print(f"  new: {k}")
        print("If the change is intended: cmake --build build --target update_golden, and say why in the commit.")
        sys.exit(1)
    print(f"PASS: {len(want)} stats equal {os.path.basename(golden)}")


if __name__ == "__main__":
    main()
