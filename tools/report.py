#!/usr/bin/env python3
"""strata report [--results DIR] [--out FILE] [--figures DIR]: regenerate docs/results.md, the reproduction
report, from the committed experiment specs' latest results.

For each paper in configs/experiments/papers.toml: its headline numbers (the spec's [[compare]] entries
with a `paper` value) beside Strata's, with "same direction?" (both above, both below or both at 1) and
"within 2x?" (Strata's change from 1 is between half and twice the paper's, in its direction) columns; the spec's figures,
redrawn from the results into --figures (default docs/figures) as PNGs to commit; and a line saying when
and on which build the results were collected. Results are read from DIR/<spec name>/results.json
(default DIR runs/experiments, where `strata sweep` writes). A paper without a spec, or whose spec has no
results yet, gets a section saying so. Exit status 0, or 2 on a bad spec or papers.toml.
"""
import argparse
import json
import math
import os
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import sweep  # noqa: E402


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


def spec_section(name, specs_dir, results_dir, fig_dir, out_md):
    spec = sweep.load_spec(os.path.join(specs_dir, name + ".toml"))
    res_path = os.path.join(results_dir, spec["name"], "results.json")
    md = [f"### Experiment `{name}`: {spec.get('title', name)}", ""]
    if not os.path.exists(res_path):
        return md + [f"No results yet: run `strata sweep configs/experiments/{name}.toml`, then `strata report`.", ""]
    with open(res_path) as f:
        res = json.load(f)
    runs = sweep.expand(spec)
    stats = {r["run"]: {k: r[k] for k in res["stats"] if isinstance(r.get(k), (int, float))} for r in res["runs"]}
    done = [r for r in runs if r["name"] in stats]
    b = res.get("build", {})
    md += [f"Results collected {b.get('date', '?')}, strata {b.get('strata_version', '?')} at commit `{b.get('commit', '?')}`; "
           f"{len(done)} of the spec's {len(runs)} runs (`strata sweep configs/experiments/{name}.toml`; full tables "
           f"in its `results.md`).", ""]
    claims = [c for c in sweep.compare_values(spec, done, stats) if c.get("paper") is not None]
    if claims:
        md += ["| claim | where | paper | Strata | same direction? | within 2x? |", "|---|---|---:|---:|:-:|:-:|"]
        for c in claims:
            md.append(f"| {c['design']} vs {c['against']}: {c['title']} | {c.get('where', '')} | {pct(c['paper'])} | "
                      f"{pct(c['strata'])} | {same_direction(c['paper'], c['strata'])} | "
                      f"{within_2x(c['paper'], c['strata'])} |")
        md.append("")
    if spec["figures"] and done:
        import plot
        os.makedirs(fig_dir, exist_ok=True)
        for p in plot.spec_figures(spec, done, stats, fig_dir):
            rel = os.path.relpath(p, os.path.dirname(os.path.abspath(out_md)))
            md += [f"![{os.path.basename(p)}]({rel})", ""]
    return md


def main(argv=None):
    ap = argparse.ArgumentParser(prog="strata report", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--results", default=os.path.join("runs", "experiments"), help="sweep output root (default %(default)s)")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results.md"), help="report file (default docs/results.md)")
    ap.add_argument("--figures", help="folder for the figures (default: figures/ beside --out)")
    ap.add_argument("--specs", default=os.path.join(ROOT, "configs", "experiments"),
                    help="folder of the specs and papers.toml (default configs/experiments)")
    a = ap.parse_args(argv)
    fig_dir = a.figures or os.path.join(os.path.dirname(os.path.abspath(a.out)), "figures")
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
                   (f"; model notes: [{p['doc']}]({os.path.relpath(os.path.join(ROOT, p['doc']), os.path.dirname(os.path.abspath(a.out)))})"
                    if p.get("doc") else ""), ""]
            if not p.get("specs"):
                md += [f"Not reproduced yet: {p.get('status', 'the system is not built yet.')}", ""]
            for name in p.get("specs", []):
                md += spec_section(name, a.specs, a.results, fig_dir, a.out)
    except sweep.SpecError as e:
        print(f"strata report: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # e.g. a --figures folder that cannot be made
        print(f"strata report: {e.filename}: {e.strerror}", file=sys.stderr)
        return 2
    tmp = a.out + ".tmp"
    try:  # --out's folder is made as `strata --out` and `strata sweep --out` make theirs
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(tmp, "w") as f:
            f.write("\n".join(md).rstrip() + "\n")
        os.replace(tmp, a.out)
    except OSError as e:
        print(f"strata report: --out {a.out}: expected a writable file, got {e.strerror}", file=sys.stderr)
        return 2
    print(a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
