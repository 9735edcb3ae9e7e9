#!/usr/bin/env python3
"""Whole-platform test of Unified Memory (docs/um.md; models/ref/memside/um.c, models/memside/um_driver.cpp,
models/memside/mem_side_um.cpp): pages start in host memory, far faults in batches, page moves over the link.

  um_test.py STRATA OUTDIR

Runs, all with the golden-memory checker on (a page that came in or went out with wrong bytes fails the load that
reads it, exit 3):
  1. hbm_inf stream (every page fits): compulsory faults only, no page-out; every page of the program comes in,
     the written-only array's too (its writes fault); every page moved in crossed the link
     once (link bytes = pages in x 4 KiB = host-memory reads = device page_in writes); frames never exceeded;
  2. hbm_um stencil2d (RHBM 0.75: the grid pages in, pages go out and come back): pages out, their bytes on the
     link's request direction and in host-memory writes, refaults (pages in > the program's pages touched once),
     the L2's dirty lines of leaving pages carried out; run twice: the same seed gives the same stats;
  3. slowdown grows as RHBM falls: stencil2d at RHBM 1, 0.75, 0.5: cycles strictly increase, all above
     baseline_hbm2's (no host transfers at all);
  4. first touch (um.prefetch = none) over a stream with every page fitting: exactly one fault per page moved in
     (N pages -> N faults), nothing prefetched; the tree prefetcher on the same run moves the same pages with
     fewer faults;
  5. a DRAM cache under Unified Memory (hms with RHBM 1: the footprint fits, compulsory transfers only; the host is
     the shell's own device, the policy never sees it): --check clean, every page moved in once, the DRAM cache
     served the program (its hit rate and fills), and the link carried nothing but the page moves;
  6. NVLink with access counters (hbm_nvlink, stream): no far fault; pages not in device memory served remotely
     (um.remote_accesses), hot 64 KiB leaves migrating whole (pages in = 16 x counter migrations) until the
     frames are used, never an eviction; faster than hbm_um on the same program (the paper's HBM(NVLink) beats
     PCIe where HBM does not thrash).
  7. the host link's preset overridden (hostpath.gbps, hostpath.latency_ns): half of pcie_hms's 12.8 GB/s moves
     the same pages (same bytes) in a longer run, and the link's busy time is twice the preset's for the same
     bytes on the wire.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import strata_test  # noqa: E402

fail = strata_test.fail
equal = strata_test.equal
PAGE = 4096
STENCIL = ["--workload", "stencil2d", "--set", "workload.stencil2d.iters=3"]


def run(strata, outdir, args):
    s = strata_test.run(strata, outdir, ["--check", *args])
    if s.get("check.loads", 0) <= 0:
        fail(f"{outdir}: --check compared no loads")
    if s["um.resident_pages_peak"] > s["um.frames"]:
        fail(f"{outdir}: {s['um.resident_pages_peak']} pages in device memory at once, frames {s['um.frames']}")
    return s


def moved(s, where):
    """Every page's bytes crossed the link once per move, each way, and reached the devices."""
    equal(where, "um.host_link.bytes_in vs pages_in x 4 KiB", s["um.host_link.bytes_in"], s["um.pages_in"] * PAGE)
    equal(where, "um.host_link.bytes_out vs pages_out x 4 KiB", s["um.host_link.bytes_out"], s["um.pages_out"] * PAGE)
    equal(where, "link response data vs page bytes in", s["link.host_link.resp.data_bytes"], s["um.host_link.bytes_in"])
    equal(where, "link request data vs page bytes out", s["link.host_link.req.data_bytes"], s["um.host_link.bytes_out"])
    equal(where, "host-memory reads vs page bytes in", s["hostmem.host.read_bytes"], s["um.host_link.bytes_in"])
    equal(where, "host-memory writes vs page bytes out", s["hostmem.host.write_bytes"], s["um.host_link.bytes_out"])
    equal(where, "device page_in bytes", s["mem.class.page_in.bytes"], s["um.host_link.bytes_in"])
    equal(where, "device page_out bytes", s["mem.class.page_out.bytes"], s["um.host_link.bytes_out"])
    if s["um.faults"] <= 0 or s["um.fault_batches"] <= 0 or s["um.fault_stall_seconds"] <= 0:
        fail(f"{where}: no far faults serviced")
    if s["um.fault_stall_seconds"] > s["sim.seconds"]:
        fail(f"{where}: fault stall {s['um.fault_stall_seconds']} s longer than the run {s['sim.seconds']} s")


