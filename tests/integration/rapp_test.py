#!/usr/bin/env python3
"""Whole-platform test of the memory-side policy `rapp` (models/ref/memside/memside_rapp.c, configs/rapp.toml):
a multi-queue ranks each partition's PCM pages by the L2's misses and write-backs, pages reaching the threshold
queue move into a DRAM frame, the coldest DRAM page goes back to PCM when the frames are full.

  rapp_test.py STRATA OUTDIR [--require-writes] -- ARGS...

Runs ARGS (a --check run with few enough DRAM frames that pages are evicted) twice and asserts, from the stats:
  - the golden-memory checker compared loads and the run ended cleanly; the timing checker saw every command;
  - pages migrated to DRAM and victims went back to PCM (both ways), migrated pages in DRAM served accesses and
    PCM served reads, queues promoted and demoted pages; with --require-writes, write-backs reached both devices;
  - byte conservation (writeback = always: every victim written back whole): migration_bytes = migrations x page,
    eviction_bytes = evictions x page, memside.moved_bytes = their sum; the migration class read and wrote each
    once (mem.class.migration.bytes = 2 x moved_bytes, reads = writes = migrations + evictions); per device,
    PCM reads = its demand bytes + migration_bytes, PCM writes = its write-back bytes + eviction_bytes, DRAM reads
    = its demand bytes + eviction_bytes, DRAM writes = its write-back bytes + migration_bytes, where each device's
    demand bytes are 32 to 128 B per access it served (whole sectors), and in all, bytes read = demand bytes +
    moved bytes, bytes written = write-back bytes + moved bytes;
  - memside.remaps = migrations + evictions; rapp.migration_rate and rapp.writes_redirected_to_dram are the
    ratios of their counters;
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


def close(where, what, a, b):
    if abs(a - b) > 1e-9 * max(1.0, abs(b)):
        fail(f"{where}: {what}: {a} != {b}")


def check(s, outdir, require_writes):
    where = outdir
    r = lambda n: s[f"rapp.{n}"]  # noqa: E731
    if s.get("check.loads", 0) <= 0:
        fail(f"{where}: --check compared no loads")
    strata_test.timing_checked(s, where)
    need = ["migrations", "evictions", "read_pcm", "promotions", "demotions", "candidates"]
    for n in need + (["write_dram", "write_pcm"] if require_writes else []):
        if r(n) <= 0:
            fail(f"{where}: rapp.{n} = {r(n)}: expected > 0")
    if r("read_dram") + r("write_dram") <= 0:
        fail(f"{where}: no access served by a migrated page in DRAM")
    equal(where, "memside.rapp.writeback", config_value(outdir, "memside.rapp.writeback"), "always")
    page = size_bytes(config_value(outdir, "memside.rapp.page"))
    equal(where, "migration_bytes vs migrations x page", r("migration_bytes"), r("migrations") * page)
    equal(where, "eviction_bytes vs evictions x page", r("eviction_bytes"), r("evictions") * page)
    equal(where, "clean_evictions under writeback = always", r("clean_evictions"), 0)
    moved = r("migration_bytes") + r("eviction_bytes")
    equal(where, "memside.moved_bytes vs migration + eviction bytes", s["memside.moved_bytes"], moved)
    equal(where, "memside.moves vs migrations + evictions", s["memside.moves"], r("migrations") + r("evictions"))
    equal(where, "memside.remaps vs migrations + evictions", s["memside.remaps"], r("migrations") + r("evictions"))
    equal(where, "mem.class.migration.bytes vs 2 x moved bytes (one read, one write each)",
          s["mem.class.migration.bytes"], 2 * moved)
    equal(where, "migration reads vs migrations + evictions", s["mem.class.migration.reads"],
          r("migrations") + r("evictions"))
    equal(where, "migration writes vs migrations + evictions", s["mem.class.migration.writes"],
          r("migrations") + r("evictions"))
    equal(where, "L2 reads vs the policy's", s["mem.class.demand.reads"], r("read_dram") + r("read_pcm"))
    equal(where, "L2 write-backs vs the policy's", s["mem.class.writeback.writes"], r("write_dram") + r("write_pcm"))
    equal(where, "bytes read (DRAM + PCM) vs demand reads + moved bytes",
          s["mem.dram.read_bytes"] + s["mem.nvm.read_bytes"], s["mem.class.demand.bytes"] + moved)
    equal(where, "bytes written (DRAM + PCM) vs write-backs + moved bytes",
          s["mem.dram.write_bytes"] + s["mem.nvm.write_bytes"], s["mem.class.writeback.bytes"] + moved)
    # per device, the L2's share is 32 to 128 B an access (whole sectors of a line)
    for what, dev_bytes, own, accesses in (
            ("PCM reads", s["mem.nvm.read_bytes"], r("migration_bytes"), r("read_pcm")),
            ("PCM writes", s["mem.nvm.write_bytes"], r("eviction_bytes"), r("write_pcm")),
            ("DRAM reads", s["mem.dram.read_bytes"], r("eviction_bytes"), r("read_dram")),
            ("DRAM writes", s["mem.dram.write_bytes"], r("migration_bytes"), r("write_dram"))):
        if not 32 * accesses <= dev_bytes - own <= 128 * accesses:
            fail(f"{where}: {what}: {dev_bytes} B - {own} B of moves = {dev_bytes - own} B for {accesses} L2 "
                 f"accesses: expected 32 to 128 B each")
    close(where, "rapp.migration_rate", r("migration_rate"), moved / r("data_bytes"))
    if r("write_dram") + r("write_pcm"):
        close(where, "rapp.writes_redirected_to_dram", r("writes_redirected_to_dram"),
              r("write_dram") / (r("write_dram") + r("write_pcm")))


def main():
    head, args = strata_test.split_args(sys.argv[1:])
    require_writes = "--require-writes" in head
    strata, outdir = [h for h in head if h != "--require-writes"]
    a = strata_test.run(strata, outdir + ".a", args)
    check(a, outdir + ".a", require_writes)
    b = strata_test.run(strata, outdir + ".b", args)
    strata_test.same_stats(a, b, "same seed")
    print(f"ok: {a['rapp.migrations']:.0f} migrations, {a['rapp.evictions']:.0f} evictions, DRAM hit rate "
          f"{a['rapp.dram_hit_rate']:.3f}, writes to DRAM {a['rapp.writes_redirected_to_dram']:.3f}, migration rate "
          f"{a['rapp.migration_rate']:.3f}, IPC {a['gpu.ipc']:.3f}")


if __name__ == "__main__":
    main()
