#!/usr/bin/env python3
"""strata report [--results DIR] [--out FILE] [--figures DIR] [--allow-dirty]: regenerate docs/results.md, the
reproduction report, from the committed experiment specs' latest results.

For each paper in configs/experiments/papers.toml: its headline numbers (the spec's [[compare]] entries
with a `paper` value) beside Strata's, with "same direction?" (both above, both below or both at 1) and
"within 2x?" (Strata's change from 1 is between half and twice the paper's, in its direction) columns; the spec's figures,
redrawn from the results into --figures (default docs/figures) as PNGs to commit; and a line saying when
and on which build the results were collected. Results are read from DIR/<spec name>/results.json.
The defaults of --results (runs/experiments) and --out (docs/results.md) are in the source tree, wherever
the command runs; paths given are relative to the current folder, both alike.

A report never loses results: a spec's section is regenerated only from complete results (every run of
the spec) made by one clean, committed build (named in the section); results made by a build with
uncommitted changes (a commit ending in -dirty) are refused unless --allow-dirty, and the section then
says so. A spec without such results keeps its section of the existing --out as it is (or, when that has
none, gets one saying there are no results yet), and the report lists what it kept and why. A paper
without a spec gets a section saying what is not built. Exit status 0, or 2 on a bad spec, papers.toml
or path.
"""
import argparse
import json
import math
import os
import re
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import cliargs  # noqa: E402
import sweep  # noqa: E402
import sweeptables  # noqa: E402


def pct(x):
    return "n/a" if x is None or math.isnan(x) else f"{(x - 1) * 100:+.2f}%"


def same_direction(paper, strata):
    if math.isnan(strata):
        return "n/a"
    sp, ss = (paper > 1) - (paper < 1), (strata > 1) - (strata < 1)
    return "yes" if sp == ss else "no"


def within_2x(paper, strata):
    """Strata's change from 1 is between half and twice the paper's, in the paper's direction (a change of
    the opposite sign is never within 2x, whatever its size)."""
    if math.isnan(strata):
        return "n/a"
    a, b = paper - 1, strata - 1
    if a == 0:
        return "yes" if b == 0 else "no"
    return "yes" if 0.5 <= b / a <= 2 else "no"


def load_papers(path):
    try:
        with open(path, "rb") as f:
            p = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise sweep.SpecError(f"{path}: {e}")
    papers = p.get("papers")
    if not isinstance(papers, list) or not papers:
        raise sweep.SpecError(f"{path}: key 'papers': expected an array of tables [[papers]], got {papers!r}")
    for i, x in enumerate(papers):
        for k in ("file", "title"):
            if not isinstance(x.get(k), str):
                raise sweep.SpecError(f"{path}: key 'papers[{i}].{k}': expected a string, got {x.get(k)!r}")
        if not isinstance(x.get("specs", []), list):
            raise sweep.SpecError(f"{path}: key 'papers[{i}].specs': expected a list of spec names")
    return papers


def existing_sections(path):
    """{spec name: its section's lines} from an existing report (a missing file: {})."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return {}
    out, name = {}, None
    for line in lines:
        m = re.match(r"### Experiment `([^`]+)`", line)
        if m:
            name = m.group(1)
            out[name] = []
        elif line.startswith("## ") or line.startswith("### ") or line.startswith("# "):
            name = None
        if name is not None:
            out[name].append(line)
    for k, v in out.items():  # sections end with one blank line, as spec_section writes them
        while v and v[-1] == "":
            v.pop()
        v.append("")
    return out


def usable(res, runs, allow_dirty):
    """None when results.json `res` may regenerate the section of a spec with `runs`, else why not."""
    names = {r["name"] for r in runs}
    have = {r.get("run") for r in res.get("runs", []) if isinstance(r, dict)} & names
    if len(have) < len(names):
        return f"incomplete results ({len(have)} of the spec's {len(names)} runs)"
    b = res.get("build") if isinstance(res.get("build"), dict) else {}
    commit = str(b.get("commit", "unknown"))
    if commit == "mixed":
        return "results of more than one build (rerun the sweep without --keep-other-builds)"
    if commit in ("", "?", "unknown"):
        return "results of an unknown build"
    if "-dirty" in commit and not allow_dirty:
        return f"results of a build with uncommitted changes ({commit}; --allow-dirty uses them)"
    return None


def spec_section(name, specs_dir, results_dir, fig_dir, out_md, allow_dirty=False):
    """(lines, None) for a regenerated section, or (heading, why) when the results cannot regenerate it."""
    spec = sweep.load_spec(os.path.join(specs_dir, name + ".toml"))
    res_path = os.path.join(results_dir, spec["name"], "results.json")
    md = [f"### Experiment `{name}`: {spec.get('title', name)}", ""]
    if not os.path.exists(res_path):
        return md[0], f"no results ({res_path})"
    try:
        with open(res_path) as f:
            res = json.load(f)
        if not isinstance(res, dict) or not isinstance(res.get("runs"), list) or not isinstance(res.get("stats"), list):
            raise ValueError("expected the object strata sweep writes")
    except (OSError, ValueError) as e:
        raise sweep.SpecError(f"{res_path}: {e}")
    runs = sweep.expand(spec)
    why = usable(res, runs, allow_dirty)
    if why:
        return md[0], why
    stats = {r["run"]: {k: r[k] for k in res["stats"] if isinstance(r.get(k), (int, float))} for r in res["runs"]}
    b = res["build"]
    dirty = " (**a build with uncommitted changes**, accepted with --allow-dirty)" if "-dirty" in str(b["commit"]) else ""
    md += [f"Results collected {b.get('date', '?')}, strata {b.get('strata_version', '?')} at commit `{b['commit']}`"
           f"{dirty}; all {len(runs)} runs of the spec (`strata sweep configs/experiments/{name}.toml`; full tables "
           f"in its `results.md`).", ""]
    claims = [c for c in sweeptables.compare_values(spec, runs, stats) if c.get("paper") is not None]
    if claims:
        md += ["| claim | where | paper | Strata | same direction? | within 2x? |", "|---|---|---:|---:|:-:|:-:|"]
        for c in claims:
            md.append(f"| {c['design']} vs {c['against']}: {c['title']} | {c.get('where', '')} | {pct(c['paper'])} | "
                      f"{pct(c['strata'])} | {same_direction(c['paper'], c['strata'])} | "
                      f"{within_2x(c['paper'], c['strata'])} |")
        md.append("")
    if spec["figures"]:
        import plot
        os.makedirs(fig_dir, exist_ok=True)
        for p in plot.spec_figures(spec, runs, stats, fig_dir):
            rel = os.path.relpath(p, os.path.dirname(os.path.abspath(out_md)))
            md += [f"![{os.path.basename(p)}]({rel})", ""]
    return md, None


def doc_link(doc, out):
    """Link from the report file to a model-notes file named from a source tree's root: the tree is the
    one the report file lives in (the nearest folder above it holding DOC), so a report written into
    another checkout links to that checkout's notes, not to the tree the tool runs from."""
    d = os.path.dirname(out)
    while True:
        if os.path.exists(os.path.join(d, doc)):
            return os.path.relpath(os.path.join(d, doc), os.path.dirname(out))
        up = os.path.dirname(d)
        if up == d:
            return os.path.relpath(os.path.join(ROOT, doc), os.path.dirname(out))
        d = up


