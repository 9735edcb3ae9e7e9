#!/usr/bin/env python3
"""strata sweep: run an experiment spec (configs/experiments/*.toml) and collect its results.

  strata sweep SPEC [--jobs N] [--backend local|slurm] [--out DIR] [--dry-run] [--filter EXPR]...
                    [--retry-failed] [--no-wait]

SPEC is a TOML file (docs/experiments.md): designs (a platform config + --set overrides) x workloads
(built-in names or trace paths, each with optional axes of its own) x cartesian axes x zipped lists x
repeats (seeds and perturbations such as a latency +-1 cycle). Every run gets one folder
DIR/runs/NAME, NAME made from its parameters. A run is done when its folder exists: strata writes into
DIR/.tmp/ and the finished folder is renamed into place, so killing a sweep at any moment loses no
finished run and leaves no half-written folder under DIR/runs/. A rerun skips done runs. A failed run
is recorded in DIR/failed/NAME.json (exit status, command, last stderr lines), reported at the end, and
not rerun unless --retry-failed. Then DIR/results.csv, DIR/results.json and DIR/results.md (the spec's
tables: ratios to the baseline design per row, arithmetic and geometric means, mean [min-max] over
repeats with differences inside the noise marked n.s.) and the spec's figures (DIR/*.png) are written.

--backend slurm submits the runs as one `sbatch --array` job (tools/slurm.py), waits for it (or not:
--no-wait; the same command later waits for it) and collects the same folders.

--filter KEY=GLOB[|GLOB...] (or KEY!=GLOB...) keeps the runs whose parameter KEY (design, workload,
seed, or a --set key) matches; repeatable, all must hold. Exit status: 0 every selected run done,
1 some run failed, 2 bad spec or usage.
"""
import argparse
import csv
import fcntl
import fnmatch
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import threading
import tomllib
from concurrent.futures import ThreadPoolExecutor, as_completed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STDERR_TAIL = 20  # lines of a failed run's stderr kept in its record


class SpecError(Exception):
    """A bad spec or bad usage: printed as one line, exit status 2."""


# ---------------------------------------------------------------- spec loading and validation

def _expect(cond, where, key, what, got):
    if not cond:
        raise SpecError(f"{where}: key '{_printable(key)}': expected {what}, got {got!r}")


def _scalar(v):
    return isinstance(v, (str, int, float)) and not isinstance(v, bool)


def _str_list(d, key, where, path):
    v = d.get(key, [])
    _expect(isinstance(v, list) and all(isinstance(x, str) and "=" in x for x in v), where, path,
            "a list of \"KEY=VALUE\" strings", v)
    return v


def _axes(d, where, path):
    _expect(isinstance(d, dict) and d, where, path, "a table KEY = [values]", d)
    for k, vals in d.items():
        _expect(isinstance(vals, list) and vals and all(_scalar(x) for x in vals), where, f"{path}.{k}",
                "a non-empty list of numbers or strings", vals)
    return {k: list(v) for k, v in d.items()}


def _is_name(v, names):
    """v is one of the design names (a value of any other type is not, and is no error)."""
    return isinstance(v, str) and v in names


