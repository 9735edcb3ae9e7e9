#!/usr/bin/env python3
"""Tests of `strata sweep` / `strata plot` (tools/sweep.py, tools/plot.py; docs/experiments.md).

  sweep_test.py expand  STRATA WORKDIR   spec expansion (axes, zips, per-workload axes, repeats, filters)
  sweep_test.py badspec STRATA WORKDIR   bad specs and bad options: exit 2, one line naming the file and key
  sweep_test.py tables  STRATA WORKDIR   normalised tables: ratios, means, mean [min..max], n.s. marking
  sweep_test.py kill    STRATA WORKDIR   a sweep killed with SIGKILL midway and resumed == an uninterrupted one
  sweep_test.py failed  STRATA WORKDIR   a failing run is recorded and reported; --retry-failed reruns it
  sweep_test.py plot    STRATA WORKDIR   figures (300 dpi PNG + PDF) and `strata plot` (format by --out's
                                         extension); bad --out and short runs: one line, exit 2
  sweep_test.py report  STRATA WORKDIR   `strata report`: paper vs Strata with same direction? / within 2x?;
                                         sections kept byte for byte without complete results of a clean
                                         build; a fresh clone's report leaves docs/results.md as it is
  sweep_test.py stale   STRATA WORKDIR   run identity: a changed config, --set value, included file, trace or
                                         build reruns exactly the affected runs (with the reason) and gives
                                         the new numbers; --keep-other-builds keeps and flags them; a failed
                                         run is retried once its inputs change
  sweep_test.py filter  STRATA WORKDIR   a filtered sweep collects every finished run of the spec; a filter
                                         matching nothing is exit 2 with "did you mean"
  sweep_test.py slurm   STRATA WORKDIR   --backend slurm: a 4-run array job gives the local sweep's CSV; --no-wait
                                         then a rerun waits for that job instead of resubmitting. Uses the
                                         cluster of $SLURM_CONF (.ci/run starts one) or starts one with
                                         scripts/slurm_local.sh; exit 77 (CTest: skipped) only if none can start.
"""
import csv
import json
import math
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SPECS = os.path.join(HERE, "specs")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def sweep(strata, *args, timeout=120):
    return subprocess.run([strata, "sweep", *args], capture_output=True, text=True, timeout=timeout)