def main(argv=None):
    ap = cliargs.Parser(prog="strata report", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join(ROOT, "runs", "experiments"),
                    help="sweep output root (default runs/experiments in the source tree)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results.md"),
                    help="report file (default docs/results.md in the source tree)")
    ap.add_argument("--figures", help="folder for the figures (default: figures/ beside --out)")
    ap.add_argument("--specs", default=os.path.join(ROOT, "configs", "experiments"),
                    help="folder of the specs and papers.toml (default configs/experiments in the source tree)")
    ap.add_argument("--allow-dirty", action="store_true",
                    help="use results made by a build with uncommitted changes (the section says so)")
    a = ap.parse_args(argv)
    out = os.path.abspath(a.out)
    fig_dir = a.figures or os.path.join(os.path.dirname(out), "figures")
    why = cliargs.writable_file(out)
    if why:
        print(f"strata report: {why}", file=sys.stderr)
        return 2
    if os.path.exists(a.results) and not os.path.isdir(a.results):
        print(f"strata report: --results {cliargs.printable(a.results)}: expected the folder strata sweep writes into (one "
              "NAME/results.json per spec), got a file", file=sys.stderr)
        return 2
    old = existing_sections(out)
    kept = []
    try:
        papers = load_papers(os.path.join(a.specs, "papers.toml"))
        md = ["# Reproduction report", "",
              "Generated by `strata report` from the experiment specs in `configs/experiments/` and their latest "
              "results (`strata sweep SPEC`). For each paper: its headline numbers beside Strata's. "
              "**same direction?**: Strata's change from the baseline has the paper's sign. **within 2x?**: "
              "Strata's change is between half and twice the paper's, in the same direction. Changes are ratios to the baseline "
              "averaged over the workloads as the spec says (docs/experiments.md).", ""]
        for p in papers:
            md += [f"## {p['title']}", "", f"Paper: `shared/papers/{p['file']}`" +
                   (f"; model notes: [{p['doc']}]({doc_link(p['doc'], out)})"
                    if p.get("doc") else ""), ""]
            if not p.get("specs"):
                md += [f"Not reproduced yet: {p.get('status', 'the system is not built yet.')}", ""]
            for name in p.get("specs", []):
                sec, why = spec_section(name, a.specs, a.results, fig_dir, out, a.allow_dirty)
                if why:
                    kept.append((name, why, name in old))
                    sec = old.get(name) or [
                        sec, "",
                        f"No results yet: run `strata sweep configs/experiments/{name}.toml`, then `strata report`.", ""]
                md += sec
    except sweep.SpecError as e:
        print(f"strata report: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # e.g. a --figures folder that cannot be made
        print(f"strata report: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    text = "\n".join(md).rstrip() + "\n"
    tmp = out + ".tmp"
    try:  # --out's folder is made as `strata --out` and `strata sweep --out` make theirs
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    except OSError as e:
        print(f"strata report: --out {a.out}: expected a writable file, got {e.strerror}", file=sys.stderr)
        return 2
    for name, why, had in kept:
        print(f"strata report: {name}: {why}: its section is "
              + ("kept as it was" if had else "a 'no results yet' line"), file=sys.stderr)
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
