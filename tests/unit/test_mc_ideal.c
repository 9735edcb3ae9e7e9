/* Idealised latencies (models/ref/mem/mc.h mc_ideal, mem.ideal; HAC paper Sec.
 * III-C Fig. 3) on the HAC channel: a GDDR5 rank (gddr5_gtx480: CL 12, CWL 4,
 * tBURST 2, tRCD 12, tRP 12, tRAS 28, tWR 12) and a PCM rank (pcm_hac: tRCD
 * 55, tRAS 55, tRC 67, tRP 12 clean, tRP_DIRTY 150 dirty, tWR 12). Each
 * latency is measured on requests alone, against the other modes, so a
 * difference is exactly the parameters the idealisation removes, on its
 * technology only (a removed gap still leaves the next command-bus slot:
 * one command per cycle on this channel):
 *  - read of a closed bank: *_read removes tRCD;
 *  - read of another row long after a read (clean row conflict): *_read
 *    removes tRP + tRCD, *_write nothing;
 *  - read of another row long after a write (dirty row conflict): *_write
 *    removes the dirty precharge (PCM tRP_DIRTY 150, GDDR5 tRP 12), *_read
 *    tRCD only;
 *  - a PCM write followed at once by a conflicting read: the PRE waits tWR
 *    after the write data, 0 cycles under nvm_write;
 *  - a burst of row hits streams at the same rate (the data bus stays);
 *  - a rescale (mc_scale_rank_timing, HMS throttling) keeps the idealisation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "mem/dram.h"
#include "mem/mc.h"

static uint64_t g_done[64];

static void on_done(void *ctx, uint64_t user, int is_write, uint64_t cycle) {
  (void)ctx;
  (void)is_write;
  if (user < 64) g_done[user] = cycle;
}

static void setup(mc *m, unsigned ideal) {
  static const dram_preset *devs[2];
  devs[0] = dram_find("gddr5_gtx480");
  devs[1] = dram_find("pcm_hac");
  assert_non_null(devs[0]);
  assert_non_null(devs[1]);
  mc_cfg c = {0};
  c.dev = devs[0];
  c.rank_devs = devs;
  c.ranks = 2;
  c.rq_size = c.wq_size = 64;
  c.wq_high = 48;
  c.wq_low = 16;
  c.open_page = 1;
  c.refresh = 0;
  c.ideal = ideal;
  char err[256];
  if (mc_init(m, &c, err, sizeof err) != 0) fail_msg("mc_init: %s", err);
  mc_set_done(m, on_done, NULL);
  memset(g_done, 0, sizeof g_done);
}

static void run_to(mc *m, uint64_t end) {
  for (uint64_t e = mc_next_event(m); e <= end; e = mc_next_event(m)) mc_advance(m, e);
}

static void submit(mc *m, uint64_t now, int wr, uint32_t rank, uint64_t row, uint32_t col, uint64_t user) {
  const mc_addr a = {rank, 0, 0, col, row, 0};
  assert_int_equal(mc_submit(m, now, wr, &a, 1, user), 0);
  mc_advance(m, now);
}

/* Latency of one read of a closed bank on `rank`, submitted at cycle 100. */
static uint64_t closed_read(unsigned ideal, uint32_t rank) {
  mc m;
  setup(&m, ideal);
  submit(&m, 100, 0, rank, 9, 0, 1);
  run_to(&m, 100000);
  assert_true(g_done[1] > 100);
  mc_free(&m);
  return g_done[1] - 100;
}

static uint64_t g_pre; /* cycle of the last PRE */
static void on_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                   uint32_t col) {
  (void)ctx, (void)rank, (void)bg, (void)bank, (void)row, (void)col;
  if (cmd == MC_CMD_PRE) g_pre = cycle;
}

/* Latency of a read of row 2 submitted at cycle 1000, after a read (wr = 0)
 * or a write (wr = 1) of row 1 of the same bank at cycle 0: a row conflict
 * on a clean or a dirty row buffer, every other constraint long satisfied. */
static uint64_t conflict_read(unsigned ideal, uint32_t rank, int wr) {
  mc m;
  setup(&m, ideal);
  submit(&m, 0, wr, rank, 1, 0, 1);
  run_to(&m, 999);
  assert_true(g_done[1] > 0 && g_done[1] < 1000);
  submit(&m, 1000, 0, rank, 2, 0, 2);
  run_to(&m, 100000);
  mc_free(&m);
  return g_done[2] - 1000;
}

/* PCM: cycles from the end of a write's data to the PRE of its row when a
 * read of another row arrives with the write's completion. */
static uint64_t write_to_pre(unsigned ideal) {
  mc m;
  setup(&m, ideal);
  mc_set_cmd_log(&m, on_cmd, NULL);
  submit(&m, 0, 1, 1, 1, 0, 1);
  run_to(&m, 100000);
  const uint64_t t = g_done[1];
  submit(&m, t, 0, 1, 2, 0, 2);
  run_to(&m, 200000);
  mc_free(&m);
  assert_true(g_pre >= t);
  return g_pre - t;
}

static void closed_read_loses_trcd(void **state) {
  (void)state;
  const uint64_t dram = closed_read(MC_IDEAL_NONE, 0), pcm = closed_read(MC_IDEAL_NONE, 1);
  assert_int_equal(pcm - dram, 55 - 12); /* the ranks differ by their tRCD */
  assert_int_equal(closed_read(MC_IDEAL_NVM_READ, 1), pcm - 55 + 1); /* RD in the slot after the ACT */
  assert_int_equal(closed_read(MC_IDEAL_NVM_READ, 0), dram); /* the DRAM rank is untouched */
  assert_int_equal(closed_read(MC_IDEAL_DRAM_READ, 0), dram - 12 + 1);
  assert_int_equal(closed_read(MC_IDEAL_DRAM_READ, 1), pcm);
  for (unsigned k = MC_IDEAL_NVM_WRITE; k <= MC_IDEAL_DRAM_WRITE; k += 2) { /* writes do not touch reads */
    assert_int_equal(closed_read(k, 0), dram);
    assert_int_equal(closed_read(k, 1), pcm);
  }
}

