/* Per-bank refresh (JESD235 REFSB; models/ref/mem/mc.c with mc_cfg.refresh_per_bank)
 * on the hbm2 preset: tREFI 3900, 16 banks -> one REFPB every 243 cycles,
 * round robin over the banks, each blocking only its bank for tRFC_PB 160;
 * hand-computed command times, the timing checker on every command, and a
 * deliberately broken engine (tRFC_PB shortened) caught by the checker. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "mem/dram.h"
#include "mem/mc.h"
#include "mem/tcheck.h"

typedef struct ent {
  uint64_t cycle;
  mc_cmd cmd;
  uint32_t bg, bank;
} ent;

static struct {
  ent log[4096];
  unsigned n;
  tcheck c;
  uint64_t done[8];
} H;

static void on_cmd(void *ctx, uint64_t cycle, mc_cmd cmd, uint32_t rank, uint32_t bg, uint32_t bank, uint64_t row,
                   uint32_t col) {
  (void)ctx;
  if (H.n < 4096) H.log[H.n++] = (ent){cycle, cmd, bg, bank};
  tcheck_cmd(&H.c, cycle, cmd, rank, bg, bank, row, col);
}
static void on_done(void *ctx, uint64_t user, int is_write, uint64_t cycle) {
  (void)ctx;
  (void)is_write;
  if (user < 8) H.done[user] = cycle;
}

/* Engine on `engine_dev`, checker on the true hbm2 preset. */
static void setup(mc *m, const dram_preset *engine_dev) {
  memset(&H, 0, sizeof H);
  char err[256];
  assert_int_equal(tcheck_init(&H.c, dram_find("hbm2"), 1, err, sizeof err), 0);
  mc_cfg c = {0};
  c.dev = engine_dev;
  c.ranks = 1;
  c.rq_size = c.wq_size = 64;
  c.wq_high = 48;
  c.wq_low = 16;
  c.open_page = 1;
  c.refresh = 1;
  c.refresh_per_bank = 1;
  assert_int_equal(mc_init(m, &c, err, sizeof err), 0);
  mc_set_cmd_log(m, on_cmd, NULL);
  mc_set_done(m, on_done, NULL);
}

static void run_to(mc *m, uint64_t end) {
  for (uint64_t e = mc_next_event(m); e <= end; e = mc_next_event(m)) mc_advance(m, e);
}

static const ent *nth(mc_cmd cmd, unsigned k) {
  for (unsigned i = 0; i < H.n; ++i)
    if (H.log[i].cmd == cmd && k-- == 0) return &H.log[i];
  return NULL;
}

static void round_robin_interval(void **state) {
  (void)state;
  mc m;
  setup(&m, dram_find("hbm2"));
  run_to(&m, 3900 * 2);
  /* 2 x 16 REFPBs, bank k of the round at (k + 1) x 243 (3900 / 16 = 243) */
  for (unsigned k = 0; k < 32; ++k) {
    const ent *e = nth(MC_CMD_REFPB, k);
    assert_non_null(e);
    assert_int_equal(e->cycle, (uint64_t)(k + 1) * 243);
    assert_int_equal(e->bg * 4 + e->bank, k % 16);
  }
  assert_null(nth(MC_CMD_REF, 0)); /* no all-bank REF */
  assert_int_equal(mc_get_stats(&m, 3900 * 2)->refs_pb, 32);
  tcheck_finish(&H.c, 3900 * 2);
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
}

/* Two reads arrive at cycle 243, when bank 0 (bg 0 ba 0) is due: REFPB at 243
 * on the row bus, so the read to bank 5 (bg 1 ba 1) activates at 244
 * (row-command slot), reads at 244 + tRCD 14 = 258, data ends 258 + CL 14 +
 * tBURST 1 = 273; the read to bank 0 waits tRFC_PB: ACT 243 + 160 = 403, RD
 * 417, data ends 432. */
