"""The arithmetic and markdown of a sweep's results (docs/experiments.md "Collection"): values by row,
design and repeat, ratios to the baseline, arithmetic and geometric means, `mean [min..max]` cells with
`n.s.` marking, and the spec's tables. Used by `strata sweep` (tools/sweep.py), its figures
(tools/plot.py) and `strata report` (tools/report.py); it imports none of them.
"""
import math


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


def builds_note(builds):
    """A results.md line flagging results made by more than one strata build ('' for one build).
    builds: {run name: {version, commit}}."""
    count = {}
    for b in builds.values():
        b = b or {}
        key = f"strata {b.get('version', '?')} at commit {b.get('commit', 'unknown')}"
        count[key] = count.get(key, 0) + 1
    if len(count) <= 1:
        return ""
    return ("**Mixed builds**: these results were made by " + str(len(count)) + " strata builds ("
            + "; ".join(f"{c} runs by {k}" for k, c in sorted(count.items(), key=lambda x: -x[1]))
            + "); a sweep without --keep-other-builds reruns the runs of the other builds.")


def md_tables(spec, runs, stats, command, builds=None):
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
    note = builds_note(builds or {})
    if note:
        md += ["", note]
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
    """The spec's [[compare]] entries with Strata's per-repeat value: amean(design/base) / amean(against/base),
    base the entry's own `base` design or the spec's baseline (a stat the baseline does not have, such as a
    PCM lifetime against a pure-DRAM baseline, is compared through another design)."""
    out = []
    for c in spec["compare"]:
        T = Table(spec, runs, stats, c["stat"])
        per_rep = []
        for i in range(len(T.reps)):
            a = amean([T.ratios(row, c["design"], c.get("base"))[i] for row in T.rows])
            b = amean([T.ratios(row, c["against"], c.get("base"))[i] for row in T.rows])
            per_rep.append(a / b if b else math.nan)
        out.append(dict(c, title=c.get("title", c["stat"]), per_rep=per_rep, strata=amean(per_rep)))
    return out
