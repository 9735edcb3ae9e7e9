#!/usr/bin/env python3
"""Golden-stats regression: the stats a golden file pins must equal the run's, bit for bit.

  golden_test.py check  STRATA GOLDEN.json WORKDIR -- ARGS...             run `strata ARGS`, compare
  golden_test.py update STRATA GOLDEN.json WORKDIR [--pin PAT]... -- ARGS...  run and (re)write GOLDEN.json

A golden file is JSON:
  "args":  the strata arguments it was written for (paths shortened to their last two parts);
  "pin":   the selection it means, as shell-style patterns over stat names ("gpu.*", "l2.miss_rate");
  "stats": the pinned stats, name -> value, exactly the run's stats that matched "pin" at update time.

`check` compares exactly the keys in "stats": a pinned key missing from the run fails, a different
value fails (listed as golden -> run with the difference), and a stat of the run that is not pinned
(a new module's, a new counter) is ignored, so adding stats does not rewrite every golden file.
`update` rewrites "stats" with every run stat matching "pin" (host.* never: wall-clock numbers);
"pin" is kept from the existing file, or replaced by --pin options, or DEFAULT_PIN for a new file.

A change that alters simulated behaviour on purpose updates the files in the same commit
(`cmake --build build --target update_golden`) and says why in the commit message; an unintended
difference is a regression. Values are compared exactly: same config and seed give bit-identical
stats (DESIGN.md), and the files are written by the Release build CI runs.
"""
import fnmatch
import json
import os
import shutil
import subprocess
import sys

# Selection of a new golden file: every stat family the platform had when the format was introduced.
# Families added later (a new module) are pinned only by goldens that list them.
DEFAULT_PIN = ["check.*", "coalescer.*", "gpu.*", "l1.*", "l2.*", "mem.*", "memtrace.*", "noc.*", "sim.*",
               "workload.*"]
SHOW = 40  # differences listed in full


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


def pinned(name, pins):
    return any(fnmatch.fnmatchcase(name, p) for p in pins)


def show_change(k, want, got):
    line = f"  {k}: golden {want!r} -> run {got!r}"
    if isinstance(want, (int, float)) and isinstance(got, (int, float)) and not isinstance(want, bool):
        d = got - want
        line += f"  ({d:+.6g}" + (f", {100 * d / want:+.4g}%)" if want else ")")
    return line


def check(golden, g, s):
    want = g["stats"]
    missing = sorted(k for k in want if k not in s)
    diff = sorted(k for k in want if k in s and s[k] != want[k])
    unpinned = [k for k in s if k not in want]
    name = os.path.basename(golden)
    if missing or diff:
        print(f"FAIL: {len(diff)} of the {len(want)} stats pinned by {name} changed, {len(missing)} missing")
        for k in diff[:SHOW]:
            print(show_change(k, want[k], s[k]))
        if len(diff) > SHOW:
            fams = {}
            for k in diff:
                fams[k.split(".")[0]] = fams.get(k.split(".")[0], 0) + 1
            print(f"  ... {len(diff) - SHOW} more; changed by family: "
                  + ", ".join(f"{f} {n}" for f, n in sorted(fams.items())))
        for k in missing[:SHOW]:
            print(f"  missing from the run: {k} (golden {want[k]!r})")
        print("If the change is intended: cmake --build build --target update_golden, and say why in the commit.")
        return 1
    note = ""
    if unpinned:
        match = sum(1 for k in unpinned if pinned(k, g.get("pin", [])))
        note = f"; {len(unpinned)} run stats not pinned, ignored" + \
               (f" ({match} match the pins: `update_golden` would pin them)" if match else "")
    print(f"PASS: {len(want)} pinned stats equal {name}{note}")
    return 0


def main():
    mode, strata, golden, work = sys.argv[1:5]
    sep = sys.argv.index("--")
    opts, args = sys.argv[5:sep], sys.argv[sep + 1:]
    pins = [opts[i + 1] for i in range(len(opts) - 1) if opts[i] == "--pin"]
    if mode not in ("check", "update") or len(pins) * 2 != len(opts) or (pins and mode != "update"):
        print(__doc__)
        sys.exit(2)
    s = run(strata, work, args)
    args = portable(args)
    if mode == "update":
        old = {}
        if os.path.exists(golden):
            with open(golden) as f:
                old = json.load(f)
        pins = pins or old.get("pin") or DEFAULT_PIN
        stats = {k: v for k, v in s.items() if pinned(k, pins)}
        with open(golden, "w") as f:
            json.dump({"args": args, "pin": pins, "stats": stats}, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"wrote {golden} ({len(stats)} of {len(s)} stats pinned by {', '.join(pins)})")
        return
    with open(golden) as f:
        g = json.load(f)
    if g["args"] != args:
        print(f"FAIL: {golden} was written for {g['args']}, the test runs {args}: update it")
        sys.exit(1)
    sys.exit(check(golden, g, s))


if __name__ == "__main__":
    main()
