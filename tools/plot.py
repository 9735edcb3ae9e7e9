#!/usr/bin/env python3
"""strata plot RUN_DIR [--out FILE]: plot a run's timeseries.csv (IPC, memory bandwidth, controller queue
occupancy, hit rates over time) into one PNG (default RUN_DIR/timeseries.png, 1000 x 800 pixels).

Also the figures of an experiment spec (`[[figures]]`, docs/experiments.md), drawn by `strata sweep`:
  kind = "bars":  grouped bars normalised to the baseline design, one group per row (workload) plus the
                  arithmetic and geometric means, one bar per design; min..max over repeats as error bars.
  kind = "lines": one-axis sweeps: the stat against the values of `axis`, one line per design and row.
Figures are 800 x 450 pixels. Needs matplotlib (Debian python3-matplotlib), drawn with the Agg backend.
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

FIG_SIZE, FIG_DPI = (8, 4.5), 100  # 800 x 450 px
TS_SIZE = (10, 8)                  # 1000 x 800 px


def _save(fig, path):
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=FIG_DPI)
    plt.close(fig)
    os.replace(tmp, path)
    return path


def mean_err(v):
    """Mean of the repeats and its error bar down to the smallest and up to the largest. The mean of
    equal values can differ from them in the last bit (3 x 0.7 / 3 > 0.7), so the bars are clamped at 0:
    matplotlib refuses a negative error bar."""
    m = sum(v) / len(v)
    return m, max(0.0, m - min(v)), max(0.0, max(v) - m)


def bars(spec, runs, stats, fig_spec, path):
    import sweep
    T = sweep.Table(spec, runs, stats, fig_spec["stat"])
    designs = [d["name"] for d in spec["designs"] if any(r["design"] == d["name"] for r in runs)]
    groups = T.rows + ["arith. mean", "geo. mean"]
    per = {}
    for d in designs:
        for row in T.rows:
            per[(row, d)] = T.ratios(row, d)
        for name, mean in (("arith. mean", sweep.amean), ("geo. mean", sweep.gmean)):
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
    ax.set_ylim(0, ax.get_ylim()[1] * 1.15)  # room for the legend above the bars
    ax.legend(fontsize="small", ncol=min(len(designs), 6), loc="upper center")
    fig.tight_layout()
    return _save(fig, path)


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
        ax.legend(fontsize="small")
    fig.tight_layout()
    return _save(fig, path)


def spec_figures(spec, runs, stats, out):
    paths = []
    for i, f in enumerate(spec["figures"]):
        name = f.get("file") or f"{spec['name']}_{f['kind']}_{re.sub(r'[^A-Za-z0-9]+', '_', f['stat'])}.png"
        path = os.path.join(out, name)
        paths.append((bars if f["kind"] == "bars" else lines)(spec, runs, stats, f, path))
    return paths


def timeseries(run_dir, out):
    path = os.path.join(run_dir, "timeseries.csv")
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "time_ns" not in rows[0]:
        raise ValueError(f"{path}: expected a CSV with a time_ns column and at least one row")
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
        ax.legend(fontsize="small", loc="upper right")
    axes[-1, 0].set_xlabel("simulated time (us)")
    fig.suptitle(f"{os.path.basename(os.path.normpath(run_dir))}: time series (epoch {t[0] * 1000:.0f} ns)")
    fig.tight_layout()
    return _save(fig, out)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="strata plot", description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run_dir", help="a run's output folder (with timeseries.csv)")
    ap.add_argument("--out", help="PNG to write (default RUN_DIR/timeseries.png)")
    a = ap.parse_args(argv)
    try:
        p = timeseries(a.run_dir, a.out or os.path.join(a.run_dir, "timeseries.png"))
    except (OSError, ValueError, KeyError) as e:
        print(f"strata plot: {e}", file=sys.stderr)
        return 2
    print(p)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
