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
import difflib
import fcntl
import fnmatch
import hashlib
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

import cliargs
from sweeptables import Table, amean, gmean, md_tables, compare_values  # noqa: F401 (also sweep's API)

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
            "zip", "repeat", "tables", "compare", "figures", "paper", "slurm", "timeout", "max_runs"}
MAX_RUNS = 100_000   # default of the spec key max_runs: a spec with more runs is refused before it is expanded
MAX_NAME = 200       # characters of a run's folder name (NAME_MAX is 255; the sweep adds suffixes such as .PID)


def _read_spec(path, chain=()):
    """A spec file's TOML as a dict, with `extends = "NAME"` resolved: every top-level key of the spec NAME.toml
    in the same folder that this spec does not set itself (a key it sets replaces the parent's whole value, so
    a spec of the same experiment on other workloads keeps the parent's designs, tables and [[compare]] rows)."""
    where = f"spec {path}"
    try:
        with open(path, "rb") as f:
            s = tomllib.load(f)
    except OSError as e:
        raise SpecError(f"{_printable(where)}: cannot read: {e.strerror}")
    except tomllib.TOMLDecodeError as e:
        raise SpecError(f"{where}: {e}")
    except UnicodeDecodeError as e:
        raise SpecError(f"{where}: expected UTF-8 text (TOML), got byte 0x{e.object[e.start]:02x} at offset {e.start}")
    except ValueError:  # a path with a NUL byte (after its subclasses TOMLDecodeError, UnicodeDecodeError)
        raise SpecError(f"{_printable(where)}: cannot read: expected a file path, got one with a NUL byte")
    if "extends" not in s:
        return s
    name = s.pop("extends")
    _expect(isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9_.-]+", name), where, "extends",
            "the name of a spec in the same folder (without .toml)", name)
    parent = os.path.join(os.path.dirname(path), name + ".toml")
    key = os.path.realpath(parent)
    _expect(key not in chain and key != os.path.realpath(path), where, "extends",
            "a spec that does not extend this one again (a cycle)", name)
    if not os.path.isfile(parent):
        raise SpecError(f"{_printable(where)}: key 'extends': expected the name of a spec in the same folder, "
                        f"got {name!r} (no file {_printable(parent)})")
    merged = _read_spec(parent, chain + (os.path.realpath(path), key))
    merged.update(s)
    return merged


def load_spec(path):
    """Parse and validate a spec; returns a dict with defaults filled in. Raises SpecError."""
    where = f"spec {path}"
    s = _read_spec(path)
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
        _only(w, {"name", "trace", "cuda", "args", "label", "row", "set", "axes", "paper"}, where, p + ".")
        kinds = [k for k in ("name", "trace", "cuda") if k in w]
        _expect(len(kinds) == 1, where, p,
                "exactly one of name (built-in), trace (path) or cuda (CUDA sources)", sorted(w))
        if "cuda" in w:  # a CUDA program: its sources, built by the sweep (strata cuda build), and its arguments
            if isinstance(w["cuda"], str):
                w["cuda"] = [w["cuda"]]
            _expect(isinstance(w["cuda"], list) and w["cuda"] and all(isinstance(x, str) and x for x in w["cuda"]),
                    where, p + ".cuda", "a .cu path or a list of source paths", w["cuda"])
            w["args"] = w.get("args", [])
            _expect(isinstance(w["args"], list) and all(isinstance(x, str) and "\0" not in x for x in w["args"]),
                    where, p + ".args", "a list of strings (the program's arguments)", w["args"])
            w.setdefault("label", os.path.splitext(os.path.basename(w["cuda"][0]))[0])
        else:
            _expect("args" not in w, where, p + ".args", "program arguments only with cuda", w.get("args"))
            src = w.get("name", w.get("trace"))
            _expect(isinstance(src, str) and src, where, p + (".name" if "name" in w else ".trace"), "a string",
                    src)
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
        _only(c, {"design", "against", "stat", "title", "paper", "where", "base"}, where, p + ".")
        for k in ("design", "against"):
            _expect(_is_name(c.get(k), names), where, f"{p}.{k}", "a design name", c.get(k))
        _expect("base" not in c or _is_name(c["base"], names), where, p + ".base", "a design name", c.get("base"))
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
    mr = s.setdefault("max_runs", MAX_RUNS)
    _expect(isinstance(mr, int) and not isinstance(mr, bool) and mr >= 1, where, "max_runs",
            "a number of runs >= 1", mr)
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


