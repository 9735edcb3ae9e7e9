#!/usr/bin/env python3
"""Whole-platform test of the memory-side policy `dbuff` (models/ref/memside/memside_dbuff.c, configs/dbuff.toml):
each partition's DRAM channel is a set-associative buffer of its PCM channel, dirty victims go to PCM through a
lazy write queue.

  dbuff_test.py STRATA OUTDIR -- ARGS...

Runs ARGS (a --check run with a DRAM buffer small enough to evict) twice and asserts, from the stats:
  - the golden-memory checker compared loads and the run ended cleanly; the timing checker saw every command;
  - the buffer hit and missed, filled blocks and evicted victims;
  - byte conservation: PCM is read only by fills (mem.nvm.read_bytes = dbuff.fill_bytes = fills x block) and
    written only by the write queue, dirty lines only (mem.nvm.write_bytes = dbuff.writeback_bytes = 128 x
    writeback_lines); every fill is a PCM read plus a DRAM write (mem.class.fill.bytes = 2 x fill_bytes);
    memside.moved_bytes = fill_bytes + writeback_bytes;
  - every dirty victim left the write queue once (drains_idle + drains_full + drains_conflict + drains_end =
    dirty_evictions), and when ARGS write (--require-dirty) there were dirty victims and PCM writes;
  - the same seed gives the same stats (apart from host.*).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import strata_test  # noqa: E402  (run, fail, timing_checked)

fail = strata_test.fail
equal = strata_test.equal
config_value = strata_test.config_value
size_bytes = strata_test.size_bytes


def check(s, outdir, require_dirty):
    where = outdir
    d = lambda n: s[f"dbuff.{n}"]  # noqa: E731
    if s.get("check.loads", 0) <= 0:
        fail(f"{where}: --check compared no loads")
    strata_test.timing_checked(s, where)
    hits, misses = d("read_hits") + d("write_hits"), d("read_misses") + d("write_misses")
    evictions = d("clean_evictions") + d("dirty_evictions")
    if hits <= 0 or misses <= 0 or d("fills") <= 0 or evictions <= 0:
        fail(f"{where}: hits {hits}, misses {misses}, fills {d('fills')}, evictions {evictions}: expected all > 0")
    if not 0 < d("hit_rate") < 1:
        fail(f"{where}: dbuff.hit_rate {d('hit_rate')}")
    block = size_bytes(config_value(outdir, "memside.dbuff.block"))
    equal(where, "fill_bytes vs fills x block", d("fill_bytes"), d("fills") * block)
    equal(where, "PCM reads (mem.nvm.read_bytes) vs fill_bytes", s["mem.nvm.read_bytes"], d("fill_bytes"))
    equal(where, "PCM writes (mem.nvm.write_bytes) vs writeback_bytes", s["mem.nvm.write_bytes"],
          d("writeback_bytes"))
    equal(where, "writeback_bytes vs 128 x writeback_lines", d("writeback_bytes"), 128 * d("writeback_lines"))
    equal(where, "mem.class.fill.bytes vs 2 x fill_bytes (PCM read + DRAM write)", s["mem.class.fill.bytes"],
          2 * d("fill_bytes"))
    equal(where, "memside.moved_bytes vs fill + writeback bytes", s["memside.moved_bytes"],
          d("fill_bytes") + d("writeback_bytes"))
    equal(where, "write-queue entries written vs dirty victims",
          d("drains_idle") + d("drains_full") + d("drains_conflict") + d("drains_end"), d("dirty_evictions"))
    if require_dirty and (d("dirty_evictions") <= 0 or d("writeback_bytes") <= 0):
        fail(f"{where}: expected dirty victims written to PCM, got {d('dirty_evictions')} and "
             f"{d('writeback_bytes')} B")


def main():
    head, args = strata_test.split_args(sys.argv[1:])
    require_dirty = "--require-dirty" in head
    strata, outdir = [h for h in head if h != "--require-dirty"]
    a = strata_test.run(strata, outdir + ".a", args)
    check(a, outdir + ".a", require_dirty)
    b = strata_test.run(strata, outdir + ".b", args)
    strata_test.same_stats(a, b, "same seed")
    print(f"ok: hit rate {a['dbuff.hit_rate']:.3f}, {a['dbuff.fills']:.0f} fills, "
          f"{a['dbuff.clean_evictions']:.0f} clean / {a['dbuff.dirty_evictions']:.0f} dirty victims, "
          f"{a['dbuff.writeback_bytes']:.0f} B written to PCM, IPC {a['gpu.ipc']:.3f}")


if __name__ == "__main__":
    main()
