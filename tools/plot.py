#!/usr/bin/env python3
"""strata plot RUN_DIR [--out FILE]: plot a run's timeseries.csv (IPC, memory bandwidth, controller queue
occupancy, hit rates over time) into one figure (default RUN_DIR/timeseries.png, 10 x 8 inches); the
format is --out's extension: .png (300 dpi), .pdf or .svg.

Also the figures of an experiment spec (`[[figures]]`, docs/experiments.md), drawn by `strata sweep`:
  kind = "bars":  grouped bars normalised to the baseline design, one group per row (workload) plus the
                  arithmetic and geometric means, one bar per design; min..max over repeats as error bars.
  kind = "lines": one-axis sweeps: the stat against the values of `axis`, one line per design and row.
Each figure is written twice: FILE.png at 300 dpi (8 x 4.5 inches, 2400 x 1350 pixels) and a vector copy
for a paper, FILE.pdf (or FILE.svg when the spec's `file` ends in .svg). Legends sit beside the plot,
never over the data. Needs matplotlib (Debian python3-matplotlib), drawn with the Agg backend.
"""
import argparse
import csv
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import cliargs  # noqa: E402

import sweeptables  # noqa: E402

FIG_SIZE, FIG_DPI = (8, 4.5), 300  # inches; PNG pixels = inches x dpi (2400 x 1350)
TS_SIZE = (10, 8)                  # inches (3000 x 2400 pixels as PNG)
FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}


def _save(fig, path, also=()):
    """Write fig to `path` in the format of its extension (and to each path of `also`); atomic per file."""
    for p in (path,) + tuple(also):
        fmt = FORMATS[os.path.splitext(p)[1].lower()]
        tmp = p + ".tmp"
        fig.savefig(tmp, dpi=FIG_DPI, format=fmt, metadata={"CreationDate": None} if fmt == "pdf" else None)
        os.replace(tmp, p)
    plt.close(fig)
    return path


def _legend_beside(ax, **kw):
    """A legend to the right of the axes, outside them: it cannot cover data."""
    return ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def mean_err(v):
    """Mean of the repeats and its error bar down to the smallest and up to the largest. The mean of
    equal values can differ from them in the last bit (3 x 0.7 / 3 > 0.7), so the bars are clamped at 0:
    matplotlib refuses a negative error bar."""
    m = sum(v) / len(v)
    return m, max(0.0, m - min(v)), max(0.0, max(v) - m)


def bars(spec, runs, stats, fig_spec, path):
    T = sweeptables.Table(spec, runs, stats, fig_spec["stat"])
    designs = [d["name"] for d in spec["designs"] if any(r["design"] == d["name"] for r in runs)]
    groups = T.rows + ["arith. mean", "geo. mean"]
    per = {}
    for d in designs:
        for row in T.rows:
            per[(row, d)] = T.ratios(row, d)
        for name, mean in (("arith. mean", sweeptables.amean), ("geo. mean", sweeptables.gmean)):
            per[(name, d)] = [mean([T.ratios(row, d)[i] for row in T.rows]) for i in range(len(T.reps))]
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    width = 0.8 / max(1, len(designs))
    for j, d in enumerate(designs):
        xs, ys, lo, hi = [], [], [], []
        for i, g in enumerate(groups):
            v = [x for x in per[(g, d)] if not math.isnan(x)]
            if not v:
                continue
            m, e_lo, e_hi = mean_err(v)
            xs.append(i - 0.4 + width * (j + 0.5))
            ys.append(m)
            lo.append(e_lo)
            hi.append(e_hi)
        ax.bar(xs, ys, width, label=d, yerr=[lo, hi] if len(T.reps) > 1 else None, capsize=2)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, rotation=30 if len(groups) > 6 else 0, ha="right" if len(groups) > 6 else "center")
    ax.set_ylabel(fig_spec.get("ylabel", f"{fig_spec['stat']} / {spec['baseline']} (ratio)"))
    ax.set_xlabel("workload")
    ax.set_title(fig_spec.get("title", f"{fig_spec['stat']} normalised to {spec['baseline']}"))
    _legend_beside(ax)
    fig.tight_layout()
    return _save(fig, path, _vector(path))


def lines(spec, runs, stats, fig_spec, path):
    axis, stat = fig_spec["axis"], fig_spec["stat"]
    series = {}
    for r in runs:
        if axis not in r["params"] or r["name"] not in stats or not isinstance(stats[r["name"]].get(stat), (int, float)):
            continue
        label = r["design"] + ", " + re.sub(r",?[^,]*" + re.escape(axis.split(".")[-1]) + "=[^,]*", "", r["row"])
        series.setdefault(label.rstrip(", "), {}).setdefault(r["params"][axis], []).append(stats[r["name"]][stat])
    fig, ax = plt.subplots(figsize=FIG_SIZE)
    for label, pts in series.items():
        xs = sorted(pts)
        ax.plot(xs, [sum(pts[x]) / len(pts[x]) for x in xs], marker="o", label=label)
    ax.set_xlabel(axis)
    ax.set_ylabel(fig_spec.get("ylabel", stat))
    ax.set_title(fig_spec.get("title", f"{stat} against {axis}"))
    if series:
        _legend_beside(ax)
    fig.tight_layout()
    return _save(fig, path, _vector(path))