def count_runs(spec):
    """The number of runs of the spec, counted without expanding it."""
    def points(axes, zips):
        n = 1
        for vals in axes.values():
            n *= len(vals)
        for z in zips:
            n *= len(next(iter(z.values())))
        return n
    reps = (len(spec["seeds"]) if spec["seeds"] else 1) * points(spec["repeat"], [])
    per_wl = sum(points(w["axes"], []) for w in spec["workloads"])
    return per_wl * points(spec["axes"], spec["zip"]) * len(spec["designs"]) * reps


def expand(spec):
    """Every run of the spec, in a fixed order: list of dicts {name, params, row, repeat, design, cmd_args}.
    params: design, workload, then the workload's axes, the global axes and zips, seed, repeat keys.
    Refuses (SpecError) a spec of more than its max_runs runs before building any, and a run whose
    folder name would be longer than MAX_NAME characters."""
    n = count_runs(spec)
    limit = spec.get("max_runs", MAX_RUNS)
    if n > limit:
        raise SpecError(f"spec {spec['path']}: key 'max_runs': expected at most {limit} runs, got {n} (designs x "
                        "workloads x axes x zips x seeds x repeats); raise max_runs if you mean it")
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
                    if "cuda" in w:
                        args = ["cuda", "run", program_path(spec, w)] + args
                    else:
                        args += ["--workload", w["name"]] if "name" in w else ["--trace", w["trace"]]
                    sets = spec["set"] + d["set"] + w["set"] + [f"{k}={_fmt_val(v)}" for k, v in pt]
                    sets += [f"{k}={_fmt_val(v)}" for k, v in rep if k != "seed"]
                    for kv in sets:
                        args += ["--set", kv]
                    seed = dict(rep).get("seed")
                    if seed is not None:
                        args += ["--seed", str(seed)]
                    if "cuda" in w:
                        args += ["--"] + w["args"]
                    row = ",".join([w["row"]] + [f"{k.split('.')[-1]}={_fmt_val(v)}" for k, v in pt])
                    runs.append({"name": run_name(params), "params": params, "row": row, "design": d["name"],
                                 "repeat": tuple(rep), "args": args, "paper": w["paper"]})
    seen = {}
    for r in runs:
        if len(r["name"]) > MAX_NAME:
            raise SpecError(f"spec {spec['path']}: key 'designs': run folder name {_printable(r['name'][:40])}... is "
                            f"{len(r['name'])} characters, expected at most {MAX_NAME} (shorten the design names, "
                            "workload labels or axis values)")
        if r["name"] in seen:
            raise SpecError(f"spec {spec['path']}: key 'workloads': two runs get the same folder {r['name']} "
                            f"(give the workloads distinct labels)")
        seen[r["name"]] = r
    return runs


def _did_you_mean(got, names):
    m = difflib.get_close_matches(got, sorted(names), n=1, cutoff=0.6)
    return f" (did you mean '{_printable(m[0])}'?)" if m else ""


def parse_filters(exprs, runs):
    """--filter terms -> list of (key, negate, [globs]). A key no run has, a KEY=GLOB term that matches no
    run and terms that together keep no run are errors (SpecError), with the closest name or value."""
    keys = set().union(*(r["params"] for r in runs)) if runs else set()
    out = []
    for e in exprs:
        m = re.fullmatch(r"\s*([^=!\s]+)\s*(!?=)\s*(.+?)\s*", e)
        if not m:
            raise SpecError(f"--filter {_printable(repr(e))}: expected KEY=GLOB[|GLOB...] or KEY!=GLOB[|GLOB...]")
        key, neg, globs = m.group(1), m.group(2) == "!=", m.group(3).split("|")
        if key not in keys:
            raise SpecError(f"--filter {_printable(repr(e))}: key '{_printable(key)}': not a parameter of this sweep"
                            f"{_did_you_mean(key, keys)} (expected one of {', '.join(sorted(keys))})")
        values = {_fmt_val(r["params"][key]) for r in runs if key in r["params"]}
        if not neg and not any(fnmatch.fnmatchcase(v, g) for v in values for g in globs):
            hint = next((h for h in (_did_you_mean(g, values) for g in globs) if h), "")
            shown = sorted(values)[:8]
            raise SpecError(f"--filter {_printable(repr(e))}: no run has {_printable(key)} matching "
                            f"{_printable('|'.join(globs))}{hint} (its values: {_printable(', '.join(shown))}"
                            f"{', ...' if len(values) > 8 else ''})")
        out.append((key, neg, globs))
    if out and runs and not select(runs, out):
        raise SpecError(f"--filter {' --filter '.join(_printable(repr(e)) for e in exprs)}: the terms together "
                        f"keep none of the spec's {len(runs)} runs")
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


