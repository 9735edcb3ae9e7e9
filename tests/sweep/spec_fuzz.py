#!/usr/bin/env python3
"""Mutation fuzzing of the experiment-spec parser (tools/sweep.py: load_spec, expand, --dry-run).

  spec_fuzz.py WORKDIR [--seed N] [--cases N] [--seconds S] [--strata EXE]

Mutates the shipped specs (configs/experiments/*.toml) and the test specs (tests/sweep/specs/)
in two ways: bytes (flip, insert, delete, duplicate or drop a line, cut the file) and structure
(parse the spec, then at a random key replace the value by one of another type, drop the key, add
an unknown key, or empty a list, and write it back as TOML). Every mutated spec goes through
`strata sweep --dry-run` in this process (tools/sweep.py main()): it must exit 0, or exit 2 with
one printable line on stderr naming the spec; any exception (a Python traceback for a user) is
a finding, kept as WORKDIR/finding-<case>.toml. With --strata, every 50th case is also run
through the executable (`strata sweep`) with the same expectation.

Every third case also mutates the command line (CLI_ODD: --jobs, --filter, --out, --backend, unknown
options and flags, added to a shipped spec or the mutated one) with the same expectation, except that
the line need not name the spec; an --out where nothing can be written is tried without --dry-run and
must be refused (exit 2) before any run starts.

Past findings, reduced by hand, are in tests/sweep/fuzz_regressions/ and replayed first (each
must be rejected with one line). Deterministic: the same --seed gives the same cases (CTest runs
seed 1, 1000 cases, a few seconds); a longer local run takes --seconds (docs/fuzzing.md).
"""
import argparse
import contextlib
import copy
import glob
import io
import math
import os
import random
import subprocess
import sys
import time
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import sweep  # noqa: E402  (tools/sweep.py)


def seeds():
    paths = sorted(glob.glob(os.path.join(ROOT, "configs", "experiments", "*.toml")) +
                   glob.glob(os.path.join(HERE, "specs", "*.toml")))
    return [(p, open(p, "rb").read()) for p in paths]


# ---------------------------------------------------------------- a small TOML writer (inline forms only)

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        out = '"'
        for c in v:
            if c in '"\\':
                out += "\\" + c
            elif ord(c) < 0x20 or ord(c) == 0x7f:
                out += "\\u%04x" % ord(c)
            else:
                out += c
        return out + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def toml_key(k):
    return k if k and all(c.isalnum() or c in "_-" for c in k) else toml_value(k)


def toml_doc(d):
    return "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in d.items())


# ---------------------------------------------------------------- mutations

ODD_VALUES = [0, -1, 1, 2 ** 63 - 1, -2 ** 63, 1.5, -0.0, float("nan"), float("inf"), True, False, "", "x",
              "a=b", "=", "\x01\x1b[31m", "é", "../../etc", "*", "[", "{}", [], [0], [""], ["x=1"], [[]], [{}],
              {}, {"x": 1}, {"name": 1}, {"": ""}, [{"name": "d", "config": "baseline_hbm2"}],
              {"k": [1, 2]}, {"k": []}, {"k": [{}]}]
KEYS = ["max_runs", "name", "config", "set", "stat", "stats", "kind", "design", "against", "axis", "columns", "trace",
        "label", "row", "axes", "zip", "repeat", "seeds", "baseline", "vs", "to", "format", "scale", "paper",
        "where", "file", "timeout", "slurm", "bogus", "", "workloads", "designs", "tables", "figures", "compare"]


