#!/usr/bin/env python3
"""Integration tests of the HMS modes and SCM throttling (docs/hms.md; used by CTest).

  hms_modes_test.py throttle LOW HIGH [SLOWER] STRATA OUTDIR -- ARGS...
      SCM throttling (mem.scm_throttle, HMS Sec. III-E): with threshold LOW W the run throttles
      (scm.throttled_seconds > 0 and the mean of the stacks', each channel its stack's, an engagement), is
      deterministic (a second run: identical stats) and, with SLOWER, slower than without throttling (not
      a law: throttling also moves the bypass decisions, Sec. III-C, so a short run can gain); with HIGH W it
      never throttles and every model stat equals the run with throttling off (the window events
      observe and do not perturb).
  hms_modes_test.py mode EXPECT STRATA OUTDIR -- ARGS...
      memside.dcache.mode: hms.dram_as_memory == EXPECT (1: DRAM-as-memory, 0: the DRAM cache); as
      memory: the plain policy (no dcache.* stats), the program where the map puts it (no SCM read when it
      fits the DRAM: FITS given); as cache: DRAM-cache fills; --check clean in both.
  hms_modes_test.py knobs STRATA OUTDIR -- ARGS...
      The paper's sensitivity knobs (Sec. IV-B), each against the same run without it: l2.ctc_ideal (the
      tag cache beside the L2, which keeps all 16 ways: fewer L2 misses on a working set between 12 and 16
      ways, the same tag-cache lookups) and memside.dcache.bypass_second_level = false (no bypass at the
      second level, every first-level pass fills); --check clean.
"""
import json
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, outdir, args):
    shutil.rmtree(outdir, ignore_errors=True)
    cmd = [strata, "--quiet", "--out", outdir, *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(outdir + "/stats.json") as f:
        return json.load(f)


def model_stats(s):
    return {k: v for k, v in s.items() if not k.startswith("host.") and not k.startswith("scm.")
            and not k.endswith(".scm_throttled_seconds")}


def energy_adds_up(s, where):
    """Energy per rank and total (docs/hms.md): the kinds' energies add up to mem.energy_j, each channel's
    ranks to the channel's, and the kinds' powers are their energies over the simulated time."""
    tot, kinds = s["mem.energy_j"], s["mem.dram.energy_j"] + s["mem.scm.energy_j"]
    if not (tot > 0 and abs(kinds - tot) <= 1e-9 * tot and s["mem.scm.energy_j"] > 0):
        fail(f"{where}: mem.dram.energy_j + mem.scm.energy_j = {kinds}, mem.energy_j = {tot}")
    for k in ("dram", "scm"):
        if abs(s[f"mem.{k}.power_w"] * s["sim.seconds"] - s[f"mem.{k}.energy_j"]) > 1e-9 * tot:
            fail(f"{where}: mem.{k}.power_w x sim.seconds != mem.{k}.energy_j")
    ch = 0
    while f"mem.ch{ch}.energy_j" in s:
        ranks = sum(s[f"mem.ch{ch}.rank{r}.energy_j"] for r in range(2))
        if abs(ranks - s[f"mem.ch{ch}.energy_j"]) > 1e-9 * tot:
            fail(f"{where}: channel {ch}: ranks {ranks} J, channel {s[f'mem.ch{ch}.energy_j']} J")
        ch += 1


def main():
    what = sys.argv[1]
    i = sys.argv.index("--")
    head, args = sys.argv[2:i], sys.argv[i + 1:]
    if "--check" not in args:
        fail("expected --check among the arguments")
    if what == "throttle":
        low, high, strata, outdir = head[0], head[1], head[-2], head[-1]
        slower = "SLOWER" in head
        off = run(strata, outdir + ".off", args)
        if "scm.throttled_seconds" in off:
            fail("scm.* throttling stats registered with throttling off")
        lo = run(strata, outdir + ".low", args + ["--set", f"mem.scm_throttle.threshold_w={low}"])
        t = lo["scm.throttled_seconds"]
        energy_adds_up(lo, outdir + ".low")
        if not (t > 0 and t <= lo["sim.seconds"] and lo["scm.throttle_engagements"] >= 1):
            fail(f"threshold {low} W: throttled {t} s of {lo['sim.seconds']} s, "
                 f"{lo['scm.throttle_engagements']} engagements")
        stacks = [lo[f"scm.stack{k}.throttled_seconds"] for k in range(64) if f"scm.stack{k}.throttled_seconds" in lo]
        if abs(sum(stacks) / len(stacks) - t) > 1e-15 * len(stacks):
            fail(f"scm.throttled_seconds {t} is not the mean of the stacks' {stacks}")
        per = len([k for k in lo if k.endswith(".scm_throttled_seconds")]) // len(stacks)
        for k, v in lo.items():
            if k.endswith(".scm_throttled_seconds") and v != stacks[int(k.split(".")[1][2:]) // per]:
                fail(f"{k} = {v}, expected its stack's")
        if slower and not lo["gpu.cycles"] > off["gpu.cycles"]:
            fail(f"throttled run not slower: {lo['gpu.cycles']} vs {off['gpu.cycles']} GPU cycles")
        again = run(strata, outdir + ".low2", args + ["--set", f"mem.scm_throttle.threshold_w={low}"])
        strip = lambda s: {k: v for k, v in s.items() if not k.startswith("host.")}
        if strip(again) != strip(lo):
            diff = [k for k in sorted(set(lo) | set(again)) if lo.get(k) != again.get(k) and not k.startswith("host.")]
            fail(f"throttled runs differ in {len(diff)} stats, e.g. {diff[:5]}")
        hi = run(strata, outdir + ".high", args + ["--set", f"mem.scm_throttle.threshold_w={high}"])
        if hi["scm.throttled_seconds"] != 0 or hi["scm.throttle_engagements"] != 0 or not hi["scm.throttle_windows"]:
            fail(f"threshold {high} W throttled: {hi['scm.throttled_seconds']} s, windows {hi['scm.throttle_windows']}")
        if hi["scm.peak_window_power_w"] >= float(high) or lo["scm.peak_window_power_w"] <= float(low):
            fail(f"peak window power {hi['scm.peak_window_power_w']} W vs thresholds {low} / {high}")
        a, b = model_stats(off), model_stats(hi)
        if a != b:
            diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
            fail(f"a threshold never reached changed {len(diff)} stats, e.g. {diff[:5]}")
        print(f"ok: {low} W throttles {t * 1e6:.2f} of {lo['sim.seconds'] * 1e6:.2f} us "
              f"({lo['scm.throttle_engagements']:.0f} engagements), gpu.cycles {off['gpu.cycles']:.0f} -> "
              f"{lo['gpu.cycles']:.0f}, deterministic; {high} W never (peak {hi['scm.peak_window_power_w']:.3f} W)")
    elif what == "mode":
        expect, strata, outdir = head[0], head[-2], head[-1]
        fits = "FITS" in head
        s = run(strata, outdir, args)
        energy_adds_up(s, outdir)
        if s.get("hms.dram_as_memory") != int(expect):
            fail(f"hms.dram_as_memory {s.get('hms.dram_as_memory')}, expected {expect}")
        if not s.get("check.loads"):
            fail("no loads checked")
        if int(expect):
            if any(k.startswith("dcache.") for k in s):
                fail("dcache.* stats under DRAM-as-memory")
            if not s["mem.dram.read_bytes"]:
                fail("nothing read from DRAM")
            if fits and (s["mem.scm.read_bytes"] or s["mem.scm.write_bytes"]):
                fail(f"SCM used by a program that fits the DRAM: {s['mem.scm.read_bytes']} / {s['mem.scm.write_bytes']}")
        else:
            if not s.get("dcache.fills"):
                fail("no DRAM-cache fills")
        print(f"ok: hms.dram_as_memory {expect}, DRAM {s['mem.dram.read_bytes'] / 2**20:.1f} MiB read, "
              f"SCM {s['mem.scm.read_bytes'] / 2**20:.1f} MiB read, gpu.cycles {s['gpu.cycles']:.0f}")
    elif what == "knobs":
        strata, outdir = head[-2], head[-1]
        base = run(strata, outdir + ".base", args)
        ideal = run(strata, outdir + ".ideal", args + ["--set", "l2.ctc_ideal=true"])
        if not ideal["l2.misses"] < 0.8 * base["l2.misses"]:
            fail(f"l2.ctc_ideal: L2 misses {ideal['l2.misses']} vs {base['l2.misses']} with 4 ways carved")
        if not ideal["dcache.ctc_lookups"] or not base["dcache.ctc_lookups"]:
            fail("no tag-cache lookups")
        one = run(strata, outdir + ".one", args + ["--set", "memside.dcache.bypass_second_level=false"])
        if not base["dcache.bypasses_second_level"] or one["dcache.bypasses_second_level"]:
            fail(f"second-level bypasses {base['dcache.bypasses_second_level']} with the comparison, "
                 f"{one['dcache.bypasses_second_level']} without")
        if not one["dcache.fills"] > base["dcache.fills"] or one["dcache.victim_decrements"]:
            fail(f"without the second comparison: fills {one['dcache.fills']} (with: {base['dcache.fills']}), "
                 f"decrements {one['dcache.victim_decrements']}")
        print(f"ok: L2 misses {base['l2.misses']:.0f} -> {ideal['l2.misses']:.0f} with the ideal tag cache; "
              f"fills {base['dcache.fills']:.0f} -> {one['dcache.fills']:.0f} without the second comparison")
    else:
        fail("unknown test " + what)


if __name__ == "__main__":
    main()