def fresh(d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def t_expand(strata, work):
    spec = os.path.join(SPECS, "expand.toml")
    p = sweep(strata, spec, "--dry-run", "--out", work)
    check(p.returncode == 0, f"dry run exit {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    check(lines[-1] == "96 runs: 0 done, 0 failed, 96 to run", f"summary line: {lines[-1]!r}")
    names = [l.split()[1] for l in lines[:-1:2]]
    cmds = [l.split(None, 1)[1] for l in lines[1:-1:2]]
    check(len(set(names)) == 96, "run folder names are not unique")
    # One run pinned: every parameter in its name, every override in its command, in order.
    want = "a_stream_workload.stream.n=2048_l2.size=1MiB_mem.channels=8_l2.banks=16_seed=2_l2.latency=101"
    check(want in names, f"expected run {want} in {names[:4]}...")
    cmd = cmds[names.index(want)]
    exp = ("--config baseline_hbm2 --workload stream --set sim.epoch_ns=500 --set l2.policy=lru "
           "--set workload.stream.n=2048 --set l2.size=1MiB --set mem.channels=8 --set l2.banks=16 "
           "--set l2.latency=101 --seed 2")
    check(cmd == exp, f"command of {want}:\n  got  {cmd}\n  want {exp}")
    # Zipped lists pair up, never cross.
    check(not any("mem.channels=4_l2.banks=16" in n or "mem.channels=8_l2.banks=8" in n for n in names),
          "zip produced a cartesian product")
    # random has no workload.stream.n axis: 2 designs x 2 sizes x 2 zips x 4 repeats = 32 runs.
    check(sum(n.startswith("b_random") or n.startswith("a_random") for n in names) == 32, "random run count")
    # Filters: globs, alternatives, negation; all terms must hold.
    p = sweep(strata, spec, "--dry-run", "--out", work, "--filter", "workload=stream", "--filter", "seed!=2",
              "--filter", "l2.size=1*|3MiB")
    check(p.returncode == 0 and p.stdout.splitlines()[-1].startswith("16 runs:"), f"filtered: {p.stdout[-200:]}")
    check(all("seed=1" in l and "l2.size=1MiB" in l for l in p.stdout.splitlines()[:-1:2]), "filter kept a wrong run")
    # The smoke spec: 2 configs x 2 workloads x 2 seeds.
    p = sweep(strata, os.path.join(ROOT, "configs", "experiments", "smoke.toml"), "--dry-run", "--out", work)
    check(p.returncode == 0 and p.stdout.splitlines()[-1] == "8 runs: 0 done, 0 failed, 8 to run",
          f"smoke: {p.stdout[-200:]} {p.stderr}")


BAD = [  # (spec text, key named in the error)
    ('stats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n', "name"),
    ('name = "n"\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n', "stats"),
    ('name = "n"\nstats = ["x"]\n[[workloads]]\nname="w"\n', "designs"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\n[[workloads]]\nname="w"\n', "designs[0].config"),
    ('name = "n"\nstats = ["x"]\nbaseline = "zz"\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n',
     "baseline"),
    ('name = "n"\nstats = ["x"]\nseeds = [1, -2]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n',
     "seeds"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\nset=["l2.size"]\n[[workloads]]\nname="w"\n',
     "designs[0].set"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\ntrace="t"\n',
     "workloads[0]"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n[axes]\n"l2.size" = []\n',
     "axes.l2.size"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n[[zip]]\na=[1,2]\nb=[1]\n',
     "zip[0]"),
    ('name = "n"\nstats = ["x"]\ncolour = 1\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n', "colour"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n[[tables]]\nkind="pie"\n',
     "tables[0].kind"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n'
     '[[compare]]\ndesign="a"\nagainst="q"\nstat="x"\n', "compare[0].against"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n'
     '[[compare]]\ndesign="a"\nagainst="a"\nstat="x"\nbase="q"\n', "compare[0].base"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\npaper={"x"="1"}\n',
     "workloads[0].paper"),
    ('name = "n"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n[[tables]]\nkind="paper"\n'
     'stats=["x"]\ndesign="q"\n', "tables[0].design"),
    ('name = "n"\nstats = = 1\n', None),  # TOML syntax error: file and line
]


def t_badspec(strata, work):
    for i, (text, key) in enumerate(BAD):
        path = os.path.join(work, f"bad{i}.toml")
        with open(path, "w") as f:
            f.write(text)
        p = sweep(strata, path, "--dry-run", "--out", work)
        err = p.stderr.strip()
        check(p.returncode == 2, f"bad spec {i}: exit {p.returncode}, want 2 ({err})")
        check(len(err.splitlines()) == 1, f"bad spec {i}: expected one line, got:\n{err}")
        check(path in err, f"bad spec {i}: file not named: {err}")
        if key:
            check(f"key '{key}'" in err, f"bad spec {i}: key '{key}' not named: {err}")
        else:
            check("line 2" in err, f"bad spec {i}: line not named: {err}")
    spec = os.path.join(SPECS, "expand.toml")
    for args, want in ((["--filter", "colour=red"], "key 'colour'"), (["--filter", "seed"], "--filter 'seed'"),
                       (["--jobs", "0"], "--jobs 0"), ([os.path.join(work, "missing.toml")], "cannot read"),
                       (["--jobs", "x"], "invalid int value: 'x'"), (["--backend", "pbs"], "invalid choice: 'pbs'"),
                       (["--bogus"], "unrecognized arguments: --bogus")):
        p = sweep(strata, *([spec] if args[0].startswith("-") else []), *args, "--dry-run", "--out", work)
        check(p.returncode == 2 and want in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              f"{args}: exit {p.returncode}: {p.stderr}")
    # extends: the parent's keys unless the spec sets them (the child's workloads replace the parent's);
    # a missing parent, a bad name and a cycle are refused with one line naming key 'extends'.
    with open(os.path.join(work, "parent.toml"), "w") as f:
        f.write('name = "parent"\nstats = ["gpu.ipc"]\nbaseline = "b"\n[[designs]]\nname = "a"\nconfig = "c1"\n'
                '[[designs]]\nname = "b"\nconfig = "c2"\n[[workloads]]\nname = "stream"\n')
    child = os.path.join(work, "child.toml")
    with open(child, "w") as f:
        f.write('extends = "parent"\nname = "child"\n[[workloads]]\nname = "random"\n[[workloads]]\nname = "bfs"\n')
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import sweep as S
    cs = S.load_spec(child)
    check(cs["name"] == "child" and [d["config"] for d in cs["designs"]] == ["c1", "c2"] and cs["baseline"] == "b"
          and [w["name"] for w in cs["workloads"]] == ["random", "bfs"], f"extends: {cs}")
    for text, want in (('extends = "nope"\n', "no file"), ('extends = "../x"\n', "the name of a spec"),
                       ('extends = "loop"\n', "a cycle")):
        path = os.path.join(work, "loop.toml")
        with open(path, "w") as f:
            f.write(text)
        p = sweep(strata, path, "--dry-run", "--out", work)
        check(p.returncode == 2 and "key 'extends'" in p.stderr and want in p.stderr
              and len(p.stderr.strip().splitlines()) == 1, f"extends {text!r}: {p.returncode} {p.stderr}")
    # A spec of 8 axes x 20 values (2.6e10 runs) is refused before it is expanded: at once, not after 44 s of
    # filling the memory; max_runs raises the limit, and lowers it.
    axes = "".join(f'"k{i}" = [{", ".join(str(j) for j in range(20))}]\n' for i in range(8))
    path = os.path.join(work, "huge.toml")
    with open(path, "w") as f:
        f.write(f'name = "huge"\nstats = ["x"]\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\nname="w"\n[axes]\n{axes}')
    t0 = time.time()
    p = sweep(strata, path, "--dry-run", "--out", work)
    check(p.returncode == 2 and "key 'max_runs': expected at most 100000 runs, got 25600000000" in p.stderr
          and time.time() - t0 < 10, f"huge spec: {p.returncode} {time.time() - t0:.1f} s {p.stderr}")
    with open(path, "w") as f:
        f.write(f'name = "n"\nstats = ["x"]\nmax_runs = 3\n[[designs]]\nname="a"\nconfig="c"\n[[workloads]]\n'
                f'name="w"\n[axes]\n"k" = [1, 2, 3, 4]\n')
    p = sweep(strata, path, "--dry-run", "--out", work)
    check(p.returncode == 2 and "expected at most 3 runs, got 4" in p.stderr, f"max_runs = 3: {p.stderr}")
    # A 300-character design name: the run folder name would be too long.
    with open(path, "w") as f:
        f.write(f'name = "n"\nstats = ["x"]\n[[designs]]\nname="{"d" * 300}"\nconfig="c"\n[[workloads]]\nname="w"\n')
    p = sweep(strata, path, "--dry-run", "--out", work)
    check(p.returncode == 2 and "expected at most 200" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
          f"long name: {p.stderr}")
    # --out where nothing can be written: refused before any run (no simulation starts).
    afile = os.path.join(work, "afile")
    with open(afile, "w") as f:
        f.write("x")
    for out in (afile, "/proc", "/proc/x", os.path.join(afile, "sub"), ""):
        t0 = time.time()
        p = sweep(strata, os.path.join(SPECS, "failing.toml"), "--out", out)
        check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--out" in p.stderr,
              f"--out {out!r}: exit {p.returncode}: {p.stderr}")


def t_tables(strata, work):
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import sweep as S
    spec = S.load_spec(os.path.join(SPECS, "kill.toml"))
    spec["seeds"] = [1, 2]
    runs = S.expand(spec)
    ipc = {("hbm2", 1): 2.0, ("hbm2", 2): 2.0, ("gddr5", 1): 1.0, ("gddr5", 2): 3.0}
    stats = {r["name"]: {"gpu.ipc": ipc[(r["design"], r["params"]["seed"])]} for r in runs}
    spec["tables"] = [{"kind": "normalised", "stat": "gpu.ipc", "title": "IPC"}]
    md = S.md_tables(spec, runs, stats, "cmd")
    # gddr5/hbm2 = 0.5 and 1.5: mean 1.000, range 0.5..1.5, not significant; baseline is 1.000.
    check("| random,table_words=262144,updates=65536 |" not in md, "rows label workloads without their --set")
    check("| random | 1.000 | 1.000 [0.500..1.500] n.s. |" in md, f"noise cell:\n{md}")
    check("| **geo. mean** | 1.000 | 1.000 [0.500..1.500] n.s. |" in md, f"geo mean:\n{md}")
    ipc.update({("gddr5", 1): 3.0, ("gddr5", 2): 3.2})  # 1.5 and 1.6: a difference larger than the spread
    stats = {r["name"]: {"gpu.ipc": ipc[(r["design"], r["params"]["seed"])]} for r in runs}
    md = S.md_tables(spec, runs, stats, "cmd")
    check("| random | 1.000 | 1.550 [1.500..1.600] |" in md, f"significant cell:\n{md}")
    # A noisy baseline (its own value moves 2.0 -> 3.0 between repeats) makes a 1.55 ratio not significant? No:
    # 0.55 > its relative spread 0.4, so still significant; a spread of 0.6 hides it.
    ipc.update({("hbm2", 1): 2.0, ("hbm2", 2): 2.5, ("gddr5", 1): 3.0, ("gddr5", 2): 3.75})
    stats = {r["name"]: {"gpu.ipc": ipc[(r["design"], r["params"]["seed"])]} for r in runs}
    md = S.md_tables(spec, runs, stats, "cmd")
    check("| random | 1.000 | 1.500 [1.500..1.500] |" in md, f"baseline spread 0.22 < 0.5:\n{md}")
    ipc.update({("hbm2", 2): 4.0, ("gddr5", 2): 6.0})
    stats = {r["name"]: {"gpu.ipc": ipc[(r["design"], r["params"]["seed"])]} for r in runs}
    md = S.md_tables(spec, runs, stats, "cmd")
    check("| random | 1.000 | 1.500 [1.500..1.500] n.s. |" in md, f"baseline spread 0.67 > 0.5:\n{md}")
    check(abs(S.gmean([0.5, 2.0]) - 1.0) < 1e-12 and abs(S.amean([0.5, 2.0]) - 1.25) < 1e-12, "means")
    # kind = "paper": Strata's value (mean over repeats) beside the workload's paper value and their ratio;
    # a stat without a paper value leaves those cells empty.
    for w in spec["workloads"]:
        w["paper"] = {"gpu.ipc": 8.0}
    runs = S.expand(spec)
    stats = {r["name"]: {"gpu.ipc": ipc[(r["design"], r["params"]["seed"])], "gpu.cycles": 10.0} for r in runs}
    spec["tables"] = [{"kind": "paper", "stats": ["gpu.ipc", "gpu.cycles"], "design": "gddr5"}]
    md = S.md_tables(spec, runs, stats, "cmd")
    check("| random | 4.5 | 8 | 0.562 | 10 |  |  |" in md, f"paper table:\n{md}")


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def t_kill(strata, work):
    spec = os.path.join(SPECS, "kill.toml")
    ref, out = fresh(os.path.join(work, "ref")), fresh(os.path.join(work, "killed"))
    p = sweep(strata, spec, "--jobs", "2", "--out", ref)
    check(p.returncode == 0, f"uninterrupted sweep: exit {p.returncode}: {p.stderr}")
    want = sorted(os.listdir(os.path.join(ref, "runs")))
    check(len(want) == 8, f"uninterrupted sweep: {len(want)} run folders, want 8")
    # Kill with SIGKILL once a few runs are done: the sweep cannot clean up.
    proc = subprocess.Popen([strata, "sweep", spec, "--jobs", "2", "--out", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < 60:
        d = os.path.join(out, "runs")
        if os.path.isdir(d) and len(os.listdir(d)) >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done = os.listdir(os.path.join(out, "runs"))
    check(2 <= len(done) < 8, f"kill came too late or too early: {len(done)} runs done")
    for r in done:  # everything under runs/ is a finished run
        check(os.path.exists(os.path.join(out, "runs", r, "stats.json")), f"half-written run {r} under runs/")
    check(not os.path.exists(os.path.join(out, "results.csv")), "results.csv written by a killed sweep")
    def orphans():  # strata processes still writing into the stopped sweep's folder
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if (out + "/.tmp").encode() in f.read():
                        found.append(pid)
            except OSError:
                pass
        return found
    def settle():  # children killed with their parent need a moment to go on a loaded machine
        t0 = time.time()
        while orphans() and time.time() - t0 < 2.0:
            time.sleep(0.05)
    settle()
    check(not orphans(), "the killed sweep's strata children outlived it")
    p = sweep(strata, spec, "--jobs", "2", "--out", out)
    check(p.returncode == 0, f"resumed sweep: exit {p.returncode}: {p.stderr}")
    check(f"{len(done)} done, {8 - len(done)} to run" in p.stderr, f"resume did not skip done runs: {p.stderr}")
    check(sorted(os.listdir(os.path.join(out, "runs"))) == want, "run folders differ after resume")
    check(os.listdir(os.path.join(out, ".tmp")) == [], "temporary folders left behind")
    check(os.listdir(os.path.join(out, "failed")) == [], "failures recorded")
    a, b = read_csv(os.path.join(ref, "results.csv")), read_csv(os.path.join(out, "results.csv"))
    check(len(b) == 9 and len({r[0] for r in b[1:]}) == 8, "results.csv: not one row per run")
    check(a == b, "results.csv of the resumed sweep differs from the uninterrupted one")
    p = sweep(strata, spec, "--jobs", "2", "--out", out)  # a third pass runs nothing
    check(p.returncode == 0 and "8 done, 0 to run" in p.stderr, f"third pass: {p.stderr}")
    # Ctrl-C (SIGINT): the runs in flight are stopped and stay to do, never recorded as failed.
    out = fresh(os.path.join(work, "interrupted"))
    proc = subprocess.Popen([strata, "sweep", spec, "--jobs", "2", "--out", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while time.time() - t0 < 60 and not (os.path.isdir(os.path.join(out, "runs")) and
                                         len(os.listdir(os.path.join(out, "runs"))) >= 1):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=30)[1]
    n = len(os.listdir(os.path.join(out, "runs")))
    check(proc.returncode == 130 and "interrupted" in err and n < 8, f"SIGINT: exit {proc.returncode}, {n} done: {err}")
    check(os.listdir(os.path.join(out, "failed")) == [], "an interrupted run was recorded as failed")
    settle()
    check(not orphans(), "an interrupted run's strata process outlived the sweep")
    p = sweep(strata, spec, "--jobs", "2", "--out", out)
    check(p.returncode == 0 and f"{n} done, {8 - n} to run" in p.stderr, f"resume after SIGINT: {p.stderr}")
    check(read_csv(os.path.join(out, "results.csv")) == a, "results.csv after SIGINT + resume differs")
    # SIGTERM (a batch system's stop): a message, the runs in flight stopped, no temporary folder left.
    out = fresh(os.path.join(work, "terminated"))
    proc = subprocess.Popen([strata, "sweep", spec, "--jobs", "2", "--out", out], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while time.time() - t0 < 60 and not (os.path.isdir(os.path.join(out, "runs")) and
                                         len(os.listdir(os.path.join(out, "runs"))) >= 1):
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=30)[1]
    n = len(os.listdir(os.path.join(out, "runs")))
    check(proc.returncode == 143 and "stopped by SIGTERM" in err and n < 8, f"SIGTERM: exit {proc.returncode}: {err}")
    check(os.listdir(os.path.join(out, ".tmp")) == [] and os.listdir(os.path.join(out, "failed")) == [],
          "SIGTERM left a temporary folder or a failure record")
    settle()
    check(not orphans(), "a run of a terminated sweep outlived it")


def t_failed(strata, work):
    spec = os.path.join(SPECS, "failing.toml")
    out = fresh(os.path.join(work, "failing"))
    p = sweep(strata, spec, "--jobs", "2", "--out", out)
    check(p.returncode == 1, f"sweep with a failing run: exit {p.returncode}, want 1")
    check("FAILED broken_stream: exit status 2: strata: " in p.stderr and "no.such.key" in p.stderr,
          f"failure not reported: {p.stderr}")
    rec_path = os.path.join(out, "failed", "broken_stream.json")
    with open(rec_path) as f:
        rec = json.load(f)
    check(rec["exit_status"] == 2 and any("no.such.key" in l for l in rec["stderr_tail"]), f"record: {rec}")
    check(rec["params"] == {"design": "broken", "workload": "stream"}, f"record params: {rec['params']}")
    check(os.listdir(os.path.join(out, "runs")) == ["ok_stream"], "runs/ should hold only the good run")
    rows = read_csv(os.path.join(out, "results.csv"))
    check(len(rows) == 2 and rows[1][0] == "ok_stream", f"results.csv: {rows}")
    mtime = os.stat(rec_path).st_mtime_ns
    p = sweep(strata, spec, "--out", out, "--dry-run")
    check("failed broken_stream" in p.stdout and "1 failed" in p.stdout, f"dry run state: {p.stdout}")
    time.sleep(0.01)
    p = sweep(strata, spec, "--out", out)
    check(p.returncode == 1 and "0 to run" in p.stderr and os.stat(rec_path).st_mtime_ns == mtime,
          f"a rerun without --retry-failed reran the failed run: {p.stderr}")
    p = sweep(strata, spec, "--out", out, "--retry-failed")
    check(p.returncode == 1 and "1 to run" in p.stderr and os.stat(rec_path).st_mtime_ns != mtime,
          f"--retry-failed did not rerun it: {p.stderr}")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def t_plot(strata, work):
    # Error bars of equal repeats (their mean differs from them in the last bit: 3 x 0.7 / 3 > 0.7) are
    # not negative; run with the interpreter strata runs its tools with (it has matplotlib).
    py = os.environ.get("STRATA_PYTHON") or ("/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else "python3")
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import plot\n"
            "for v in ([0.7] * 3, [0.1] * 3, [1.0, 0.9, 1.2]):\n"
            "    m, lo, hi = plot.mean_err(v)\n"
            "    assert lo >= 0 and hi >= 0 and abs(m - lo - min(v)) < 1e-12 and abs(m + hi - max(v)) < 1e-12, (v, m, lo, hi)\n")
    p = subprocess.run([py, "-c", code, os.path.join(ROOT, "tools")], capture_output=True, text=True)
    check(p.returncode == 0, f"plot.mean_err: {p.stderr}")
    out = fresh(os.path.join(work, "plot"))
    p = sweep(strata, os.path.join(SPECS, "lines.toml"), "--jobs", "2", "--out", out)
    check(p.returncode == 0, f"sweep: {p.stderr}")
    for name in ("lines", "bars"):  # PNG at 300 dpi (8 x 4.5 inches) and a PDF copy
        path = os.path.join(out, name + ".png")
        check(os.path.exists(path) and os.path.getsize(path) > 10000, f"{name}.png missing or nearly empty")
        check(png_size(path) == (2400, 1350), f"{name}.png: {png_size(path)} pixels, want 2400 x 1350")
        with open(os.path.join(out, name + ".pdf"), "rb") as f:
            check(f.read(5) == b"%PDF-", f"{name}.pdf is not a PDF")
    run = os.path.join(out, "runs", "hbm2_stream_workload.stream.n=32768")
    p = subprocess.run([strata, "plot", run], capture_output=True, text=True)
    ts = os.path.join(run, "timeseries.png")
    check(p.returncode == 0 and p.stdout.strip() == ts, f"strata plot: {p.returncode} {p.stdout} {p.stderr}")
    check(os.path.getsize(ts) > 10000 and png_size(ts) == (3000, 2400), f"timeseries.png: {png_size(ts)}")
    # The format follows --out's extension (the issue: PNG bytes were written under any name).
    for ext, magic in ((".pdf", b"%PDF-"), (".svg", b"<?xml"), (".PNG", b"\x89PNG")):
        f = os.path.join(work, "ts" + ext)
        p = subprocess.run([strata, "plot", run, "--out", f], capture_output=True, text=True)
        check(p.returncode == 0 and open(f, "rb").read(5).startswith(magic), f"plot --out {f}: {p.stderr}")
    # Bad input: one line, exit 2, nothing drawn.
    with open(os.path.join(work, "afile"), "w") as f:
        f.write("x")
    for args, want in (([os.path.join(out, "nothing")], "timeseries.csv"),
                       ([run, "--out", os.path.join(work, "ts.jpg")], "expected a file ending in .png, .pdf or .svg"),
                       ([run, "--out", os.path.join(work, "afile", "x.png")], "which is a file"),
                       ([run, "--out", "/proc/x.png"], "expected a writable location"),
                       ([run, "--out", work], "ending in .png"),
                       ([run, "--bogus"], "unrecognized arguments: --bogus")):
        p = subprocess.run([strata, "plot", *args], capture_output=True, text=True)
        check(p.returncode == 2 and want in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              f"plot {args}: {p.returncode} {p.stderr}")
    # A run shorter than two epochs: the error suggests a smaller sim.epoch_ns from the run's length.
    short = os.path.join(work, "short")
    shutil.rmtree(short, ignore_errors=True)
    p = subprocess.run([strata, "--quiet", "--out", short, "--workload", "stream", "--set", "workload.stream.n=1024",
                        "--set", "sim.epoch_ns=10000000"], capture_output=True, text=True)
    check(p.returncode == 0, f"short run: {p.stderr}")
    p = subprocess.run([strata, "plot", short], capture_output=True, text=True)
    check(p.returncode == 2 and "sim.epoch_ns is 10000000; rerun it with --set sim.epoch_ns=" in p.stderr,
          f"plot of a short run: {p.returncode} {p.stderr}")


def set_build(res_json, commit):
    with open(res_json) as f:
        res = json.load(f)
    res["build"]["commit"] = commit
    with open(res_json, "w") as f:
        json.dump(res, f)


def t_report(strata, work):
    res = fresh(os.path.join(work, "results"))
    p = sweep(strata, os.path.join(SPECS, "lines.toml"), "--jobs", "2", "--out", os.path.join(res, "lines"))
    check(p.returncode == 0, f"sweep: {p.stderr}")
    res_json = os.path.join(res, "lines", "results.json")
    set_build(res_json, "0123456789ab")  # a clean, committed build (the test's own build may be dirty)
    rows = list(csv.DictReader(open(os.path.join(res, "lines", "results.csv"))))
    bw = {(r["design"], r["workload.stream.n"]): float(r["mem.bandwidth_gbps"]) for r in rows}
    ratio = sum(bw[("gddr5", n)] / bw[("hbm2", n)] for n in ("8192", "16384", "32768")) / 3
    out = os.path.join(work, "docs", "results.md")
    def report(*extra):
        return subprocess.run([strata, "report", "--specs", SPECS, "--results", res, "--out", out, *extra],
                              capture_output=True, text=True)
    p = report()
    check(p.returncode == 0, f"report: {p.returncode} {p.stderr}")
    md = open(out).read()
    same = "yes" if ratio < 1 else "no"  # the made-up paper number is 0.5 (-50 %)
    within = "yes" if 0.25 <= 1 - ratio <= 1 else "no"
    want = f"| gddr5 vs hbm2: bandwidth | test | -50.00% | {(ratio - 1) * 100:+.2f}% | {same} | {within} |"
    check(want in md, f"claim row: want\n{want}\nin\n{md}")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    import report as R  # the verdicts themselves: an opposite change is never "within 2x", whatever its size
    check([R.within_2x(1.048, x) for x in (0.9455, 1.03, 1.09, 1.02, 1.1, 1.0)] ==
          ["no", "yes", "yes", "no", "no", "no"], "within_2x")
    check([R.same_direction(0.9, x) for x in (0.95, 1.01, 1.0)] == ["yes", "no", "no"], "same_direction")
    # A [[compare]] base: ratios to that design, for a stat the baseline lacks (a PCM lifetime vs pure DRAM).
    import sweeptables as T
    cspec = {"baseline": "dram", "compare": [{"design": "x", "against": "pcm", "stat": "life", "base": "pcm"},
                                             {"design": "x", "against": "pcm", "stat": "life"}]}
    cruns = [{"name": f"{d}_{w}", "row": w, "design": d, "repeat": ()} for d in ("dram", "pcm", "x") for w in "uv"]
    cstats = {"pcm_u": {"life": 1.0}, "x_u": {"life": 3.0}, "pcm_v": {"life": 2.0}, "x_v": {"life": 2.0}}
    cv = T.compare_values(cspec, cruns, cstats)
    check(cv[0]["strata"] == 2.0 and math.isnan(cv[1]["strata"]), f"compare base: {cv}")
    check("## Made-up paper B" in md and "Not reproduced yet: its system is not built yet." in md, "unbuilt paper")
    check("Results collected " in md and "all 6 runs of the spec" in md and "at commit `0123456789ab`;" in md,
          f"build line:\n{md}")
    for name in ("lines.png", "bars.png"):
        png = os.path.join(work, "docs", "figures", name)
        check(f"![{name}](figures/{name})" in md and png_size(png) == (2400, 1350), f"figure {name}")
    # Results the report may not use keep the section as it is, byte for byte: a dirty build (unless
    # --allow-dirty), mixed builds, incomplete results, no results.
    for commit, want in (("0123456789ab-dirty.1a2b3c4d", "uncommitted changes (0123456789ab-dirty.1a2b3c4d; "
                          "--allow-dirty uses them): its section is kept as it was"),
                         ("mixed", "more than one build"), ("unknown", "unknown build")):
        set_build(res_json, commit)
        p = report()
        check(p.returncode == 0 and want in p.stderr and open(out).read() == md, f"{commit}: {p.stderr}")
    set_build(res_json, "0123456789ab-dirty.1a2b3c4d")
    p = report("--allow-dirty")
    dirty_md = open(out).read()
    check(p.returncode == 0 and "at commit `0123456789ab-dirty.1a2b3c4d` (**a build with uncommitted changes**"
          in dirty_md, f"--allow-dirty: {p.stderr}")
    with open(out, "w") as f:
        f.write(md)
    set_build(res_json, "0123456789ab")
    with open(res_json) as f:
        full = json.load(f)
    part = dict(full, runs=full["runs"][:4])
    with open(res_json, "w") as f:
        json.dump(part, f)
    p = report()
    check(p.returncode == 0 and "incomplete results (4 of the spec's 6 runs)" in p.stderr and open(out).read() == md,
          f"incomplete: {p.stderr}")
    shutil.rmtree(os.path.join(res, "lines"))
    p = report()
    check(p.returncode == 0 and "lines: no results" in p.stderr and open(out).read() == md, f"no results: {p.stderr}")
    # A fresh clone without results (no runs/experiments, then an empty one): the committed docs/results.md
    # stays byte-identical; --results at a file and --out at a folder are refused (exit 2, one line).
    clone = fresh(os.path.join(work, "clone"))
    for d in ("tools", "docs", os.path.join("configs", "experiments")):
        shutil.copytree(os.path.join(ROOT, d), os.path.join(clone, d))
    committed = open(os.path.join(ROOT, "docs", "results.md"), "rb").read()
    py = os.environ.get("STRATA_PYTHON") or ("/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else "python3")
    p = subprocess.run([py, os.path.join(clone, "tools", "report.py")], capture_output=True, text=True, cwd=work)
    check(p.returncode == 0 and open(os.path.join(clone, "docs", "results.md"), "rb").read() == committed,
          f"report without a results folder: {p.returncode} {p.stderr}")
    with open(os.path.join(work, "afile"), "w") as f:
        f.write("x")
    p = report("--results", os.path.join(work, "afile"))
    check(p.returncode == 2 and "got a file" in p.stderr, f"--results at a file: {p.stderr}")
    os.makedirs(os.path.join(clone, "runs", "experiments"))
    p = subprocess.run([py, os.path.join(clone, "tools", "report.py")], capture_output=True, text=True, cwd=work)
    check(p.returncode == 0, f"report in a fresh clone: {p.returncode} {p.stderr}")
    check(open(os.path.join(clone, "docs", "results.md"), "rb").read() == committed,
          "docs/results.md changed by a report with no results")
    # The tool of one checkout writing into another's docs/results.md links to that checkout's model notes.
    p = subprocess.run([py, os.path.join(ROOT, "tools", "report.py"), "--results", os.path.join(clone, "runs", "experiments"),
                        "--out", os.path.join(clone, "docs", "results.md")], capture_output=True, text=True, cwd=work)
    check(p.returncode == 0 and open(os.path.join(clone, "docs", "results.md"), "rb").read() == committed,
          f"report into another checkout: {p.returncode} {p.stderr}")
    p = report("--out", work)
    check(p.returncode == 2 and "expected a file" in p.stderr, f"--out at a folder: {p.stderr}")


STALE_SPEC = """name = "stale"
stats = ["gpu.ipc", "gpu.cycles", "mem.reads"]
[[designs]]
name = "a"
config = "{a_config}"
set = [{a_set}]
[[designs]]
name = "b"
config = "{b_config}"
[[workloads]]
name = "stream"
set = ["workload.stream.n=8192"]
{extra}"""


def results_by_run(out):
    with open(os.path.join(out, "results.json")) as f:
        res = json.load(f)
    return res, {r["run"]: r for r in res["runs"]}


def t_stale(strata, work):
    out = fresh(os.path.join(work, "out"))
    spec = os.path.join(work, "stale.toml")
    inc = os.path.join(work, "mine.toml")  # a config of our own that includes a shipped one

    def write(a_config="baseline_hbm2", a_set="", b_config="baseline_gddr5", extra="", inc_text=None):
        with open(spec, "w") as f:
            f.write(STALE_SPEC.format(a_config=a_config, a_set=a_set, b_config=b_config, extra=extra))
        if inc_text is not None:
            with open(inc, "w") as f:
                f.write(inc_text)

    def run(*extra):
        p = sweep(strata, spec, "--jobs", "2", "--out", out, *extra)
        check(p.returncode == 0, f"sweep {extra}: exit {p.returncode}: {p.stderr}")
        return p.stderr

    write()
    run()
    _, first = results_by_run(out)
    err = run()
    check("2 runs, 2 done, 0 to run" in err and "rerunning" not in err, f"unchanged rerun: {err}")
    # Design b's config changes (the reproducer: baseline_gddr5 -> baseline_hbm2): b reruns, and its
    # numbers are now a's (the same configuration gives the same stats).
    write(b_config="baseline_hbm2")
    err = run()
    check("2 runs, 1 done, 1 to run" in err and "rerunning 1 stale runs: 1 configuration changed (addrmap." in err,
          f"config change: {err}")
    _, now = results_by_run(out)
    check(now["b_stream"]["gpu.cycles"] == now["a_stream"]["gpu.cycles"] != first["b_stream"]["gpu.cycles"],
          f"b's numbers after the config change: {now['b_stream']} vs a {now['a_stream']}")
    # A --set value of design a.
    write(b_config="baseline_hbm2", a_set='"l2.latency=180"')
    err = run()
    check("1 to run" in err and "configuration changed (l2.latency)" in err, f"set change: {err}")
    _, now = results_by_run(out)
    check(now["a_stream"]["gpu.cycles"] != now["b_stream"]["gpu.cycles"], "a's --set change kept the old numbers")
    # A key changed inside an included file: the resolved configuration covers includes.
    write(a_config=inc, b_config="baseline_hbm2",
          inc_text=f'include = "{os.path.join(ROOT, "configs", "baseline_hbm2.toml")}"\n[l2]\nlatency = 120\n')
    run()
    with open(inc, "w") as f:
        f.write(f'include = "{os.path.join(ROOT, "configs", "baseline_hbm2.toml")}"\n[l2]\nlatency = 240\n')
    err = run()
    check("1 to run" in err and "configuration changed (l2.latency)" in err, f"included file change: {err}")
    with open(os.path.join(out, "runs", "a_stream", "config.txt")) as f:
        check(any(l.startswith("l2.latency = 240 ") for l in f), "a not rerun with the included file's value")
    # A run made by another build (its recorded commit edited): rerun by default, kept and flagged with
    # --keep-other-builds; results.json names the build of every run.
    ident_path = os.path.join(out, "runs", "b_stream", "identity.json")
    with open(ident_path) as f:
        ident = json.load(f)
    ident["build"]["commit"] = "0123456789ab"
    with open(ident_path, "w") as f:
        json.dump(ident, f)
    p = sweep(strata, spec, "--out", out, "--dry-run")
    check("stale  b_stream  (made by another build (strata 0.1.0 at commit 0123456789ab))" in p.stdout
          and p.stdout.splitlines()[-1] == "2 runs: 1 done, 0 failed, 1 to run (1 stale)", f"dry run: {p.stdout}")
    err = run("--keep-other-builds")
    check("0 to run" in err and "keeping 1 runs made by other builds" in err, f"--keep-other-builds: {err}")
    res, now = results_by_run(out)
    check(now["b_stream"]["build"]["commit"] == "0123456789ab" and now["a_stream"]["build"]["commit"] != "0123456789ab"
          and res["build"]["commit"] == "mixed" and len(res["build"]["builds"]) == 2, f"results.json builds: {res}")
    with open(os.path.join(out, "results.md")) as f:
        check("**Mixed builds**: these results were made by 2 strata builds" in f.read(), "results.md not flagged")
    err = run()
    check("1 to run" in err and "1 made by another build" in err, f"other build not rerun: {err}")
    res, now = results_by_run(out)
    check(res["build"]["commit"] not in ("mixed", "unknown") and len(res["build"]["builds"]) == 1, f"{res['build']}")
    with open(os.path.join(out, "results.md")) as f:
        check("Mixed builds" not in f.read(), "results.md flags one build as mixed")
    # A run without an identity record (an older sweep's) is not trusted.
    os.remove(os.path.join(out, "runs", "b_stream", "identity.json"))
    err = run()
    check("1 to run" in err and "no identity recorded" in err, f"run without identity: {err}")
    # A failed run is retried once its inputs change, not before.
    write(b_config="baseline_hbm2", a_set='"no.such.key=1"')
    p = sweep(strata, spec, "--jobs", "2", "--out", out)
    check(p.returncode == 1 and "FAILED a_stream" in p.stderr, f"failing a: {p.stderr}")
    _, now = results_by_run(out)
    check("a_stream" not in now, "the stale result of a failed rerun is still collected")
    p = sweep(strata, spec, "--jobs", "2", "--out", out)
    check(p.returncode == 1 and "0 to run" in p.stderr, f"failed run rerun without a change: {p.stderr}")
    write(b_config="baseline_hbm2", a_set='"l2.latency=180"')
    err = run()
    check("1 to run" in err and "failed before; configuration changed" in err, f"fixed input not retried: {err}")
    # A trace workload: its files are part of the identity.
    trace = os.path.join(work, "trace")
    shutil.rmtree(trace, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "tests", "accelsim", "data", "multi"), trace)
    with open(spec, "w") as f:
        f.write('name = "stale_trace"\nstats = ["gpu.cycles"]\n[[designs]]\nname = "a"\nconfig = "baseline_hbm2"\n'
                f'[[workloads]]\ntrace = "{trace}"\nlabel = "t"\n')
    tout = fresh(os.path.join(work, "trace_out"))
    p = sweep(strata, spec, "--out", tout)
    check(p.returncode == 0, f"trace sweep: {p.stderr}")
    p = sweep(strata, spec, "--out", tout)
    check("0 to run" in p.stderr, f"unchanged trace rerun: {p.stderr}")
    victim = sorted(os.listdir(trace))[-1]
    st = os.stat(os.path.join(trace, victim))
    os.utime(os.path.join(trace, victim), ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    p = sweep(strata, spec, "--out", tout)
    check(p.returncode == 0 and "1 to run" in p.stderr and "trace files changed" in p.stderr, f"trace touch: {p.stderr}")


def t_filter(strata, work):
    out = fresh(os.path.join(work, "out"))
    spec = os.path.join(SPECS, "filter.toml")
    p = sweep(strata, spec, "--jobs", "2", "--out", out)
    check(p.returncode == 0, f"full sweep: {p.stderr}")
    full = read_csv(os.path.join(out, "results.csv"))
    check(len(full) == 5, f"results.csv: {len(full) - 1} runs, want 4")
    with open(os.path.join(out, "results.md")) as f:
        md = f.read()
    # The reproducer: a filtered sweep rewrote the results with its subset.
    p = sweep(strata, spec, "--jobs", "2", "--out", out, "--filter", "workload=stream")
    check(p.returncode == 0 and "2 runs, 2 done, 0 to run" in p.stderr, f"filtered sweep: {p.stderr}")
    check(read_csv(os.path.join(out, "results.csv")) == full, "a filtered sweep rewrote results.csv with its subset")
    with open(os.path.join(out, "results.md")) as f:
        check(f.read() == md, "a filtered sweep changed results.md")
    res, _ = results_by_run(out)
    check(len(res["runs"]) == 4, f"results.json holds {len(res['runs'])} runs, want 4")
    # A filter on an empty folder collects what is finished: the filtered runs only.
    out2 = fresh(os.path.join(work, "out2"))
    p = sweep(strata, spec, "--jobs", "2", "--out", out2, "--filter", "design=gddr5")
    check(p.returncode == 0 and len(read_csv(os.path.join(out2, "results.csv"))) == 3, f"subset: {p.stderr}")
    # A filter that matches nothing: exit 2, one line, the closest value.
    for args, want in ((["--filter", "workload=strem"], "no run has workload matching strem (did you mean 'stream'?)"),
                       (["--filter", "desing=hbm2"], "key 'desing': not a parameter of this sweep (did you mean "
                                                     "'design'?)"),
                       (["--filter", "workload=stream", "--filter", "workload!=st*"], "keep none of the spec's 4 runs")):
        for extra in ([], ["--dry-run"]):
            p = sweep(strata, spec, "--out", out, *args, *extra)
            check(p.returncode == 2 and want in p.stderr and len(p.stderr.strip().splitlines()) == 1,
                  f"{args} {extra}: exit {p.returncode}: {p.stderr}")
    check(read_csv(os.path.join(out, "results.csv")) == full, "a bad filter touched results.csv")


def slurm_up(env):
    try:
        p = subprocess.run(["sinfo", "-h", "-o", "%t"], capture_output=True, text=True, env=env, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 0 and any(t.startswith(("idle", "mix", "alloc")) for t in p.stdout.split())


def t_slurm(strata, work):
    env, own = dict(os.environ), None
    if not (env.get("SLURM_CONF") and slurm_up(env)):
        own = fresh(os.path.join(work, "cluster"))
        os.chmod(work, 0o755)
        p = subprocess.run(["bash", os.path.join(ROOT, "scripts", "slurm_local.sh"), "start", own],
                           capture_output=True, text=True, timeout=90)
        if p.returncode != 0:
            print(f"SKIP: Slurm cannot start on this machine: {p.stderr.strip()}")
            sys.exit(77)
        env["SLURM_CONF"] = os.path.join(own, "slurm.conf")
    try:
        spec = os.path.join(SPECS, "slurm.toml")
        loc, sl = fresh(os.path.join(work, "local")), fresh(os.path.join(work, "slurm"))
        p = sweep(strata, spec, "--jobs", "2", "--out", loc)
        check(p.returncode == 0, f"local sweep: {p.stderr}")
        p = subprocess.run([strata, "sweep", spec, "--backend", "slurm", "--jobs", "2", "--out", sl],
                           capture_output=True, text=True, env=env, timeout=180)
        check(p.returncode == 0 and "submitted slurm array job" in p.stderr and "(4 tasks" in p.stderr,
              f"slurm sweep: {p.returncode} {p.stderr}")
        check(sorted(os.listdir(os.path.join(sl, "slurm"))) ==
              ["job.sh", "job_id", "task-0.log", "task-1.log", "task-2.log", "task-3.log", "tasks.json"],
              f"slurm folder: {os.listdir(os.path.join(sl, 'slurm'))}")
        check(read_csv(os.path.join(loc, "results.csv")) == read_csv(os.path.join(sl, "results.csv")),
              "results.csv from Slurm differs from the local sweep's")
        # --no-wait, then the same sweep again: it waits for the job it finds instead of resubmitting.
        nw = fresh(os.path.join(work, "nowait"))
        p = subprocess.run([strata, "sweep", spec, "--backend", "slurm", "--no-wait", "--out", nw],
                           capture_output=True, text=True, env=env, timeout=60)
        check(p.returncode == 0 and "--no-wait" in p.stderr and not os.path.exists(os.path.join(nw, "results.csv")),
              f"--no-wait: {p.returncode} {p.stderr}")
        p = subprocess.run([strata, "sweep", spec, "--backend", "slurm", "--out", nw],
                           capture_output=True, text=True, env=env, timeout=180)
        check(p.returncode == 0 and "submitted" not in p.stderr, f"rerun after --no-wait resubmitted: {p.stderr}")
        check(read_csv(os.path.join(loc, "results.csv")) == read_csv(os.path.join(nw, "results.csv")),
              "results.csv after --no-wait differs from the local sweep's")
    finally:
        if own:
            subprocess.run(["bash", os.path.join(ROOT, "scripts", "slurm_local.sh"), "stop", own])


CUDA_SPEC = """name = "cudaprog"
stats = ["gpu.cycles", "gpu.warp_instructions", "kernel.1.vecadd.warp_instructions"]
[[designs]]
name = "hbm2"
config = "baseline_hbm2"
[[designs]]
name = "gddr5"
config = "baseline_gddr5"
[[workloads]]
cuda = "{src}"
args = [{args}]
"""


def t_cuda(strata, work):
    """A CUDA program as a sweep workload: built once into DIR/programs/, run under each design with its
    arguments; new arguments or a changed source make the runs stale ("CUDA program changed")."""
    out = fresh(os.path.join(work, "out"))
    src = os.path.join(work, "selfcheck.cu")
    shutil.copy(os.path.join(ROOT, "tests", "cuda", "progs", "selfcheck.cu"), src)
    spec = os.path.join(work, "cuda.toml")

    def write(args):
        with open(spec, "w") as f:
            f.write(CUDA_SPEC.format(src=src, args=args))

    def run():
        p = sweep(strata, spec, "--jobs", "2", "--out", out)
        check(p.returncode == 0, f"sweep: exit {p.returncode}: {p.stderr}")
        return p.stderr

    write('"512"')
    run()
    check(os.access(os.path.join(out, "programs", "selfcheck"), os.X_OK), "the program was not built into programs/")
    _, first = results_by_run(out)
    check(set(first) == {"hbm2_selfcheck", "gddr5_selfcheck"}, f"runs: {sorted(first)}")
    # vecadd at n = 512: 4 CTAs of 128 threads = 16 warps of 22 PTX instructions each
    check(first["hbm2_selfcheck"]["kernel.1.vecadd.warp_instructions"] == 16 * 22,
          f"vecadd at n = 512: {first['hbm2_selfcheck']}")
    err = run()
    check("2 runs, 2 done, 0 to run" in err, f"unchanged rerun: {err}")
    write('"1024"')
    err = run()
    check("0 done, 2 to run" in err and "2 CUDA program changed" in err, f"new arguments: {err}")
    _, now = results_by_run(out)
    check(now["hbm2_selfcheck"]["gpu.warp_instructions"] > first["hbm2_selfcheck"]["gpu.warp_instructions"],
          "the larger input kept the old numbers")
    with open(src, "a") as f:
        f.write("\n__global__ void unused_kernel(int* x) { x[0] = 1; }\n")
    err = run()
    check("2 CUDA program changed" in err, f"changed source: {err}")
    with open(src, "a") as f:
        f.write("\nthis does not compile\n")
    p = sweep(strata, spec, "--out", out)
    check(p.returncode == 2 and "key 'workloads[0].cuda': the program selfcheck does not build" in p.stderr,
          f"a source that does not compile: exit {p.returncode}: {p.stderr}")
    # --out where the programs' folder cannot be made: one line naming --out, exit 2 (was a Python exception)
    p = sweep(strata, spec, "--out", "/proc")
    check(p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--out /proc:" in p.stderr,
          f"--out /proc with a CUDA workload: exit {p.returncode}: {p.stderr}")


def main():
    if len(sys.argv) != 4:
        fail(__doc__)
    what, strata, work = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    os.makedirs(work, exist_ok=True)
    {"expand": t_expand, "badspec": t_badspec, "tables": t_tables, "kill": t_kill, "failed": t_failed,
     "plot": t_plot, "report": t_report, "stale": t_stale, "filter": t_filter, "cuda": t_cuda,
     "slurm": t_slurm}[what](strata, work)
    print(f"PASS {what}")


if __name__ == "__main__":
    main()