_VECTOR = {}  # PNG path -> its vector copy's extension (.pdf unless the spec's file asks for .svg)


def _vector(png):
    return (os.path.splitext(png)[0] + _VECTOR.get(png, ".pdf"),)


def spec_figures(spec, runs, stats, out):
    """The spec's [[figures]] into `out`: FILE.png (300 dpi) and its vector copy; returns the PNG paths."""
    paths = []
    for i, f in enumerate(spec["figures"]):
        name = f.get("file") or f"{spec['name']}_{f['kind']}_{re.sub(r'[^A-Za-z0-9]+', '_', f['stat'])}.png"
        stem, ext = os.path.splitext(name)
        path = os.path.join(out, stem + ".png")
        _VECTOR[path] = ".svg" if ext.lower() == ".svg" else ".pdf"
        paths.append((bars if f["kind"] == "bars" else lines)(spec, runs, stats, f, path))
    return paths


def _epoch_hint(run_dir):
    """'the run lasted X ns and sim.epoch_ns is Y: rerun with --set sim.epoch_ns=Z' from its stats.json and
    config.txt (a generic hint when they cannot be read)."""
    import json
    try:
        with open(os.path.join(run_dir, "stats.json")) as f:
            sim_ns = float(json.load(f)["sim.seconds"]) * 1e9
        with open(os.path.join(run_dir, "config.txt")) as f:
            epoch = next(float(l.split("=", 1)[1].split("#")[0]) for l in f if l.startswith("sim.epoch_ns "))
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        return "the run was shorter than one epoch; rerun it with a smaller --set sim.epoch_ns=NS"
    suggest = max(1, int(sim_ns / 50))
    return (f"the run lasted {sim_ns:.0f} ns and sim.epoch_ns is {epoch:.0f}; rerun it with --set "
            f"sim.epoch_ns={suggest} (about 50 points)")


def timeseries(run_dir, out):
    path = os.path.join(run_dir, "timeseries.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if rows and "time_ns" not in rows[0]:
        raise ValueError(f"{path}: expected a CSV with a time_ns column, got columns {', '.join(list(rows[0])[:5])}")
    if not rows:
        raise ValueError(f"{path}: no epoch recorded, expected at least one to draw: {_epoch_hint(run_dir)}")
    cols = list(rows[0])
    t = [float(r["time_ns"]) / 1000 for r in rows]

    def col(c):
        return [float(r[c] or "nan") for r in rows]

    def total(pattern):
        cs = [c for c in cols if re.fullmatch(pattern, c)]
        return [sum(v) for v in zip(*(col(c) for c in cs))] if cs else None

    panels = [("IPC", "instructions per cycle", [("gpu.ipc", col("gpu.ipc"))] if "gpu.ipc" in cols else []),
              ("Memory bandwidth", "GB/s", [("all channels", total(r"mem\.ch\d+\.bandwidth_gbps"))]),
              ("Controller queue occupancy", "requests (sum over channels)",
               [("read queue", total(r"mem\.ch\d+\.read_queue")), ("write queue", total(r"mem\.ch\d+\.write_queue"))]),
              ("Hit rates", "ratio", [(c, col(c)) for c in cols if c.endswith("hit_rate")])]
    panels = [(a, b, [(n, v) for n, v in s if v]) for a, b, s in panels]
    panels = [p for p in panels if p[2]]
    fig, axes = plt.subplots(len(panels), 1, figsize=TS_SIZE, sharex=True, squeeze=False)
    for ax, (title, unit, series) in zip(axes[:, 0], panels):
        for name, v in series:
            ax.plot(t, v, label=name)
        ax.set_title(title, fontsize="medium")
        ax.set_ylabel(unit)
        _legend_beside(ax)
    axes[-1, 0].set_xlabel("simulated time (us)")
    fig.suptitle(f"{os.path.basename(os.path.normpath(run_dir))}: time series (epoch {t[0] * 1000:.0f} ns)")
    fig.tight_layout()
    return _save(fig, out)


def main(argv=None):
    ap = cliargs.Parser(prog="strata plot", description=__doc__.split("\n\n")[0],
                        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", help="a run's output folder (with timeseries.csv)")
    ap.add_argument("--out", help="figure to write: .png (300 dpi), .pdf or .svg (default RUN_DIR/timeseries.png)")
    a = ap.parse_args(argv)
    out = a.out or os.path.join(a.run_dir, "timeseries.png")
    ext = os.path.splitext(out)[1].lower()
    if ext not in FORMATS:
        print(f"strata plot: --out {cliargs.printable(out)}: expected a file ending in .png, .pdf or .svg, got "
              f"{cliargs.printable(ext) or 'no extension'}", file=sys.stderr)
        return 2
    why = cliargs.writable_file(out)
    if why:
        print(f"strata plot: {why}", file=sys.stderr)
        return 2
    try:
        p = timeseries(a.run_dir, out)
    except (OSError, ValueError, KeyError) as e:
        print(f"strata plot: {cliargs.printable(e)}", file=sys.stderr)
        return 2
    print(p)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
