#!/usr/bin/env python3
"""`strata --describe-workload` output assertions (CTest offload_describe_cli).

  describe_test.py STRATA ACCELSIM_DATA_DIR VECTORADD_TRACE_DIR

Text and JSON of built-in workloads with --set knobs, of the hand-written
Accel-Sim trace and of the external vectoradd trace; determinism; --seed.
Expected numbers are derived in the comments from the workloads' formulas.
"""
import json
import re
import subprocess
import sys

failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: " + what)


def run(strata, *args):
    p = subprocess.run([strata, "--describe-workload", *args], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"FAIL: {' '.join(args)} exited {p.returncode}\n{p.stderr}")
        sys.exit(1)
    check(p.stderr == "", f"{args}: stderr not empty: {p.stderr!r}")
    return p.stdout


def main():
    strata, data, ext = sys.argv[1:4]

    # stream, n = 8192: 3 arrays of 32 KiB at 0, 32 KiB and 64 KiB (4 KiB aligned);
    # 32 CTAs x 8 warps; per warp alu 1 (index) + 1 (add), 2 loads, 1 store, exit;
    # every request carries 32 addresses.
    t = run(strata, "stream", "--set", "workload.stream.n=8192")
    for pat in [
        r"^workload stream \(seed 1\): 3 arrays, footprint 98304 B \(96\.0 KiB\), 1 kernel launch, 1536 warp instructions",
        r"^  a +base 0x0000000000  32768 B \(32\.0 KiB\)$",
        r"^  b +base 0x0000008000  32768 B",
        r"^  c +base 0x0000010000  32768 B",
        r"^kernel stream_add: 1 launch, 32 CTAs x 8 warps; reads a b; writes c$",
        r"^  instruction mix \(warp\): alu 512, sfu 0, ld 512, st 256, barrier 0, exit 256; thread instructions 49152$",
        r"^  bytes: loaded 65536, stored 32768, touched 98304 B",
        r"^  coalescing, loads : 512 insts -> 512 requests \(1\.00 per inst\); requests by effective addresses: 32:512$",
        r"^  coalescing, stores: 256 insts -> 256 requests \(1\.00 per inst\); requests by effective addresses: 32:256$",
        r"^    #0 add steps 1-4: straight; live-in 1, live-out 0; per execution: ld 2, st 1, alu 1, sfu 0; limits ok$",
        r"^       paper estimate: TX -2\.00 RX -32\.25 -> candidate saving TX RX$",
        r"^       observed: 256 instances, ld 2-2 st 1-1 warp instructions per instance",
        r"^memory instructions in offload candidates \(paper estimate\): 768 of 768 \(100\.0%\)$",
    ]:
        check(re.search(pat, t, re.M), f"stream text lacks /{pat}/:\n{t}")

    # random as JSON: footprint 8 x table_words; 1024 updates = 32 warps, each
    # load/store scattered over 32 lines (ea = 1) unless two updates share a line.
    j = json.loads(run(strata, "random", "--json", "--set", "workload.random.table_words=65536",
                       "--set", "workload.random.updates=1024"))
    check(j["footprint_bytes"] == 8 * 65536, "random footprint")
    check([a["name"] for a in j["arrays"]] == ["table"], "random arrays")
    k = j["kernels"][0]
    check(k["name"] == "gups" and k["ctas"] == 4 and k["warps_per_cta"] == 8, f"random kernel {k['name']}")
    check(k["mix"] == {"alu": 96, "sfu": 0, "load": 32, "store": 32, "barrier": 0, "exit": 32, "shared": 0, "atomic": 0},
          f"random mix {k['mix']}")
    for kind in ("load", "store"):
        h = k["coalescing"][kind]
        check(h["insts"] == 32 and sum(h["ea"]) == h["requests"], f"random {kind} histogram totals")
        check(h["ea"][0] >= 0.9 * h["requests"], f"random {kind}: mostly one address per request {h['ea'][:4]}")
    b = k["blocks"][0]
    check(b["name"] == "update" and b["live_in"] == 1 and b["live_out"] == 0 and b["loads"] == 1 and b["stores"] == 1,
          f"random block {b}")
    # Measured coalescing ~32 lines per instruction: TX = 32 - (32 x 0.5 + 32 + 32) = -48 at exactly 32.
    check(b["observed"]["coal_ld"] > 30 and b["measured"]["tx"] < -40, f"random measured {b['measured']}")
    # Per-array profile (placement engine, Sec. V-A): every gups request is to `table`, all 32 loads and 32
    # stores uncoalesced (~32 lines each), the request counts equal the histograms'.
    pa = k["arrays"]
    check(len(pa) == 1 and pa[0]["array"] == "table" and pa[0]["reads"] == 32 and pa[0]["writes"] == 32 and
          pa[0]["uncoalesced_insts"] == 64 and pa[0]["coalesced_insts"] == 0 and
          pa[0]["read_uncoalesced"] == k["coalescing"]["load"]["requests"] and
          pa[0]["write_uncoalesced"] == k["coalescing"]["store"]["requests"], f"random per-array profile {pa}")
    # stream, n = 8192: 256 warps, one coalesced load each of a and b, one coalesced store of c, 1 line each.
    j = json.loads(run(strata, "stream", "--json", "--set", "workload.stream.n=8192"))
    pa = {a["array"]: a for a in j["kernels"][0]["arrays"]}
    check(sorted(pa) == ["a", "b", "c"], f"stream per-array names {sorted(pa)}")
    for n, r, w in (("a", 256, 0), ("b", 256, 0), ("c", 0, 256)):
        x = pa.get(n, {})
        check(x.get("reads") == r and x.get("writes") == w and x.get("coalesced_insts") == 256 and
              x.get("read_coalesced") == r and x.get("write_coalesced") == w and x.get("uncoalesced_insts") == 0,
              f"stream array {n}: {x}")

    # Determinism: same seed, same JSON (apart from host time); another seed, other data.
    def strip(s):
        d = json.loads(s)
        d.pop("host_seconds")
        return d
    a = strip(run(strata, "bfs", "--json", "--set", "workload.bfs.scale=10"))
    a2 = strip(run(strata, "bfs", "--json", "--set", "workload.bfs.scale=10"))
    c = strip(run(strata, "bfs", "--json", "--set", "workload.bfs.scale=10", "--seed", "7"))
    check(a == a2, "bfs describe not deterministic")
    check(c["seed"] == 7 and c["kernels"] != a["kernels"], "bfs --seed 7 changes nothing")
    check(a["kernels"][0]["launches"] >= 2 and a["kernels"][0]["blocks"][0]["kind"] == "unknown", "bfs kernels/blocks")

    # Footprint knob of a library analogue and its blocks.
    j = json.loads(run(strata, "libor", "--json", "--set", "workload.footprint=1MiB"))
    check(j["footprint_bytes"] <= 1 << 20, "libor footprint knob")
    names = [b["name"] for b in j["kernels"][0]["blocks"]]
    check(names == ["init_rates", "maturity_update", "payoff"], f"libor blocks {names}")

    # Traces: hand-written example (11 blocks, see test_offload_blocks.cpp) and vectoradd.
    t = run(strata, data + "/blocks")
    check(re.search(r"^    #8 loop@0x1c0 pc 0x1c0-0x200: at-entry loop; live-in 6, live-out 0; per iteration: ld 1, st 1",
                    t, re.M), f"trace block #8 missing:\n{t}")
    check(re.search(r"at 4 trips -> conditional candidate \(trips >= 4\) saving RX$", t, re.M), "trace conditional")
    check(re.search(r"limits VIOLATED \(atomic\)$", t, re.M) and re.search(r"limits VIOLATED \(divergent\)$", t, re.M),
          "trace limits")
    j = json.loads(run(strata, ext, "--json"))
    k = j["kernels"][0]
    check(k["name"] == "_Z6vecAddIfEvPT_S1_S1_i" and j["warp_insts"] == 344, "vectoradd kernel")
    check(k["mix"]["load"] == 8 and k["mix"]["store"] == 4, f"vectoradd mix {k['mix']}")
    check(len(k["blocks"]) == 1 and k["blocks"][0]["pc_begin"] == 0x68 and k["blocks"][0]["live_in"] == 1,
          "vectoradd block")
    # The trace through kernelslist.g itself gives the same summary.
    j2 = json.loads(run(strata, ext + "/kernelslist.g", "--json"))
    j2.pop("host_seconds"), j.pop("host_seconds"), j2.pop("workload"), j.pop("workload")
    check(j == j2, "vectoradd: directory and kernelslist.g differ")

    if failures:
        print(f"{failures} failure(s)")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
