#!/usr/bin/env python3
"""Whole-platform tests of the placement engine (placement.mode = engine; platform/placement.h,
models/ref/place/placement.c; docs/hybrid_dram_pcm.md "Placement engine").

  placement_test.py STRATA OUTDIR

1. Migrations under --check on two FLRB Table III analogues with several kernels (convsep: 2 launches; bitonic:
   28), DRAM part of 512 KiB so that not every array fits, placement.migration_weight = 0 so that each kernel
   gets its own best placement and arrays move between kernels: the checker compared loads and stayed clean
   through every copy; every move is a copy kernel of its own (gpu.kernels = placement.kernels +
   placement.migrations); the bytes moved are the moved arrays' sizes; the plan file lists the kernels, the
   migrations and their simulated cost; nvm.lifetime_years follows Sec. VII-I's formula; the same seed gives
   the same stats.
2. The engine's plan for pc_sw on blackscholes and convsep (default migration weight): predicted EDP below the
   same models' all-on-PCM sequence.
3. Simulated EDP: pc_sw below pcm_only_partition on random (GUPS: scattered read-modify-writes, the write
   pattern that PCM's array writes punish; one kernel, so one placement); sim.edp = energy x time.
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import strata_test  # noqa: E402  (run, fail)

fail = strata_test.fail



def plan(outdir):
    with open(os.path.join(outdir, "placement_plan.txt")) as f:
        return f.read()


def migrating_run(strata, out, workload, sizes):
    args = ["--config", "pc_sw", "--workload", workload, "--check", "--set", "workload.footprint=1MiB",
            "--set", "addrmap.dram_size=512KiB", "--set", "placement.migration_weight=0"]
    s = strata_test.run(strata, out, args)
    where = f"{workload} (migration_weight 0)"
    if s.get("check.loads", 0) <= 0:
        fail(f"{where}: --check compared no loads")
    if s["placement.migrations"] <= 0:
        fail(f"{where}: no migration")
    if s["gpu.kernels"] != s["placement.kernels"] + s["placement.migrations"]:
        fail(f"{where}: gpu.kernels {s['gpu.kernels']} != placement.kernels {s['placement.kernels']} + "
             f"migrations {s['placement.migrations']}")
    p = plan(out)
    moved = re.findall(r"^simulated copy (\S+) -> (DRAM|PCM) before kernel (\d+)", p, re.M)
    if len(moved) != s["placement.migrations"]:
        fail(f"{where}: {len(moved)} simulated copies in the plan, {s['placement.migrations']} migrations")
    if s["placement.migrated_bytes"] != sum(sizes[a] for a, _, _ in moved):
        fail(f"{where}: migrated_bytes {s['placement.migrated_bytes']} != the moved arrays' sizes")
    if not re.search(r"^migrate before kernel \d+:", p, re.M) or not re.search(r"^kernel 0 \S+: ", p, re.M):
        fail(f"{where}: plan lacks kernels or migrations:\n{p[:1500]}")
    copies = [k for k in s if re.match(r"kernel\.\d+\.placement_copy\.mem_requests$", k)]
    if len(copies) != s["placement.migrations"] or any(s[k] <= 0 for k in copies):
        fail(f"{where}: copy kernels' memory requests {[s[k] for k in copies]}")
    # PCM lifetime (Sec. VII-I): Y = 1e8 x S / (write bytes per second x 2^25), S = the 6 GiB NVM part.
    wr = s["mem.nvm.write_bytes"]
    want = 1e8 * (6 << 30) / (wr / s["sim.seconds"] * 2 ** 25) if wr > 0 else 0
    if wr <= 0 or abs(s["nvm.lifetime_years"] - want) > 1e-9 * want:
        fail(f"{where}: nvm.lifetime_years {s['nvm.lifetime_years']}, expected {want} from {wr} B written")
    strata_test.same_stats(s, strata_test.run(strata, out + "_again", args), f"{where}: same seed")


def main():
    strata, out = sys.argv[1], sys.argv[2]
    # convsep at 1 MiB: input, buffer, output of 348160 B; bitonic: keys0, vals0, keys1, vals1 of 262144 B.
    migrating_run(strata, out + "/cs", "convsep", {a: 348160 for a in ("input", "buffer", "output")})
    migrating_run(strata, out + "/bitonic", "bitonic", {a: 262144 for a in ("keys0", "vals0", "keys1", "vals1")})

    for w in ("blackscholes", "convsep"):
        s = strata_test.run(strata, f"{out}/pred_{w}", ["--config", "pc_sw", "--workload", w, "--check",
                                                        "--set", "workload.footprint=1MiB"])
        if not 0 < s["placement.predicted_edp"] < s["placement.predicted_all_pcm_edp"]:
            fail(f"{w}: predicted EDP {s['placement.predicted_edp']} not below all-PCM "
                 f"{s['placement.predicted_all_pcm_edp']}")

    args = ["--workload", "random", "--check", "--set", "workload.footprint=1MiB"]
    sw = strata_test.run(strata, out + "/random_pc_sw", ["--config", "pc_sw", *args])
    pcm = strata_test.run(strata, out + "/random_pcm", ["--config", "pcm_only_partition", *args])
    if not sw["sim.edp"] < pcm["sim.edp"]:
        fail(f"random: pc_sw sim.edp {sw['sim.edp']} not below pcm_only_partition {pcm['sim.edp']}")
    if abs(sw["sim.edp"] - sw["mem.energy_j"] * sw["sim.seconds"]) > 1e-9 * sw["sim.edp"]:
        fail("random: sim.edp != mem.energy_j x sim.seconds")
    if sw["placement.migrations"] != 0 or not re.search(r"^kernel 0 gups: table=[DP] ", plan(out + "/random_pc_sw"), re.M):
        fail("random (one kernel): expected one placement and no migration")
    print("placement: OK")


if __name__ == "__main__":
    main()