def main():
    (strata, outdir), _ = strata_test.split_args(sys.argv[1:])

    # 1. compulsory faults only
    w = outdir + ".inf"
    inf = run(strata, w, ["--config", "hbm_inf", "--workload", "stream"])
    moved(inf, w)
    equal(w, "pages out with every page fitting", inf["um.pages_out"], 0)
    equal(w, "frames = the program's pages", inf["um.frames"], inf["workload.footprint_bytes"] // PAGE)
    # every page the program touches comes in, the written-only output array too: a whole-sector write that
    # misses in the L2 fetches its line when the page is not in device memory, so it faults (docs/um.md "Writes")
    equal(w, "pages in = the program's pages (stream reads a, b and writes c)", inf["um.pages_in"],
          inf["workload.footprint_bytes"] // PAGE)
    if inf["um.prefetched_pages"] <= 0:
        fail(f"{w}: the tree prefetcher added no page")

    # 2. oversubscribed: out and back in, the L2's dirty lines with them; determinism
    w = outdir + ".um"
    a = run(strata, w, ["--config", "hbm_um", *STENCIL])
    moved(a, w)
    frames = a["um.frames"]
    equal(w, "frames = floor(0.75 x pages)", frames, int(0.75 * (a["workload.footprint_bytes"] // PAGE)))
    if a["um.pages_out"] <= 0:
        fail(f"{w}: no page went out at RHBM 0.75")
    if a["um.pages_in"] <= a["um.pages_out"] or a["um.pages_in"] - a["um.pages_out"] > frames:
        fail(f"{w}: pages in {a['um.pages_in']} - out {a['um.pages_out']} must be in 1 .. frames {frames}")
    if a["um.l2_dirty_lines"] <= 0:
        fail(f"{w}: no leaving page had a dirty line in the L2 (the page-out's L2 step is untested)")
    b = run(strata, w + "2", ["--config", "hbm_um", *STENCIL])
    strata_test.same_stats(a, b, "same seed")

    # 3. the slowdown grows as RHBM falls
    base = strata_test.run(strata, outdir + ".base", ["--config", "baseline_hbm2", *STENCIL])
    cyc = [base["gpu.cycles"]]
    for r in ("1", "0.75", "0.5"):
        s = a if r == "0.75" else run(strata, f"{outdir}.r{r}", ["--config", "hbm_um", *STENCIL, "--set", f"um.rhbm={r}"])
        moved(s, f"{outdir}.r{r}")
        cyc.append(s["gpu.cycles"])
    if not all(x < y for x, y in zip(cyc, cyc[1:])):
        fail(f"cycles baseline, RHBM 1, 0.75, 0.5: {cyc}: expected strictly increasing")

    # 4. first touch: one fault per page
    w = outdir + ".ft"
    ft = run(strata, w, ["--config", "hbm_inf", "--workload", "stream", "--set", "um.prefetch=none"])
    moved(ft, w)
    equal(w, "faults vs pages in (first touch)", ft["um.faults"], ft["um.pages_in"])
    equal(w, "prefetched pages (first touch)", ft["um.prefetched_pages"], 0)
    equal(w, "pages in, first touch vs tree", ft["um.pages_in"], inf["um.pages_in"])
    if not inf["um.faults"] < ft["um.faults"]:
        fail(f"tree prefetch {inf['um.faults']} faults, first touch {ft['um.faults']}: expected fewer with the tree")

    # 5. a DRAM cache under Unified Memory
    w = outdir + ".hms"
    h = run(strata, w, ["--config", "hms", "--set", "hostpath.link=pcie_hms", "--set", "um.enabled=true",
                        "--set", "um.rhbm=1", *STENCIL])
    moved(h, w)
    equal(w, "pages out with every page fitting", h["um.pages_out"], 0)
    if h["dcache.fills"] <= 0 or not 0 < h["dcache.hit_rate"] < 1:
        fail(f"{w}: the DRAM cache did not serve the program (fills {h['dcache.fills']}, hit rate {h['dcache.hit_rate']})")
    equal(w, "link data both ways vs page moves", h["link.host_link.req.data_bytes"] + h["link.host_link.resp.data_bytes"],
          h["um.host_link.bytes_in"])

    # 6. NVLink with access counters
    w = outdir + ".nvlink"
    nv = run(strata, w, ["--config", "hbm_nvlink", "--workload", "stream"])
    equal(w, "far faults under access counters", nv["um.faults"], 0)
    equal(w, "evictions under access counters", nv["um.pages_out"], 0)
    if nv["um.remote_accesses"] <= 0 or nv["um.counter_migrations"] <= 0:
        fail(f"{w}: remote accesses {nv['um.remote_accesses']}, migrations {nv['um.counter_migrations']}")
    equal(w, "pages in vs 16 x counter migrations", nv["um.pages_in"], 16 * nv["um.counter_migrations"])
    equal(w, "device page_in bytes", nv["mem.class.page_in.bytes"], nv["um.host_link.bytes_in"])
    if nv["link.host_link.resp.data_bytes"] <= nv["um.host_link.bytes_in"]:
        fail(f"{w}: the link's response data carry no remote reads beyond the page moves")
    um_stream = run(strata, outdir + ".umstream", ["--config", "hbm_um", "--workload", "stream"])
    if not nv["gpu.cycles"] < um_stream["gpu.cycles"]:
        fail(f"stream: hbm_nvlink {nv['gpu.cycles']} cycles, hbm_um {um_stream['gpu.cycles']}: expected NVLink faster")

    # 7. the link's bandwidth and latency overridden from the config
    w = outdir + ".half"
    half = run(strata, w, ["--config", "hbm_inf", "--workload", "stream", "--set", "hostpath.gbps=6.4",
                           "--set", "hostpath.latency_ns=1000"])
    moved(half, w)
    equal(w, "pages in at 6.4 GB/s vs 12.8", half["um.pages_in"], inf["um.pages_in"])
    equal(w, "wire bytes at 6.4 GB/s vs 12.8", half["link.host_link.resp.bytes"], inf["link.host_link.resp.bytes"])
    if not half["gpu.cycles"] > inf["gpu.cycles"]:
        fail(f"{w}: {half['gpu.cycles']} cycles at 6.4 GB/s, {inf['gpu.cycles']} at 12.8: expected slower")
    busy = lambda r: r["link.host_link.resp.busy_fraction"] * r["sim.seconds"]
    ratio = busy(half) / busy(inf)
    if abs(ratio - 2) > 1e-3:
        fail(f"{w}: link busy time at 6.4 GB/s / 12.8 GB/s = {ratio}: expected 2")

    print(f"ok: NVLink stream {nv['um.remote_accesses']:.0f} remote accesses, {nv['um.counter_migrations']:.0f} "
          f"leaves migrated, {nv['gpu.cycles']:.0f} cycles against PCIe {um_stream['gpu.cycles']:.0f}")
    print(f"ok: InfHBM+UM stream {inf['um.faults']:.0f} faults / {inf['um.pages_in']:.0f} pages in "
          f"({inf['um.prefetched_pages']:.0f} prefetched, first touch {ft['um.faults']:.0f} faults); stencil2d "
          f"RHBM 0.75: {a['um.pages_in']:.0f} in / {a['um.pages_out']:.0f} out, {a['um.l2_dirty_lines']:.0f} dirty "
          f"L2 lines carried out; cycles baseline / RHBM 1 / 0.75 / 0.5: {' / '.join(f'{c:.0f}' for c in cyc)}")


if __name__ == "__main__":
    main()