static void clean_conflict_loses_trp_and_trcd(void **state) {
  (void)state;
  const uint64_t dram = conflict_read(MC_IDEAL_NONE, 0, 0), pcm = conflict_read(MC_IDEAL_NONE, 1, 0);
  assert_int_equal(conflict_read(MC_IDEAL_NVM_READ, 1, 0), pcm - 12 - 55 + 2); /* PRE, ACT, RD in 3 slots */
  assert_int_equal(conflict_read(MC_IDEAL_NVM_READ, 0, 0), dram);
  assert_int_equal(conflict_read(MC_IDEAL_DRAM_READ, 0, 0), dram - 12 - 12 + 2);
  assert_int_equal(conflict_read(MC_IDEAL_DRAM_READ, 1, 0), pcm);
  assert_int_equal(conflict_read(MC_IDEAL_NVM_WRITE, 1, 0), pcm); /* a clean row: nothing to write back */
  assert_int_equal(conflict_read(MC_IDEAL_DRAM_WRITE, 0, 0), dram);
}

static void dirty_conflict_loses_the_write_back(void **state) {
  (void)state;
  const uint64_t dram = conflict_read(MC_IDEAL_NONE, 0, 1), pcm = conflict_read(MC_IDEAL_NONE, 1, 1);
  assert_int_equal(pcm - conflict_read(MC_IDEAL_NONE, 1, 0), 150 - 12); /* tRP_DIRTY instead of tRP */
  assert_int_equal(conflict_read(MC_IDEAL_NVM_WRITE, 1, 1), pcm - 150 + 1);
  assert_int_equal(conflict_read(MC_IDEAL_NVM_WRITE, 0, 1), dram);
  assert_int_equal(conflict_read(MC_IDEAL_NVM_READ, 1, 1), pcm - 55 + 1); /* tRCD only: the write-back stays */
  assert_int_equal(conflict_read(MC_IDEAL_DRAM_WRITE, 0, 1), dram - 12 + 1); /* GDDR5's dirty PRE is its tRP */
  assert_int_equal(conflict_read(MC_IDEAL_DRAM_WRITE, 1, 1), pcm);
  assert_int_equal(conflict_read(MC_IDEAL_DRAM_READ, 0, 1), dram - 12 + 1);
}

static void write_recovery(void **state) {
  (void)state;
  assert_int_equal(write_to_pre(MC_IDEAL_NONE), 12); /* tWR after the write data */
  assert_int_equal(write_to_pre(MC_IDEAL_NVM_WRITE), 0);
  assert_int_equal(write_to_pre(MC_IDEAL_DRAM_WRITE), 12);
}

/* 16 row hits on the PCM rank: the stream's duration is set by the data bus
 * and tCCD, which no idealisation removes. */
static void row_hits_keep_the_bus(void **state) {
  (void)state;
  uint64_t span[5];
  for (unsigned k = 0; k <= MC_IDEAL_DRAM_READ; ++k) {
    mc m;
    setup(&m, k);
    for (unsigned i = 0; i < 16; ++i) submit(&m, 100, 0, 1, 3, i, i);
    run_to(&m, 100000);
    span[k] = g_done[15] - g_done[0];
    mc_free(&m);
  }
  assert_true(span[0] >= 15 * 2); /* tBURST 2 per column access */
  for (unsigned k = 1; k <= MC_IDEAL_DRAM_READ; ++k) assert_int_equal(span[k], span[0]);
}

static void rescale_keeps_the_idealisation(void **state) {
  (void)state;
  const uint64_t ideal = closed_read(MC_IDEAL_NVM_READ, 1), real = closed_read(MC_IDEAL_NONE, 1);
  mc m;
  setup(&m, MC_IDEAL_NVM_READ);
  assert_int_equal(mc_scale_rank_timing(&m, 1, 2, 2), 0); /* tRCD x 2 -- still 0 */
  submit(&m, 100, 0, 1, 9, 0, 1);
  run_to(&m, 100000);
  assert_int_equal(g_done[1] - 100, ideal);
  mc_free(&m);
  setup(&m, MC_IDEAL_NONE);
  assert_int_equal(mc_scale_rank_timing(&m, 1, 2, 2), 0);
  submit(&m, 100, 0, 1, 9, 0, 1);
  run_to(&m, 100000);
  assert_int_equal(g_done[1] - 100, real + 55); /* the real one doubles */
  mc_free(&m);
}

static void bad_mode_rejected(void **state) {
  (void)state;
  mc m;
  mc_cfg c = {0};
  c.dev = dram_find("gddr5_gtx480");
  c.ranks = 1;
  c.rq_size = c.wq_size = 8;
  c.wq_high = 6;
  c.wq_low = 2;
  c.ideal = 5;
  char err[128] = "";
  assert_int_equal(mc_init(&m, &c, err, sizeof err), -1);
  assert_non_null(strstr(err, "ideal"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(closed_read_loses_trcd),
      cmocka_unit_test(clean_conflict_loses_trp_and_trcd),
      cmocka_unit_test(dirty_conflict_loses_the_write_back),
      cmocka_unit_test(write_recovery),
      cmocka_unit_test(row_hits_keep_the_bus),
      cmocka_unit_test(rescale_keeps_the_idealisation),
      cmocka_unit_test(bad_mode_rejected),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
