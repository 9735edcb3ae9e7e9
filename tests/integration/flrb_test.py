#!/usr/bin/env python3
"""Whole-platform test of the memory-side policy `flrb` (models/ref/memside/memside_flrb.c, configs/flrb.toml):
256 B PCM segments that the FLRB descriptor multi-queue finds hot move to DRAM in batches within a bandwidth
quota, and go back to PCM when their descriptor leaves (or early, when DRAM is full).

  flrb_test.py [--require-full] [--require-rise] [--pc] STRATA OUTDIR -- ARGS...

Runs ARGS (a --check run with a reserved DRAM region small enough to fill) twice and asserts, from the stats:
  - the golden-memory checker compared loads and the run ended cleanly; the timing checker saw every command;
  - segments moved both ways: migrations PCM -> DRAM and copy-backs DRAM -> PCM, some in batches of more than one;
    DRAM served accesses (reads or writes of migrated segments);
  - byte conservation: every moved segment is one 256 B read and one 256 B write of class migration
    (mem.class.migration.bytes = 2 x flrb.migration_bytes = 2 x 256 x (migrated + copied back));
    memside.moved_bytes = flrb.migration_bytes; memside.moves = memside.remaps = migrated + copied back;
    DRAM was written by migrations and demand writes only (mem.dram.write_bytes >= 256 x migrated, and more only
    when flrb.writes_dram > 0), read at least by the copy-backs;
  - with --require-full: DRAM filled up, candidates waited and colder segments were demoted proactively;
  - with --require-rise: FLRB moved hot segments: the DRAM share of the last kernel launch's accesses exceeds
    the first's (the regression of issue 26 item 6);
  - with --pc (configs/pc: the placement engine places arrays, FLRB migrates the rest): the engine put arrays in
    the DRAM part (placement.initial_dram_arrays > 0) and DRAM took write-backs (mem.dram_write_share > 0); the
    DRAM writes then include the engine's arrays', so only their lower bound (migrations) is asserted, and DRAM
    need not serve a migrated segment;
  - the same seed gives the same stats (apart from host.*).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import strata_test  # noqa: E402  (run, fail, timing_checked)

fail = strata_test.fail
equal = strata_test.equal


def check(s, where, require_full, require_rise, pc=False):
    f = lambda n: s[f"flrb.{n}"]  # noqa: E731
    if s.get("check.loads", 0) <= 0:
        fail(f"{where}: --check compared no loads")
    strata_test.timing_checked(s, where)
    moved = f("migrated_segments") + f("copybacks")
    if f("migrations") <= 0 or f("migrated_segments") <= 0 or f("copybacks") <= 0:
        fail(f"{where}: migrations {f('migrations')}, migrated {f('migrated_segments')}, copied back "
             f"{f('copybacks')}: expected all > 0")
    if f("batch_max") < 2 or f("batch_neighbours") <= 0:
        fail(f"{where}: no batch of more than one segment (batch_max {f('batch_max')})")
    if not pc and f("reads_dram") + f("writes_dram") <= 0:
        fail(f"{where}: DRAM served no access")
    if pc and (s["placement.initial_dram_arrays"] <= 0 or not s["mem.dram_write_share"] > 0):
        fail(f"{where}: pc: {s['placement.initial_dram_arrays']} arrays placed in DRAM, DRAM write share "
             f"{s['mem.dram_write_share']}: expected both > 0")
    equal(where, "migration_bytes vs 256 x moved segments", f("migration_bytes"), 256 * moved)
    equal(where, "mem.class.migration.bytes vs 2 x migration_bytes", s["mem.class.migration.bytes"],
          2 * f("migration_bytes"))
    equal(where, "memside.moved_bytes vs migration_bytes", s["memside.moved_bytes"], f("migration_bytes"))
    equal(where, "memside.moves vs moved segments", s["memside.moves"], moved)
    equal(where, "memside.remaps vs moved segments", s["memside.remaps"], moved)
    demand_dram_writes = s["mem.dram.write_bytes"] - 256 * f("migrated_segments")
    if demand_dram_writes < 0 or (not pc and (demand_dram_writes > 0) != (f("writes_dram") > 0)):
        fail(f"{where}: DRAM writes {s['mem.dram.write_bytes']} B vs {f('migrated_segments')} migrated segments "
             f"and {f('writes_dram')} demand writes")
    if s["mem.dram.read_bytes"] < 256 * f("copybacks"):
        fail(f"{where}: DRAM reads {s['mem.dram.read_bytes']} B < copy-backs x 256")
    if s["mem.nvm.read_bytes"] < 256 * f("migrated_segments"):
        fail(f"{where}: PCM reads {s['mem.nvm.read_bytes']} B < migrated x 256")
    if require_full and (f("proactive_demotions") <= 0 or f("dram_full_deferrals") <= 0):
        fail(f"{where}: expected DRAM full: {f('dram_full_deferrals')} deferrals, "
             f"{f('proactive_demotions')} proactive demotions")
    if require_rise and not f("last_kernel_dram_share") > f("first_kernel_dram_share"):
        fail(f"{where}: DRAM share did not rise: first kernel {f('first_kernel_dram_share')}, last "
             f"{f('last_kernel_dram_share')}")


def main():
    head, args = strata_test.split_args(sys.argv[1:])
    flags = {"--require-full", "--require-rise", "--pc"}
    strata, outdir = [h for h in head if h not in flags]
    a = strata_test.run(strata, outdir + ".a", args)
    check(a, outdir + ".a", "--require-full" in head, "--require-rise" in head, "--pc" in head)
    b = strata_test.run(strata, outdir + ".b", args)
    strata_test.same_stats(a, b, "same seed")
    print(f"ok: {a['flrb.migrated_segments']:.0f} segments to DRAM in {a['flrb.migrations']:.0f} migrations, "
          f"{a['flrb.copybacks']:.0f} back to PCM ({a['flrb.proactive_demotions']:.0f} proactively), DRAM share "
          f"{a['flrb.dram_hit_share']:.4f} (first kernel {a['flrb.first_kernel_dram_share']:.4f}, last "
          f"{a['flrb.last_kernel_dram_share']:.4f}), IPC {a['gpu.ipc']:.3f}")


if __name__ == "__main__":
    main()
