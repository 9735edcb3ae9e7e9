#!/usr/bin/env python3
"""Integration-test driver for the `strata` executable (used by CTest).

  strata_test.py run-invariants STRATA OUTDIR -- ARGS...   run, then assert platform invariants on stats.json
  strata_test.py deterministic STRATA OUTDIR -- ARGS...    run twice; stats.json identical apart from host.*
  strata_test.py expect-exit CODE REGEX STRATA -- ARGS...  exit status CODE and one stderr line matching REGEX
  strata_test.py vcd STRATA OUTDIR -- ARGS...              run with --vcd and validate the VCD by parsing it
  strata_test.py vcd-name STRATA OUTDIR -- ARGS...         --vcd NAME (no extension) writes NAME.vcd and the
                                                           summary names NAME.vcd
  strata_test.py min-bandwidth FRACTION STRATA OUTDIR -- ARGS...   mem.bandwidth_gbps >= FRACTION x peak
  strata_test.py timing-check STRATA OUTDIR -- ARGS...      checker on (default): every command checked;
                                                           off: 0 checked, every other non-host stat identical
  strata_test.py memside-moves N BYTES STRATA OUTDIR -- ARGS...   invariants, and the memory-side policy
                                                           completed N moves of BYTES bytes in all
  strata_test.py dcache MIN_WRITEBACKS STRATA OUTDIR -- ARGS...   invariants of a DRAM-cache run: every access a
                                                           hit or a miss, fills and probes, at least MIN_WRITEBACKS
                                                           dirty victims written back
  strata_test.py mixed KINDS STRATA OUTDIR -- ARGS...      mixed technologies: invariants, and traffic on exactly the
                                                           memory kinds KINDS (e.g. dram,scm), every rank's device named,
                                                           the kinds' bytes and energies adding up to the totals
"""
import json
import os
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, outdir, args, extra=()):
    shutil.rmtree(outdir, ignore_errors=True)
    cmd = [strata, "--quiet", "--out", outdir, *args, *extra]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    if p.stdout.strip() or p.stderr.strip():
        fail(f"{' '.join(cmd)}: --quiet run printed output:\n{p.stdout[:2000]}\n{p.stderr[:2000]}")
    with open(os.path.join(outdir, "stats.json")) as f:
        return json.load(f)


def equal(where, what, a, b):
    """Fail unless a == b, naming where (a run folder) and what was compared."""
    if a != b:
        fail(f"{where}: {what}: {a} != {b}")


def config_value(outdir, key):
    """The value of key in a run folder's config.txt (as written there, quotes and comment removed)."""
    with open(os.path.join(outdir, "config.txt")) as f:
        for line in f:
            k, _, rest = line.partition("=")
            if k.strip() == key:
                return rest.split("#")[0].strip().strip('"')
    fail(f"{outdir}/config.txt: no {key}")


def size_bytes(text):
    """A size as config.txt writes it ("64KiB", "256MiB", "4096") in bytes."""
    units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    for u, m in units.items():
        if text.endswith(u):
            return int(float(text[:-len(u)]) * m)
    return int(text)


def model_stats(s):
    """The stats a run's model produced: every stat but host.* (host time, speed and memory vary run to run)."""
    return {k: v for k, v in s.items() if not k.startswith("host.")}


def same_stats(a, b, what, skip=lambda k: False):
    """Fail unless runs a and b have identical model stats (determinism: same config and seed), apart from the
    names `skip` accepts."""
    da, db = model_stats(a), model_stats(b)
    diff = [k for k in sorted(set(da) | set(db)) if not skip(k) and da.get(k) != db.get(k)]
    if diff:
        fail(f"{what}: {len(diff)} stats differ, e.g. {diff[:5]}")


