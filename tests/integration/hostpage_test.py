#!/usr/bin/env python3
"""Whole-platform test of the memory-side policy `hostpage` (models/ref/memside/memside_hostpage.c): pages start in
host memory behind the host link and move into device DRAM once hot GPU-wide.

  hostpage_test.py STRATA OUTDIR -- ARGS...

Runs ARGS (a --check run of a workload that writes arrays and reads them back) twice and asserts, from the stats:
  - the golden-memory checker compared loads and the run ended cleanly; the timing checker saw every DRAM command;
  - the decay timer fired, once per period while the GPU ran (partition 0's alone) and not after it;
  - promotions happened over the link: pages promoted, their bytes read from the host and written to DRAM;
  - the devices' feedback reached the policy: its per-access row outcomes (hit / miss / conflict), counts and
    service times of the accesses DRAM served equal the controllers' own counters for the L2's requests
    (mem.class.demand / writeback), and its host accesses the host memory's;
  - one GPU-wide manager: each 4 KiB page (spread over every partition by the line interleave) has one counter,
    created by whichever partition touched it first and found there by the others;
  - byte conservation per direction: over the link to the host, back from it, and into and out of DRAM, the bytes
    the devices counted are those the policy routed and moved, and the L2's fills and write-backs are all there;
  - the same seed gives the same stats (apart from host.*).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import strata_test  # noqa: E402  (run, fail, timing_checked)

fail = strata_test.fail


def config_value(outdir, key):
    with open(os.path.join(outdir, "config.txt")) as f:
        for line in f:
            k, _, rest = line.partition("=")
            if k.strip() == key:
                return float(rest.split("#")[0].strip().strip('"'))
    fail(f"{outdir}/config.txt: no {key}")


def equal(where, what, a, b, rel=0.0):
    if (rel == 0 and a != b) or (rel and abs(a - b) > rel * max(abs(a), abs(b), 1)):
        fail(f"{where}: {what}: {a} != {b}")


def parts(s, name):
    """memside.p<N>.hostpage.<name> of every partition, in partition order."""
    out, p = [], 0
    while f"memside.p{p}.hostpage.{name}" in s:
        out.append(s[f"memside.p{p}.hostpage.{name}"])
        p += 1
    return out


def check(s, outdir):
    g = s.get
    where = outdir
    # 1. --check clean (a failed check exits 3: run() fails), every DRAM command timing-checked
    if g("check.loads", 0) <= 0:
        fail(f"{where}: --check compared no loads")
    strata_test.timing_checked(s, where)

    # 2. the decay timer: partition 0's wake-ups, one per period while accesses came
    period_s = config_value(outdir, "memside.hostpage.decay_ns") * 1e-9
    gpu_s = s["gpu.cycles"] / (config_value(outdir, "gpu.core_clock_mhz") * 1e6)
    decays = parts(s, "decays")
    if len(decays) < 2 or decays[0] <= 0 or any(decays[1:]):
        fail(f"{where}: decays per partition {decays}: expected partition 0's timer alone")
    # while the GPU runs, and not after: the pending wake-up is dropped when the program is done, so the timer
    # does not lengthen the run
    lo, hi = gpu_s / period_s - 4, gpu_s / period_s + 1
    if not lo <= s["hostpage.decays"] <= hi:
        fail(f"{where}: {s['hostpage.decays']} decays, expected {lo:.1f} .. {hi:.1f} for {gpu_s * 1e6:.1f} us of "
             f"GPU time at one per {period_s * 1e9:.0f} ns")

    # 3. promotions over the link
    prom, pbytes = s["hostpage.promotions"], s["hostpage.promoted_bytes"]
    if prom <= 0 or pbytes < 128 * prom or s["link.host_link.resp.data_bytes"] < pbytes:
        fail(f"{where}: {prom} promotions of {pbytes} B, link.host_link.resp.data_bytes "
             f"{s['link.host_link.resp.data_bytes']}")
    equal(where, "memside.moves vs promotions", s["memside.moves"], prom)
    equal(where, "mem.class.page_in.bytes (DRAM writes of promotions) vs promoted_bytes", s["mem.class.page_in.bytes"],
          pbytes)
    equal(where, "hostmem.host.reads vs host reads + one per promotion", s["hostmem.host.reads"],
          s["hostpage.host_reads"] + prom)
    equal(where, "hostmem.host.writes vs host write-backs", s["hostmem.host.writes"], s["hostpage.host_writes"])
    if s["hostpage.host_reads"] <= 0 or s["hostpage.dram_reads"] <= 0 or s["hostpage.dram_writes"] <= 0:
        fail(f"{where}: expected reads from both host and DRAM, and write-backs into DRAM (promoted pages)")

    # 4. device feedback: the policy's per-access counts = the controllers' for the L2's requests
    cls = lambda c, f: s[f"mem.class.{c}.{f}"]  # noqa: E731
    equal(where, "dram_reads vs mem.class.demand requests", s["hostpage.dram_reads"],
          cls("demand", "reads") + cls("demand", "writes"))
    equal(where, "dram_writes vs mem.class.writeback requests", s["hostpage.dram_writes"],
          cls("writeback", "reads") + cls("writeback", "writes"))
    for r in ("row_hits", "row_misses", "row_conflicts"):
        equal(where, f"hostpage.{r} vs the controllers' demand + writeback {r}", s[f"hostpage.{r}"],
              cls("demand", r) + cls("writeback", r))
    if s["hostpage.row_hits"] <= 0 or s["hostpage.row_misses"] + s["hostpage.row_conflicts"] <= 0:
        fail(f"{where}: expected both row hits and misses among the DRAM accesses")
    lat = sum(cls(c, "avg_latency_ns") * (cls(c, "reads") + cls(c, "writes")) * 1000 for c in ("demand", "writeback"))
    equal(where, "dram_latency_ps vs the controllers' latency sums", s["hostpage.dram_latency_ps"], lat, 1e-9)
    if not s["hostpage.avg_host_latency_ps"] > s["hostpage.avg_dram_latency_ps"] > 0:
        fail(f"{where}: service time per access: host {s['hostpage.avg_host_latency_ps']} ps, DRAM "
             f"{s['hostpage.avg_dram_latency_ps']} ps: expected the host path slower than DRAM, both > 0")

    # 5. one GPU-wide manager shared by the partitions
    first = parts(s, "first_touches")
    routed = sum(parts(s, "host_reads") + parts(s, "host_writes") + parts(s, "dram_reads") + parts(s, "dram_writes"))
    equal(where, "memside.mgr.accesses vs the accesses the partitions routed", s["memside.mgr.accesses"], routed)
    equal(where, "pages created by the partitions vs memside.mgr.pages + replaced", sum(first),
          s["memside.mgr.pages"] + s["memside.mgr.replaced"])
    equal(where, "memside.mgr.pages vs the workload's 4 KiB pages", s["memside.mgr.pages"],
          s["workload.footprint_bytes"] / 4096)
    if sum(1 for f in first if f > 0) < 2 or max(first) >= s["memside.mgr.pages"]:
        fail(f"{where}: first touches per partition {first}: expected pages created by several partitions, each "
             f"partition finding others' counters")

    # 6. byte conservation per direction
    equal(where, "to the host: link req data vs the policy's host write-backs", s["link.host_link.req.data_bytes"],
          s["hostpage.host_write_bytes"])
    equal(where, "to the host: host memory writes vs link", s["hostmem.host.write_bytes"],
          s["link.host_link.req.data_bytes"])
    equal(where, "from the host: link resp data vs host reads + promotions", s["link.host_link.resp.data_bytes"],
          s["hostpage.host_read_bytes"] + pbytes)
    equal(where, "from the host: host memory reads vs link", s["hostmem.host.read_bytes"],
          s["link.host_link.resp.data_bytes"])
    equal(where, "link transfers vs host memory requests", s["link.host_link.req.transfers"],
          s["hostmem.host.reads"] + s["hostmem.host.writes"])
    equal(where, "out of DRAM: mem.read_bytes vs the policy's DRAM reads", s["mem.read_bytes"],
          s["hostpage.dram_read_bytes"])
    equal(where, "into DRAM: mem.write_bytes vs DRAM write-backs + promotions", s["mem.write_bytes"],
          s["hostpage.dram_write_bytes"] + pbytes)
    for k in ("memside.own_read_bytes", "memside.own_write_bytes", "memside.moved_bytes"):
        equal(where, f"{k} vs promoted_bytes", s[k], pbytes)
    equal(where, "l2.fill_bytes vs host + DRAM reads", s["l2.fill_bytes"],
          s["hostpage.host_read_bytes"] + s["hostpage.dram_read_bytes"])
    equal(where, "l2.writeback_bytes vs host + DRAM write-backs", s["l2.writeback_bytes"],
          s["hostpage.host_write_bytes"] + s["hostpage.dram_write_bytes"])


def main():
    head, args = strata_test.split_args(sys.argv[1:])
    strata, outdir = head
    a = strata_test.run(strata, outdir + ".a", args)
    check(a, outdir + ".a")
    b = strata_test.run(strata, outdir + ".b", args)
    strata_test.same_stats(a, b, "same seed")
    print(f"ok: {a['hostpage.promotions']:.0f} promotions ({a['hostpage.promoted_bytes']:.0f} B over the link), "
          f"{a['hostpage.decays']:.0f} decays in {a['sim.seconds'] * 1e6:.1f} us, host share "
          f"{a['hostpage.host_share']:.3f}, DRAM row hits {a['hostpage.row_hits']:.0f} / misses "
          f"{a['hostpage.row_misses']:.0f} / conflicts {a['hostpage.row_conflicts']:.0f}, "
          f"{a['memside.mgr.pages']:.0f} shared pages, check.loads {a['check.loads']:.0f}")


if __name__ == "__main__":
    main()
