#!/usr/bin/env python3
"""Whole-platform test of CXL-attached SCM (configs/cxl_scm.toml, mem.scm_link; HMS Sec. III-A, IV-C Fig. 15a):
Sep. DRAM&SCM with every SCM channel behind a link of its own (1/4 of the cxl_hms port each).

  cxl_scm_test.py STRATA OUTDIR -- ARGS...

ARGS shrink the caches (the SEP_SMALL of CMakeLists.txt). Runs, each under --check (a wrong byte exits 3):
  1. cxl_scm on stencil2d and on random: the links carry exactly the SCM channels' traffic -- per SCM channel c,
     link.scm_link<c>.req.data_bytes = mem.ch<c>.write_bytes and resp.data_bytes = mem.ch<c>.read_bytes, every
     request answered (resp.transfers = req.transfers), the wire bytes whole 68 B flits (packets x 68), at least one
     packet per transfer and at most 64 B of data per packet, energy 8 pJ/bit of wire; no link in front of a DRAM
     channel; mem.scm_link.* the sums; the platform's byte conservation (strata_test.invariants; not under UM, whose page moves um_test.py counts).
  2. sep_dram_scm on the same stencil2d: the link makes the design slower (gpu.cycles), and its SCM links were busy.
  3. cxl_scm under Unified Memory with every page fitting (hostpath.link = pcie_hms, um.rhbm = 1): pages moved in
     over the host link, --check clean, the SCM links still carry exactly the SCM channels' bytes.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import strata_test  # noqa: E402

fail = strata_test.fail
FLIT, PAYLOAD, PJ_PER_BIT = 68, 64, 8.0  # models/ref/mem/link.c cxl_hms


def links(s, where):
    """Check every SCM channel's link against its controller; return the SCM channels."""
    chans = sorted({int(k.split(".")[1][2:]) for k in s if k.startswith("mem.ch") and ".rank0.device." in k})
    scm = [c for c in chans if s.get(f"mem.ch{c}.rank0.device.scm_mlc", 0) == 1]
    dram = [c for c in chans if c not in scm]
    if scm != [1, 3, 5, 7] or dram != [0, 2, 4, 6]:
        fail(f"{where}: expected SCM on channels 1, 3, 5, 7 and DRAM on 0, 2, 4, 6, got {scm} / {dram}")
    for c in dram:
        if any(k.startswith(f"link.scm_link{c}.") for k in s):
            fail(f"{where}: a link in front of DRAM channel {c}")
    tot = {"bytes": 0, "data_bytes": 0, "energy_j": 0.0}
    for c in scm:
        L = f"link.scm_link{c}."
        if L + "req.transfers" not in s:
            fail(f"{where}: no link in front of SCM channel {c}")
        if s[L + "req.data_bytes"] != s[f"mem.ch{c}.write_bytes"] or s[L + "resp.data_bytes"] != s[f"mem.ch{c}.read_bytes"]:
            fail(f"{where}: channel {c}: link data {s[L + 'req.data_bytes']} / {s[L + 'resp.data_bytes']} != controller's "
                 f"write / read bytes {s[f'mem.ch{c}.write_bytes']} / {s[f'mem.ch{c}.read_bytes']}")
        if s[f"mem.ch{c}.read_bytes"] <= 0 or s[f"mem.ch{c}.write_bytes"] <= 0:
            fail(f"{where}: channel {c}: no SCM reads or writes (nothing tested)")
        if s[L + "resp.transfers"] != s[L + "req.transfers"]:
            fail(f"{where}: channel {c}: {s[L + 'req.transfers']} requests, {s[L + 'resp.transfers']} responses")
        for d in ("req", "resp"):
            n, p, b, data = (s[L + d + ".transfers"], s[L + d + ".packets"], s[L + d + ".bytes"], s[L + d + ".data_bytes"])
            if b != FLIT * p or p < n or data > PAYLOAD * p:
                fail(f"{where}: {L}{d}: {n} transfers, {p} packets, {b} wire bytes, {data} data bytes: not whole "
                     f"{FLIT} B flits of at most {PAYLOAD} B of data, one packet or more per transfer")
        wire = s[L + "req.bytes"] + s[L + "resp.bytes"]
        if abs(s[L + "energy_j"] - wire * 8 * PJ_PER_BIT * 1e-12) > 1e-9 * s[L + "energy_j"]:
            fail(f"{where}: {L}energy_j {s[L + 'energy_j']} != {wire} wire bytes x 8 pJ/bit")
        tot["bytes"] += wire
        tot["data_bytes"] += s[L + "req.data_bytes"] + s[L + "resp.data_bytes"]
        tot["energy_j"] += s[L + "energy_j"]
    for k, v in tot.items():
        if abs(s["mem.scm_link." + k] - v) > 1e-9 * max(v, 1e-30):
            fail(f"{where}: mem.scm_link.{k} {s['mem.scm_link.' + k]} != the links' sum {v}")
    return scm


def main():
    strata, out = sys.argv[1], sys.argv[2]
    args = sys.argv[sys.argv.index("--") + 1:]
    runs = {}
    for name, cfg, extra in (("cxl_stencil", "cxl_scm", ["--workload", "stencil2d"]),
                             ("cxl_random", "cxl_scm", ["--workload", "random"]),
                             ("sep_stencil", "sep_dram_scm", ["--workload", "stencil2d"]),
                             ("cxl_um", "cxl_scm", ["--workload", "stencil2d", "--set", "hostpath.link=pcie_hms",
                                                    "--set", "um.enabled=true", "--set", "um.rhbm=1"])):
        where = os.path.join(out, name)
        s = strata_test.run(strata, where, ["--config", cfg, "--check", *args, *extra])
        if s.get("check.loads", 0) <= 0:
            fail(f"{where}: --check compared no loads")
        if name != "cxl_um":  # (under UM the page moves also write the devices: um_test.py checks those bytes)
            strata_test.invariants(s, where)
        if cfg == "cxl_scm":
            links(s, where)
        elif any(k.startswith("link.scm_link") or k.startswith("mem.scm_link") for k in s):
            fail(f"{where}: sep_dram_scm has SCM links")
        runs[name] = s
    # 2. the link is the difference between the two designs: slower, and its response wires busy
    cxl, sep = runs["cxl_stencil"]["gpu.cycles"], runs["sep_stencil"]["gpu.cycles"]
    if not cxl > sep:
        fail(f"cxl_scm stencil2d {cxl} cycles not slower than sep_dram_scm's {sep}")
    busy = max(runs["cxl_stencil"][f"link.scm_link{c}.resp.busy_fraction"] for c in (1, 3, 5, 7))
    if busy < 0.5:
        fail(f"cxl_scm stencil2d: SCM links' response wires at most {busy:.2f} busy: the link is not the bottleneck")
    # 3. Unified Memory: the compulsory page moves happened over the host link, the SCM links still exact (above)
    u = runs["cxl_um"]
    if u.get("um.pages_in", 0) <= 0 or u.get("um.faults", 0) <= 0:
        fail(f"{out}/cxl_um: no pages moved in under Unified Memory (um.pages_in {u.get('um.pages_in')})")
    print(f"cxl_scm / sep_dram_scm stencil2d cycles {cxl} / {sep} = {cxl / sep:.3f}; SCM link busy {busy:.3f}; "
          f"UM pages in {u['um.pages_in']}")


if __name__ == "__main__":
    main()