def invariants(s, where):
    def need(name):
        if name not in s:
            fail(f"{where}: stat {name} missing")
        return s[name]
    required = ["sim.seconds", "gpu.cycles", "gpu.instructions", "gpu.ipc", "l1.miss_rate", "l2.accesses",
                "l2.misses", "l2.miss_rate", "l2.writebacks.dram", "l2.writebacks.nvm", "mem.reads", "mem.writes",
                "mem.read_bytes", "mem.write_bytes", "mem.bandwidth_gbps", "mem.peak_bandwidth_gbps",
                "mem.avg_read_latency_ns", "mem.row_hit_rate", "mem.energy_j", "host.seconds",
                "host.mem_requests_per_second", "l2.bank0.misses", "mem.ch0.row_hits"]
    for r in required:
        need(r)
    if need("gpu.ipc") <= 0:
        fail(f"{where}: gpu.ipc {s['gpu.ipc']} not > 0")
    if need("mem.bandwidth_gbps") > need("mem.peak_bandwidth_gbps") * 1.0000001:
        fail(f"{where}: bandwidth {s['mem.bandwidth_gbps']} above peak {s['mem.peak_bandwidth_gbps']}")
    # Byte conservation: everything the L2 fetched or wrote back, plus what the memory-side policies moved
    # themselves (models/memside), is what the memory read or wrote.
    own_rd, own_wr = need("memside.own_read_bytes"), need("memside.own_write_bytes")
    if need("l2.fill_bytes") + own_rd != need("mem.read_bytes"):
        fail(f"{where}: l2.fill_bytes {s['l2.fill_bytes']} + memside.own_read_bytes {own_rd} != "
             f"mem.read_bytes {s['mem.read_bytes']}")
    # The run ends when the memory controllers have drained what the L2 wrote back (models/sm/gpu.cpp).
    if need("l2.writeback_bytes") + own_wr != need("mem.write_bytes"):
        fail(f"{where}: l2.writeback_bytes {s['l2.writeback_bytes']} + memside.own_write_bytes {own_wr} != "
             f"mem.write_bytes {s['mem.write_bytes']}")
    if need("mem.energy_j") <= 0:
        fail(f"{where}: mem.energy_j not > 0")
    for k, v in s.items():
        if k.endswith("miss_rate") or k.endswith("hit_rate"):
            if not 0 <= v <= 1:
                fail(f"{where}: {k} = {v} outside [0, 1]")
    if "check.loads" in s and s.get("check.loads", 0) <= 0 and "--check" in sys.argv:
        fail(f"{where}: --check compared no loads")
    timing_checked(s, where)


def channel_commands(s):
    """DRAM commands the controllers issued, from their per-channel counters."""
    n, ch = 0, 0
    while f"mem.ch{ch}.activations" in s:
        p = f"mem.ch{ch}."
        n += s[p + "activations"] + s[p + "precharges"] + s[p + "read_atoms"] + s[p + "write_atoms"] + s[p + "refreshes"]
        ch += 1
    return n


def timing_checked(s, where):
    # The command timing checker is on unless a test turns it off: then it saw every command.
    if "mem.timing_check=false" in " ".join(sys.argv):
        return
    if s.get("mem.timing_checked_commands", 0) != channel_commands(s) or channel_commands(s) <= 0:
        fail(f"{where}: mem.timing_checked_commands {s.get('mem.timing_checked_commands')} != "
             f"{channel_commands(s)} commands issued")


def split_args(argv):
    if "--" not in argv:
        fail("usage: missing -- before strata arguments")
    i = argv.index("--")
    return argv[:i], argv[i + 1:]


