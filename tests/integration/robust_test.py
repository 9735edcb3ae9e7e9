#!/usr/bin/env python3
"""Runs that stop early, signals, --out protection and DRAM-trace bad input (issue 14).

  robust_test.py signal SIG STRATA OUTDIR -- ARGS...   SIG (INT|TERM) mid-run: exit 4, stats.json/stats.txt complete
                                                      (every stat of a finished run), sim.partial = 1,
                                                      sim.stop_reason = 2, no temporary files left
  robust_test.py double-int STRATA OUTDIR -- ARGS...   two SIGINTs in a row: exit 4 at once
  robust_test.py time-limit STRATA OUTDIR -- ARGS...   sim.max_time_us stops a long run (exit 0, partial, reason 1,
                                                      PARTIAL in the summary); a limit the run does not reach
                                                      changes no stat and takes no longer
  robust_test.py out-exists STRATA OUTDIR -- ARGS...   a second run into a folder with results: exit 2, results
                                                      untouched; with --force: overwritten
  robust_test.py memtrace-bad STRATA TMPDIR            bad DRAM traces: exit 2 with one printable line each
  robust_test.py accelsim-bad STRATA KERNEL TMPDIR     Accel-Sim: grid larger than the traced blocks, control characters
  robust_test.py memtrace-formats STRATA TMPDIR        DRAMSys and Ramulator 2 line orders replay as the established ones
ARGS are the run's arguments (config, workload and its size).
"""
import gzip
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def load(outdir):
    with open(os.path.join(outdir, "stats.json")) as f:
        return json.load(f)


def txt_names(outdir):
    with open(os.path.join(outdir, "stats.txt")) as f:
        return {l.split()[0] for l in f if l.strip() and not l.startswith("#")}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def finished_reference(strata, outdir, args):
    """A finished run of a tiny size of the same workload: the complete set of stat names."""
    ref = outdir + "_ref"
    shutil.rmtree(ref, ignore_errors=True)
    p = run([strata, "--quiet", "--out", ref, *args, "--set", "sim.max_time_us=0"])
    if p.returncode != 0:
        fail(f"reference run exited {p.returncode}: {p.stderr}")
    s = load(ref)
    if s["sim.partial"] != 0 or s["sim.stop_reason"] != 0:
        fail("a finished run must have sim.partial = 0 and sim.stop_reason = 0")
    return s, ref


def check_complete(outdir, ref_stats, ref_dir, reason):
    s = load(outdir)
    if s.get("sim.partial") != 1 or s.get("sim.stop_reason") != reason:
        fail(f"sim.partial {s.get('sim.partial')}, sim.stop_reason {s.get('sim.stop_reason')}, expected 1 and {reason}")
    missing = set(ref_stats) - set(s)
    if missing:
        fail(f"stats.json lacks {len(missing)} stats of a finished run, e.g. {sorted(missing)[:5]}")
    if txt_names(outdir) != txt_names(ref_dir):
        fail("stats.txt does not name the same stats as a finished run's")
    left = [f for f in os.listdir(outdir) if f.endswith(".tmp")]
    if left:
        fail(f"temporary files left: {left}")
    if s["sim.seconds"] <= 0 or s["gpu.cycles"] <= 0:
        fail("a partial run must report the time and cycles it simulated")
    return s


def wait_running(proc, outdir, timeout=60):
    """Until the run has simulated a few epochs (timeseries.csv has rows)."""
    csv = os.path.join(outdir, "timeseries.csv")
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None:
            fail(f"the run ended (exit {proc.returncode}) before the signal; make it longer")
        try:
            with open(csv) as f:
                if sum(1 for _ in f) > 20:
                    return
        except FileNotFoundError:
            pass
        time.sleep(0.05)
    fail("the run did not start within 60 s")