def paths_of(v, path=()):
    """Every (container path) in a parsed spec: dict keys and list indices."""
    out = [path]
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths_of(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths_of(x, path + (i,))
    return out


def get(v, path):
    for p in path:
        v = v[p]
    return v


def mutate_structure(rng, doc):
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(paths_of(doc))
        if not path:
            continue
        parent, last = get(doc, path[:-1]), path[-1]
        r = rng.random()
        if r < 0.5:
            parent[last] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif r < 0.65:
            del parent[last]
        elif r < 0.8 and isinstance(parent, dict):
            parent[rng.choice(KEYS)] = copy.deepcopy(rng.choice(ODD_VALUES))
        elif r < 0.9 and isinstance(parent[last], list):
            parent[last] = [copy.deepcopy(x) for x in parent[last] * rng.randint(0, 2)]
        elif isinstance(parent[last], str) and parent[last]:
            s = parent[last]
            i = rng.randrange(len(s))
            parent[last] = s[:i] + rng.choice(["", "=", "*", "|", ",", " ", "\x00", "é", s[i] * 3]) + s[i + 1:]
    return toml_doc(doc).encode()


def mutate_bytes(rng, data):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        r = rng.random()
        if not b:
            b += bytes([rng.randrange(256)])
        elif r < 0.25:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif r < 0.45:
            b.insert(rng.randrange(len(b) + 1), rng.choice(b'[]{}=",.#\n\\ 0x-1e\xff\x00'))
        elif r < 0.6:
            del b[rng.randrange(len(b))]
        elif r < 0.8:
            lines = bytes(b).split(b"\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines.insert(i, lines[rng.randrange(len(lines))])
            else:
                del lines[i]
            b = bytearray(b"\n".join(lines))
        else:
            b = b[:rng.randrange(len(b) + 1)]
    return bytes(b)


def cli_odd(work):
    """(options, runs_nothing): odd command-line options of `strata sweep`; runs_nothing: an --out where
    nothing can be written, tried without --dry-run (it must be refused before any run)."""
    afile = os.path.join(work, "a-file")
    if not os.path.exists(afile):
        with open(afile, "w") as f:
            f.write("x")
    opts = [["--jobs", v] for v in ("0", "-1", "x", "", "1e3", "99999999999999999999", "\x00")]
    opts += [["--filter", v] for v in ("", "=", "!=", "design", "design=", "design=*", "design!=*", "workload=strem",
                                       "seed=1|2", "seed!=", "x=y", "design==a", "\x1b[31m=1", "é=é", "design=[",
                                       "l2.policy=lru", "a" * 300 + "=b")]
    opts += [["--backend", v] for v in ("", "pbs", "local", "SLURM")]
    opts += [["--bogus"], ["--retry-failed"], ["--keep-other-builds"], ["--no-wait"], ["-j"], ["--filter"], ["--out"],
             ["--dry-run", "--dry-run"], ["-"], ["--"], ["\x00"]]
    bad_out = [afile, os.path.join(afile, "sub"), "/proc", "/proc/x", "", " ", "x" * 300,
               os.path.join(work, "x" * 300, "y")]
    return opts, bad_out


def cli_case(rng, work, spec_path):
    """argv for one command-line case, and whether it may run (False: it must not start a run)."""
    opts, bad_out = cli_odd(work)
    argv = [spec_path] if rng.random() < 0.9 else []
    for _ in range(rng.randint(1, 3)):
        argv += rng.choice(opts)
    rng.shuffle(argv) if rng.random() < 0.1 else None
    if rng.random() < 0.3:  # a dry run writes nothing, so only a real one must refuse the folder
        return [x for x in argv if x != "--dry-run"] + ["--out", rng.choice(bad_out)], False
    return argv + ["--dry-run", "--out", os.path.join(work, "out-never-written")], True


def make_case(rng, corpus):
    _, data = rng.choice(corpus)
    if rng.random() < 0.6:
        try:
            return mutate_structure(rng, tomllib.loads(data.decode()))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            pass
    return mutate_bytes(rng, data)


# ---------------------------------------------------------------- the check

def check_in_process(path, out, argv=None):
    """(ok, what): sweep main() on the spec must return 0, or 2 with one printable stderr line naming it
    (argv: a command-line case instead; its line need not name the spec)."""
    err, sink = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(sink):
            rc = sweep.main(argv if argv is not None else ["--dry-run", "--out", out, path])
    except SystemExit as e:
        rc = e.code
    except Exception as e:  # noqa: BLE001  (any exception is the finding)
        import traceback
        return False, "exception: " + "".join(traceback.format_exception(e)).strip().splitlines()[-1]
    return judge(rc, err.getvalue(), path if argv is None else None)


def judge(rc, err, path):
    lines = [l for l in err.splitlines() if l.strip()]
    if rc == 0:
        return True, "ok"
    if rc != 2:
        return False, f"exit {rc}: {err.strip()[-300:]!r}"
    if len(lines) != 1:
        return False, f"exit 2 with {len(lines)} lines: {err[-300:]!r}"
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in lines[0]):
        return False, f"unprintable characters: {lines[0]!r}"
    if path is not None and path not in lines[0]:
        return False, f"the spec is not named: {lines[0]!r}"
    return True, "rejected"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=0, help="run this long instead of --cases")
    ap.add_argument("--strata", help="also run every 50th case through this executable")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rng = random.Random(a.seed)
    corpus = seeds()
    if len(corpus) < 5:
        print(f"FAIL: only {len(corpus)} seed specs found")
        return 1
    out = os.path.join(a.work, "out-never-written")
    path = os.path.join(a.work, "case.toml")
    counts = {"ok": 0, "rejected": 0}
    cli_counts = {}
    real_exe = sweep.strata_exe
    findings = []
    regressions = sorted(glob.glob(os.path.join(HERE, "fuzz_regressions", "*.toml")))
    for r in regressions:  # past findings: each must be rejected with one line now
        ok, what = check_in_process(r, out)
        if not ok or what != "rejected":
            findings.append(f"regression {r}: {what}")
    t0, i = time.time(), 0
    while (time.time() - t0 < a.seconds) if a.seconds else (i < a.cases):
        data = make_case(rng, corpus)
        with open(path, "wb") as f:
            f.write(data)
        ok, what = check_in_process(path, out)
        if ok and i % 3 == 0:  # the command line too, on this spec or a shipped one
            argv, may_run = cli_case(rng, a.work, path if rng.random() < 0.5 else rng.choice(corpus)[0])
            if not may_run:
                sweep.strata_exe = lambda: "/nonexistent/strata-must-not-run"
            try:
                ok, what = check_in_process(path, out, argv)
            finally:
                sweep.strata_exe = real_exe
            if ok and not may_run and what == "ok":
                ok, what = False, f"an --out where nothing can be written was accepted: {argv!r}"
            cli_counts[what] = cli_counts.get(what, 0) + 1
            if not ok:
                what = f"command line {argv!r}: {what}"
        if ok and a.strata and i % 50 == 0:
            p = subprocess.run([a.strata, "sweep", "--dry-run", "--out", out, path], capture_output=True,
                               text=True, timeout=60)
            ok, what2 = judge(p.returncode, p.stderr, path)
            what = what if ok else "strata sweep: " + what2
        if ok:
            counts[what] += 1
        else:
            keep = os.path.join(a.work, f"finding-{i}.toml")
            with open(keep, "wb") as f:
                f.write(data)
            findings.append(f"case {i} ({keep}): {what}")
        i += 1
    if os.path.exists(out):
        findings.append(f"--dry-run wrote {out}")
    print(f"spec_fuzz: {len(regressions)} regression inputs; seed {a.seed}, {i} cases in {time.time() - t0:.1f} s: "
          f"{counts['ok']} valid, "
          f"{counts['rejected']} rejected with one line, {len(findings)} findings; command-line cases: "
          f"{cli_counts.get('ok', 0)} accepted, {cli_counts.get('rejected', 0)} rejected with one line")
    if counts["rejected"] < i // 4 or counts["ok"] == 0:
        print("FAIL: the mutations no longer reach both the accepted and the rejected paths")
        return 1
    for f in findings[:20]:
        print("FAIL: " + f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
