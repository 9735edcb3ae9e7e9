#!/usr/bin/env python3
"""Test of the golden test (golden_test.py): it must fail when a pinned stat changes or goes missing,
pass when the run only adds stats, and `update` must write exactly the pinned selection.

  golden_selftest.py WORKDIR [STRATA GOLDEN.json]

Directed cases run golden_test.py against a fake simulator (a script that writes a given stats.json).
With STRATA and a golden file, a copy of that golden with one pinned value changed by +1 is checked
against the real simulator and must fail naming that stat (the file itself must still pass).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "golden_test.py")
FAKE = """#!/usr/bin/env python3
import os, shutil, sys
out = sys.argv[sys.argv.index("--out") + 1]
os.makedirs(out, exist_ok=True)
shutil.copy(os.environ["FAKE_STATS"], os.path.join(out, "stats.json"))
"""
ARGS = ["--workload", "stream"]
failures = 0


def write(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


def driver(mode, strata, golden, work, args, env=None, opts=()):
    p = subprocess.run([sys.executable, DRIVER, mode, strata, golden, work, *opts, "--", *args],
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout + p.stderr


def expect(name, cond, out):
    global failures
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        failures += 1
        print("     " + out.replace("\n", "\n     "))


def fake_cases(work):
    fake = os.path.join(work, "fake_strata")
    with open(fake, "w") as f:
        f.write(FAKE)
    os.chmod(fake, 0o755)
    run_stats = os.path.join(work, "run_stats.json")
    env = dict(os.environ, FAKE_STATS=run_stats)
    golden = os.path.join(work, "golden.json")
    base = {"gpu.cycles": 1000, "gpu.ipc": 1.25, "l2.misses": 7}
    write(golden, {"args": ARGS, "pin": ["gpu.*", "l2.*"], "stats": base})

    def check(stats, args=ARGS):
        write(run_stats, stats)
        return driver("check", fake, golden, os.path.join(work, "out"), args, env)

    rc, out = check(dict(base, **{"host.seconds": 3.0}))
    expect("equal pinned stats pass", rc == 0 and "PASS" in out, out)
    rc, out = check(dict(base, **{"l2.new_counter": 5, "ndp.offloads": 9}))
    expect("new stats (a new module's, a new counter) pass", rc == 0 and "2 run stats not pinned" in out, out)
    rc, out = check(dict(base, **{"gpu.cycles": 1001}))
    expect("a changed pinned value fails with a readable diff",
           rc == 1 and "gpu.cycles: golden 1000 -> run 1001  (+1, +0.1%)" in out, out)
    rc, out = check(dict(base, **{"gpu.ipc": 1.2500000000000002}))
    expect("a change in the last bit of a float fails", rc == 1 and "gpu.ipc" in out, out)
    rc, out = check({k: v for k, v in base.items() if k != "l2.misses"})
    expect("a pinned stat missing from the run fails", rc == 1 and "missing from the run: l2.misses" in out, out)
    rc, out = check(base, ["--workload", "bfs"])
    expect("a golden written for other arguments fails", rc == 1 and "was written for" in out, out)

    # update: keeps the file's selection, pins what matches it, never host.*
    write(run_stats, {"gpu.cycles": 2000, "gpu.new": 1, "l2.misses": 8, "mem.reads": 3, "host.seconds": 1.0})
    rc, out = driver("update", fake, golden, os.path.join(work, "out"), ARGS, env)
    with open(golden) as f:
        g = json.load(f)
    expect("update writes exactly the stats matching the file's pins",
           rc == 0 and g["pin"] == ["gpu.*", "l2.*"] and g["stats"] == {"gpu.cycles": 2000, "gpu.new": 1,
                                                                        "l2.misses": 8}, out + json.dumps(g))
    rc, out = driver("update", fake, golden, os.path.join(work, "out"), ARGS, env, ["--pin", "mem.reads"])
    with open(golden) as f:
        g = json.load(f)
    expect("update --pin replaces the selection", rc == 0 and g["stats"] == {"mem.reads": 3}, out + json.dumps(g))
    os.remove(golden)
    rc, out = driver("update", fake, golden, os.path.join(work, "out"), ARGS, env)
    with open(golden) as f:
        g = json.load(f)
    expect("a new golden gets the default selection (no host.*)",
           rc == 0 and "host.seconds" not in g["stats"] and "mem.reads" in g["stats"], out + json.dumps(g))


def real_case(work, strata, golden):
    with open(golden) as f:
        g = json.load(f)
    args = g["args"]  # a golden without paths in its arguments runs as written
    rc, out = driver("check", strata, golden, os.path.join(work, "real"), args)
    expect(f"{os.path.basename(golden)} passes as stored", rc == 0, out)
    key = "gpu.cycles" if "gpu.cycles" in g["stats"] else sorted(g["stats"])[0]
    g["stats"][key] += 1
    wrong = os.path.join(work, "wrong_" + os.path.basename(golden))
    write(wrong, g)
    rc, out = driver("check", strata, wrong, os.path.join(work, "real"), args)
    expect(f"a deliberately wrong golden ({key} + 1) fails against the real run",
           rc == 1 and f"{key}: golden" in out, out)


def main():
    work = os.path.abspath(sys.argv[1])
    os.makedirs(work, exist_ok=True)
    fake_cases(work)
    if len(sys.argv) > 3:
        real_case(work, os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
    print("PASS" if not failures else f"FAIL: {failures} case(s)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