def _printable(s):
    """s with control characters escaped (error messages are one printable line)."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(s))


def _only(d, allowed, where, path):
    _expect(isinstance(d, dict), where, path.rstrip("."), "a table", d)
    for k in d:
        if k not in allowed:
            raise SpecError(f"{where}: key '{_printable(path + k)}': unknown (expected one of "
                            f"{', '.join(sorted(allowed))})")


TOP_KEYS = {"name", "title", "description", "stats", "seeds", "set", "baseline", "designs", "workloads", "axes",
            "zip", "repeat", "tables", "compare", "figures", "paper", "slurm", "timeout"}


def load_spec(path):
    """Parse and validate a spec; returns a dict with defaults filled in. Raises SpecError."""
    where = f"spec {path}"
    try:
        with open(path, "rb") as f:
            s = tomllib.load(f)
    except OSError as e:
        raise SpecError(f"{where}: cannot read: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{where}: {e}")
    except UnicodeDecodeError as e:
        raise SpecError(f"{where}: expected UTF-8 text (TOML), got byte 0x{e.object[e.start]:02x} at offset {e.start}")
    _only(s, TOP_KEYS, where, "")
    _expect(isinstance(s.get("name"), str) and re.fullmatch(r"[A-Za-z0-9_.-]+", s.get("name", "")), where, "name",
            "a name of letters, digits, '_', '.', '-'", s.get("name"))
    _expect(isinstance(s.get("stats"), list) and s["stats"] and all(isinstance(x, str) for x in s["stats"]), where,
            "stats", "a non-empty list of stat names", s.get("stats"))
    seeds = s.get("seeds", [])
    _expect(isinstance(seeds, list) and all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in seeds),
            where, "seeds", "a list of non-negative integers", seeds)
    s["seeds"] = seeds
    s["set"] = _str_list(s, "set", where, "set")
    designs = s.get("designs")
    _expect(isinstance(designs, list) and designs, where, "designs", "a non-empty array of tables [[designs]]", designs)
    names = set()
    for i, d in enumerate(designs):
        p = f"designs[{i}]"
        _expect(isinstance(d, dict), where, p, "a table", d)
        _only(d, {"name", "config", "set"}, where, p + ".")
        _expect(isinstance(d.get("name"), str) and d["name"], where, p + ".name", "a string", d.get("name"))
        _expect(d["name"] not in names, where, p + ".name", "a name not used by another design", d["name"])
        names.add(d["name"])
        _expect(isinstance(d.get("config"), str) and d["config"], where, p + ".config", "a config name or path",
                d.get("config"))
        d["set"] = _str_list(d, "set", where, p + ".set")
    s["baseline"] = s.get("baseline", designs[0]["name"])
    _expect(_is_name(s["baseline"], names), where, "baseline",
            f"one of the designs ({_printable(', '.join(names))})", s["baseline"])
    wls = s.get("workloads")
    _expect(isinstance(wls, list) and wls, where, "workloads", "a non-empty array of tables [[workloads]]", wls)
    for i, w in enumerate(wls):
        p = f"workloads[{i}]"
        _expect(isinstance(w, dict), where, p, "a table", w)
        _only(w, {"name", "trace", "label", "row", "set", "axes", "paper"}, where, p + ".")
        _expect(("name" in w) != ("trace" in w), where, p, "exactly one of name (built-in) or trace (path)",
                sorted(w))
        src = w.get("name", w.get("trace"))
        _expect(isinstance(src, str) and src, where, p + (".name" if "name" in w else ".trace"), "a string", src)
        w.setdefault("label", w.get("name") or os.path.basename(os.path.normpath(w["trace"])))
        _expect(isinstance(w["label"], str), where, p + ".label", "a string", w["label"])
        w.setdefault("row", w["label"])
        _expect(isinstance(w["row"], str), where, p + ".row", "a string (the row label in tables)", w["row"])
        w["set"] = _str_list(w, "set", where, p + ".set")
        w["axes"] = _axes(w["axes"], where, p + ".axes") if "axes" in w else {}
        pv = w.setdefault("paper", {})
        _expect(isinstance(pv, dict) and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                             for x in pv.values()), where, p + ".paper",
                "a table STAT = number (the paper's value of that stat for this workload)", pv)
    s["axes"] = _axes(s["axes"], where, "axes") if "axes" in s else {}
    zips = s.get("zip", [])
    _expect(isinstance(zips, list), where, "zip", "an array of tables [[zip]]", zips)
    for i, z in enumerate(zips):
        z = _axes(z, where, f"zip[{i}]")
        lens = {len(v) for v in z.values()}
        _expect(len(lens) == 1, where, f"zip[{i}]", "lists of one length (zipped)", {k: len(v) for k, v in z.items()})
        zips[i] = z
    s["zip"] = zips
    s["repeat"] = _axes(s["repeat"], where, "repeat") if "repeat" in s else {}
    for t in ("tables", "compare", "figures"):
        _expect(isinstance(s.get(t, []), list) and all(isinstance(x, dict) for x in s.get(t, [])), where, t,
                f"an array of tables [[{t}]]", s.get(t))
        s.setdefault(t, [])
    for i, t in enumerate(s["tables"]):
        p = f"tables[{i}]"
        _only(t, {"kind", "stat", "stats", "title", "columns", "paper", "design"}, where, p + ".")
        kind = t.setdefault("kind", "normalised")
        _expect(kind in ("normalised", "raw", "columns", "compare", "paper"), where, p + ".kind",
                "normalised, raw, columns, compare or paper", kind)
        if kind == "normalised":
            _expect(isinstance(t.get("stat"), str), where, p + ".stat", "a stat name", t.get("stat"))
        if kind in ("raw", "paper"):
            _expect(isinstance(t.get("stats"), list) and t["stats"] and all(isinstance(x, str) for x in t["stats"]),
                    where, p + ".stats", "a list of stat names", t.get("stats"))
        if kind == "paper":
            _expect(_is_name(t.setdefault("design", designs[0]["name"]), names), where, p + ".design", "a design name",
                    t.get("design"))
        if kind == "columns":
            cols = t.get("columns")
            _expect(isinstance(cols, list) and cols, where, p + ".columns", "an array of column tables", cols)
            for j, c in enumerate(cols):
                q = f"{p}.columns[{j}]"
                _only(c, {"title", "design", "stat", "vs", "to", "format", "scale"}, where, q + ".")
                _expect(_is_name(c.get("design"), names), where, q + ".design", "a design name", c.get("design"))
                _expect(isinstance(c.get("stat"), str), where, q + ".stat", "a stat name", c.get("stat"))
                for k in ("vs", "to"):
                    _expect(k not in c or _is_name(c[k], names), where, f"{q}.{k}", "a design name", c.get(k))
    for i, c in enumerate(s["compare"]):
        p = f"compare[{i}]"
        _only(c, {"design", "against", "stat", "title", "paper", "where"}, where, p + ".")
        for k in ("design", "against"):
            _expect(_is_name(c.get(k), names), where, f"{p}.{k}", "a design name", c.get(k))
        _expect(isinstance(c.get("stat"), str), where, p + ".stat", "a stat name", c.get("stat"))
        _expect("paper" not in c or isinstance(c["paper"], (int, float)), where, p + ".paper",
                "a ratio (1.05 = +5 %)", c.get("paper"))
    for i, f in enumerate(s["figures"]):
        p = f"figures[{i}]"
        _only(f, {"kind", "stat", "title", "file", "axis", "ylabel"}, where, p + ".")
        _expect(f.get("kind") in ("bars", "lines"), where, p + ".kind", "bars or lines", f.get("kind"))
        _expect(isinstance(f.get("stat"), str), where, p + ".stat", "a stat name", f.get("stat"))
        if f["kind"] == "lines":
            _expect(isinstance(f.get("axis"), str), where, p + ".axis", "the --set key of a one-axis sweep",
                    f.get("axis"))
    paper = s.get("paper", {})
    _expect(isinstance(paper, dict), where, "paper", "a table", paper)
    _only(paper, {"file", "title", "where"}, where, "paper.")
    slurm = s.get("slurm", {})
    _expect(isinstance(slurm, dict), where, "slurm", "a table", slurm)
    _only(slurm, {"cpus_per_task", "mem", "time", "partition"}, where, "slurm.")
    timeout = s.get("timeout", 0)
    _expect(isinstance(timeout, (int, float)) and timeout >= 0, where, "timeout", "seconds >= 0 (0 = none)", timeout)
    s["path"] = path
    return s


# ---------------------------------------------------------------- expansion

def _fmt_val(v):
    return repr(v) if isinstance(v, float) else str(v)


def _product(dims):
    """dims: list of lists of (key, value) tuples (one list of assignments per point); cartesian product."""
    out = [[]]
    for dim in dims:
        out = [o + list(pt) for o in out for pt in dim]
    return out


def _dims(axes, zips):
    dims = [[((k, v),) for v in vals] for k, vals in axes.items()]
    for z in zips:
        keys = list(z)
        dims.append([tuple((k, z[k][i]) for k in keys) for i in range(len(z[keys[0]]))])
    return dims


def run_name(params):
    """Folder name of a run, made from its parameters (unsafe characters -> '_')."""
    parts = [params["design"], params["workload"]] + [f"{k}={v}" for k, v in params.items()
                                                       if k not in ("design", "workload")]
    return re.sub(r"[^A-Za-z0-9._=+-]", "_", ",".join(parts))


def expand(spec):
    """Every run of the spec, in a fixed order: list of dicts {name, params, row, repeat, design, cmd_args}.
    params: design, workload, then the workload's axes, the global axes and zips, seed, repeat keys."""
    runs = []
    rep_dims = ([[(("seed", x),) for x in spec["seeds"]]] if spec["seeds"] else []) + _dims(spec["repeat"], [])
    for w in spec["workloads"]:
        points = _product(_dims(w["axes"], []) + _dims(spec["axes"], spec["zip"]))
        for pt in points:
            for d in spec["designs"]:
                for rep in _product(rep_dims):
                    params = {"design": d["name"], "workload": w["label"]}
                    params.update((k, v) for k, v in pt)
                    params.update((k, v) for k, v in rep)
                    args = ["--config", d["config"]]
                    args += ["--workload", w["name"]] if "name" in w else ["--trace", w["trace"]]
                    sets = spec["set"] + d["set"] + w["set"] + [f"{k}={_fmt_val(v)}" for k, v in pt]
                    sets += [f"{k}={_fmt_val(v)}" for k, v in rep if k != "seed"]
                    for kv in sets:
                        args += ["--set", kv]
                    seed = dict(rep).get("seed")
                    if seed is not None:
                        args += ["--seed", str(seed)]
                    row = ",".join([w["row"]] + [f"{k.split('.')[-1]}={_fmt_val(v)}" for k, v in pt])
                    runs.append({"name": run_name(params), "params": params, "row": row, "design": d["name"],
                                 "repeat": tuple(rep), "args": args, "paper": w["paper"]})
    seen = {}
    for r in runs:
        if r["name"] in seen:
            raise SpecError(f"spec {spec['path']}: key 'workloads': two runs get the same folder {r['name']} "
                            f"(give the workloads distinct labels)")
        seen[r["name"]] = r
    return runs


