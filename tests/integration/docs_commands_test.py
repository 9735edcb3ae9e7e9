#!/usr/bin/env python3
"""Every `strata` command the docs show runs as the docs say (issue 14: the docs cannot drift).

  docs_commands_test.py STRATA ROOT TMPDIR

Reads README.md and every docs/**/*.md under ROOT and checks, doc by doc (two docs at a time):

- Commands: every line of a ```sh block that starts with `strata` or `build/strata` (a trailing
  `\\` continues it). `A && B` runs A (B is another tool, e.g. gtkwave); `strata --help | --list-keys`
  runs each alternative. The expected exit status is 0 unless the command's `# comment`, or the
  comment lines right below it, say `(exit N)`. A `strata` command line in any other block fails
  the test: commands go in ```sh blocks, where this test finds them.
- Error examples: a line `strata: --set KEY=VALUE: MESSAGE` in any block is what
  `strata --set KEY=VALUE` prints: exit 2 and exactly that line (`...` stands for the rest).
- Config examples: a ```toml block with `include = ...` is a config: it loads and runs.
- The user guide's table of shipped configs names each config `strata --list-configs` lists.

The commands run as written from a folder (TMPDIR/<doc>) holding links to the project's configs/,
tests/, tools/ and waveforms/, so their outputs (runs/...) land there. Files a doc names as the
reader's own (my.toml, my.trace, t.trc, ...) are stand-ins written by the test (standins()). The
test changes what runs only through the tables below, each entry with its reason; every EXTRA and
SKIP entry must match a command of its doc (a stale entry fails):

- CAP: size knobs a platform run or --describe-workload may set at most; where the command (or
  the doc's example config it runs) sets more, the cap is appended as `--set` (a later `--set`
  wins: user guide "Order of precedence"). Everything else runs at the sizes the doc shows.
- EXTRA: options appended to one command (a long sweep gets `--dry-run`).
- SKIP: commands not run, with the reason.
Each command has BUDGET_S seconds; the whole test takes well under a minute on 2 cores.
"""
import concurrent.futures
import glob
import gzip
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib

BUDGET_S = 30  # per command: generous for a loaded 2-core machine; they take 0.1-3 s

# The doc's larger sizes are capped (they take 8-15 s each; the defaults run in 0.5-3 s).
CAP = {
    "workload.bfs.scale": 14,             # user guide: bfs.scale = 18 (19 MiB)
    "workload.footprint": 4 << 20,        # offload_candidates.md: libor at 64 MiB
}

# (doc, text the command contains): options appended.
EXTRA = {
    ("README.md", "hac.toml --jobs 2 "): ["--dry-run"],        # 60 runs, ~1.5 min: the spec and its runs
    ("docs/experiments.md", "hac.toml --jobs 2 --filter"): ["--dry-run"],  # 10 runs, ~20 s
    ("docs/experiments.md", "hac.toml --retry-failed"): ["--dry-run"],  # in a fresh folder: all 60 runs
    ("docs/hms.md", "hms.toml --jobs 2"): ["--dry-run"],  # 72 runs, ~25 min: the spec and its runs
    ("docs/hms.md", "hms_line.toml --jobs 1"): ["--dry-run"],  # 100 runs, ~15-50 min: the spec and its runs
    # `report` rewrites the project's docs/results.md and docs/figures/: write into the run folder
    ("README.md", "strata report"): ["--out", "report/results.md"],
    ("docs/experiments.md", "strata report"): ["--out", "report/results.md"],
}

