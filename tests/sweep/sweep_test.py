#!/usr/bin/env python3
"""Tests of `strata sweep` / `strata plot` (tools/sweep.py, tools/plot.py; docs/experiments.md).

  sweep_test.py expand  STRATA WORKDIR   spec expansion (axes, zips, per-workload axes, repeats, filters)
  sweep_test.py badspec STRATA WORKDIR   bad specs and bad options: exit 2, one line naming the file and key
  sweep_test.py tables  STRATA WORKDIR   normalised tables: ratios, means, mean [min..max], n.s. marking
  sweep_test.py kill    STRATA WORKDIR   a sweep killed with SIGKILL midway and resumed == an uninterrupted one
  sweep_test.py failed  STRATA WORKDIR   a failing run is recorded and reported; --retry-failed reruns it
  sweep_test.py plot    STRATA WORKDIR   figures and `strata plot` render PNGs of the expected pixel size
  sweep_test.py report  STRATA WORKDIR   `strata report`: paper vs Strata with same direction? / within 2x?
  sweep_test.py slurm   STRATA WORKDIR   --backend slurm: a 4-run array job gives the local sweep's CSV; --no-wait
                                         then a rerun waits for that job instead of resubmitting. Uses the
                                         cluster of $SLURM_CONF (.ci/run starts one) or starts one with
                                         scripts/slurm_local.sh; exit 77 (CTest: skipped) only if none can start.
"""
import csv
import json
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
                       (["--jobs", "0"], "--jobs 0"), ([os.path.join(work, "missing.toml")], "cannot read")):
        p = sweep(strata, *([spec] if args[0].startswith("-") else []), *args, "--dry-run", "--out", work)
        check(p.returncode == 2 and want in p.stderr and len(p.stderr.strip().splitlines()) == 1,
              f"{args}: exit {p.returncode}: {p.stderr}")


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
    for name in ("lines.png", "bars.png"):
        path = os.path.join(out, name)
        check(os.path.exists(path) and os.path.getsize(path) > 10000, f"{name} missing or nearly empty")
        check(png_size(path) == (800, 450), f"{name}: {png_size(path)} pixels, want 800 x 450")
    run = os.path.join(out, "runs", "hbm2_stream_workload.stream.n=32768")
    p = subprocess.run([strata, "plot", run], capture_output=True, text=True)
    ts = os.path.join(run, "timeseries.png")
    check(p.returncode == 0 and p.stdout.strip() == ts, f"strata plot: {p.returncode} {p.stdout} {p.stderr}")
    check(os.path.getsize(ts) > 10000 and png_size(ts) == (1000, 800), f"timeseries.png: {png_size(ts)}")
    p = subprocess.run([strata, "plot", os.path.join(out, "nothing")], capture_output=True, text=True)
    check(p.returncode == 2 and "timeseries.csv" in p.stderr, f"plot of a missing run: {p.returncode} {p.stderr}")


def t_report(strata, work):
    res = fresh(os.path.join(work, "results"))
    p = sweep(strata, os.path.join(SPECS, "lines.toml"), "--jobs", "2", "--out", os.path.join(res, "lines"))
    check(p.returncode == 0, f"sweep: {p.stderr}")
    rows = list(csv.DictReader(open(os.path.join(res, "lines", "results.csv"))))
    bw = {(r["design"], r["workload.stream.n"]): float(r["mem.bandwidth_gbps"]) for r in rows}
    ratio = sum(bw[("gddr5", n)] / bw[("hbm2", n)] for n in ("8192", "16384", "32768")) / 3
    out = os.path.join(work, "docs", "results.md")
    p = subprocess.run([strata, "report", "--specs", SPECS, "--results", res, "--out", out], capture_output=True,
                       text=True)
    check(p.returncode == 0, f"report: {p.returncode} {p.stderr}")
    md = open(out).read()
    same = "yes" if ratio < 1 else "no"  # the made-up paper number is 0.5 (-50 %)
    within = "yes" if 0.25 <= 1 - ratio <= 1 else "no"
    want = f"| gddr5 vs hbm2: bandwidth | test | -50.00% | {(ratio - 1) * 100:+.2f}% | {same} | {within} |"
    check(want in md, f"claim row: want\n{want}\nin\n{md}")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    import report  # the verdicts themselves: an opposite change is never "within 2x", whatever its size
    check([report.within_2x(1.048, x) for x in (0.9455, 1.03, 1.09, 1.02, 1.1, 1.0)] ==
          ["no", "yes", "yes", "no", "no", "no"], "within_2x")
    check([report.same_direction(0.9, x) for x in (0.95, 1.01, 1.0)] == ["yes", "no", "no"], "same_direction")
    check("## Made-up paper B" in md and "Not reproduced yet: its system is not built yet." in md, "unbuilt paper")
    check("Results collected " in md and "6 of the spec's 6 runs" in md and "at commit `" in md, f"build line:\n{md}")
    for name in ("lines.png", "bars.png"):
        png = os.path.join(work, "docs", "figures", name)
        check(f"![{name}](figures/{name})" in md and png_size(png) == (800, 450), f"figure {name}")


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


def main():
    if len(sys.argv) != 4:
        fail(__doc__)
    what, strata, work = sys.argv[1], os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3])
    os.makedirs(work, exist_ok=True)
    {"expand": t_expand, "badspec": t_badspec, "tables": t_tables, "kill": t_kill, "failed": t_failed,
     "plot": t_plot, "report": t_report,
     "slurm": t_slurm}[what](strata, work)
    print(f"PASS {what}")


if __name__ == "__main__":
    main()
