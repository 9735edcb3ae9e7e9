#!/usr/bin/env python3
"""CTest driver for `strata memtrace` (the DRAM-level trace player).

  memtrace_test.py CASE STRATA GEN WORKDIR [ARGS...]

CASE is one of: external, formats, idle-latency, malformed, trace-checks, timing-violation, deterministic,
bandwidth, random-bandwidth, scm-vs-dram, random-rowhit, mixed-latency, mixed-random, and through the
memory side the platform builds: memside-swap, memside-dcache, memside-hostpath, memside-same-as-platform,
memside-bad.
trace-checks: addresses beyond a hybrid config's capacity (exit 2 naming the line, or folded with
--wrap-addresses), a UTF-8 byte-order mark on line 1 (accepted), gzip with trailing bytes (exit 2) and
concatenated gzip members (read whole).
With extra ARGS starting with --config, the cases run on that config.
STRATA is the executable, GEN is tools/gen_memtrace.py, WORKDIR a scratch folder.
"""
import json
import os
import re
import shutil
import subprocess
import sys

EXTERNAL = os.path.join(os.path.dirname(__file__), "..", "data", "external", "dramsys", "example.stl")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def memtrace(strata, out, args):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [strata, "memtrace", "--quiet", "--out", out, *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    if p.stdout.strip() or p.stderr.strip():
        fail(f"{' '.join(cmd)}: --quiet run printed output:\n{p.stdout[:2000]}\n{p.stderr[:2000]}")
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)


def gen(genpy, path, *args):
    subprocess.run([sys.executable, genpy, path, *args], check=True)


def common_checks(s, where):
    if s["mem.bandwidth_gbps"] > s["mem.peak_bandwidth_gbps"] * 1.0000001:
        fail(f"{where}: bandwidth above peak")
    if not (0 <= s["mem.row_hit_rate"] <= 1):
        fail(f"{where}: row hit rate out of [0,1]")
    if not (s["mem.read_latency_p50_ns"] <= s["mem.read_latency_p95_ns"] <= s["mem.read_latency_p99_ns"]):
        fail(f"{where}: percentiles not ordered")
    if s["mem.energy_j"] <= 0:
        fail(f"{where}: energy not > 0")


def checked_all(s, where):
    # the timing checker (mem.timing_check, on by default) saw every command the engines issued
    cmds = s["mem.activations"] + s["mem.precharges"] + s["mem.reads"] + s["mem.writes"] + s["mem.refreshes"]
    if s["mem.timing_checked_commands"] != cmds or cmds <= 0:
        fail(f"{where}: timing checker saw {s['mem.timing_checked_commands']} commands, engines issued {cmds}")


# memside.policy = swap over partition 4 (the worked example's parameters in tests/integration)
SWAP = ["--set", "memside.policy=swap", "--set", "memside.swap.a=0x7F0000", "--set", "memside.swap.b=0xFF0200",
        "--set", "memside.swap.after=1000"]


def no_host(s):
    return {k: v for k, v in s.items() if not k.startswith("host.")}