# (doc, text the command contains): reason it is not run.
SKIP = {
    ("docs/cuda.md", "strata cuda build SOURCES..."): "the third-party survey's recipe: its sources are not in the repository",
    ("docs/cuda.md", "strata cuda run --functional PROG -- ARGS"): "the third-party survey's recipe (a program built from sources not in the repository)",
    ("docs/cuda.md", "strata cuda run PROG --check -q -- ARGS"): "the third-party survey's recipe (a program built from sources not in the repository)",
}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def fences(text):
    """(language, [(line number, line)]) of every fenced block."""
    out, cur, lang = [], None, None
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^\s*```(\S*)\s*$", line)
        if m and cur is None:
            cur, lang = [], m.group(1)
        elif m:
            out.append((lang, cur))
            cur = None
        elif cur is not None:
            cur.append((n, line))
    return out


def split_comment(s):
    """(code, comment) of a shell line: the comment starts at a '#' outside quotes after a blank."""
    q = None
    for i, c in enumerate(s):
        if q:
            q = None if c == q else q
        elif c in "'\"":
            q = c
        elif c == "#" and (i == 0 or s[i - 1].isspace()):
            return s[:i].rstrip(), s[i + 1:]
    return s, ""


IS_CMD = re.compile(r"^(build/)?strata(\s|$)")


class Cmd:
    def __init__(self, doc, line, text, argv, exit_code, stderr_re=None):
        self.doc, self.line, self.text, self.argv, self.exit = doc, line, text, argv, exit_code
        self.stderr_re = stderr_re
        self.extra = []


def doc_commands(doc, text):
    cmds = []
    for lang, lines in fences(text):
        i = 0
        while i < len(lines):
            n, raw = lines[i]
            s = raw.strip()
            m = re.match(r"^strata: (--set (\S+?)): (.*)$", s)
            if m:  # an error example
                pat = re.escape(s).replace(re.escape("..."), ".*")
                cmds.append(Cmd(doc, n, m.group(1), ["--set", m.group(2)], 2, pat))
            if not IS_CMD.match(s):
                i += 1
                continue
            if lang != "sh":
                fail(f"{doc}:{n}: a strata command in a ```{lang} block, expected a ```sh block: {s}")
            while s.endswith("\\") and i + 1 < len(lines):
                i += 1
                s = s[:-1].rstrip() + " " + lines[i][1].strip()
            code, comment = split_comment(s)
            notes = [comment]
            j = i + 1
            while j < len(lines) and lines[j][1].strip().startswith("#"):
                notes.append(lines[j][1])
                j += 1
            codes = set(re.findall(r"\(exit (?:status )?(\d+)\)", " ".join(notes)))
            if len(codes) > 1:
                fail(f"{doc}:{n}: more than one exit status noted: {sorted(codes)}")
            exit_code = int(codes.pop()) if codes else 0
            toks = shlex.split(code)
            if "&&" in toks:
                toks = toks[:toks.index("&&")]
            alts = [[]]
            for t in toks[1:]:
                if t == "|":
                    alts.append([])
                else:
                    alts[-1].append(t)
            for argv in alts:
                cmds.append(Cmd(doc, n, code if len(alts) == 1 else "strata " + " ".join(argv), argv, exit_code))
            i += 1
    return cmds


def toml_configs(doc, text):
    """Every ```toml block that includes another config: (line, text)."""
    return [(lines[0][0], "\n".join(l for _, l in lines) + "\n") for lang, lines in fences(text)
            if lang == "toml" and any(re.match(r"^include\s*=", l) for _, l in lines)]


def standins(d, root, texts):
    """The files the docs name as the reader's own, written into run folder d."""
    # my.toml: the user guide's example config ("Configs": a small diff on a baseline).
    ug = toml_configs("docs/user_guide.md", texts["docs/user_guide.md"])
    if not ug or "my_variant" not in ug[0][1]:
        fail("docs/user_guide.md: expected the example config (configs/my_variant.toml) as its first toml block")
    with open(os.path.join(d, "my.toml"), "w") as f:
        f.write(ug[0][1])
    # DRAM traces: t.trc and reads.addr.gz (Ramulator '0xADDR R|W'), my.trace (DRAMsim3).
    lines = [f"0x{(i * 4160) % (1 << 26):x} {'W' if i % 4 == 3 else 'R'}" for i in range(2000)]
    with open(os.path.join(d, "t.trc"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with gzip.open(os.path.join(d, "reads.addr.gz"), "wt") as f:
        f.write("\n".join(l.split()[0] + " R" for l in lines) + "\n")
    with open(os.path.join(d, "my.trace"), "w") as f:
        f.write("".join(f"0x{(i * 4160) % (1 << 26):x} {'WRITE' if i % 4 == 3 else 'READ'} {i * 4}\n"
                        for i in range(2000)))
    # vecadd.cu: docs/cuda.md's example CUDA program (its first ```cuda block).
    cu = [l for lang, lines in fences(texts["docs/cuda.md"]) if lang == "cuda" for l in [lines]]
    if not cu:
        fail("docs/cuda.md: expected the example program (vecadd.cu) as its first cuda block")
    with open(os.path.join(d, "vecadd.cu"), "w") as f:
        f.write("\n".join(l for _, l in cu[0]) + "\n")
    # traces/kernelslist.g: an Accel-Sim trace folder (the one the project ships).
    shutil.copytree(os.path.join(root, "tests/data/external/accelsim-vectoradd-sm61"), os.path.join(d, "traces"))


def kind(argv):
    if argv[:1] in (["memtrace"], ["sweep"], ["plot"], ["report"], ["cuda"]):
        return argv[0]
    if any(a in ("-h", "--help") or a.startswith("--list-") for a in argv):
        return "info"
    return "describe" if "--describe-workload" in argv else "run"


def size(v):
    """A config value as a number: 18, 64MiB, "4KiB"; None if it is not one."""
    m = re.fullmatch(r"\s*\"?(\d+)\s*([KMG]i?B)?\"?\s*", str(v))
    return int(m.group(1)) << {None: 0, "KiB": 10, "MiB": 20, "GiB": 30}.get(m.group(2), 0) if m else None


def sets(argv, cwd):
    """Keys a command sets: its --set options, and the keys of an example config it runs (a file the
    test wrote from a doc's toml block)."""
    out = {}
    if "--config" in argv:
        path = os.path.join(cwd, argv[argv.index("--config") + 1])
        if os.path.isfile(path) and os.path.realpath(path).startswith(os.path.realpath(cwd) + os.sep):
            with open(path, "rb") as f:
                def flat(d, pre=""):
                    for k, v in d.items():
                        if isinstance(v, dict):
                            flat(v, pre + k + ".")
                        else:
                            out[pre + k] = v
                flat(tomllib.load(f))
    for a, b in zip(argv, argv[1:]):
        if a in ("-s", "--set") and "=" in b:
            k, v = b.split("=", 1)
            out[k.strip()] = v.strip()
    return out


def apply_tables(doc, cmds, cwd):
    used = set()

    def match(table, c):
        keys = [k for k in table if k[0] == doc and k[1] in c.text + " "]
        used.update(keys)
        return keys

    run = []
    for c in cmds:
        skip = match(SKIP, c)
        if skip:
            print(f"skip: {doc}:{c.line}: {c.text}  ({SKIP[skip[0]]})")
            continue
        for k in match(EXTRA, c):
            c.extra += EXTRA[k]
        if kind(c.argv) in ("run", "describe"):
            for k, v in sets(c.argv, cwd).items():
                if k in CAP and (size(v) or 0) > CAP[k]:
                    c.extra += ["--set", f"{k}={CAP[k]}"]
        run.append(c)
    return run, used


def run_doc(strata, root, tmp, doc, texts):
    """Runs one doc's commands in order; returns (log lines, table entries used, errors)."""
    log, errors = [], []
    d = os.path.join(tmp, doc.replace("/", "_"))
    os.makedirs(d)
    for sub in ("configs", "tests", "tools", "waveforms"):
        os.symlink(os.path.join(root, sub), os.path.join(d, sub))
    standins(d, root, texts)
    cmds = doc_commands(doc, texts[doc])
    for n, cfg in toml_configs(doc, texts[doc]):
        path = os.path.join(d, f"example_{n}.toml")
        with open(path, "w") as f:
            f.write(cfg)
        cmds.append(Cmd(doc, n, f"strata --config <the toml block at line {n}>", ["--config", path], 0))
    run, used = apply_tables(doc, cmds, d)
    for c in run:
        argv = [strata, *c.argv, *c.extra]
        t0 = time.monotonic()
        # its own process group: a sweep's runs go with it when it overruns
        p = subprocess.Popen(argv, cwd=d, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             start_new_session=True)
        try:
            err = p.communicate(timeout=BUDGET_S)[1].strip()
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            errors.append(f"{doc}:{c.line}: '{c.text}' took more than {BUDGET_S} s")
            continue
        dt = time.monotonic() - t0
        shown = " ".join(shlex.quote(a) for a in [*c.argv, *c.extra])
        if p.returncode != c.exit:
            errors.append(f"{doc}:{c.line}: 'strata {shown}' exited {p.returncode}, the doc says {c.exit}: "
                          f"{err[-2000:]}")
        elif c.stderr_re and not re.fullmatch(c.stderr_re, err):
            errors.append(f"{doc}:{c.line}: 'strata {shown}' printed {err!r}, the doc shows "
                          f"{c.stderr_re!r}")
        else:
            log.append(f"ok ({dt:4.1f} s, exit {c.exit}): {doc}:{c.line}: strata {shown}")
    return log, used, errors


def config_table(strata, text):
    """The user guide's table of shipped configs names each config `strata --list-configs` lists, once."""
    sec = text.split("Shipped configs (`strata --list-configs`):", 1)
    if len(sec) < 2:
        return ["docs/user_guide.md: expected the table of shipped configs (`strata --list-configs`)"]
    rows = re.findall(r"^\| ([^|]+) \|", sec[1].split("\n\n", 2)[1], re.M)
    named = [n for r in rows for n in re.findall(r"`([a-z0-9_]+)`", r)]
    shipped = [l.split()[0] for l in subprocess.run([strata, "--list-configs"], capture_output=True,
                                                  text=True).stdout.splitlines() if l.strip()]  # NAME  description
    if sorted(named) != sorted(shipped):
        return [f"docs/user_guide.md: the shipped-configs table names {sorted(set(named) - set(shipped))} that "
                f"`strata --list-configs` does not list and misses {sorted(set(shipped) - set(named))}"
                + (" (or names one twice)" if len(named) != len(set(named)) else "")]
    print(f"ok: the user guide's table names the {len(shipped)} shipped configs")
    return []


def main():
    strata, root, tmp = sys.argv[1:4]
    strata, root = os.path.abspath(strata), os.path.abspath(root)
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    docs = ["README.md"] + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs/**/*.md"),
                                                                               recursive=True))
    texts = {doc: open(os.path.join(root, doc)).read() for doc in docs}
    with_cmds = [doc for doc in docs if doc_commands(doc, texts[doc]) or toml_configs(doc, texts[doc])]
    for doc in ("README.md", "docs/user_guide.md"):
        if doc not in with_cmds:
            fail(f"{doc}: no strata commands found")
    t0 = time.monotonic()
    used, errors, total = set(), [], 0
    # the longest docs first, two at a time
    order = sorted(with_cmds, key=lambda doc: -len(doc_commands(doc, texts[doc])))
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        for log, u, errs in pool.map(lambda doc: run_doc(strata, root, tmp, doc, texts), order):
            print("\n".join(log))
            total += len(log)
            used |= u
            errors += errs
    errors += config_table(strata, texts["docs/user_guide.md"])
    for table, name in ((SKIP, "SKIP"), (EXTRA, "EXTRA")):
        for k in table:
            if k not in used:
                errors.append(f"{name} entry {k} matches no command of {k[0]}: remove or update it")
    if errors:
        fail("\n".join(errors))
    print(f"ok: {total} doc commands in {len(with_cmds)} docs ran as documented in {time.monotonic() - t0:.1f} s")


if __name__ == "__main__":
    main()