def signal_mode(sig, strata, outdir, args, big, small):
    ref, ref_dir = finished_reference(strata, outdir, small)
    shutil.rmtree(outdir, ignore_errors=True)
    p = subprocess.Popen([strata, "--out", outdir, *args, *big], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    wait_running(p, outdir)
    p.send_signal(getattr(signal, "SIG" + sig))
    out, err = p.communicate(timeout=60)
    if p.returncode != 4:
        fail(f"exit {p.returncode}, expected 4 (interrupted)\nstdout: {out}\nstderr: {err}")
    if not re.search(r"^strata: interrupted \(SIG" + sig + r"\) at [0-9.]+ us simulated", err, re.M):
        fail(f"no interrupt message on stderr: {err!r}")
    if "INTERRUPTED" not in out or "PARTIAL" not in out:
        fail(f"the summary does not say the run was interrupted: {out!r}")
    s = check_complete(outdir, ref, ref_dir, 2)
    print(f"ok: SIG{sig} at {s['sim.seconds'] * 1e6:.1f} us: exit 4, {len(s)} stats, sim.partial 1")


def double_int(strata, outdir, args, big):
    shutil.rmtree(outdir, ignore_errors=True)
    p = subprocess.Popen([strata, "--quiet", "--out", outdir, *args, *big], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    wait_running(p, outdir)
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=60)
    if p.returncode != 4:
        fail(f"exit {p.returncode}, expected 4")
    if time.time() - t0 > 5:
        fail("two SIGINTs: the run did not end at once")
    print(f"ok: two SIGINTs: exit 4 after {time.time() - t0:.2f} s")


def time_limit(strata, outdir, args, big, small):
    ref, ref_dir = finished_reference(strata, outdir, small)
    shutil.rmtree(outdir, ignore_errors=True)
    p = run([strata, "--out", outdir, *args, *big, "--set", "sim.max_time_us=5"])
    if p.returncode != 0:
        fail(f"time-limited run exited {p.returncode}: {p.stderr}")
    if "stopped at the time limit" not in p.stdout or "PARTIAL" not in p.stdout:
        fail(f"the summary does not say the run stopped early: {p.stdout!r}")
    s = check_complete(outdir, ref, ref_dir, 1)
    if abs(s["sim.seconds"] - 5e-6) > 1e-12:
        fail(f"sim.seconds {s['sim.seconds']}, expected 5e-06")
    # A limit far beyond the end: the run ends when it finishes, with the stats of a run without it.
    far = outdir + "_far"
    shutil.rmtree(far, ignore_errors=True)
    t0 = time.time()
    p = run([strata, "--quiet", "--out", far, *small, "--set", "sim.max_time_us=10000000"])
    if p.returncode != 0 or time.time() - t0 > 20:
        fail(f"a run with an unreached limit exited {p.returncode} after {time.time() - t0:.1f} s")
    f = load(far)
    diff = [k for k in ref if not k.startswith("host.") and ref[k] != f.get(k)]
    if diff:
        fail(f"an unreached sim.max_time_us changed {diff[:5]}")
    # timeseries.csv: time_ns exact (whole ns, or ns with 3 ps digits), never rounded or in e-notation
    ts = outdir + "_ts"
    shutil.rmtree(ts, ignore_errors=True)
    if run([strata, "--quiet", "--out", ts, *small, "--set", "sim.epoch_ns=123.4567"]).returncode != 0:
        fail("run with sim.epoch_ns=123.4567 failed")
    with open(os.path.join(ts, "timeseries.csv")) as f:
        rows = [l.split(",")[0] for l in f][1:]
    if len(rows) < 3:
        fail(f"only {len(rows)} time-series rows")
    for i, t in enumerate(rows, 1):
        if not re.fullmatch(r"[0-9]+(\.[0-9]{3})?", t) or round(float(t) * 1000) != i * 123457:
            fail(f"timeseries.csv row {i}: time_ns '{t}', expected {i * 123457 / 1000:.3f}")
    print("ok: time limit stops at 5 us (partial, reason 1); an unreached limit changes nothing; time_ns exact")


def out_exists(strata, outdir, args):
    shutil.rmtree(outdir, ignore_errors=True)
    if run([strata, "--quiet", "--out", outdir, *args]).returncode != 0:
        fail("first run failed")
    js = os.path.join(outdir, "stats.json")
    before = os.stat(js).st_mtime_ns
    p = run([strata, "--quiet", "--out", outdir, *args])
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode != 2 or len(lines) != 1 or "--force" not in lines[0] or outdir not in lines[0]:
        fail(f"second run into {outdir}: exit {p.returncode}, stderr {p.stderr!r}; expected exit 2 naming --force")
    if os.stat(js).st_mtime_ns != before:
        fail("the refused run touched stats.json")
    p = run([strata, "--quiet", "--force", "--out", outdir, *args])
    if p.returncode != 0 or os.stat(js).st_mtime_ns == before:
        fail(f"--force did not overwrite (exit {p.returncode})")
    # memtrace too
    tr = os.path.join(outdir, "t.stl")
    with open(tr, "w") as f:
        f.write("0: read 0x0\n")
    mt = outdir + "_mt"
    shutil.rmtree(mt, ignore_errors=True)
    for want in (0, 2):
        p = run([strata, "memtrace", "--quiet", "--trace", tr, "--out", mt])
        if p.returncode != want:
            fail(f"memtrace into {mt}: exit {p.returncode}, expected {want}: {p.stderr}")
    print("ok: an --out folder with results is refused (exit 2) and overwritten with --force")


def expect_one_line_error(name, p, regex):
    """p (bytes output) exited 2 with one printable stderr line matching regex."""
    err = p.stderr.decode("latin-1")
    lines = [l for l in err.splitlines() if l.strip()]
    if p.returncode != 2 or len(lines) != 1 or not re.search(regex, lines[0]):
        fail(f"{name}: exit {p.returncode}, stderr {err!r}; expected exit 2 and one line matching {regex!r}")
    if any(ord(c) < 0x20 or ord(c) > 0x7e for c in lines[0]):
        fail(f"{name}: unprintable characters in {lines[0]!r}")
    print(f"ok: {name}: {lines[0]}")


def memtrace_bad(strata, tmp):
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)

    def w(name, data, gz=False):
        path = os.path.join(tmp, name)
        with (gzip.open(path, "wb") if gz else open(path, "wb")) as f:
            f.write(data)
        return path

    good = b"".join(b"%d:\tread\t0x%x\n" % (4 * i, 64 * i) for i in range(2000))
    full = w("full.stl.gz", good, gz=True)
    raw = open(full, "rb").read()
    cut = w("cut.stl.gz", raw[: len(raw) // 2])
    # gzip stream cut so that the part before decodes to whole lines: drop the trailer only
    trailer = w("trailer.stl.gz", raw[:-8])
    header = w("header.stl.gz", raw[:10])
    cases = [
        ("huge stl timestamp", [w("huge.stl", b"0:\tread\t0x0\n18446744073709551615:\tread\t0x40\n")],
         r"huge\.stl:2: expected a timestamp within the replay limit of 1e\+06 us .*sim\.max_time_us.*got cycle 18446744073709551615$"),
        ("huge dramsim3 timestamp", [w("huge.trace", b"0x40 READ 18446744073709551615\n")],
         r"huge\.trace:1: expected a timestamp within the replay limit"),
        ("limit by sim.max_time_us", [w("late.stl", b"0: read 0x0\n2000000: read 0x40\n"), "--set", "sim.max_time_us=1"],
         r"late\.stl:2: expected a timestamp within the replay limit of 1 us"),
        ("empty trace", [w("empty.stl", b"")], r"empty\.stl: expected at least one request line, got none"),
        ("comment-only trace", [w("comments.stl", b"# nothing\n\n   # here\n")],
         r"comments\.stl: expected at least one request line, got none"),
        ("truncated gzip", [cut], r"cut\.stl\.gz: truncated or corrupt gzip trace"),
        ("gzip without trailer", [trailer], r"trailer\.stl\.gz: truncated or corrupt gzip trace"),
        ("gzip header only", [header], r"header\.stl\.gz: truncated or corrupt gzip trace"),
        ("control characters", [w("ctl.stl", b"0: read 0x0\n\x1b[31m\x01\x02garbage\xff\n")],
         r"ctl\.stl:2: .*got '\\x1b\[31m\\x01\\x02garbage\\xff'$"),
        ("clock nan", [full, "--trace-clock-mhz", "nan"],
         r"--trace-clock-mhz: expected a clock in MHz from 1 to 100000, got 'nan'"),
        ("clock tiny", [full, "--trace-clock-mhz", "1e-30"],
         r"--trace-clock-mhz: expected a clock in MHz from 1 to 100000, got '1e-30'"),
    ]
    for name, extra, regex in cases:
        out = os.path.join(tmp, "out_" + re.sub(r"\W", "_", name))
        p = subprocess.run([strata, "memtrace", "--quiet", "--out", out, "--trace", *extra], capture_output=True,
                           timeout=60)
        expect_one_line_error(name, p, regex)
    p = run([strata, "memtrace", "--quiet", "--out", os.path.join(tmp, "out_full"), "--trace", full])
    if p.returncode != 0:
        fail(f"the whole gzip trace: exit {p.returncode}: {p.stderr}")
    with open(os.path.join(tmp, "out_full", "stats.json")) as f:
        if json.load(f)["mem.reads"] < 2000:
            fail("the whole gzip trace did not replay every request")
    print("ok: the whole gzip trace replays")


def memtrace_formats(strata, tmp):
    """DRAMSys (length before the command, bare hex addresses, relative .rstl) and Ramulator 2
    (LD/ST, R/W first) lines replay exactly as the same requests in the established forms."""
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    n = 300
    reqs = [(7 * i, i % 3 == 0, 0x40 * ((i * 37) % 4096), 64 if i % 4 else 128) for i in range(n)]

    def replay(name, text, *extra):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(text)
        out = os.path.join(tmp, "out_" + name.replace(".", "_"))
        p = run([strata, "memtrace", "--quiet", "--out", out, "--trace", path, *extra])
        if p.returncode != 0:
            fail(f"{name}: exit {p.returncode}: {p.stderr}")
        s = load(out)
        return {k: v for k, v in s.items() if not k.startswith("host.")}

    cmd = lambda w: "write" if w else "read"
    ref = replay("ref.stl", "".join(f"{t}: {cmd(w)} ({b}) 0x{a:x}\n" for t, w, a, b in reqs))
    data = lambda b: "0x" + "ab" * b
    dramsys = replay("dramsys.stl", "".join(f"{t}:\t({b})\t{cmd(w)}\t{a:x}" + (f"\t{data(b)}" if w else "") + "\n"
                                            for t, w, a, b in reqs))
    rel = replay("rel.rstl", "".join(f"{t - (reqs[i - 1][0] if i else 0)}:\t({b})\t{cmd(w)}\t0x{a:x}\n"
                                     for i, (t, w, a, b) in enumerate(reqs)))
    for name, s in (("DRAMSys order", dramsys), ("relative .rstl", rel)):
        diff = [k for k in ref if ref[k] != s.get(k)]
        if diff:
            fail(f"{name}: stats differ from the same requests in the Strata order: {diff[:5]}")
    if ref["mem.reads"] + ref["mem.writes"] == 0:
        fail("nothing replayed")
    ram1 = replay("r1.trace", "".join(f"0x{a:x} {'W' if w else 'R'}\n" for _, w, a, _ in reqs))
    for name, text in (("LD/ST", "".join(f"{'ST' if w else 'LD'} 0x{a:x}\n" for _, w, a, _ in reqs)),
                       ("R/W first", "".join(f"{'W' if w else 'R'} {a}\n" for _, w, a, _ in reqs))):
        s = replay(f"r2_{name[0]}.trace", text)
        diff = [k for k in ram1 if ram1[k] != s.get(k)]
        if diff:
            fail(f"Ramulator 2 {name}: stats differ from '0xADDR R|W': {diff[:5]}")
    bad = os.path.join(tmp, "vec.trace")
    with open(bad, "w") as f:
        f.write("R 0,1,2,3,4\n")
    p = run([strata, "memtrace", "--quiet", "--out", os.path.join(tmp, "o_vec"), "--trace", bad])
    if p.returncode != 2 or "address vectors" not in p.stderr:
        fail(f"an address vector: exit {p.returncode}, {p.stderr!r}")
    print(f"ok: DRAMSys order, bare hex, .rstl and Ramulator 2 orders replay as the established forms ({n} requests)")


def accelsim_bad(strata, kernel_src, tmp):
    """Accel-Sim traces: a grid header claiming more blocks than traced, and control characters
    in a bad line, are exit 2 with one printable line naming file:line."""
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    src = open(kernel_src).read()
    if "-grid dim = (1,1,1)" not in src:
        fail(f"{kernel_src}: expected a one-block kernel")
    cases = [
        ("grid", "kernel-1.traceg\n", src.replace("-grid dim = (1,1,1)", "-grid dim = (2147483647,65535,65535)"),
         r"kernel-1\.traceg:[0-9]+: expected the 9223090559730712575 thread blocks of '-grid dim = "
         r"\(2147483647,65535,65535\)', got 1 traced$"),
        ("ctl", "MemcpyHtoD,\x1b[31m\x01\n", src,
         r"kernelslist\.g:1: expected 'MemcpyHtoD,0xADDRESS,BYTES', got 'MemcpyHtoD,\\x1b\[31m\\x01'$"),
    ]
    for name, listing, kernel, regex in cases:
        d = os.path.join(tmp, name)
        os.makedirs(d)
        with open(os.path.join(d, "kernelslist.g"), "w") as f:
            f.write(listing)
        with open(os.path.join(d, "kernel-1.traceg"), "w") as f:
            f.write(kernel)
        p = subprocess.run([strata, "--quiet", "--out", os.path.join(tmp, "o_" + name), "--trace", d],
                           capture_output=True, timeout=60)
        expect_one_line_error(name, p, regex)


def main():
    argv = sys.argv[1:]
    if "--" in argv:
        i = argv.index("--")
        head, args = argv[:i], argv[i + 1:]
    else:
        head, args = argv, []
    mode, head = head[0], head[1:]
    # The run's size: a long run to interrupt, a tiny one for references.
    big = ["--workload", "stream", "--set", "workload.stream.n=16777216"]
    small = [*args, "--workload", "stream", "--set", "workload.stream.n=65536"]
    if mode == "signal":
        signal_mode(head[0], head[1], head[2], args, big, small)
    elif mode == "double-int":
        double_int(head[0], head[1], args, big)
    elif mode == "time-limit":
        time_limit(head[0], head[1], args, big, small)
    elif mode == "out-exists":
        out_exists(head[0], head[1], [*args, "--workload", "stream", "--set", "workload.stream.n=65536"])
    elif mode == "memtrace-formats":
        memtrace_formats(head[0], head[1])
    elif mode == "accelsim-bad":
        accelsim_bad(head[0], head[1], head[2])
    elif mode == "memtrace-bad":
        memtrace_bad(head[0], head[1])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