def parse_filters(exprs, runs):
    """--filter terms -> list of (key, negate, [globs]); a key no run has is an error."""
    keys = set().union(*(r["params"] for r in runs)) if runs else set()
    out = []
    for e in exprs:
        m = re.fullmatch(r"\s*([^=!\s]+)\s*(!?=)\s*(.+?)\s*", e)
        if not m:
            raise SpecError(f"--filter {e!r}: expected KEY=GLOB[|GLOB...] or KEY!=GLOB[|GLOB...]")
        if m.group(1) not in keys:
            raise SpecError(f"--filter {e!r}: key '{m.group(1)}': not a parameter of this sweep "
                            f"(expected one of {', '.join(sorted(keys))})")
        out.append((m.group(1), m.group(2) == "!=", m.group(3).split("|")))
    return out


def select(runs, filters):
    def ok(r):
        for k, neg, globs in filters:
            v = _fmt_val(r["params"].get(k, ""))
            hit = any(fnmatch.fnmatchcase(v, g) for g in globs)
            if hit == neg:
                return False
        return True
    return [r for r in runs if ok(r)]


# ---------------------------------------------------------------- running

def strata_exe():
    return os.environ.get("STRATA_EXE") or os.path.join(ROOT, "build", "strata")


def write_json_atomic(path, obj):
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, sort_keys=False)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def is_done(out, run):
    p = os.path.join(out, "runs", run["name"], "stats.json")
    try:
        with open(p) as f:
            return isinstance(json.load(f), dict)
    except (OSError, ValueError):
        return False