# ---------------------------------------------------------------- run identity

class Identity:
    """What decides a run's result (docs/experiments.md "Run identity"): the resolved configuration (every key
    after includes, --set, --workload and --seed, as `strata --print-config` prints it and config.txt records
    it, without the origins), the workload's trace files (path, size, modification time) when it is a trace,
    and the strata build (`strata --version`: version and source commit). Resolved once per distinct
    command line, in parallel; a command strata rejects gets an identity holding its error, so that fixing
    the input (or the simulator) changes it."""

    def __init__(self, jobs=1):
        self.jobs = max(1, jobs)
        self._cache, self._build = {}, None

    def build(self):
        if self._build is None:
            try:
                p = subprocess.run([strata_exe(), "--version"], capture_output=True, text=True, timeout=60)
                text = p.stdout.strip() if p.returncode == 0 else ""
            except (OSError, subprocess.TimeoutExpired):
                text = ""
            m = re.fullmatch(r"(\S+) \(commit (\S+)\)", text)
            self._build = {"version": m.group(1), "commit": m.group(2)} if m else {"version": text or "?",
                                                                                  "commit": "unknown"}
        return self._build

    def _resolve(self, args):
        args = config_args(args)
        try:
            p = subprocess.run([strata_exe(), "--print-config"] + list(args), capture_output=True, text=True,
                               errors="replace", timeout=120)
        except (OSError, subprocess.TimeoutExpired) as e:
            return {"error": f"cannot run {strata_exe()} --print-config: {e}"}
        if p.returncode != 0:
            return {"error": (p.stderr.strip().splitlines() or [f"exit status {p.returncode}"])[-1]}
        cfg = {}
        for line in p.stdout.splitlines():
            if line.startswith("#") or " = " not in line:
                continue
            kv = line.rsplit("   # ", 1)[0]
            k, v = kv.split(" = ", 1)
            cfg[k] = v
        return {"config": cfg}

    def of(self, run):
        """The identity dict of one run (resolve_all first to resolve many at once)."""
        key = tuple(run["args"])
        if key not in self._cache:
            self._cache[key] = self._resolve(run["args"])
        ident = dict(self._cache[key])
        trace = _arg(run["args"], "--trace")
        if trace is not None:
            ident["trace"] = trace_fingerprint(trace)
        if list(run["args"][:2]) == ["cuda", "run"]:
            ident["program"] = program_fingerprint(run["args"])
        ident["build"] = self.build()
        return ident

    def resolve_all(self, runs):
        todo = sorted({tuple(r["args"]) for r in runs} - set(self._cache))
        if not todo:
            return
        self.build()
        with ThreadPoolExecutor(max_workers=self.jobs) as ex:
            for key, res in zip(todo, ex.map(self._resolve, todo)):
                self._cache[key] = res


_IDENT = Identity()  # of runs that reach run_one without one (resolved there, one command line at a time)


def _arg(args, opt):
    for i, a in enumerate(args[:-1]):
        if a == opt:
            return args[i + 1]
    return None


def program_path(spec, w):
    """Where the sweep builds a CUDA workload's program: DIR/programs/LABEL."""
    d = spec.get("programs_dir") or os.path.abspath(os.path.join("runs", "experiments", spec["name"], "programs"))
    return os.path.join(d, w["label"])


def config_args(args):
    """A run's arguments as `strata --print-config` takes them: a CUDA run's `cuda run PROG` and its
    program arguments (after --) left out."""
    args = list(args)
    if args[:2] != ["cuda", "run"]:
        return args
    rest = args[3:]
    return rest[:rest.index("--")] if "--" in rest else rest


