#!/usr/bin/env python3
"""Functional fast-forward (sim.fast_forward_instructions; issue 24 item 5; platform/fast_forward.h).

  fast_forward_test.py STRATA OUTDIR -- ARGS...

With the config and workload of ARGS (one with reuse in the L2):
  * instruction accounting: a run fast-forwarding F warp instructions (F = 40 % of the workload) simulates
    exactly the rest in detail (sim.fast_forward_warp_instructions = F, + gpu.warp_instructions = the full
    run's), passes --check (every load compared with the golden memory, the result check at the end) and
    hands CTAs over in flight (sim.fast_forward_ctas above the CTAs it finished);
  * determinism: the same fast-forward twice gives the same stats (host.* aside);
  * warming: one measurement window (start 60 %, length 20 % of the workload) simulated three ways -- all
    detailed (the reference), fast-forward to 50 % + 10 % detailed warm-up, and the same with
    sim.fast_forward_warm = false -- and the warm fast-forward's L2 hit rate, IPC and DRAM bandwidth within
    the bounds below of the reference while the cold one's DRAM bandwidth is off by more than COLD_MIN: the
    caches the fast-forward warms are what the window needs (the cold run proves the check can fail).
"""
import json
import os
import shutil
import subprocess
import sys

WARM_BOUNDS = {"gpu.ipc": 0.05, "mem.bandwidth_gbps": 0.05}  # relative
WARM_HIT = 0.03  # absolute, l2.hit_rate
COLD_MIN = 0.2   # relative, mem.bandwidth_gbps


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(strata, out, args):
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([strata, "--quiet", "--out", out] + args, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}")
    with open(os.path.join(out, "stats.json")) as f:
        return json.load(f)


def rel(a, b):
    return abs(a - b) / abs(b) if b else abs(a)


def main():
    sep = sys.argv.index("--")
    strata, outdir = sys.argv[1], sys.argv[2]
    args = sys.argv[sep + 1:]
    os.makedirs(outdir, exist_ok=True)
    full = run(strata, os.path.join(outdir, "full"), args)
    n = int(full["gpu.warp_instructions"])
    f = n * 2 // 5
    ffa = args + ["--check", "--set", f"sim.fast_forward_instructions={f}"]
    a = run(strata, os.path.join(outdir, "ff_a"), ffa)
    b = run(strata, os.path.join(outdir, "ff_b"), ffa)
    if int(a["sim.fast_forward_warp_instructions"]) != f:
        fail(f"fast-forward ran {a['sim.fast_forward_warp_instructions']} warp instructions, asked {f}")
    if int(a["gpu.warp_instructions"]) + f != n:
        fail(f"detailed {a['gpu.warp_instructions']} + fast-forward {f} != the full run's {n} warp instructions")
    diff = [k for k in a if not k.startswith("host.") and a[k] != b.get(k)]
    if diff:
        fail(f"the same fast-forward twice differs in {len(diff)} stats, e.g. {diff[:5]}")
    if a["sim.fast_forward_ctas_in_flight"] <= 0 or a["sim.fast_forward_l2_requests"] <= 0:
        fail("the fast-forward handed no CTA over in flight or warmed nothing")
    s, m, d = n * 3 // 5, n // 5, n // 10
    ref = run(strata, os.path.join(outdir, "ref"), args + ["--set", f"sim.warmup_instructions={s}",
                                                           "--set", f"sim.max_instructions={m}"])
    win = ["--set", f"sim.fast_forward_instructions={s - d}", "--set", f"sim.warmup_instructions={d}",
           "--set", f"sim.max_instructions={m}"]
    warm = run(strata, os.path.join(outdir, "warm"), args + win)
    cold = run(strata, os.path.join(outdir, "cold"), args + win + ["--set", "sim.fast_forward_warm=false"])
    for k, bound in WARM_BOUNDS.items():
        if rel(warm[k], ref[k]) > bound:
            fail(f"warm fast-forward: {k} {warm[k]:.4g} vs the detailed reference's {ref[k]:.4g} "
                 f"(more than {bound:.0%} apart)")
    if abs(warm["l2.hit_rate"] - ref["l2.hit_rate"]) > WARM_HIT:
        fail(f"warm fast-forward: l2.hit_rate {warm['l2.hit_rate']:.3f} vs the reference's {ref['l2.hit_rate']:.3f}")
    if rel(cold["mem.bandwidth_gbps"], ref["mem.bandwidth_gbps"]) < COLD_MIN:
        fail(f"cold fast-forward: mem.bandwidth_gbps {cold['mem.bandwidth_gbps']:.4g} within {COLD_MIN:.0%} of the "
             f"reference's {ref['mem.bandwidth_gbps']:.4g}: the window does not tell warm caches from cold ones")
    print(f"ok: {n} warp instructions, fast-forward {f} + detailed {a['gpu.warp_instructions']:.0f}; window "
          f"IPC {ref['gpu.ipc']:.4g} / warm {warm['gpu.ipc']:.4g} / cold {cold['gpu.ipc']:.4g}, DRAM GB/s "
          f"{ref['mem.bandwidth_gbps']:.4g} / {warm['mem.bandwidth_gbps']:.4g} / {cold['mem.bandwidth_gbps']:.4g}, "
          f"L2 hit rate {ref['l2.hit_rate']:.3f} / {warm['l2.hit_rate']:.3f} / {cold['l2.hit_rate']:.3f}")


if __name__ == "__main__":
    main()