def _die_with_parent():
    # A sweep killed with SIGKILL takes its strata children with it (Linux prctl PR_SET_PDEATHSIG).
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


_live, _live_lock, _abort = set(), threading.Lock(), threading.Event()  # running strata processes; Ctrl-C


def run_one(out, run, timeout=0):
    """Run one simulation into DIR/.tmp, then rename it to DIR/runs/NAME (success) or record DIR/failed/NAME.json.
    Returns (ok, seconds); ok is None when the sweep was interrupted (nothing recorded, the run stays to do)."""
    t0 = time.time()
    if _abort.is_set():
        return None, 0.0
    tmp = os.path.join(out, ".tmp", f"{run['name']}.{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    cmd = [strata_exe(), "--quiet", "--out", tmp] + run["args"]
    with open(os.path.join(tmp, "params.json"), "w") as f:
        json.dump({"params": run["params"], "command": cmd}, f, indent=1)
    try:
        # Own session: a Ctrl-C at the terminal reaches the sweep only, which then stops its runs itself.
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace",
                             preexec_fn=_die_with_parent, start_new_session=True)
    except OSError as e:
        p, status, err = None, "exec", f"cannot run {cmd[0]}: {e.strerror}"
    if p:
        with _live_lock:
            _live.add(p)
        try:
            err = p.communicate(timeout=timeout or None)[1]
            status = p.returncode
        except subprocess.TimeoutExpired:
            p.kill()
            status, err = "timeout", f"killed after {timeout} s\n" + p.communicate()[1]
        finally:
            with _live_lock:
                _live.discard(p)
    if _abort.is_set():
        shutil.rmtree(tmp, ignore_errors=True)
        return None, time.time() - t0
    fail = os.path.join(out, "failed", run["name"] + ".json")
    ok = status == 0 and os.path.exists(os.path.join(tmp, "stats.json"))
    if ok:
        os.rename(tmp, os.path.join(out, "runs", run["name"]))
        if os.path.exists(fail):
            os.remove(fail)
    else:
        write_json_atomic(fail, {"name": run["name"], "params": run["params"], "exit_status": status,
                                 "command": cmd, "stderr_tail": err.splitlines()[-STDERR_TAIL:]})
        shutil.rmtree(tmp, ignore_errors=True)
    return ok, time.time() - t0