def program_fingerprint(args):
    """A CUDA run's program: the SHA-256 of the built binary (a change of its sources, of Strata's CUDA headers
    or runtime, or of clang rebuilds a different program) and its arguments."""
    import hashlib
    prog = args[2]
    tail = args[args.index("--") + 1:] if "--" in args else []
    try:
        with open(prog, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
    except OSError:
        digest = "not built"
    return {"sha256": digest, "args": tail}


def build_programs(spec):
    """Builds every CUDA workload's program (strata cuda build) into DIR/programs/. A program that does not
    build is an input error (SpecError, after clang's messages)."""
    for i, w in enumerate(spec["workloads"]):
        if "cuda" not in w:
            continue
        d = os.path.dirname(program_path(spec, w))
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as e:  # (--out /proc: no folder can be made there)
            raise SpecError(f"--out {_printable(os.path.dirname(d))}: expected a writable folder, got "
                            f"{_printable(e.strerror)} ({_printable(e.filename)})")
        for src in w["cuda"]:
            if not os.path.isfile(src):
                raise SpecError(f"spec {spec['path']}: key 'workloads[{i}].cuda': expected a source file, got "
                                f"{_printable(src)} (no such file)")
        p = subprocess.run([strata_exe(), "cuda", "build"] + w["cuda"] + ["-o", program_path(spec, w)],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
        if p.returncode != 0:
            sys.stderr.write(p.stderr)
            raise SpecError(f"spec {spec['path']}: key 'workloads[{i}].cuda': the program "
                            f"{_printable(w['label'])} does not build (strata cuda build exit {p.returncode})")


def trace_fingerprint(path):
    """The files of an Accel-Sim trace (the folder, or the folder of a kernelslist file; not recursive) as
    {name: [size, mtime_ns]}: a trace regenerated or edited in place gives another fingerprint."""
    d = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    files = {}
    try:
        for e in sorted(os.scandir(d), key=lambda e: e.name):
            if e.is_file():
                st = e.stat()
                files[e.name] = [st.st_size, st.st_mtime_ns]
    except OSError as e:
        return {"path": path, "error": e.strerror}
    return {"path": path, "files": files}


def identity_hash(ident):
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()


def read_identity(out, run):
    """The identity a finished run was made with (runs/NAME/identity.json), or None."""
    try:
        with open(os.path.join(out, "runs", run["name"], "identity.json")) as f:
            ident = json.load(f)
        return ident if isinstance(ident, dict) else None
    except (OSError, ValueError):
        return None


def read_failure(out, run):
    try:
        with open(os.path.join(out, "failed", run["name"] + ".json")) as f:
            rec = json.load(f)
        return rec if isinstance(rec, dict) else None
    except (OSError, ValueError):
        return None


def why_changed(old, new):
    """A short reason why identity `old` is not `new`: 'configuration (l2.size, mem.device)', 'trace', 'build'."""
    if not isinstance(old, dict):
        return "no identity recorded (made before strata sweep recorded one)"
    if old.get("error") != new.get("error"):
        if new.get("error"):
            return f"configuration changed (now rejected: {_printable(new['error'])[:100]})"
        return "configuration changed (was rejected before)"
    if old.get("config") != new.get("config"):
        a, b = old.get("config") or {}, new.get("config") or {}
        keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        if keys:
            return "configuration changed (" + ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else "") + ")"
        return "configuration changed"
    if old.get("trace") != new.get("trace"):
        return "trace files changed"
    if old.get("program") != new.get("program"):
        return "CUDA program changed"
    if old.get("build") != new.get("build"):
        return f"made by another build ({build_text(old.get('build'))})"
    return "inputs changed"


def build_text(b):
    return f"strata {b.get('version', '?')} at commit {b.get('commit', '?')}" if isinstance(b, dict) else "unknown build"


def run_states(out, runs, ident, keep_other_builds=False):
    """{run name: (state, reason)}: state 'done' (finished with the current identity, or by another build kept
    by --keep-other-builds: reason says so), 'failed' (recorded failure with the current identity), 'stale'
    (finished or failed with another identity: reason why), 'to_run'."""
    exist = [r for r in runs if is_done(out, r) or read_failure(out, r) is not None]
    ident.resolve_all(exist)
    exist = {r["name"] for r in exist}
    states = {}
    for r in runs:
        if r["name"] not in exist:  # never run: its identity is resolved when it runs
            states[r["name"]] = ("to_run", "")
            continue
        cur = ident.of(r)
        r["identity"] = cur
        if is_done(out, r):
            old = read_identity(out, r)
            if isinstance(old, dict) and identity_hash(old) == identity_hash(cur):
                states[r["name"]] = ("done", "")
            elif (keep_other_builds and isinstance(old, dict) and
                  identity_hash(dict(old, build=None)) == identity_hash(dict(cur, build=None))):
                states[r["name"]] = ("done", f"kept: made by another build ({build_text(old.get('build'))})")
            else:
                states[r["name"]] = ("stale", why_changed(old, cur))
            continue
        rec = read_failure(out, r)
        if rec is None:
            states[r["name"]] = ("to_run", "")
        elif isinstance(rec.get("identity"), dict) and identity_hash(rec["identity"]) == identity_hash(cur):
            states[r["name"]] = ("failed", "")
        else:
            states[r["name"]] = ("stale", "failed before; " + why_changed(rec.get("identity"), cur))
    return states


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
    identity = run.get("identity") or _IDENT.of(run)
    with open(os.path.join(tmp, "params.json"), "w") as f:
        json.dump({"params": run["params"], "command": cmd}, f, indent=1)
    with open(os.path.join(tmp, "identity.json"), "w") as f:
        json.dump(identity, f, indent=1, sort_keys=True)
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
    dest = os.path.join(out, "runs", run["name"])
    if ok:
        if os.path.exists(dest):  # a stale result: moved aside, then removed (a kill in between leaves the run to do)
            old = os.path.join(out, ".tmp", f"{run['name']}.stale.{os.getpid()}")
            os.rename(dest, old)
            shutil.rmtree(old, ignore_errors=True)
        os.rename(tmp, dest)
        if os.path.exists(fail):
            os.remove(fail)
    else:
        if os.path.exists(dest):  # a stale result is not kept beside the failure of its rerun
            old = os.path.join(out, ".tmp", f"{run['name']}.stale.{os.getpid()}")
            os.rename(dest, old)
            shutil.rmtree(old, ignore_errors=True)
        write_json_atomic(fail, {"name": run["name"], "params": run["params"], "exit_status": status,
                                 "command": cmd, "stderr_tail": err.splitlines()[-STDERR_TAIL:],
                                 "identity": identity})
        shutil.rmtree(tmp, ignore_errors=True)
    return ok, time.time() - t0


def _fmt_secs(s):
    s = int(round(s))
    return f"{s // 3600}h{s // 60 % 60:02d}m" if s >= 3600 else f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class _Stopped(Exception):
    """SIGTERM reached the sweep (run_local stops its runs as for Ctrl-C)."""


def _signal(p, sig):
    try:
        p.send_signal(sig)
    except OSError:
        pass


def run_local(out, to_run, jobs, timeout, total_done, total):
    """Run `to_run` in a pool of `jobs`. Returns 0, or 130 (Ctrl-C) / 143 (SIGTERM) when stopped."""
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

    def on_term(signum, frame):
        raise _Stopped(signal.SIGTERM)
    old_term = signal.signal(signal.SIGTERM, on_term)
    try:
        futs = [ex.submit(run_one, out, r, timeout) for r in to_run]
        for f in as_completed(futs):
            ok, _ = f.result()
            done, failed = done + (ok is True), failed + (ok is False)
            progress()
    except (KeyboardInterrupt, _Stopped) as e:  # stop the runs in flight; they stay to do, finished runs are kept
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _abort.set()
        # SIGTERM first: strata writes its partial stats and exits (status 4); the folders are removed anyway
        # (a partial run is not a result), then whatever is left is killed.
        with _live_lock:
            live = list(_live)
        for p in live:
            _signal(p, signal.SIGTERM)
        t_end = time.time() + 5
        for p in live:
            try:
                p.wait(timeout=max(0.1, t_end - time.time()))
            except subprocess.TimeoutExpired:
                _signal(p, signal.SIGKILL)
        ex.shutdown(wait=True, cancel_futures=True)
        for e2 in os.listdir(os.path.join(out, ".tmp")):
            shutil.rmtree(os.path.join(out, ".tmp", e2), ignore_errors=True)
        what = "stopped by SIGTERM" if isinstance(e, _Stopped) else "interrupted"
        print(f"\nsweep: {what}: {total_done + done} runs done are kept, the runs in flight were stopped; the "
              "same command resumes", file=sys.stderr)
        return 143 if isinstance(e, _Stopped) else 130
    finally:
        if signal.getsignal(signal.SIGTERM) in (on_term, signal.SIG_IGN):
            signal.signal(signal.SIGTERM, old_term)
    ex.shutdown()
    if tty and to_run:
        progress(final=True)
    return 0


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


def write_results(spec, out, runs, stats, builds=None):
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
    builds = builds or {}
    jrows = [dict(row, build=builds.get(row["run"])) for row in rows]
    write_json_atomic(os.path.join(out, "results.json"),
                      {"spec": spec["name"], "baseline": spec["baseline"], "parameters": param_keys,
                       "stats": spec["stats"], "build": build_info(builds.values()), "runs": jrows})
    missing = sorted({k for r in runs if r["name"] in stats for k in spec["stats"] if k not in stats[r["name"]]})
    for k in missing:
        print(f"sweep: warning: stat '{k}' (spec key 'stats') is missing from some stats.json", file=sys.stderr)


def build_info(builds):
    """The builds the collected runs were made by: `commit` and `strata_version` when they are one build
    ("mixed" otherwise), `builds` = [{version, commit, runs}], and the date of collection."""
    count = {}
    for b in builds:
        key = json.dumps(b, sort_keys=True)
        count[key] = count.get(key, 0) + 1
    blist = [dict(json.loads(k) or {"version": "?", "commit": "unknown"}, runs=c) for k, c in sorted(count.items())]
    one = blist[0] if len(blist) == 1 else None
    return {"strata_version": one["version"] if one else "mixed", "commit": one["commit"] if one else "mixed",
            "builds": blist, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


# ---------------------------------------------------------------- main

def run_task(tasks_json, out, index, timeout="0"):
    """Slurm array task: run run number `index` of tasks.json like the local pool does."""
    with open(tasks_json) as f:
        run = json.load(f)[int(index)]
    os.makedirs(os.path.join(out, ".tmp"), exist_ok=True)
    ok, secs = run_one(out, run, float(timeout))
    print(f"{run['name']}: {'done' if ok else 'FAILED'} in {secs:.1f} s")
    return 0 if ok else 1


def collect(spec, out, runs, valid, command, figures=True):
    """Results over `runs` (every run of the spec) from the finished runs named in `valid` (their identity
    is current, or kept by --keep-other-builds): results.csv, results.json, results.md and the figures."""
    stats = {k: v for k, v in load_results(spec, out, runs).items() if k in valid}
    builds = {r["name"]: (read_identity(out, r) or {}).get("build") for r in runs if r["name"] in stats}
    write_results(spec, out, runs, stats, builds)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(md_tables(spec, runs, stats, command, builds))
    pngs = []
    if figures and spec["figures"] and stats:
        try:
            import plot
            pngs = plot.spec_figures(spec, runs, stats, out)
        except ImportError as e:
            print(f"sweep: warning: figures skipped ({e}; install python3-matplotlib)", file=sys.stderr)
    return stats, pngs


def _reasons(states, names):
    """'3 configuration changed (l2.size); 1 made by another build (...)' over the runs `names`."""
    count = {}
    for n in names:
        count[states[n][1]] = count.get(states[n][1], 0) + 1
    return "; ".join(f"{c} {why}" for why, c in sorted(count.items(), key=lambda x: -x[1]))


def main(argv=None):
    ap = cliargs.Parser(prog="strata sweep", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", help="experiment spec (TOML), e.g. configs/experiments/smoke.toml")
    ap.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="parallel runs (default: cores)")
    ap.add_argument("--backend", choices=["local", "slurm"], default="local", help="where runs execute")
    ap.add_argument("--out", help="output folder (default runs/experiments/NAME)")
    ap.add_argument("--dry-run", action="store_true", help="list the runs and their state; run nothing")
    ap.add_argument("--filter", action="append", default=[], metavar="EXPR",
                    help="KEY=GLOB[|GLOB...] or KEY!=GLOB...: keep matching runs (repeatable)")
    ap.add_argument("--retry-failed", action="store_true", help="rerun runs recorded as failed")
    ap.add_argument("--keep-other-builds", action="store_true",
                    help="keep finished runs whose only difference is the strata build that made them (default: "
                         "rerun them); results.md then flags the mixed builds")
    ap.add_argument("--no-wait", action="store_true", help="slurm: submit and return; rerun the sweep to collect")
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run-task"]:  # one task of a Slurm array job (tools/slurm.py)
        return run_task(*argv[1:])
    a = ap.parse_args(argv)
    try:
        if a.jobs < 1:
            raise SpecError(f"--jobs {a.jobs}: expected at least 1")
        spec = load_spec(a.spec)
        if a.out is not None and not a.out.strip():
            raise SpecError("--out '': expected a folder")
        out = a.out or os.path.join("runs", "experiments", spec["name"])
        spec["programs_dir"] = os.path.abspath(os.path.join(out, "programs"))
        all_runs = expand(spec)
        runs = select(all_runs, parse_filters(a.filter, all_runs))
        if not a.dry_run:
            build_programs(spec)
    except SpecError as e:
        print(f"strata sweep: {e}", file=sys.stderr)
        return 2
    ident = Identity(a.jobs)
    states = run_states(out, all_runs, ident, a.keep_other_builds)
    selected = {r["name"] for r in runs}
    if a.dry_run:
        for r in runs:
            st, why = states[r["name"]]
            print(f"{st:6s} {r['name']}" + (f"  ({why})" if why else "") + f"\n       strata {' '.join(r['args'])}")
        n = {k: sum(1 for r in runs if states[r["name"]][0] == k) for k in ("done", "failed", "to_run", "stale")}
        print(f"{len(runs)} runs: {n['done']} done, {n['failed']} failed, {n['to_run'] + n['stale']} to run"
              + (f" ({n['stale']} stale)" if n["stale"] else ""))
        return 0
    try:  # the output folder is checked before any run: a bad --out fails at once
        for sub in ("runs", "failed", ".tmp"):
            os.makedirs(os.path.join(out, sub), exist_ok=True)
        lock = open(os.path.join(out, ".lock"), "w")
    except OSError as e:
        print(f"strata sweep: --out {_printable(out)}: expected a writable folder, got "
              f"{_printable(e.strerror)} ({_printable(e.filename)})", file=sys.stderr)
        return 2
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
    to_run = [r for r in runs if states[r["name"]][0] in ("to_run", "stale")
              or (a.retry_failed and states[r["name"]][0] == "failed")]
    ndone = sum(1 for r in runs if states[r["name"]][0] == "done")
    print(f"sweep {spec['name']}: {len(runs)} runs, {ndone} done, {len(to_run)} to run -> {out}", file=sys.stderr)
    stale = [r["name"] for r in runs if states[r["name"]][0] == "stale"]
    if stale:
        print(f"sweep: rerunning {len(stale)} stale runs: {_reasons(states, stale)}", file=sys.stderr)
    kept = [r["name"] for r in runs if states[r["name"]][1].startswith("kept")]
    if kept:
        print(f"sweep: --keep-other-builds: keeping {len(kept)} runs made by other builds "
              f"({_reasons(states, kept)})", file=sys.stderr)
    outside = [r["name"] for r in all_runs if r["name"] not in selected and states[r["name"]][0] == "stale"]
    if outside:
        print(f"sweep: {len(outside)} runs outside --filter are stale ({_reasons(states, outside)}) and left out "
              "of the results (rerun without --filter to redo them)", file=sys.stderr)
    if a.backend == "slurm":
        rc = slurm.run(spec, a, out, to_run, len(runs), sys.executable, os.path.abspath(__file__))
        if rc is not None:
            return rc
    else:
        rc = run_local(out, to_run, a.jobs, spec.get("timeout", 0), ndone, len(runs))
        if rc:
            return rc
    states = run_states(out, all_runs, ident, a.keep_other_builds)
    valid = {n for n, (st, _) in states.items() if st == "done"}
    command = "strata sweep " + " ".join([os.path.relpath(a.spec) if not os.path.isabs(a.spec) else a.spec])
    stats, pngs = collect(spec, out, all_runs, valid, command)
    failed = [r for r in runs if states[r["name"]][0] == "failed"]
    done = sum(1 for r in runs if r["name"] in stats)
    missing = len(runs) - done - len(failed)
    for r in failed:
        rec = read_failure(out, r) or {}
        tail = rec.get("stderr_tail", [""])[-1] if rec.get("stderr_tail") else ""
        print(f"FAILED {r['name']}: exit status {rec.get('exit_status', '?')}: {tail}", file=sys.stderr)
    print(f"sweep {spec['name']}: {done} done, {len(failed)} failed"
          + (f", {missing} not run" if missing else "")
          + (f" (of {len(runs)} selected by --filter; the results cover all {len(stats)} finished runs of the spec)"
             if a.filter else "")
          + f"; results in {out}/results.{{csv,json,md}}"
          + "".join(f", {os.path.basename(p)}" for p in pngs)
          + (f"; failures in {out}/failed/ (--retry-failed reruns them)" if failed else ""), file=sys.stderr)
    return 1 if failed or missing else 0


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    sys.exit(main())