static void only_the_target_bank_waits(void **state) {
  (void)state;
  mc m;
  setup(&m, dram_find("hbm2"));
  run_to(&m, 242);
  const mc_addr a0 = {0, 0, 0, 0, 7, 0}, a5 = {0, 1, 1, 0, 9, 0};
  assert_int_equal(mc_submit(&m, 243, 0, &a0, 1, 0), 0);
  assert_int_equal(mc_submit(&m, 243, 0, &a5, 1, 1), 0);
  run_to(&m, 600);
  assert_int_equal(nth(MC_CMD_REFPB, 0)->cycle, 243);
  assert_int_equal(H.done[1], 273);
  assert_int_equal(H.done[0], 432);
  const ent *act0 = NULL;
  for (unsigned k = 0; (act0 = nth(MC_CMD_ACT, k)) && !(act0->bg == 0 && act0->bank == 0); ++k) {
  }
  assert_non_null(act0);
  assert_int_equal(act0->cycle, 403);
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
}

/* An open target bank is precharged first (after tRTP), then refreshed tRP later. */
static void open_target_is_closed_first(void **state) {
  (void)state;
  mc m;
  setup(&m, dram_find("hbm2"));
  const mc_addr a0 = {0, 0, 0, 0, 7, 0};
  assert_int_equal(mc_submit(&m, 200, 0, &a0, 1, 0), 0); /* ACT 200, RD 214: tRTP -> PRE >= 228, tRAS -> 233 */
  run_to(&m, 600);
  const ent *pre = nth(MC_CMD_PRE, 0), *ref = nth(MC_CMD_REFPB, 0);
  assert_non_null(pre);
  assert_non_null(ref);
  assert_int_equal(pre->cycle, 243);        /* due at 243, tRAS (233) and tRTP (228) already met */
  assert_int_equal(ref->cycle, 243 + 14);   /* tRP */
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
}

/* The engine believes tRFC_PB is 100: its ACT to the refreshed bank comes
 * 60 cycles early and the checker, on the true preset, names tRFC. */
static void broken_rfc_pb_is_caught(void **state) {
  (void)state;
  dram_preset broken = *dram_find("hbm2");
  broken.t.RFC_PB = 100;
  mc m;
  setup(&m, &broken);
  run_to(&m, 242);
  const mc_addr a0 = {0, 0, 0, 0, 7, 0};
  assert_int_equal(mc_submit(&m, 243, 0, &a0, 1, 0), 0);
  run_to(&m, 600);
  assert_false(tcheck_ok(&H.c));
  assert_int_equal(tcheck_first_rule(&H.c), TCHECK_RFC);
  assert_int_equal(tcheck_first_cycle(&H.c), 343);
  assert_non_null(strstr(tcheck_error(&H.c), "REFPB -> ACT same bank"));
  mc_free(&m);
  tcheck_free(&H.c);
}

/* Devices without per-bank refresh (RFC_PB 0) keep all-bank REF. */
static void all_bank_without_rfc_pb(void **state) {
  (void)state;
  mc m;
  setup(&m, dram_find("gddr5_gtx480"));
  tcheck_free(&H.c);
  char err[256];
  assert_int_equal(tcheck_init(&H.c, dram_find("gddr5_gtx480"), 1, err, sizeof err), 0);
  run_to(&m, 3700);
  assert_int_equal(nth(MC_CMD_REF, 0)->cycle, dram_find("gddr5_gtx480")->t.REFI);
  assert_null(nth(MC_CMD_REFPB, 0));
  assert_true(tcheck_ok(&H.c));
  mc_free(&m);
  tcheck_free(&H.c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(round_robin_interval),        cmocka_unit_test(only_the_target_bank_waits),
      cmocka_unit_test(open_target_is_closed_first), cmocka_unit_test(broken_rfc_pb_is_caught),
      cmocka_unit_test(all_bank_without_rfc_pb),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