def main():
    case, strata, genpy, work = sys.argv[1:5]
    extra = sys.argv[5:]
    os.makedirs(work, exist_ok=True)
    if case == "external":
        # DRAMSys's example trace (1,876 lines, 768 reads, 1,108 writes, 64 B-aligned addresses).
        s = memtrace(strata, f"{work}/ext", ["--trace", EXTERNAL, *extra])
        common_checks(s, "example.stl")
        checked_all(s, "example.stl")
        want = {"memtrace.requests": 1876, "memtrace.reads": 768, "memtrace.writes": 1108,
                "mem.read_bytes": 768 * 64, "mem.write_bytes": 1108 * 64}
        for k, v in want.items():
            if s[k] != v:
                fail(f"example.stl: {k} = {s[k]}, expected {v}")
        with open(EXTERNAL) as f:
            last = max(int(l.split(":")[0]) for l in f if l.strip() and not l.startswith("#"))
        if s["sim.mem_cycles"] <= last:  # timestamps are honoured: nothing enters before its cycle
            fail(f"example.stl: finished at cycle {s['sim.mem_cycles']}, not after its last timestamp {last}")
    elif case == "formats":
        # The same requests in the three formats (no timing: stl/dramsim3 at cycle 0) give identical stats.
        res = {}
        for fmt in ("addr", "stl", "dramsim3"):
            gen(genpy, f"{work}/t.{fmt}", "--pattern", "random", "--count", "5000", "--format", fmt,
                "--seed", "7", "--footprint", str(1 << 26))
            res[fmt] = no_host(memtrace(strata, f"{work}/{fmt}", ["--trace", f"{work}/t.{fmt}", "--format", fmt]))
            common_checks(res[fmt], fmt)
        for fmt in ("stl", "dramsim3"):
            if res[fmt] != res["addr"]:
                diff = [k for k in res["addr"] if res["addr"][k] != res[fmt].get(k)]
                fail(f"{fmt} and addr formats of the same requests differ in {diff[:8]}")
        # auto-detection picks the same
        s = no_host(memtrace(strata, f"{work}/auto", ["--trace", f"{work}/t.dramsim3"]))
        if s != res["addr"]:
            fail("auto-detected dramsim3 differs from --format dramsim3")
    elif case == "idle-latency":
        # 64 B reads 1000 cycles apart, closed page: every read finds its bank closed and the
        # controller idle. hbm2: ACT at t, RD at t+tRCD (14), second 32 B sector at t+tRCD+tCCD_L
        # (16, same bank group), its last data beat CL (14) + tBURST (1) later: 31 cycles = 31 ns.
        with open(f"{work}/idle.stl", "w") as f:
            f.write("# hand-written: reads spaced 1000 cycles\n")
            for i in range(200):
                f.write(f"{i * 1000}:\tread\t0x{i * 0x10000 + 0x40:x}\n")
        s = memtrace(strata, f"{work}/idle", ["--trace", f"{work}/idle.stl", "--set", "mem.page_policy=closed",
                                              "--set", "mem.refresh=false"])
        for k in ("mem.read_latency_p50_ns", "mem.read_latency_p99_ns", "mem.avg_read_latency_ns"):
            if abs(s[k] - 31.0) > 1e-9:
                fail(f"idle reads: {k} = {s[k]}, expected tRCD + tCCD_L + CL + tBURST = 31 ns")
    elif case == "malformed":
        bad = {
            "stl_cmd": ("0:\tfetch\t0x40\n", "stl", r"bad\.trc:1: command 'read' or 'write'"),
            "stl_addr": ("# c\n0:\tread\t0xZZ\n", "stl", r"bad\.trc:2: an address"),
            "stl_len": ("5:\tread\t(0)\t0x40\n", "stl", r"bad\.trc:1: one length"),
            "stl_cycle": ("x:\tread\t0x40\n", "stl", r"bad\.trc:1: a cycle number"),
            "addr_rw": ("0x40 R\n0x80 X\n", "addr", r"bad\.trc:2: 'R' or 'W'"),
            "addr_extra": ("0x40 R 5\n", "addr", r"bad\.trc:1: nothing after"),
            "dramsim3_cycle": ("0x40 READ\n", "dramsim3", r"bad\.trc:1: a cycle number"),
            "dramsim3_cmd": ("0x40 LOAD 3\n", "dramsim3", r"bad\.trc:1: 'READ' or 'WRITE'"),
            "auto_unknown": ("hello\n", "auto", r"bad\.trc:1: a request line of a known format"),
            "overflow": ("0x1ffffffffffffffff R\n", "addr", r"bad\.trc:1: '0xADDR R\|W'"),
            "addr_hex": ("0x40 R\n0x12G W\n", "addr", r"bad\.trc:2: '0xADDR R\|W'"),
            "addr_wrap": ("0xffffffffffffffc0 R\n", "addr", r"bad\.trc:1: address 0xffffffffffffffc0 \+ 64 bytes is outside"),
        }
        for name, (text, fmt, regex) in bad.items():
            path = f"{work}/bad.trc"
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run([strata, "memtrace", "--quiet", "--out", f"{work}/bad", "--trace", path,
                                "--format", fmt], capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            if p.returncode != 2 or len(lines) != 1 or not re.search(regex, lines[0]):
                fail(f"{name}: exit {p.returncode}, stderr {p.stderr!r}; expected exit 2 and one line matching {regex}")
        p = subprocess.run([strata, "memtrace", "--quiet", "--trace", f"{work}/missing.trc"], capture_output=True,
                           text=True)
        if p.returncode != 2 or "missing.trc: cannot open trace file" not in p.stderr:
            fail(f"missing trace: exit {p.returncode}, {p.stderr!r}")
        p = subprocess.run([strata, "memtrace", "--quiet"], capture_output=True, text=True)
        if p.returncode != 2 or "--trace FILE is required" not in p.stderr:
            fail(f"no trace: exit {p.returncode}, {p.stderr!r}")
    elif case == "trace-checks":
        import gzip
        hyb = ["--config", "hms_channel_dram_scm"]  # 4 GiB DRAM + 16 GiB SCM = 20 GiB
        cap = 20 << 30

        def run_bad(text, regex, *extra):
            path = f"{work}/c.trc"
            with open(path, "wb") as f:
                f.write(text)
            p = subprocess.run([strata, "memtrace", "--quiet", "--out", f"{work}/c", "--trace", path, *extra],
                               capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            if p.returncode != 2 or len(lines) != 1 or not re.search(regex, lines[0]):
                fail(f"{text[:40]!r} {extra}: exit {p.returncode}, stderr {p.stderr!r}; expected exit 2 matching {regex}")
        for addr, line in ((1 << 40, 2), (1 << 60, 2), (cap - 32, 2)):
            run_bad(f"0x40 R\n0x{addr:x} R\n".encode(), rf"c\.trc:{line}: expected an address below the configured "
                    rf"memory's capacity of {cap} bytes \(addrmap\.dram_size \+ addrmap\.scm_size; --wrap-addresses",
                    *hyb)
        with open(f"{work}/w.trc", "w") as f:
            f.write(f"0x40 R\n0x{1 << 40:x} R\n0x{1 << 60:x} W\n0x{cap - 64:x} R\n0x{cap - 32:x} R\n")
        s = memtrace(strata, f"{work}/w", ["--trace", f"{work}/w.trc", "--wrap-addresses", *hyb])
        if s["memtrace.requests"] != 5 or s["memtrace.wrapped_requests"] != 3:
            fail(f"--wrap-addresses: {s['memtrace.requests']} requests, {s['memtrace.wrapped_requests']} wrapped, want 5, 3")
        s = memtrace(strata, f"{work}/w2", ["--trace", f"{work}/w.trc", "--wrap-addresses"])  # a flat map: no bound
        if s["memtrace.wrapped_requests"] != 0:
            fail("a flat map (no configured capacity) folded addresses")
        if "memtrace.wrapped_requests" in memtrace(strata, f"{work}/w3", ["--trace", f"{work}/w.trc"]):
            fail("memtrace.wrapped_requests reported without --wrap-addresses (stats of a plain replay changed)")
        # A UTF-8 byte-order mark on line 1 (an editor's) is accepted, in every format.
        for text, fmt in (("0x40 R\n0x80 W\n", "addr"), ("0: read 0x40\n5: write 0x80\n", "stl"),
                          ("0x40 READ 0\n0x80 WRITE 5\n", "dramsim3"), ("0x40 R\n0x80 W\n", "auto")):
            with open(f"{work}/bom.trc", "wb") as f:
                f.write(b"\xef\xbb\xbf" + text.encode())
            s = memtrace(strata, f"{work}/bom", ["--trace", f"{work}/bom.trc", "--format", fmt])
            if s["memtrace.requests"] != 2:
                fail(f"BOM, {fmt}: {s['memtrace.requests']} requests, want 2")
        # gzip: trailing bytes after the stream are an error; two concatenated members are one trace.
        body = "".join(f"0x{i * 64:x} R\n" for i in range(1000)).encode()
        z = gzip.compress(body)
        for tail in (b"GARBAGE", b"\x00" * 512, b"\x1f", bytes(range(256)) * 40):
            run_bad(z + tail, rf"c\.trc: expected nothing after the gzip stream, got trailing bytes at offset {len(z)} ")
        with open(f"{work}/two.trc.gz", "wb") as f:
            f.write(z + z)
        s = memtrace(strata, f"{work}/two", ["--trace", f"{work}/two.trc.gz"])
        if s["memtrace.requests"] != 2000:
            fail(f"two gzip members: {s['memtrace.requests']} requests, want 2000")
    elif case == "timing-violation":
        # hbm2 schedules checked against gddr5 rules (same bank geometry, longer tCCD): exit 3, one line
        gen(genpy, f"{work}/v.trc", "--pattern", "seq", "--count", "2000")
        p = subprocess.run([strata, "memtrace", "--quiet", "--out", f"{work}/v", "--trace", f"{work}/v.trc",
                            "--set", "mem.timing_check_device=gddr5_gtx480"], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 3 or len(lines) != 1 or not re.search(r"timing check failed: mem\.ch\d+ .*cycle \d+: ", lines[0]):
            fail(f"timing violation: exit {p.returncode}, stderr {p.stderr!r}")
        s = memtrace(strata, f"{work}/off", ["--trace", f"{work}/v.trc", "--set", "mem.timing_check=false"])
        if s["mem.timing_checked_commands"] != 0:
            fail("mem.timing_check=false still checked commands")
        on = memtrace(strata, f"{work}/on", ["--trace", f"{work}/v.trc"])
        checked_all(on, "seq")
        if no_host({k: v for k, v in on.items() if k != "mem.timing_checked_commands"}) != \
                no_host({k: v for k, v in s.items() if k != "mem.timing_checked_commands"}):
            fail("the timing checker changed the results")
    elif case == "deterministic":
        gen(genpy, f"{work}/d.trc", "--pattern", "random", "--count", "20000", "--seed", "3")
        a = no_host(memtrace(strata, f"{work}/d1", ["--trace", f"{work}/d.trc"]))
        b = no_host(memtrace(strata, f"{work}/d2", ["--trace", f"{work}/d.trc"]))
        if a != b:
            fail("two replays of one trace differ")
    elif case in ("bandwidth", "random-bandwidth"):
        # bandwidth: streaming reads reach >= FRACTION of the preset's peak bus bandwidth;
        # random-bandwidth: uniformly random 64 B requests (2/3 reads, as fast as accepted) do.
        frac = float(extra[0])
        what, pattern, count, mix = (("streaming reads", "seq", "100000", "1") if case == "bandwidth"
                                     else ("random 64 B", "random", "200000", str(2 / 3)))
        gen(genpy, f"{work}/t.trc", "--pattern", pattern, "--count", count, "--read-frac", mix)
        s = memtrace(strata, f"{work}/t", ["--trace", f"{work}/t.trc", *extra[1:]])
        common_checks(s, what)
        checked_all(s, what)
        if s["mem.bandwidth_gbps"] < frac * s["mem.peak_bandwidth_gbps"]:
            fail(f"{what}: {s['mem.bandwidth_gbps']:.1f} GB/s < {frac} x {s['mem.peak_bandwidth_gbps']}")
        print(f"{what}: {s['mem.bandwidth_gbps']:.1f} of {s['mem.peak_bandwidth_gbps']:.1f} GB/s")
    elif case == "scm-vs-dram":
        # HMS paper Fig. 4 / Sec. II-D: streaming reads from SCM come within 10% of DRAM's bandwidth (same
        # bus, row hits hide tRCD), streaming writes are clearly lower (tWR of the array write).
        res = {}
        for rw, frac in (("read", "1"), ("write", "0")):
            gen(genpy, f"{work}/{rw}.trc", "--pattern", "seq", "--count", "100000", "--read-frac", frac)
            for dev in ("hbm2", "scm_mlc"):
                res[(rw, dev)] = memtrace(strata, f"{work}/{rw}_{dev}", ["--trace", f"{work}/{rw}.trc", "--set",
                                                                          f"mem.device={dev}"])["mem.bandwidth_gbps"]
        print(res)
        if abs(res[("read", "scm_mlc")] - res[("read", "hbm2")]) > 0.10 * res[("read", "hbm2")]:
            fail(f"streaming reads: SCM {res[('read', 'scm_mlc')]:.1f} vs DRAM {res[('read', 'hbm2')]:.1f} GB/s, not within 10%")
        if res[("write", "scm_mlc")] > 0.8 * res[("write", "hbm2")]:
            fail(f"streaming writes: SCM {res[('write', 'scm_mlc')]:.1f} not clearly below DRAM {res[('write', 'hbm2')]:.1f} GB/s")
    elif case == "random-rowhit":
        # Uniformly random single-access requests: row hits under 10%.
        gen(genpy, f"{work}/rnd.trc", "--pattern", "random", "--count", "50000", "--bytes", "32")
        s = memtrace(strata, f"{work}/rnd", ["--trace", f"{work}/rnd.trc", "--request-bytes", "32", *extra])
        common_checks(s, "random")
        if s["mem.row_hit_rate"] >= 0.10:
            fail(f"uniformly random accesses: row hit rate {s['mem.row_hit_rate']:.3f} >= 0.10")
        print(f"random: row hit rate {s['mem.row_hit_rate']:.4f}, {s['mem.bandwidth_gbps']:.1f} GB/s")
    elif case == "mixed-latency":
        # configs/hms_channel_dram_scm: a DRAM rank (hbm2) and an SCM rank (scm_mlc) per channel, the parts
        # alternating every 4 KiB (1 DRAM page, 4 SCM pages). Closed page, no refresh: every 64 B read finds
        # its bank closed. DRAM reads (page 0 of each round of 5) take tRCD 14 + tCCD_L 2 + CL 14 + tBURST 1
        # = 31 ns, SCM reads (page 1) the SCM rank's tRCD 120: 120 + 2 + 14 + 1 = 137 ns (HMS Table I).
        with open(f"{work}/mixed.stl", "w") as f:
            f.write("# hand-written: a DRAM-part read, then an SCM-part read, 1000 cycles apart\n")
            for i in range(100):
                f.write(f"{i * 2000}:\tread\t0x{i * 5 * 4096:x}\n")
                f.write(f"{i * 2000 + 1000}:\tread\t0x{i * 5 * 4096 + 4096:x}\n")
        s = memtrace(strata, f"{work}/mixed", ["--trace", f"{work}/mixed.stl", "--config", "hms_channel_dram_scm",
                                               "--set", "mem.page_policy=closed", "--set", "mem.refresh=false"])
        checked_all(s, "mixed")
        want = {"mem.read_latency_p50_ns": 31.0, "mem.read_latency_p95_ns": 137.0, "mem.read_latency_p99_ns": 137.0,
                "mem.avg_read_latency_ns": (31.0 + 137.0) / 2, "mem.dram.read_bytes": 100 * 64,
                "mem.scm.read_bytes": 100 * 64, "mem.ch0.rank0.device.hbm2": 1, "mem.ch0.rank1.device.scm_mlc": 1}
        for k, v in want.items():
            if abs(s.get(k, -1) - v) > 1e-9:
                fail(f"mixed channel: {k} = {s.get(k)}, expected {v}")
    elif case == "mixed-random":
        # Random 64 B requests over 64 MiB on each mixed config: both kinds carry traffic, every rank says
        # which device it is, the kinds' bytes and energies add up to the totals, the checker saw every
        # command, and a replay is identical.
        gen(genpy, f"{work}/r.trc", "--pattern", "random", "--count", "30000", "--seed", "5",
            "--footprint", str(1 << 26))
        for cfg, devs, kinds in (("hms_channel_dram_scm", ("hbm2", "scm_mlc"), ("dram", "scm")),
                                 ("hybrid_dram_pcm_partition", ("ddr3_800", "pcm_flrb"), ("dram", "nvm"))):
            args = ["--trace", f"{work}/r.trc", "--config", cfg, "--set", "addrmap.part_interleave=4KiB"]
            s = memtrace(strata, f"{work}/{cfg}", args)
            common_checks(s, cfg)
            checked_all(s, cfg)
            for k in kinds:
                if s[f"mem.{k}.read_bytes"] <= 0 or s[f"mem.{k}.write_bytes"] <= 0:
                    fail(f"{cfg}: no traffic on the {k} part")
            for tot, part in (("mem.read_bytes", "read_bytes"), ("mem.write_bytes", "write_bytes"),
                              ("mem.energy_j", "energy_j")):
                if abs(sum(s[f"mem.{k}.{part}"] for k in kinds) - s[tot]) > 1e-9 * max(1.0, s[tot]):
                    fail(f"{cfg}: the kinds' {part} do not add up to {tot}")
            ch = 0
            while f"mem.ch{ch}.reads" in s:
                names = [k for k in s if k.startswith(f"mem.ch{ch}.rank") and ".device." in k]
                if len(names) != (2 if cfg.startswith("hms") else 1) or any(n.split(".")[-1] not in devs for n in names):
                    fail(f"{cfg}: channel {ch} device stats {names}")
                ch += 1
            if no_host(memtrace(strata, f"{work}/{cfg}.2", args)) != no_host(s):
                fail(f"{cfg}: two replays differ")
            print(f"{cfg}: " + ", ".join(f"{k} {s[f'mem.{k}.read_bytes'] / 2**20:.1f} MiB read" for k in kinds))
    elif case == "memside-swap":
        # A memory side with a policy (memside.policy = swap, the worked example) runs as the platform builds
        # it: after 1000 routed accesses partition 4 exchanges the 256 B segments of a and b (2 moves, each
        # segment read and written with 128 B transfers of its own). Every trace byte reaches the devices once
        # (64 B-aligned requests, one line each), the policy's own bytes on top.
        gen(genpy, f"{work}/r.trc", "--pattern", "random", "--count", "20000", "--seed", "3")
        args = ["--trace", f"{work}/r.trc", *SWAP]
        s = memtrace(strata, f"{work}/swap", args)
        want = {"memtrace.requests": 20000, "memtrace.lines": 20000, "memside.moves": 2, "memside.moved_bytes": 512,
                "memside.own_read_bytes": 512, "memside.own_write_bytes": 512,
                "memside.demand_bytes": s["memtrace.request_bytes"],
                "mem.read_bytes": s["memtrace.reads"] * 64 + 512, "mem.write_bytes": s["memtrace.writes"] * 64 + 512,
                "mem.reads": s["memtrace.reads"] + 4, "mem.writes": s["memtrace.writes"] + 4,
                "memside.p4.own_reads": 4, "memside.p4.own_writes": 4, "memside.p0.own_reads": 0}
        for k, v in want.items():
            if s.get(k) != v:
                fail(f"swap: {k} = {s.get(k)}, expected {v}")
        routed = sum(v for k, v in s.items() if re.fullmatch(r"memside\.p\d+\.routed", k))
        if routed != 20000:
            fail(f"swap: {routed} accesses routed, expected the trace's 20000 lines")
        if not (0 < s["memtrace.read_latency_p50_ns"] <= s["memtrace.read_latency_p99_ns"]):
            fail("swap: read latency percentiles not ordered")
        if no_host(memtrace(strata, f"{work}/swap.2", args)) != no_host(s):
            fail("swap: two replays differ")
        # swap_forget exchanges the mapping alone: no bytes move
        s = memtrace(strata, f"{work}/forget", [*args, "--set", "memside.policy=swap_forget"])
        if s["memside.own_read_bytes"] != 0 or s["mem.read_bytes"] != s["memtrace.reads"] * 64:
            fail(f"swap_forget: own reads {s['memside.own_read_bytes']}, device reads {s['mem.read_bytes']}")
    elif case == "memside-dcache":
        # HMS's DRAM cache (configs/hms: a DRAM rank caching the SCM rank of each channel, 1 MiB of cache):
        # every line is a hit or a miss, demand bytes reach the devices once beside the cache's own
        # transfers (fills, victims, probes), and a footprint-relative mode sizes itself by the trace's span.
        gen(genpy, f"{work}/r.trc", "--pattern", "random", "--count", "20000", "--seed", "3")
        s = memtrace(strata, f"{work}/hms", ["--trace", f"{work}/r.trc", "--config", "hms",
                                             "--set", "memside.dcache.size=1MiB"])
        if s["dcache.hits"] + s["dcache.misses"] != 20000 or s["dcache.fills"] <= 0 or s["dcache.bypasses"] <= 0:
            fail(f"hms: hits {s['dcache.hits']} + misses {s['dcache.misses']} (expected 20000 lines), "
                 f"fills {s['dcache.fills']}, bypasses {s['dcache.bypasses']}")
        if s["mem.read_bytes"] - s["memside.own_read_bytes"] != s["memtrace.reads"] * 64 or \
                s["mem.write_bytes"] - s["memside.own_write_bytes"] != s["memtrace.writes"] * 64:
            fail(f"hms: device bytes {s['mem.read_bytes']} / {s['mem.write_bytes']} minus the cache's own "
                 f"{s['memside.own_read_bytes']} / {s['memside.own_write_bytes']} are not the trace's")
        if s["hms.dram_as_memory"] != 0 or s["mem.dram.read_bytes"] <= 0 or s["mem.scm.read_bytes"] <= 0:
            fail("hms: expected the DRAM cache mode with traffic on both kinds")
        # mode auto with a footprint ratio: the trace spans 4 GiB, a cache of 2x that fits the DRAM ranks, so
        # the DRAM serves as memory (the derivation shows in config.txt)
        s = memtrace(strata, f"{work}/auto", ["--trace", f"{work}/r.trc", "--config", "hms", "--set",
                                              "memside.dcache.mode=auto", "--set", "memside.dcache.footprint_ratio=2"])
        with open(f"{work}/auto/config.txt") as f:
            policy = [l for l in f if l.startswith("memside.policy =")]
        if s["hms.dram_as_memory"] != 1 or s["memside.moves"] != 0 or not policy or '"plain"' not in policy[0] \
                or "DRAM-as-memory" not in policy[0]:
            fail(f"hms auto: dram_as_memory {s['hms.dram_as_memory']}, moves {s['memside.moves']}, {policy}")
    elif case == "memside-hostpath":
        # The host path (hostpath.link: a PCIe link to host memory, every partition's last device) is built
        # under memtrace as under the platform: its link and host memory report, and with a policy that sends
        # nothing there (swap) the devices see exactly what they see without it.
        gen(genpy, f"{work}/r.trc", "--pattern", "random", "--count", "5000", "--seed", "5")
        base = ["--trace", f"{work}/r.trc", *SWAP]
        a = memtrace(strata, f"{work}/nohost", base)
        b = memtrace(strata, f"{work}/host", [*base, "--set", "hostpath.link=pcie_hms"])
        for k in ("link.host_link.req.bytes", "link.host_link.resp.bytes", "hostmem.host.reads",
                  "hostmem.host.writes", "hostmem.host.read_bytes"):
            if b.get(k) != 0:
                fail(f"host path: {k} = {b.get(k)}, expected 0 (present, no traffic)")
        if any(k.startswith(("link.", "hostmem.")) for k in a):
            fail("host path: link or host-memory stats without hostpath.link")
        same = [k for k in a if k.startswith(("mem.", "memside.", "memtrace.")) and a[k] != b.get(k)]
        if same:
            fail(f"host path: the idle host device changed {same[:8]}")
        # plain with a host path runs through the memory side too (its summary says so)
        shutil.rmtree(f"{work}/plainhost", ignore_errors=True)
        p = subprocess.run([strata, "memtrace", "--out", f"{work}/plainhost", "--trace", f"{work}/r.trc", "--set",
                            "hostpath.link=nvlink_hms"], capture_output=True, text=True)
        if p.returncode != 0 or "through memory side plain, host path nvlink_hms" not in p.stdout:
            fail(f"plain + host path: exit {p.returncode}\n{p.stdout}{p.stderr}")
    elif case == "memside-same-as-platform":
        # memtrace and the platform build the same memory side (platform/memory_side.h): for a policy with a
        # host path and for the DRAM cache, the same memory-side stats (device controllers, memory-side
        # controllers, link, host memory, DRAM cache) and the same memory-side keys in config.txt.
        gen(genpy, f"{work}/r.trc", "--pattern", "random", "--count", "2000", "--seed", "5")
        pre = ("mem.", "memside.", "dcache.", "ctc.", "link.", "hostmem.", "hms.")
        keys = ("mem.", "memside.", "addrmap.", "hostpath.", "blocks.")
        for name, cfg in (("swap_host", [*SWAP, "--set", "hostpath.link=pcie_hms"]),
                          ("hms", ["--config", "hms", "--set", "memside.dcache.size=1MiB"])):
            m = memtrace(strata, f"{work}/{name}.mt", ["--trace", f"{work}/r.trc", *cfg])
            pdir = f"{work}/{name}.plat"
            shutil.rmtree(pdir, ignore_errors=True)
            p = subprocess.run([strata, "--quiet", "--workload", "stream", "--out", pdir, *cfg], capture_output=True,
                               text=True)
            if p.returncode != 0:
                fail(f"{name}: platform run exited {p.returncode}: {p.stderr}")
            with open(f"{pdir}/stats.json") as f:
                plat = json.load(f)
            a = {k for k in plat if k.startswith(pre)}
            b = {k for k in m if k.startswith(pre)}
            if a != b or len(a) < 100:
                fail(f"{name}: memory-side stats differ: platform only {sorted(a - b)[:8]}, memtrace only "
                     f"{sorted(b - a)[:8]} ({len(a)} / {len(b)})")

            def cfgkeys(path):
                d = {}
                with open(path) as f:
                    for l in f:
                        if "=" in l and not l.startswith("#"):
                            k, v = l.split("=", 1)
                            if k.strip().startswith(keys):
                                d[k.strip()] = v.split("#")[0].strip()
                return d
            x, y = cfgkeys(f"{pdir}/config.txt"), cfgkeys(f"{work}/{name}.mt/config.txt")
            if x != y or len(x) < 40:
                fail(f"{name}: config.txt memory-side keys differ: {[k for k in x if x[k] != y.get(k)][:8]}")
    elif case == "memside-bad":
        # Bad memory-side input under memtrace: exit 2 with one line naming the key.
        gen(genpy, f"{work}/r.trc", "--pattern", "random", "--count", "100", "--seed", "5")
        for sets, regex in ((["memside.policy=swap"], r"memside\.swap\.a and memside\.swap\.b"),
                            (["memside.policy=swapp"], r"'memside\.policy'.*swap"),
                            (["hostpath.link=pcie"], r"'hostpath\.link': expected none or one of"),
                            (["memside.policy=swap", "memside.swap.after=0"], r"memside\.swap\.after")):
            cmd = [strata, "memtrace", "--quiet", "--out", f"{work}/bad", "--trace", f"{work}/r.trc"]
            for x in sets:
                cmd += ["--set", x]
            p = subprocess.run(cmd, capture_output=True, text=True)
            lines = p.stderr.strip().splitlines()
            if p.returncode != 2 or len(lines) != 1 or not re.search(regex, lines[0]):
                fail(f"{sets}: exit {p.returncode}, stderr {p.stderr!r}; expected exit 2 and one line matching {regex}")
    else:
        fail("unknown case " + case)
    print("PASS")


if __name__ == "__main__":
    main()