def _fmt_secs(s):
    s = int(round(s))
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def run_local(out, to_run, jobs, timeout, total_done, total):
    tty = sys.stderr.isatty()
    done, failed, t0 = 0, 0, time.time()

    def progress(final=False):
        rem = len(to_run) - done - failed
        eta = (time.time() - t0) / (done + failed) * rem if done + failed else float("nan")
        line = (f"sweep: done {total_done + done}/{total}  failed {failed}  remaining {rem}"
                + (f"  ETA {_fmt_secs(eta)}" if not math.isnan(eta) and rem else ""))
        if tty:
            sys.stderr.write("\r" + line.ljust(78) + ("\n" if final else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    ex = ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        futs = [ex.submit(run_one, out, r, timeout) for r in to_run]
        for f in as_completed(futs):
            ok, _ = f.result()
            done, failed = done + (ok is True), failed + (ok is False)
            progress()
    except KeyboardInterrupt:  # stop the runs in flight; they stay to do, finished runs are kept
        _abort.set()
        with _live_lock:
            for p in _live:
                p.kill()
        ex.shutdown(wait=True, cancel_futures=True)
        print(f"\nsweep: interrupted: {total_done + done} runs done are kept; the same command resumes",
              file=sys.stderr)
        return False
    ex.shutdown()
    if tty and to_run:
        progress(final=True)
    return True


# ---------------------------------------------------------------- collection

def load_results(spec, out, runs):
    """{run name: stats dict} for the done runs."""
    res = {}
    for r in runs:
        try:
            with open(os.path.join(out, "runs", r["name"], "stats.json")) as f:
                res[r["name"]] = json.load(f)
        except (OSError, ValueError):
            pass
    return res


def write_results(spec, out, runs, stats):
    param_keys = []
    for r in runs:
        for k in r["params"]:
            if k not in param_keys:
                param_keys.append(k)
    rows = []
    for r in runs:
        if r["name"] not in stats:
            continue
        row = {"run": r["name"]}
        row.update({k: r["params"].get(k, "") for k in param_keys})
        row.update({k: stats[r["name"]].get(k, "") for k in spec["stats"]})
        rows.append(row)
    with open(os.path.join(out, "results.csv.tmp"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=["run"] + param_keys + spec["stats"])
        wr.writeheader()
        wr.writerows(rows)
    os.replace(os.path.join(out, "results.csv.tmp"), os.path.join(out, "results.csv"))
    write_json_atomic(os.path.join(out, "results.json"),
                      {"spec": spec["name"], "baseline": spec["baseline"], "parameters": param_keys,
                       "stats": spec["stats"], "build": build_info(), "runs": rows})
    missing = sorted({k for r in runs if r["name"] in stats for k in spec["stats"] if k not in stats[r["name"]]})
    for k in missing:
        print(f"sweep: warning: stat '{k}' (spec key 'stats') is missing from some stats.json", file=sys.stderr)


def build_info():
    """Which strata produced the results: version, source commit, date of collection."""
    def out(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return {"strata_version": out([strata_exe(), "--version"]),
            "commit": out(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


class Table:
    """Values by (row, design, repeat) for one stat, with the ratio and noise arithmetic of the tables."""

    def __init__(self, spec, runs, stats, stat):
        self.v, self.rows, self.reps = {}, [], []
        for r in runs:
            if r["row"] not in self.rows:
                self.rows.append(r["row"])
            if r["repeat"] not in self.reps:
                self.reps.append(r["repeat"])
            x = stats.get(r["name"], {}).get(stat)
            if isinstance(x, (int, float)):
                self.v[(r["row"], r["design"], r["repeat"])] = float(x)
        self.base = spec["baseline"]

    def val(self, row, d, rep):
        return self.v.get((row, d, rep), math.nan)

    def ratios(self, row, d, ref=None):
        """Per-repeat ratios of design d to ref (default the baseline) in one row; nan where unknown or ref is 0."""
        ref = ref or self.base
        out = []
        for rep in self.reps:
            a, b = self.val(row, d, rep), self.val(row, ref, rep)
            out.append(a / b if b and not math.isnan(a) and not math.isnan(b) else math.nan)
        return out

    def base_spread(self, row):
        xs = [x for x in (self.val(row, self.base, rep) for rep in self.reps) if not math.isnan(x)]
        m = sum(xs) / len(xs) if xs else 0
        return (max(xs) - min(xs)) / m if len(xs) > 1 and m else 0.0


def amean(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return sum(xs) / len(xs) if xs else math.nan


def gmean(xs):
    xs = [x for x in xs if not math.isnan(x) and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else math.nan


def cell(per_rep, noise_floor=0.0, is_base=False, pct=False):
    """'mean' or 'mean [min-max]' over repeats; ' n.s.' when |mean - 1| is below the noise (max of the spread of
    the ratios over repeats and noise_floor, the baseline's own relative spread)."""
    xs = [x for x in per_rep if not math.isnan(x)]
    if not xs:
        return "n/a"
    m = sum(xs) / len(xs)
    f = (lambda x: f"{(x - 1) * 100:+.2f}%") if pct else (lambda x: f"{x:.3f}")
    if len(xs) == 1 or is_base:
        return f(m)
    s = f"{f(m)} [{f(min(xs))}..{f(max(xs))}]"
    if not is_base and abs(m - 1) <= max(max(xs) - min(xs), noise_floor):
        s += " n.s."
    return s


def fmt_num(x, fmtspec=None):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if fmtspec:
        return fmtspec % x
    if float(x).is_integer() and abs(x) >= 1000:
        return f"{x:.0f}"
    return f"{x:.4g}" if abs(x) < 1000 else f"{x:.0f}"


def md_tables(spec, runs, stats, command):
    designs = [d["name"] for d in spec["designs"] if any(r["design"] == d["name"] for r in runs)]
    multi = len({r["repeat"] for r in runs}) > 1
    md = [f"# {spec.get('title', spec['name'])}", "", f"Command: `{command}`", "",
          f"Ratios are to the baseline design `{spec['baseline']}` in the same row and repeat (1.000 = baseline). "
          "`arith. mean` and `geo. mean` are over the rows (a ratio whose baseline value is 0 is left out)."]
    if multi:
        rk = sorted({k for r in runs for k, _ in r["repeat"]})
        md.append(f"Each cell is the mean [min..max] over the {len({r['repeat'] for r in runs})} repeats "
                  f"({', '.join(rk)}); `n.s.` = not significant: the difference from 1 is smaller than the spread "
                  "over the repeats (of the ratio, or of the baseline's own value).")
    md.append("")
    paper = {(c["design"], c["against"], c["stat"]): c.get("paper") for c in spec["compare"]}
    tables = spec["tables"] or [{"kind": "normalised", "stat": s} for s in spec["stats"]]
    for t in tables:
        kind = t["kind"]
        if kind == "normalised":
            T = Table(spec, runs, stats, t["stat"])
            md += [f"## {t.get('title', t['stat'])} (`{t['stat']}`), normalised to {spec['baseline']}", "",
                   "| row | " + " | ".join(designs) + " |", "|---|" + "---:|" * len(designs)]
            for row in T.rows:
                md.append(f"| {row} | " + " | ".join(cell(T.ratios(row, d), T.base_spread(row), d == T.base)
                                                     for d in designs) + " |")
            for name, mean in (("arith. mean", amean), ("geo. mean", gmean)):
                per_rep = {d: [mean([T.ratios(row, d)[i] for row in T.rows]) for i in range(len(T.reps))]
                           for d in designs}
                md.append(f"| **{name}** | " + " | ".join(cell(per_rep[d], 0, d == T.base) for d in designs) + " |")
            if any((d, spec["baseline"], t["stat"]) in paper for d in designs):
                md.append("| paper | " + " | ".join(
                    "1.000" if d == spec["baseline"] else fmt_num(paper.get((d, spec["baseline"], t["stat"])), "%.3f")
                    if (d, spec["baseline"], t["stat"]) in paper else "" for d in designs) + " |")
            md.append("")
        elif kind == "compare":
            md += [f"## {t.get('title', 'Designs against each other: Strata average vs the paper')}", "",
                   "Strata = mean(design/baseline) / mean(against/baseline), arithmetic means over the rows.", "",
                   "| comparison | metric | Strata | paper |", "|---|---|---:|---:|"]
            for c in compare_values(spec, runs, stats):
                md.append(f"| {c['design']} vs {c['against']} | {c['title']} | {cell(c['per_rep'], pct=True)} | "
                          f"{'n/a' if c.get('paper') is None else cell([c['paper']], pct=True)} |")
            md.append("")
        elif kind == "raw":
            md += [f"## {t.get('title', 'Raw values')}", "", "| row | design | " + " | ".join(t["stats"]) + " |",
                   "|---|---|" + "---:|" * len(t["stats"])]
            Ts = [Table(spec, runs, stats, s) for s in t["stats"]]
            for row in Ts[0].rows:
                for d in designs:
                    md.append(f"| {row} | {d} | " + " | ".join(
                        fmt_num(amean([T.val(row, d, rep) for rep in T.reps])) for T in Ts) + " |")
            md.append("")
        elif kind == "paper":
            # Per workload: Strata's value of each stat (design t["design"], mean over repeats), the paper's value
            # from the workload's `paper` table and Strata / paper.
            md += [f"## {t.get('title', 'Strata against the paper, per workload')} ({t['design']})", "",
                   "| row | " + " | ".join(f"{x} Strata | paper | ratio" for x in t["stats"]) + " |",
                   "|---|" + "---:|---:|---:|" * len(t["stats"])]
            Ts = [Table(spec, runs, stats, x) for x in t["stats"]]
            paper_of = {r["row"]: r["paper"] for r in runs}
            for row in Ts[0].rows:
                cells = []
                for x, T in zip(t["stats"], Ts):
                    v = amean([T.val(row, t["design"], rep) for rep in T.reps])
                    pv = paper_of.get(row, {}).get(x)
                    cells += [fmt_num(v, "%.4g"), "" if pv is None else fmt_num(pv, "%.4g"),
                              "" if pv is None or not pv or math.isnan(v) else f"{v / pv:.3g}"]
                md.append(f"| {row} | " + " | ".join(cells) + " |")
            md.append("")
        elif kind == "columns":
            cols = t["columns"]
            md += [f"## {t.get('title', 'Per row')}", "", "| row | " + " | ".join(c["title"] for c in cols) + " |",
                   "|---|" + "---:|" * len(cols)]
            Ts = {c["stat"]: Table(spec, runs, stats, c["stat"]) for c in cols}
            for row in Ts[cols[0]["stat"]].rows:
                cells = []
                for c in cols:
                    T = Ts[c["stat"]]
                    mean = lambda d: amean([T.val(row, d, rep) for rep in T.reps]) * c.get("scale", 1)
                    if "vs" in c:
                        x = amean(T.ratios(row, c["design"], c["vs"]))
                        cells.append("n/a" if math.isnan(x) else f"{(x - 1) * 100:+.1f}%")
                    elif "to" in c:
                        cells.append(f"{fmt_num(mean(c['design']), c.get('format'))} -> "
                                     f"{fmt_num(mean(c['to']), c.get('format'))}")
                    else:
                        cells.append(fmt_num(mean(c["design"]), c.get("format")))
                md.append(f"| {row} | " + " | ".join(cells) + " |")
            md.append("")
    return "\n".join(md) + "\n"


def compare_values(spec, runs, stats):
    """The spec's [[compare]] entries with Strata's per-repeat value: amean(design/base) / amean(against/base)."""
    out = []
    for c in spec["compare"]:
        T = Table(spec, runs, stats, c["stat"])
        per_rep = []
        for i in range(len(T.reps)):
            a = amean([T.ratios(row, c["design"])[i] for row in T.rows])
            b = amean([T.ratios(row, c["against"])[i] for row in T.rows])
            per_rep.append(a / b if b else math.nan)
        out.append(dict(c, title=c.get("title", c["stat"]), per_rep=per_rep, strata=amean(per_rep)))
    return out


# ---------------------------------------------------------------- main

def run_task(tasks_json, out, index, timeout="0"):
    """Slurm array task: run run number `index` of tasks.json like the local pool does."""
    with open(tasks_json) as f:
        run = json.load(f)[int(index)]
    os.makedirs(os.path.join(out, ".tmp"), exist_ok=True)
    ok, secs = run_one(out, run, float(timeout))
    print(f"{run['name']}: {'done' if ok else 'FAILED'} in {secs:.1f} s")
    return 0 if ok else 1


def collect(spec, out, runs, command, figures=True):
    stats = load_results(spec, out, runs)
    write_results(spec, out, runs, stats)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(md_tables(spec, runs, stats, command))
    pngs = []
    if figures and spec["figures"] and stats:
        try:
            import plot
            pngs = plot.spec_figures(spec, runs, stats, out)
        except ImportError as e:
            print(f"sweep: warning: figures skipped ({e}; install python3-matplotlib)", file=sys.stderr)
    return stats, pngs


def main(argv=None):
    ap = argparse.ArgumentParser(prog="strata sweep", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", help="experiment spec (TOML), e.g. configs/experiments/smoke.toml")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="parallel runs (default: cores)")
    ap.add_argument("--backend", choices=["local", "slurm"], default="local", help="where runs execute")
    ap.add_argument("--out", help="output folder (default runs/experiments/NAME)")
    ap.add_argument("--dry-run", action="store_true", help="list the runs and their state; run nothing")
    ap.add_argument("--filter", action="append", default=[], metavar="EXPR",
                    help="KEY=GLOB[|GLOB...] or KEY!=GLOB...: keep matching runs (repeatable)")
    ap.add_argument("--retry-failed", action="store_true", help="rerun runs recorded as failed")
    ap.add_argument("--no-wait", action="store_true", help="slurm: submit and return; rerun the sweep to collect")
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run-task"]:  # one task of a Slurm array job (tools/slurm.py)
        return run_task(*argv[1:])
    a = ap.parse_args(argv)
    try:
        if a.jobs < 1:
            raise SpecError(f"--jobs {a.jobs}: expected at least 1")
        spec = load_spec(a.spec)
        runs = expand(spec)
        runs = select(runs, parse_filters(a.filter, runs))
    except SpecError as e:
        print(f"strata sweep: {e}", file=sys.stderr)
        return 2
    out = a.out or os.path.join("runs", "experiments", spec["name"])
    state = {r["name"]: "done" if is_done(out, r) else
             "failed" if os.path.exists(os.path.join(out, "failed", r["name"] + ".json")) else "to_run" for r in runs}
    if a.dry_run:
        for r in runs:
            print(f"{state[r['name']]:6s} {r['name']}\n       strata {' '.join(r['args'])}")
        n = {k: list(state.values()).count(k) for k in ("done", "failed", "to_run")}
        print(f"{len(runs)} runs: {n['done']} done, {n['failed']} failed, {n['to_run']} to run")
        return 0
    for sub in ("runs", "failed", ".tmp"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    lock = open(os.path.join(out, ".lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        print(f"strata sweep: {out}: another sweep is running there", file=sys.stderr)
        return 2
    earlier_job = None
    if a.backend == "slurm":
        import slurm
        earlier_job = slurm.active_job(out)  # its tasks are writing into .tmp: wait for them, run nothing new
    if not earlier_job:
        for e in os.listdir(os.path.join(out, ".tmp")):  # left by a killed sweep: never finished runs
            shutil.rmtree(os.path.join(out, ".tmp", e), ignore_errors=True)
    to_run = [r for r in runs if state[r["name"]] == "to_run" or (a.retry_failed and state[r["name"]] == "failed")]
    ndone = sum(1 for v in state.values() if v == "done")
    print(f"sweep {spec['name']}: {len(runs)} runs, {ndone} done, {len(to_run)} to run -> {out}", file=sys.stderr)
    if a.backend == "slurm":
        rc = slurm.run(spec, a, out, to_run, len(runs), sys.executable, os.path.abspath(__file__))
        if rc is not None:
            return rc
    else:
        if not run_local(out, to_run, a.jobs, spec.get("timeout", 0), ndone, len(runs)):
            return 130
    command = "strata sweep " + " ".join([os.path.relpath(a.spec) if not os.path.isabs(a.spec) else a.spec] +
                                         [f"--filter '{f}'" for f in a.filter])
    stats, pngs = collect(spec, out, runs, command)
    failed = [r for r in runs if r["name"] not in stats and os.path.exists(os.path.join(out, "failed", r["name"] + ".json"))]
    missing = len(runs) - len(stats) - len(failed)
    for r in failed:
        with open(os.path.join(out, "failed", r["name"] + ".json")) as f:
            rec = json.load(f)
        tail = rec["stderr_tail"][-1] if rec["stderr_tail"] else ""
        print(f"FAILED {r['name']}: exit status {rec['exit_status']}: {tail}", file=sys.stderr)
    print(f"sweep {spec['name']}: {len(stats)} done, {len(failed)} failed"
          + (f", {missing} not run" if missing else "") + f"; results in {out}/results.{{csv,json,md}}"
          + "".join(f", {os.path.basename(p)}" for p in pngs)
          + (f"; failures in {out}/failed/ (--retry-failed reruns them)" if failed else ""), file=sys.stderr)
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
