#!/usr/bin/env python3
"""Where Strata's host time goes, per memory-controller request, by component (docs/performance.md).

Runs one case under callgrind (instruction counts: reproducible on a loaded machine, where wall clock
is not), reads the flat profile with callgrind_annotate and groups every function's own (exclusive)
instructions by component with the symbol patterns of GROUPS below. Prints the total, the instructions
per memory-controller request, the grouped table and the top functions.

Cases:
  default   `strata` with no arguments: baseline_hbm2, stream n = 2 Mi (172 032 requests)
  full      the full-scale A100 HMS machine (configs/hms_full: 108 SMs, 40 channels, 80 L2 banks),
            stream n = 1 Mi (12 MiB, about 128 000 requests): minutes under valgrind
  memtrace  `strata memtrace` on baseline_hbm2 with a uniform random trace of 64 B requests
            (--trace FILE, else 1 M requests written by tools/gen_memtrace.py into the --work folder)

usage: profile.py STRATA [--case default|full|memtrace] [--work DIR] [--trace FILE] [--top N]
                  [--from CALLGRIND_OUT --requests N] [-- EXTRA STRATA ARGS]
The build should be Release with STRATA_LTO=OFF (function boundaries as in the source, so the groups
are the components; LTO inlines across files and moves instructions between them).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

# Component of a function, by its symbol (first match wins). A pattern is tried on the function's
# name and on its object file (callgrind_annotate prints "name [object]"); a scheduler trampoline Event::bind<&X::m>::_FUN (into which the
# compiler inlines the bound method) is matched as the bound method X::m.
GROUPS = [
    ("SystemC kernel + TLM sockets", r"^sc_core::|^tlm_utils::|^tlm::|libsystemc"),
    ("Strata scheduler (Scheduler, Event)", r"^strata::Scheduler::|^strata::Event::"),
    ("workload init/verify (outside the simulation)",
     r"Program::(init_data|verify)|load_initial_data|write_functional|::check_result|Golden"),
    ("SM issue + coalescer + L1 + workload instruction streams",
     r"^strata::Sm::|^strata::Gpu::|^coalesce_|^strata::.*Kernel::|^strata::Warp|^strata::Ptx|^ptx_|^atomic_"),
    ("caches: tag arrays + replacement (L1 and L2)",
     r"^cache_|^lru_|^repl_|^eabp_|^hac_|^wbar_|^strata::L1"),
    ("crossbar + links", r"^strata::Xbar::|^strata::TlmLink::|^strata::Link|^link_"),
    ("L2 banks", r"^strata::L2Bank::"),
    ("memory side (MemSide, policies)", r"^strata::MemSide::|^strata::MemorySide::|^memside_|^plain_|^dcache_|"
     r"^ctc_|^bps_|^flrb_|^blocks_|^non-virtual thunk to strata::MemSide::"),
    ("controller shell (MemCtrl)", r"^strata::MemCtrl::|^strata::ScmThrottle::"),
    ("controller engine (mc_*)", r"^mc_"),
    ("timing checker (tcheck_*)",
     r"^tcheck_|^(act|pre|col|other)_cmd$|^spacing$|^update_deadline|^refresh_interval$|^bus_rules$|^do_(act|pre|col|ref|refpb|pdx)$"),
    ("address map", r"^amap_|^dec_|^decode_|^devaddr_"),
    ("device data store (bstore)", r"^bstore_|^grow$"),
    ("stats and time series", r"Stats|Sampler|^stats_|natural_less|Probe|TimeSeries|Vcd"),
    ("payload pool + extensions", r"^strata::PayloadPool::|^strata::GpuExt::"),
    ("libc + C++ runtime + loader", r"libc\.so|libstdc\+\+|ld-linux|libgcc_s|libm\.so|^operator (new|delete)|^std::"),
    ("memtrace player + trace reader", r"Player::|TraceReader::|^strata::.*Memtrace"),
    ("config + set-up", r"Config|schema|toml|^strata::Platform::|::(Sm|L2Bank|MemCtrl|MemSide|Gpu|Xbar)\("),
]
OTHER = "other"
COMPILED = [(name, re.compile(p)) for name, p in GROUPS]
TRAMPOLINE = re.compile(r"^strata::Event::bind<&(strata::[^,]+?), ")
LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$")


def group_of(sym):
    m = re.match(r"^(.*?)(?: \[([^\]]*)\])?$", sym)
    name, obj = m.group(1), m.group(2) or ""
    t = TRAMPOLINE.match(name)
    if t:
        name = t.group(1) + "()"
    for g, rx in COMPILED:
        if rx.search(name) or rx.search(obj):
            return g
    return OTHER


def parse_annotate(text):
    """[(Ir, symbol "name [object]")] of the flat exclusive profile; and the program total."""
    total, rows, body = None, [], False
    for line in text.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
            continue
        if line.startswith("Ir") and "file:function" in line:
            body = True
            continue
        if not body:
            continue
        m = LINE.match(line)
        if not m:
            if rows and line.startswith("---"):
                break
            continue
        rest = m.group(2)
        # "file:function [object]": the file is "???" without debug information, else a path
        rest = rest.split(":", 1)[1] if ":" in rest else rest
        rows.append((int(m.group(1).replace(",", "")), rest))
    if total is None:
        sys.exit("profile.py: no PROGRAM TOTALS in the callgrind_annotate output")
    return total, rows


def run_case(a, work):
    out = os.path.join(work, "out")
    cg = os.path.join(work, "callgrind.out")
    cmd = [a.strata, "--quiet", "--force", "--out", out]
    if a.case == "full":
        cmd += ["--config", "hms_full", "--set", "workload.stream.n=1048576"]
    elif a.case == "memtrace":
        trace = a.trace
        if not trace:
            trace = os.path.join(work, "random_1m.trc")
            gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_memtrace.py")
            subprocess.run([sys.executable, gen, trace, "--pattern", "random", "--count", "1000000"], check=True)
        cmd = [a.strata, "memtrace", "--quiet", "--force", "--out", out, "--config", "baseline_hbm2", "--trace", trace]
    cmd += a.extra
    vg = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={cg}", *cmd]
    print("running:", " ".join(vg), file=sys.stderr)
    r = subprocess.run(vg, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-2000:])
        sys.exit(f"profile.py: the profiled run failed (exit {r.returncode})")
    with open(os.path.join(out, "stats.json")) as f:
        st = json.load(f)
    return cg, st


def activations(cgfile):
    """Process activations by the Strata scheduler, per bound method: the calls of each trampoline
    Event::bind<&X::m>::_FUN, read from the callgrind output (name compression: "(id) name" once)."""
    names, counts, callee = {}, {}, None
    rx = re.compile(r"^c?fn=\((\d+)\)(?: (.*))?$")
    with open(cgfile) as f:
        for line in f:
            if line.startswith("cfn=") or line.startswith("fn="):
                m = rx.match(line.rstrip("\n"))
                if m:
                    if m.group(2):
                        names[m.group(1)] = m.group(2)
                    callee = names.get(m.group(1)) if line.startswith("cfn=") else None
            elif line.startswith("calls=") and callee:
                t = TRAMPOLINE.match(callee)
                if t:
                    counts[t.group(1)] = counts.get(t.group(1), 0) + int(line[6:].split()[0])
    return counts


def requests_of(st):
    """Memory-controller requests (mem.reads + mem.writes); a memtrace run: its trace requests."""
    if "memtrace.requests" in st:
        return int(st["memtrace.requests"])
    return int(st.get("mem.reads", 0) + st.get("mem.writes", 0))


def main():
    ap = argparse.ArgumentParser(prog="profile.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("strata", nargs="?", help="the strata binary (Release, STRATA_LTO=OFF)")
    ap.add_argument("--case", choices=["default", "full", "memtrace"], default="default")
    ap.add_argument("--work", help="folder for the callgrind output, the run's results and a generated trace "
                                   "(default: a temporary folder, removed)")
    ap.add_argument("--trace", help="memtrace: the trace to replay (default: 1 M uniform random 64 B requests)")
    ap.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    ap.add_argument("--from", dest="from_file", help="annotate this callgrind output instead of running")
    ap.add_argument("--requests", type=int, help="with --from: the memory-controller requests of that run")
    ap.add_argument("extra", nargs="*", help="more strata arguments, after --")
    a = ap.parse_args()
    if a.from_file:
        if not a.requests:
            ap.error("--from needs --requests")
        cg, reqs, st = a.from_file, a.requests, None
    else:
        if not a.strata or not os.access(a.strata, os.X_OK):
            ap.error("STRATA: expected the strata binary")
        if a.work:
            os.makedirs(a.work, exist_ok=True)
            cg, st = run_case(a, a.work)
        else:
            with tempfile.TemporaryDirectory() as d:
                cg, st = run_case(a, d)
                ann = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", cg],
                                     capture_output=True, text=True, check=True).stdout
                report(ann, requests_of(st), a.top, a.case, activations(cg))
                return
        reqs = requests_of(st)
    ann = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", cg],
                         capture_output=True, text=True, check=True).stdout
    report(ann, reqs, a.top, a.case, activations(cg))


def report(ann, reqs, top, case, acts):
    total, rows = parse_annotate(ann)
    per = {}
    for ir, sym in rows:
        g = group_of(sym)
        per[g] = per.get(g, 0) + ir
    listed = sum(per.values())
    if total > listed:
        per[OTHER] = per.get(OTHER, 0) + total - listed  # below callgrind_annotate's resolution
    what = "trace requests" if case == "memtrace" else "memory-controller requests"
    print(f"case {case}: {total / 1e6:,.1f} M instructions, {reqs:,} {what}, "
          f"{total / max(reqs, 1):,.0f} instructions per request")
    print()
    print(f"| {'component':<58} | {'M Ir':>8} | {'share':>6} | {'Ir/request':>10} |")
    print(f"|{'-' * 60}|{'-' * 10}:|{'-' * 8}:|{'-' * 12}:|")
    for g, ir in sorted(per.items(), key=lambda kv: -kv[1]):
        print(f"| {g:<58} | {ir / 1e6:>8.1f} | {100 * ir / total:>5.1f}% | {ir / max(reqs, 1):>10,.0f} |")
    print()
    n = sum(acts.values())
    print(f"process activations (Strata scheduler): {n:,}, {n / max(reqs, 1):.2f} per request")
    for k, v in sorted(acts.items(), key=lambda kv: -kv[1]):
        if v >= n / 200:
            short = re.sub(r"^strata::(\(anonymous namespace\)::)?", "", k)
            print(f"  {v:>12,}  {v / max(reqs, 1):6.2f}/req  {short}")
    print()
    print(f"top {top} functions (own instructions):")
    for ir, sym in rows[:top]:
        name = re.sub(r" \[[^\]]*\]$", "", sym)
        name = name if len(name) <= 90 else name[:87] + "..."
        print(f"  {100 * ir / total:5.2f}% {ir / max(reqs, 1):>7,.0f}/req  {name}  <{group_of(sym)}>")


if __name__ == "__main__":
    main()