def main():
    mode = sys.argv[1]
    head, args = split_args(sys.argv[2:])
    if mode == "run-invariants":
        strata, outdir = head
        s = run(strata, outdir, args)
        invariants(s, " ".join(args))
        print(f"ok: ipc {s['gpu.ipc']:.3f}, l2 miss {s['l2.miss_rate']:.3f}, "
              f"{s['mem.bandwidth_gbps']:.1f}/{s['mem.peak_bandwidth_gbps']:.1f} GB/s, check.loads {s.get('check.loads')}")
    elif mode == "memside-moves":
        moves, nbytes, strata, outdir = head
        moves, nbytes = int(moves), int(nbytes)
        s = run(strata, outdir, args)
        invariants(s, outdir)
        if s["memside.moves"] != moves or s["memside.moved_bytes"] != nbytes:
            fail(f"{outdir}: memside.moves {s['memside.moves']} moved_bytes {s['memside.moved_bytes']}, "
                 f"expected {moves} and {nbytes}")
        if s["memside.own_write_bytes"] != nbytes or s["memside.own_read_bytes"] != nbytes:
            fail(f"{outdir}: own transfers read {s['memside.own_read_bytes']} and wrote "
                 f"{s['memside.own_write_bytes']} bytes, expected {nbytes} each")
    elif mode == "memside-mgr":  # swap with the GPU-wide manager: its counters saw every access, one grant
        strata, outdir = head
        s = run(strata, outdir, args)
        invariants(s, outdir)
        routed = sum(v for k, v in s.items() if k.startswith("memside.p") and k.endswith(".routed"))
        if s["memside.moves"] != 2 or s["memside.moved_bytes"] != 512:
            fail(f"{outdir}: memside.moves {s['memside.moves']} moved_bytes {s['memside.moved_bytes']}, expected 2, 512")
        if not (s["memside.mgr.accesses"] >= routed > 0 and s["memside.mgr.pages"] > 0):
            fail(f"{outdir}: memside.mgr.accesses {s['memside.mgr.accesses']} pages {s['memside.mgr.pages']}, expected "
                 f">= the {routed} routed accesses and > 0 pages")
        if s["memside.mgr.granted_bytes"] != 512 or s["memside.mgr.denied"] != 0:
            fail(f"{outdir}: memside.mgr.granted_bytes {s['memside.mgr.granted_bytes']} denied "
                 f"{s['memside.mgr.denied']}, expected 512 and 0 (one exchange, alone in its quantum)")
        print(f"ok: {s['memside.mgr.accesses']:.0f} accesses over {s['memside.mgr.pages']:.0f} pages, 512 B granted")
    elif mode == "dcache":
        min_wb, strata, outdir = head
        s = run(strata, outdir, args)
        invariants(s, outdir)
        routed = sum(v for k, v in s.items() if k.startswith("memside.p") and k.endswith(".routed"))
        d = {k: s["dcache." + k] for k in ("read_hits", "read_misses", "write_hits", "write_misses", "fills",
                                             "bypasses", "mshr_merges")}
        # every access of the L2 counts once, as a hit or a miss, and goes out once
        if routed != d["read_hits"] + d["read_misses"] + d["write_hits"] + d["write_misses"]:
            fail(f"{outdir}: {routed} accesses routed != hits + misses {d}")
        # a fill or a bypass serves a miss; the other misses were merged into an MSHR
        misses = d["read_misses"] + d["write_misses"]
        if not d["fills"] + d["bypasses"] <= misses <= d["fills"] + d["bypasses"] + d["mshr_merges"]:
            fail(f"{outdir}: fills {d['fills']} + bypasses {d['bypasses']} (+ merges {d['mshr_merges']}) do not "
                 f"account for {misses} misses")
        if abs(s["dcache.hit_rate"] - (d["read_hits"] + d["write_hits"]) / max(1, routed)) > 1e-9:
            fail(f"{outdir}: dcache.hit_rate {s['dcache.hit_rate']}")
        if s["ctc.hit_rate"] != s["dcache.ctc_hit_rate"]:  # the contract name of the same ratio
            fail(f"{outdir}: ctc.hit_rate {s['ctc.hit_rate']} != dcache.ctc_hit_rate {s['dcache.ctc_hit_rate']}")
        for d_ in ("read", "write"):  # the HMS names of the SCM bytes (issue 16) are the same stats
            if s[f"scm.{d_}_bytes"] != s[f"mem.scm.{d_}_bytes"]:
                fail(f"{outdir}: scm.{d_}_bytes {s[f'scm.{d_}_bytes']} != mem.scm.{d_}_bytes")
        # a bypass is decided at the first or the second level of Fig. 9, or forced (no MSHR, slot busy)
        levels = s["dcache.bypasses_first_level"] + s["dcache.bypasses_second_level"]
        if levels + s["dcache.bypasses_busy"] != d["bypasses"]:
            fail(f"{outdir}: bypasses {d['bypasses']} != first {s['dcache.bypasses_first_level']} + second "
                 f"{s['dcache.bypasses_second_level']} + busy {s['dcache.bypasses_busy']}")
        if "memside.dcache.busy=wait" in args and s["dcache.bypasses_busy"]:  # misses wait for an MSHR or slot
            fail(f"{outdir}: memside.dcache.busy = wait, yet {s['dcache.bypasses_busy']} busy bypasses")
        if args[args.index("--config") + 1] == "hmst" and not (s["dcache.victim_decrements"] and s["dcache.meta_writes"]):
            fail(f"{outdir}: TAD rewrites a victim's first column when its level drops: decrements "
                 f"{s['dcache.victim_decrements']}, metadata writes {s['dcache.meta_writes']}")
        if args[args.index("--config") + 1] == "mccachei" and not (s["dcache.write_throughs"] and not s["dcache.probes"]):
            fail(f"{outdir}: McCachei writes hits through to SCM and never probes: write-throughs "
                 f"{s['dcache.write_throughs']}, probes {s['dcache.probes']}")
        if args[args.index("--config") + 1] == "redcachei" and not (s["dcache.probes"] and s["dcache.bypasses_first_level"]):
            fail(f"{outdir}: RedCachei probes each line and leaves lines accessed fewer than gamma times in SCM")
        if args[args.index("--config") + 1] == "hms":
            if not s["dcache.bypasses_first_level"] or not s["dcache.bypasses_second_level"] or not s["dcache.fills"]:
                fail(f"{outdir}: the bypass policy should fill some lines and bypass others at both levels")
        if args[args.index("--config") + 1] == "sep_dram_scm":  # DRAM cache on even channels, SCM on odd ones
            for c in range(8):
                dev = "hbm2" if c % 2 == 0 else "scm_mlc"
                for r in range(2):
                    if s.get(f"mem.ch{c}.rank{r}.device.{dev}") != 1:
                        fail(f"{outdir}: channel {c} rank {r} is not {dev}")
                if not s[f"mem.ch{c}.read_bytes"] + s[f"mem.ch{c}.write_bytes"]:
                    fail(f"{outdir}: no traffic on channel {c}")
            idle = [k for k, v in s.items() if k.startswith("l2.bank") and k.endswith(".accesses") and not v]
            if idle or not s["dcache.hits"]:
                fail(f"{outdir}: idle L2 banks {idle} (every bank of a partition serves its SCM channel), "
                     f"hits {s['dcache.hits']}")
        beari = args[args.index("--config") + 1] in ("beari", "mccachei")
        if args[args.index("--config") + 1] == "beari" and (s["dcache.probes"] or not s["dcache.bypasses_first_level"]):
            fail(f"{outdir}: BEARi knows presence without probes and bypasses by BEAR's rule: probes "
                 f"{s['dcache.probes']}, bypasses {s['dcache.bypasses_first_level']}")
        if not s["dcache.fills"] or not (s["dcache.probes"] or beari) or not s["dcache.read_hits"]:
            fail(f"{outdir}: no fills, probes or read hits: {s['dcache.fills']} {s['dcache.probes']} "
                 f"{s['dcache.read_hits']}")
        if s["dcache.writebacks"] < int(min_wb):
            fail(f"{outdir}: dcache.writebacks {s['dcache.writebacks']} < {min_wb}")
        line = None  # memside.dcache.line_bytes as the run resolved it (its config.txt)
        with open(os.path.join(outdir, "config.txt")) as f:
            for ln in f:
                if ln.startswith("memside.dcache.line_bytes ="):
                    line = int(ln.split("=", 1)[1].split("#")[0])
        if line is None:
            fail(f"{outdir}: no memside.dcache.line_bytes in config.txt")
        if s["memside.moved_bytes"] != line * (s["dcache.fills"] + s["dcache.writebacks"]):
            fail(f"{outdir}: memside.moved_bytes {s['memside.moved_bytes']} is not {line} B per fill and write-back")
        # 64 B lines: an L2 access with sectors in both halves of its line is split into two pieces (the shell,
        # memside_ops.granule); workloads that read and write whole lines split many
        whole_lines = args[args.index("--workload") + 1] in ("bfs", "backprop", "stencil2d", "stream")
        if line < 128 and whole_lines and not s.get("memside.split"):
            fail(f"{outdir}: no access split into {line} B pieces (memside.split {s.get('memside.split')})")
        if line >= 128 and "memside.split" in s:
            fail(f"{outdir}: memside.split with {line} B lines (no pieces below a 128 B line)")
        print(f"ok: {s['dcache.fills']:.0f} fills, {s['dcache.writebacks']:.0f} write-backs, "
              f"{s['dcache.read_hits']:.0f} read hits, gpu.cycles {s['gpu.cycles']:.0f}")
    elif mode == "mixed":
        kinds, strata, outdir = head
        kinds = kinds.split(",")
        s = run(strata, outdir, args)
        invariants(s, " ".join(args))
        present = [k for k in ("dram", "nvm", "scm") if f"mem.{k}.read_bytes" in s]
        if not set(kinds) <= set(present):
            fail(f"kinds {present} in the stats, expected at least {kinds}")
        for k in present:
            moved = s[f"mem.{k}.read_bytes"] + s[f"mem.{k}.write_bytes"]
            if (moved > 0) != (k in kinds):
                fail(f"mem.{k}: {moved} bytes moved, expected {'some' if k in kinds else 'none'}")
        for tot, part in (("mem.read_bytes", "read_bytes"), ("mem.write_bytes", "write_bytes"), ("mem.energy_j", "energy_j")):
            if abs(sum(s[f"mem.{k}.{part}"] for k in present) - s[tot]) > 1e-9 * max(1.0, s[tot]):
                fail(f"the kinds' {part} do not add up to {tot}")
        # the L2 tags lines by the address map's kind; the controllers refuse a line whose kind is not that of
        # the rank serving it (a fatal error), so the writebacks by kind follow the bytes written by kind
        wb_nvm = s["l2.writebacks.nvm"] > 0
        if (s["l2.writebacks.dram"] > 0) != (s.get("mem.dram.write_bytes", 0) > 0) or \
                wb_nvm != (s.get("mem.nvm.write_bytes", 0) + s.get("mem.scm.write_bytes", 0) > 0):
            fail("L2 writebacks by kind do not match the bytes written to the ranks of that kind")
        ch, ranks, dirty = 0, 0, 0
        while f"mem.ch{ch}.reads" in s:
            r, ch_dirty = 0, 0
            while f"mem.ch{ch}.rank{r}.energy_j" in s:
                q = f"mem.ch{ch}.rank{r}."
                if len([k for k in s if k.startswith(q + "device.")]) != 1:
                    fail(f"mem.ch{ch}.rank{r}: expected one device.<preset> stat")
                # a dirty precharge closes a row that an ACT opened and at least one write wrote
                if not s[q + "dirty_precharges"] <= min(s[q + "activations"], s[q + "write_atoms"]):
                    fail(f"{q}dirty_precharges {s[q + 'dirty_precharges']} above its activations "
                         f"{s[q + 'activations']} or write atoms {s[q + 'write_atoms']}")
                ch_dirty += s[q + "dirty_precharges"]
                r += 1
                ranks += 1
            if ch_dirty != s[f"mem.ch{ch}.dirty_precharges"]:
                fail(f"mem.ch{ch}: the ranks' dirty precharges {ch_dirty} != {s[f'mem.ch{ch}.dirty_precharges']}")
            dirty += ch_dirty
            ch += 1
        if dirty != s["mem.dirty_precharges"] or (s["mem.write_bytes"] > 0) != (dirty > 0):
            fail(f"mem.dirty_precharges {s['mem.dirty_precharges']}: channels {dirty}, write bytes {s['mem.write_bytes']}")
        print(f"ok: {ch} channels, {ranks} ranks; " +
              ", ".join(f"{k} {s[f'mem.{k}.read_bytes'] / 2**20:.1f} MiB read" for k in present))
    elif mode == "deterministic":
        strata, outdir = head
        a = run(strata, outdir + ".a", args)
        b = run(strata, outdir + ".b", args)
        same_stats(a, b, "two runs with the same seed")
        # the sampler (time series, progress, watchdog) observes and must not perturb: another sampling
        # period gives the same model results (same-time order is fixed by common/sched.h)
        e = run(strata, outdir + ".e", args, ["--set", "sim.epoch_ns=777"])
        same_stats(a, e, "sim.epoch_ns=777")
        # a different seed must change something (the seed is really used)
        a = model_stats(a)
        c = model_stats(run(strata, outdir + ".c", args, ["--seed", "987654"]))
        if c == a:
            fail("a different seed gave identical stats")
        print(f"ok: {len(a)} stats identical across two runs and another sampling period; another seed differs")
    elif mode == "expect-exit":
        code, regex, strata = head
        p = subprocess.run([strata, *args], capture_output=True, text=True)
        if p.returncode != int(code):
            fail(f"exit {p.returncode}, expected {code}\nstdout: {p.stdout}\nstderr: {p.stderr}")
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if len(lines) != 1:
            fail(f"expected exactly one error line, got {len(lines)}: {p.stderr!r}")
        if not re.search(regex, lines[0]):
            fail(f"error line {lines[0]!r} does not match {regex!r}")
        if "Traceback" in p.stderr or "terminate called" in p.stderr:
            fail("crash output")
        print("ok: " + lines[0])
    elif mode == "vcd":
        strata, outdir = head
        vcd = outdir + ".vcd"
        if os.path.exists(vcd):
            os.remove(vcd)
        s = run(strata, outdir, args, ["--vcd", vcd])
        sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
        import vcdcheck
        info = vcdcheck.check(vcd)
        need = ["mem.ch0.bandwidth_gbps", "mem.ch0.read_queue", "mem.ch0.write_queue", "l2.hit_rate", "gpu.ipc",
                "gpu.instructions"]
        for n in need:
            if not any(v.endswith(n) for v in info["vars"]):
                fail(f"VCD lacks signal {n}; has {sorted(info['vars'])[:8]}...")
        if info["changes"] < 10:
            fail(f"VCD has only {info['changes']} value changes")
        print(f"ok: {len(info['vars'])} signals, {info['changes']} changes, last time {info['last_time']}")
    elif mode == "vcd-name":
        strata, outdir = head
        base = outdir + "_trace"
        for f in (base, base + ".vcd"):
            if os.path.exists(f):
                os.remove(f)
        shutil.rmtree(outdir, ignore_errors=True)
        p = subprocess.run([strata, "--out", outdir, "--vcd", base, *args], capture_output=True, text=True)
        if p.returncode != 0:
            fail(f"exit {p.returncode}: {p.stderr}")
        if not os.path.exists(base + ".vcd") or os.path.exists(base):
            fail(f"--vcd {base}: expected {base}.vcd written (and nothing named {base})")
        out_line = [l for l in p.stdout.splitlines() if l.strip().startswith("output")]
        if not out_line or not out_line[0].rstrip().endswith(" and " + base + ".vcd"):
            fail(f"the summary does not name the VCD written ({base}.vcd): {out_line}")
        print("ok: " + out_line[0].strip())
    elif mode == "min-bandwidth":
        frac, strata, outdir = head
        s = run(strata, outdir, args)
        got = s["mem.bandwidth_gbps"] / s["mem.peak_bandwidth_gbps"]
        if got < float(frac):
            fail(f"bandwidth {s['mem.bandwidth_gbps']:.1f} GB/s is {got:.3f} of peak, expected >= {frac}")
        print(f"ok: {s['mem.bandwidth_gbps']:.1f} GB/s = {got:.3f} of peak")
    elif mode == "timing-check":
        strata, outdir = head
        on = run(strata, outdir + ".on", args)
        timing_checked(on, "timing check on")
        off = run(strata, outdir + ".off", args, ["--set", "mem.timing_check=false"])
        if off.get("mem.timing_checked_commands") != 0:
            fail(f"mem.timing_check=false still checked {off.get('mem.timing_checked_commands')} commands")
        skip = lambda k: k.startswith("host.") or k.endswith("timing_checked_commands")
        diff = [k for k in sorted(set(on) | set(off)) if not skip(k) and on.get(k) != off.get(k)]
        if diff:
            fail(f"the checker changed the simulation: {len(diff)} stats differ, e.g. {diff[:5]}")
        print(f"ok: {on['mem.timing_checked_commands']:.0f} commands checked, no violation; "
              f"stats identical with the checker off; host {on['host.seconds']:.3f} s on, {off['host.seconds']:.3f} s off")
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
