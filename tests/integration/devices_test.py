#!/usr/bin/env python3
"""CTest driver for device presets and their overrides (docs/user_guide.md "Device presets and overrides").

  devices_test.py list-devices STRATA DRAM_C
      `strata --list-devices` prints one table row per preset of models/ref/mem/dram.c, and nothing else.
  devices_test.py override STRATA OUTDIR CONFIG_DIR -- ARGS...
      on the run ARGS (default config baseline_hbm2: mem.device hbm2, tRCD 14; no --config in ARGS):
       - mem.timing.tRCD=14 (the preset's own value) changes no stat;
       - mem.timing.tRCD=40 raises mem.avg_read_latency_ns, and config.txt records the override;
       - the same override from a TOML table [mem.timing] gives the same stats as --set;
       - mem.energy.rd_pj doubled raises mem.energy_j and changes no timing (gpu.cycles, latency).
  devices_test.py memtrace STRATA GEN OUTDIR -- ARGS...
      `strata memtrace` honours the overrides: tRCD 40 raises the latency of a random read trace by
      at least the 26 extra cycles per row miss on average scaled by the miss rate; an invalid override exits 2.
  devices_test.py channel-iface STRATA OUTDIR -- ARGS...
      channels of their own interface (mem.channel_devices = "gddr5_1250, rram+sttram": the hybrid
      graphics memory's 1.25 GHz GDDR5 channel beside a 1 GHz NVM bus of an RRAM and an STT-RAM rank):
      each channel's bandwidth over its bus utilisation is its own preset's peak (20 and 16 GB/s),
      mem.peak_bandwidth_gbps is their sum, the ranks run their presets, every command is timing-checked,
      the run is deterministic; all channels gddr5_1000 gives mem.device's stats.
  devices_test.py energy-model STRATA OUTDIR -- ARGS...
      on a GDDR5 run (baseline_gddr5_fx5800: 256 MiB ranks): mem.leakage = capacity doubles the background
      energy (the presets' figures describe 128 MiB) and mem.io_model = pod makes the I/O energy 2.8125 pJ per
      bit at 4 Gb/s (the preset's 4.5), changing nothing else: no timing, no other energy.
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


def run(strata, outdir, args):
    shutil.rmtree(outdir, ignore_errors=True)
    cmd = [strata, *args[:1], "--quiet", "--out", outdir, *args[1:]] if args and args[0] == "memtrace" else \
          [strata, "--quiet", "--out", outdir, *args]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    with open(os.path.join(outdir, "stats.json")) as f:
        s = json.load(f)
    return {k: v for k, v in s.items() if not k.startswith("host.")}


def differing(a, b):
    return sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))


def list_devices(strata, dram_c):
    src = open(dram_c).read()
    names = re.findall(r'\.name\s*=\s*"([^"]+)"', src) + re.findall(r'^\s*SCM_ROW\("([^"]+)"', src, re.M)
    if len(names) < 10:
        fail(f"found only {len(names)} preset names in {dram_c}")
    p = subprocess.run([strata, "--list-devices"], capture_output=True, text=True)
    if p.returncode != 0 or p.stderr:
        fail(f"--list-devices exited {p.returncode}: {p.stderr}")
    lines = p.stdout.splitlines()
    rows = {l.split()[0]: l.split() for l in lines[1:] if l and not l.startswith("(")}
    if not lines[0].split()[0] == "name" or "tRCD" not in lines[0] or "peak_GB/s" not in lines[0]:
        fail(f"unexpected header: {lines[0]}")
    for n in names:
        if n not in rows:
            fail(f"preset {n} of dram.c missing from --list-devices")
        if len(rows[n]) != len(lines[0].split()):
            fail(f"row of {n} has {len(rows[n])} columns, header {len(lines[0].split())}")
    if sorted(rows) != sorted(names):
        fail(f"--list-devices rows {sorted(rows)} != dram.c presets {sorted(names)}")
    hbm2 = dict(zip(lines[0].split(), rows["hbm2"]))
    if (hbm2["kind"], hbm2["clk_MHz"], hbm2["tRCD"], hbm2["peak_GB/s"]) != ("dram", "1000", "14", "32.00"):
        fail(f"hbm2 row {hbm2}")
    print(f"ok: {len(names)} presets listed")


def override(strata, outdir, config_dir, args):
    base = run(strata, os.path.join(outdir, "base"), args)
    same = run(strata, os.path.join(outdir, "same"), args + ["--set", "mem.timing.tRCD=14"])
    if differing(base, same):
        fail(f"tRCD = 14 (hbm2's own) changed {differing(base, same)[:10]}")
    slow = run(strata, os.path.join(outdir, "slow"), args + ["--set", "mem.timing.tRCD=40"])
    if not slow["mem.avg_read_latency_ns"] > base["mem.avg_read_latency_ns"]:
        fail(f"tRCD 40: mem.avg_read_latency_ns {slow['mem.avg_read_latency_ns']} not above "
             f"{base['mem.avg_read_latency_ns']}")
    cfg_txt = open(os.path.join(outdir, "slow", "config.txt")).read()
    if not re.search(r"^mem\.timing\.tRCD = 40 +# --set mem\.timing\.tRCD=40$", cfg_txt, re.M):
        fail("config.txt does not record mem.timing.tRCD = 40")
    # The same override as a TOML table in a config that includes the baseline.
    os.makedirs(outdir, exist_ok=True)
    toml = os.path.join(outdir, "override.toml")
    with open(toml, "w") as f:
        f.write(f'include = "{os.path.join(config_dir, "baseline_hbm2.toml")}"\n\n[mem.timing]\ntRCD = 40  # ns\n')
    from_file = run(strata, os.path.join(outdir, "file"), args + ["--config", toml])
    if differing(slow, from_file):
        fail(f"[mem.timing] tRCD = 40 in a file differs from --set: {differing(slow, from_file)[:10]}")
    if "mem.timing.tRCD = 40   # " + toml + ":4" not in open(os.path.join(outdir, "file", "config.txt")).read():
        fail("config.txt does not name the file and line of the override")
    # Energy override: energy up, timing unchanged.
    rd = 0.93 * 256 * 2
    en = run(strata, os.path.join(outdir, "energy"), args + ["--set", f"mem.energy.rd_pj={rd}"])
    if not en["mem.energy_j"] > base["mem.energy_j"]:
        fail(f"rd_pj doubled: mem.energy_j {en['mem.energy_j']} not above {base['mem.energy_j']}")
    for k in ("gpu.cycles", "mem.avg_read_latency_ns", "mem.reads", "mem.row_hit_rate"):
        if en[k] != base[k]:
            fail(f"an energy override changed {k}: {base[k]} -> {en[k]}")
    print(f"ok: latency {base['mem.avg_read_latency_ns']:.2f} -> {slow['mem.avg_read_latency_ns']:.2f} ns, "
          f"energy {base['mem.energy_j']:.4g} -> {en['mem.energy_j']:.4g} J")


def memtrace(strata, gen, outdir, args):
    os.makedirs(outdir, exist_ok=True)
    trace = os.path.join(outdir, "random.trace")
    subprocess.run([sys.executable, gen, trace, "--pattern", "random", "--count", "4000"], check=True)
    mt = ["memtrace", "--trace", trace, *args]
    base = run(strata, os.path.join(outdir, "base"), mt)
    same = run(strata, os.path.join(outdir, "same"), mt + ["--set", "mem.timing.tRCD=14"])
    if differing(base, same):
        fail(f"memtrace: tRCD = 14 (hbm2's own) changed {differing(base, same)[:10]}")
    slow = run(strata, os.path.join(outdir, "slow"), mt + ["--set", "mem.timing.tRCD=40"])
    if not slow["mem.avg_read_latency_ns"] > base["mem.avg_read_latency_ns"]:
        fail(f"memtrace tRCD 40: latency {slow['mem.avg_read_latency_ns']} not above {base['mem.avg_read_latency_ns']}")
    if slow["mem.timing_checked_commands"] <= 0:
        fail("memtrace: the timing checker saw no command")
    cmd = [strata, "memtrace", "--quiet", "--out", os.path.join(outdir, "bad"), *mt[1:], "--set", "mem.timing.tRCD=0"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1 or "key 'mem.timing.tRCD'" not in p.stderr:
        fail(f"memtrace with tRCD = 0: exit {p.returncode}, stderr {p.stderr!r}")
    print(f"ok: memtrace latency {base['mem.avg_read_latency_ns']:.2f} -> {slow['mem.avg_read_latency_ns']:.2f} ns")


def channel_iface(strata, outdir, args):
    # Two ranks per channel; a 1 MiB DRAM part (the rest is NVM) puts traffic on both kinds of channel.
    mixed = args + ["--set", "mem.channel_devices=gddr5_1250, rram+sttram", "--set", "mem.ranks=2",
                    "--set", "mem.leakage=rank",  # the NVM part has no size here
                    "--set", "addrmap.dram_size=1MiB",
                    "--set", "addrmap.layout=off:32 col:4 ch:8 bg:4 col:16 ba:4 ra:2 row"]
    a = run(strata, os.path.join(outdir, "a"), mixed)
    b = run(strata, os.path.join(outdir, "b"), mixed)
    if differing(a, b):
        fail(f"channel-iface: two runs differ in {differing(a, b)[:10]}")
    nch = sum(1 for k in a if re.fullmatch(r"mem\.ch\d+\.bus_utilization", k))
    if nch < 2:
        fail(f"channel-iface: {nch} channels in the stats")
    peak = {"gddr5_1250": 20.0, "rram": 16.0}  # dram.c: 1250 / 1000 MHz x 4 beats x 32 bits
    want_total = 0.0
    for c in range(nch):
        dev0 = "gddr5_1250" if c % 2 == 0 else "rram"
        dev1 = "gddr5_1250" if c % 2 == 0 else "sttram"
        for r, d in ((0, dev0), (1, dev1)):
            if a.get(f"mem.ch{c}.rank{r}.device.{d}") != 1:
                fail(f"channel-iface: ch{c} rank{r} does not run {d}")
        want_total += peak[dev0]
        util = a[f"mem.ch{c}.bus_utilization"]
        if util < 0.01:
            fail(f"channel-iface: ch{c} carried no traffic (bus utilisation {util})")
        got = a[f"mem.ch{c}.bandwidth_gbps"] / util
        if abs(got - peak[dev0]) > 0.01 * peak[dev0]:
            fail(f"channel-iface: ch{c} ({dev0}) peak {got:.3f} GB/s from its bandwidth and utilisation, "
                 f"expected {peak[dev0]}")
    if abs(a["mem.peak_bandwidth_gbps"] - want_total) > 1e-6:
        fail(f"channel-iface: mem.peak_bandwidth_gbps {a['mem.peak_bandwidth_gbps']}, expected {want_total}")
    if a["mem.timing_checked_commands"] <= 0 or a.get("check.loads", 0) <= 0:
        fail("channel-iface: no command timing-checked or no load golden-checked")
    same = run(strata, os.path.join(outdir, "same"), args + ["--set", "mem.channel_devices=gddr5_1000"])
    plain = run(strata, os.path.join(outdir, "plain"), args)
    if differing(same, plain):
        fail(f"channel-iface: mem.channel_devices = mem.device changed {differing(same, plain)[:10]}")
    print(f"ok: {nch} channels at 20 and 16 GB/s, peak {want_total:g} GB/s, "
          f"{a['mem.timing_checked_commands']} commands checked")


def energy_model(strata, outdir, args):
    # baseline_gddr5_fx5800: 16 gddr5_1000 channels of one 256 MiB rank (sim.max_footprint 4 GiB)
    args = args + ["--set", "mem.leakage=rank", "--set", "mem.io_model=preset"]  # the presets' figures first
    plain = run(strata, os.path.join(outdir, "plain"), args)
    cap = run(strata, os.path.join(outdir, "cap"), args + ["--set", "mem.leakage=capacity"])
    pod = run(strata, os.path.join(outdir, "pod"), args + ["--set", "mem.io_model=pod"])
    for name, r in (("capacity", cap), ("pod", pod)):
        for k in ("gpu.cycles", "mem.read_bytes", "mem.write_bytes", "mem.avg_read_latency_ns"):
            if r.get(k) != plain.get(k):
                fail(f"energy-model: {name} changed {k}: {plain.get(k)} -> {r.get(k)}")
    # leakage per capacity: the preset's 200 mW describes 128 MiB, a rank holds 256 MiB
    if abs(cap["mem.energy.bg_j"] - 2 * plain["mem.energy.bg_j"]) > 1e-9 * plain["mem.energy.bg_j"]:
        fail(f"energy-model: capacity bg {cap['mem.energy.bg_j']} J, expected 2 x {plain['mem.energy.bg_j']} J")
    if cap["mem.energy.rd_j"] != plain["mem.energy.rd_j"] or cap["mem.io.energy_j"] != plain["mem.io.energy_j"]:
        fail("energy-model: mem.leakage = capacity changed the column energy")
    # I/O: 4.5 pJ per bit in the preset; POD at 4 Gb/s per pin: 0.5 x 1.5^2 / (40 + 60) ohm x 250 ps = 2.8125 pJ
    bits = 8.0 * (plain["mem.read_bytes"] + plain["mem.write_bytes"])
    for name, r, pj in (("preset", plain, 4.5), ("pod", pod, 2.8125)):
        got = r["mem.io.energy_j"] / bits * 1e12
        if abs(got - pj) > 1e-9 * pj:
            fail(f"energy-model: {name} I/O {got} pJ per bit, expected {pj}")
    d_io = pod["mem.io.energy_j"] - plain["mem.io.energy_j"]
    d_all = pod["mem.energy_j"] - plain["mem.energy_j"]
    if abs(d_all - d_io) > 1e-9 * abs(d_io) or pod["mem.energy.bg_j"] != plain["mem.energy.bg_j"]:
        fail(f"energy-model: pod changed the energy by {d_all} J, its I/O by {d_io} J")
    if abs(pod["mem.io.power_w"] - pod["mem.io.energy_j"] / pod["sim.seconds"]) > 1e-9 * pod["mem.io.power_w"]:
        fail("energy-model: mem.io.power_w is not mem.io.energy_j / sim.seconds")
    print(f"ok: background x2 per 256 MiB rank, I/O {plain['mem.io.power_w']:.3f} -> {pod['mem.io.power_w']:.3f} W")


def main(argv):
    if len(argv) < 2:
        fail(__doc__)
    mode = argv[1]
    rest = argv[2:]
    args = rest[rest.index("--") + 1:] if "--" in rest else []
    pos = rest[:rest.index("--")] if "--" in rest else rest
    if mode == "list-devices":
        list_devices(*pos)
    elif mode == "override":
        override(pos[0], pos[1], pos[2], args)
    elif mode == "memtrace":
        memtrace(pos[0], pos[1], pos[2], args)
    elif mode == "channel-iface":
        channel_iface(pos[0], pos[1], args)
    elif mode == "energy-model":
        energy_model(pos[0], pos[1], args)
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main(sys.argv)
