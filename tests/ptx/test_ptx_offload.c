/* Unit tests of the offload-candidate analysis on PTX (models/ptx/ptx_offload.h, TOM Sec. 3.1;
 * docs/offload_candidates.md "PTX kernels"): hand-written kernels whose blocks, live-in and
 * live-out registers, loads and stores, limits and trip-count kinds are derived by hand in the
 * comments, and the decision of models/ref/gpu/offload.c on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>

#include "ptx.h"
#include "ptx_offload.h"

#define HDR ".version 7.0\n.target sm_70\n.address_size 64\n"
#define PARAMS "(.param .u64 pa, .param .u64 pb, .param .u32 pn)"
#define REGS ".reg .pred %p<8>;\n.reg .b32 %r<20>;\n.reg .f32 %f<20>;\n.reg .b64 %rd<20>;\n"
/* kernel parameters: rd3 = a, rd4 = b (global), r1 = n; r2 = tid.x */
#define PROLOGUE                                                                                   \
  "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [pb];\nld.param.u32 %r1, [pn];\n"                \
  "cvta.to.global.u64 %rd3, %rd1;\ncvta.to.global.u64 %rd4, %rd2;\nmov.u32 %r2, %tid.x;\n"

typedef struct analysed {
  ptx_module *m;
  ptx_oblocks ob;
} analysed;

static analysed analyse(const char *text) {
  analysed a;
  char err[400];
  memset(&a, 0, sizeof a);
  if (ptx_parse(text, strlen(text), "t.ptx", &a.m, err, sizeof err) != 0) fail_msg("parse failed: %s", err);
  const ptx_kernel *k = ptx_kernel_find(a.m, "k", err, sizeof err);
  if (!k) fail_msg("no kernel: %s", err);
  if (ptx_offload_blocks(k, &a.ob, err, sizeof err) != 0) fail_msg("analysis failed: %s", err);
  return a;
}

static void release(analysed *a) {
  ptx_oblocks_free(&a->ob);
  ptx_free(a->m);
}

static ofl_decision decide(const ptx_oblock *b) {
  ofl_params p;
  ofl_params_paper(&p);
  ofl_decision d;
  assert_int_equal(ofl_decide(&p, &b->ofl, &d), 0);
  return d;
}

/* A loop with two global loads and one store per iteration, bounded by a kernel parameter:
 * live-in i (r3) and the accumulator (f1), 2 registers (the array bases and the bound are
 * kernel parameters); live-out the accumulator, read after the barrier; trip count known at
 * entry, so a conditional candidate. After the barrier a straight block stores the sum: live-in
 * the accumulator and the thread index (r2), 1 store. */
static const char kLoop[] = HDR ".visible .entry k" PARAMS "\n{\n" REGS PROLOGUE
    "mov.u32 %r3, 0;\n"
    "mov.f32 %f1, 0f00000000;\n"
    "LOOP:\n"                                     /* line 18 */
    "mul.wide.u32 %rd5, %r3, 4;\n"
    "add.s64 %rd6, %rd3, %rd5;\n"
    "ld.global.f32 %f2, [%rd6];\n"
    "add.s64 %rd7, %rd4, %rd5;\n"
    "ld.global.f32 %f3, [%rd7];\n"
    "fma.rn.f32 %f1, %f2, %f3, %f1;\n"
    "st.global.f32 [%rd6], %f1;\n"
    "add.s32 %r3, %r3, 1;\n"
    "setp.lt.u32 %p1, %r3, %r1;\n"
    "@%p1 bra LOOP;\n"
    "bar.sync 0;\n"
    "mul.wide.u32 %rd8, %r2, 4;\n"
    "add.s64 %rd9, %rd4, %rd8;\n"
    "st.global.f32 [%rd9], %f1;\n"
    "ret;\n}\n";

static void loop_two_loads_one_store(void **st) {
  (void)st;
  analysed a = analyse(kLoop);
  assert_int_equal(a.ob.n, 2);
  const ptx_oblock *L = &a.ob.b[0], *S = &a.ob.b[1];
  assert_int_equal(L->loop, 1);
  assert_int_equal(L->line_begin, 19); /* the loop's first instruction (after the label) */
  assert_int_equal(L->line_end, 28);   /* its backward branch */
  assert_int_equal(L->ofl.n_ld, 2);
  assert_int_equal(L->ofl.n_st, 1);
  assert_int_equal(L->ofl.live_in, 2);
  assert_int_equal(L->ofl.live_out, 1);
  assert_int_equal(L->ofl.trip, OFL_TRIP_AT_ENTRY);
  assert_int_equal(L->ofl.limits, 0);
  /* per warp at t trips: TX = 2*32 - t*(2*0.5 + 33), RX = 1*32 - t*(2*0.5*32 + 0.25):
   * t = 1 gives +29.75, t = 2 gives -36.5: a conditional candidate from 2 trips on */
  ofl_decision d = decide(L);
  assert_int_equal(d.kind, OFL_CONDITIONAL);
  assert_int_equal(d.min_trips, 2);
  assert_int_equal(S->loop, 0);
  assert_int_equal(S->ofl.n_ld, 0);
  assert_int_equal(S->ofl.n_st, 1);
  assert_int_equal(S->ofl.live_in, 2);
  assert_int_equal(S->ofl.live_out, 0);
  assert_int_equal(S->ofl.limits, 0);
  assert_int_equal(decide(S).kind, OFL_NOT_CANDIDATE); /* one store does not pay for 2 registers */
  /* the tag table: the loop's instructions carry block 0, the barrier none, the store block 1 */
  for (uint32_t pc = L->pc_begin; pc <= L->pc_end; ++pc) assert_int_equal(a.ob.pc_block[pc - a.ob.first_pc], 0);
  assert_int_equal(a.ob.pc_block[L->pc_end + 1 - a.ob.first_pc], PTX_OBLOCK_NONE);
  assert_int_equal(a.ob.pc_block[S->pc_begin - a.ob.first_pc], 1);
  assert_int_equal(a.ob.pc_block[0], PTX_OBLOCK_NONE); /* the prologue has no global access */
  release(&a);
}

/* The same loop with an immediate bound: static, 16 trips; a 64-bit pointer induction counts
 * two registers. */
static const char kStatic[] = HDR ".visible .entry k" PARAMS "\n{\n" REGS PROLOGUE
    "mov.u32 %r3, 0;\n"
    "mov.u64 %rd10, %rd3;\n"
    "LOOP:\n"
    "ld.global.f32 %f2, [%rd10];\n"
    "add.f32 %f2, %f2, 0f3F800000;\n"
    "st.global.f32 [%rd10], %f2;\n"
    "add.s64 %rd10, %rd10, 4;\n"
    "add.s32 %r3, %r3, 1;\n"
    "setp.lt.u32 %p1, %r3, 16;\n"
    "@%p1 bra LOOP;\n"
    "ret;\n}\n";

static void static_loop(void **st) {
  (void)st;
  analysed a = analyse(kStatic);
  assert_int_equal(a.ob.n, 1);
  const ptx_oblock *L = &a.ob.b[0];
  assert_int_equal(L->ofl.trip, OFL_TRIP_STATIC);
  assert_int_equal(L->ofl.trips, 16);
  assert_int_equal(L->ofl.live_in, 3); /* rd10 (64-bit: 2) + r3 */
  assert_int_equal(L->ofl.live_out, 0);
  assert_int_equal(L->ofl.n_ld, 1);
  assert_int_equal(L->ofl.n_st, 1);
  assert_int_equal(decide(L).kind, OFL_CANDIDATE);
  release(&a);
}

/* A barrier, a shared-memory access or an atomic inside the loop: listed, never a candidate. */
static void limits(void **st) {
  (void)st;
  static const struct {
    const char *inst;
    uint32_t limit;
  } cases[] = {{"bar.sync 0;", OFL_LIMIT_BARRIER},
               {"st.shared.f32 [sh], %f2;", OFL_LIMIT_SHARED},
               {"atom.global.add.u32 %r9, [%rd4], 1;", OFL_LIMIT_ATOMIC},
               {"membar.gl;", OFL_LIMIT_BARRIER}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char text[2048] = HDR ".visible .entry k" PARAMS "\n{\n" REGS ".shared .align 4 .b8 sh[64];\n" PROLOGUE
        "mov.u32 %r3, 0;\n"
        "LOOP:\n"
        "mul.wide.u32 %rd5, %r3, 4;\n"
        "add.s64 %rd6, %rd3, %rd5;\n"
        "ld.global.f32 %f2, [%rd6];\n";
    strcat(text, cases[i].inst);
    strcat(text, "\nst.global.f32 [%rd6], %f2;\n"
                 "add.s32 %r3, %r3, 1;\n"
                 "setp.lt.u32 %p1, %r3, %r1;\n"
                 "@%p1 bra LOOP;\n"
                 "ret;\n}\n");
    analysed a = analyse(text);
    assert_true(a.ob.n >= 1);
    const ptx_oblock *L = &a.ob.b[0];
    assert_int_equal(L->loop, 1);
    assert_int_equal(L->ofl.limits, cases[i].limit);
    assert_int_equal(decide(L).kind, OFL_NOT_CANDIDATE);
    /* the loop's pieces on either side of the breaker are blocks of their own, without it */
    assert_int_equal(a.ob.n, 3);
    assert_int_equal(a.ob.b[1].loop, 0);
    assert_int_equal(a.ob.b[1].ofl.n_ld, 1);
    assert_int_equal(a.ob.b[2].ofl.n_st, 1);
    assert_int_equal(a.ob.b[1].ofl.limits & ~OFL_LIMIT_DIVERGENT, 0);
    release(&a);
  }
}

/* Nested loops. Without a limit the outer loop is one block (its inner loop inside it, loads of
 * both levels per outer iteration; the inner loop is not listed on its own). With a barrier in
 * the outer loop, the outer loop is listed with the limit and the inner loop becomes a block of
 * its own, a candidate. */
static const char kNested[] = HDR ".visible .entry k" PARAMS "\n{\n" REGS ".shared .align 4 .b8 sh[64];\n" PROLOGUE
    "mov.u32 %r3, 0;\n"
    "OUTER:\n"
    "mul.wide.u32 %rd5, %r3, 4;\n"
    "add.s64 %rd6, %rd3, %rd5;\n"
    "ld.global.f32 %f1, [%rd6];\n"
    "mov.u32 %r4, 0;\n"
    "INNER:\n"
    "mul.wide.u32 %rd7, %r4, 4;\n"
    "add.s64 %rd8, %rd4, %rd7;\n"
    "ld.global.f32 %f2, [%rd8];\n"
    "add.f32 %f1, %f1, %f2;\n"
    "add.s32 %r4, %r4, 1;\n"
    "setp.lt.u32 %p2, %r4, %r1;\n"
    "@%p2 bra INNER;\n"
    "st.global.f32 [%rd6], %f1;\n"
    "%BARRIER%\n"
    "add.s32 %r3, %r3, 1;\n"
    "setp.lt.u32 %p1, %r3, 8;\n"
    "@%p1 bra OUTER;\n"
    "ret;\n}\n";

static char *nested_text(const char *barrier) {
  static char buf[4096];
  const char *at = strstr(kNested, "%BARRIER%");
  size_t n = (size_t)(at - kNested);
  memcpy(buf, kNested, n);
  strcpy(buf + n, barrier);
  strcat(buf, at + strlen("%BARRIER%"));
  return buf;
}

static void nested_loops(void **st) {
  (void)st;
  analysed a = analyse(nested_text(""));
  assert_int_equal(a.ob.n, 1);
  const ptx_oblock *O = &a.ob.b[0];
  assert_int_equal(O->loop, 1);
  assert_int_equal(O->ofl.n_ld, 2);
  assert_int_equal(O->ofl.n_st, 1);
  assert_int_equal(O->ofl.limits, 0);
  /* the outer counter is the exit compare's induction, stepped by 1 from 0 to 8: static */
  assert_int_equal(O->ofl.trip, OFL_TRIP_STATIC);
  assert_int_equal(O->ofl.trips, 8);
  assert_int_equal(O->ofl.live_in, 1); /* r3; everything else is set inside */
  assert_int_equal(O->ofl.live_out, 0);
  release(&a);

  a = analyse(nested_text("bar.sync 0;"));
  assert_int_equal(a.ob.b[0].loop, 1);
  assert_int_equal(a.ob.b[0].ofl.limits, OFL_LIMIT_BARRIER);
  const ptx_oblock *I = NULL;
  for (unsigned i = 1; i < a.ob.n; ++i)
    if (a.ob.b[i].loop) I = &a.ob.b[i];
  assert_non_null(I);
  assert_int_equal(I->ofl.n_ld, 1);
  assert_int_equal(I->ofl.n_st, 0);
  assert_int_equal(I->ofl.limits, 0);
  assert_int_equal(I->ofl.trip, OFL_TRIP_AT_ENTRY); /* bound: the parameter n */
  assert_int_equal(I->ofl.live_in, 2);              /* r4, f1 */
  assert_int_equal(I->ofl.live_out, 1);             /* f1, stored after the loop */
  assert_int_equal(decide(I).kind, OFL_CONDITIONAL);
  /* the inner loop's instructions carry the inner block's tag, the rest of the outer loop the outer's */
  const unsigned inner_id = (unsigned)(I - a.ob.b);
  assert_int_equal(a.ob.pc_block[I->pc_begin - a.ob.first_pc], inner_id);
  assert_int_equal(a.ob.pc_block[a.ob.b[0].pc_end - a.ob.first_pc], 0);
  release(&a);
}

/* A loop whose exit depends on a loaded value: the trip count is decided during the loop. A
 * break to a label other than the loop's end: divergent. A device-function call: its limit. */
static void unknown_divergent_call(void **st) {
  (void)st;
  analysed a = analyse(HDR ".visible .entry k" PARAMS "\n{\n" REGS PROLOGUE
                       "mov.u64 %rd10, %rd3;\n"
                       "LOOP:\n"
                       "ld.global.u32 %r5, [%rd10];\n"
                       "add.s64 %rd10, %rd10, 4;\n"
                       "setp.ne.s32 %p1, %r5, 0;\n"
                       "@%p1 bra LOOP;\n"
                       "st.global.u32 [%rd4], %r5;\n"
                       "ret;\n}\n");
  assert_int_equal(a.ob.n, 2); /* the loop, and the store after it */
  assert_int_equal(a.ob.b[0].ofl.trip, OFL_TRIP_UNKNOWN);
  assert_int_equal(a.ob.b[0].ofl.live_in, 2);  /* rd10 */
  assert_int_equal(a.ob.b[0].ofl.live_out, 1); /* r5 */
  assert_int_equal(decide(&a.ob.b[0]).kind, OFL_NOT_CANDIDATE); /* one load at one trip: TX +63 */
  assert_int_equal(a.ob.b[1].ofl.live_in, 1);  /* r5 */
  release(&a);

  a = analyse(HDR ".visible .entry k" PARAMS "\n{\n" REGS PROLOGUE
              "mov.u32 %r3, 0;\n"
              "LOOP:\n"
              "mul.wide.u32 %rd5, %r3, 4;\n"
              "add.s64 %rd6, %rd3, %rd5;\n"
              "ld.global.u32 %r5, [%rd6];\n"
              "setp.eq.s32 %p2, %r5, 7;\n"
              "@%p2 bra FOUND;\n"
              "add.s32 %r3, %r3, 1;\n"
              "setp.lt.u32 %p1, %r3, %r1;\n"
              "@%p1 bra LOOP;\n"
              "st.global.u32 [%rd4], %r3;\n"
              "FOUND:\n"
              "ret;\n}\n");
  assert_int_equal(a.ob.b[0].loop, 1);
  assert_int_equal(a.ob.b[0].ofl.limits, OFL_LIMIT_DIVERGENT);
  release(&a);

  a = analyse(HDR ".func (.param .b32 r) f(.param .b32 x)\n{\n.reg .b32 %t<3>;\nld.param.b32 %t1, [x];\n"
              "add.s32 %t2, %t1, 1;\nst.param.b32 [r], %t2;\nret;\n}\n"
              ".visible .entry k" PARAMS "\n{\n" REGS PROLOGUE
              "mov.u32 %r3, 0;\n"
              "LOOP:\n"
              "mul.wide.u32 %rd5, %r3, 4;\n"
              "add.s64 %rd6, %rd3, %rd5;\n"
              "ld.global.u32 %r5, [%rd6];\n"
              "{\n.param .b32 a;\n.param .b32 rv;\nst.param.b32 [a], %r5;\n"
              "call.uni (rv), f, (a);\nld.param.b32 %r6, [rv];\n}\n"
              "st.global.u32 [%rd6], %r6;\n"
              "add.s32 %r3, %r3, 1;\n"
              "setp.lt.u32 %p1, %r3, %r1;\n"
              "@%p1 bra LOOP;\n"
              "ret;\n}\n");
  assert_int_equal(a.ob.n, 3); /* the loop, and its pieces before and after the call */
  assert_int_equal(a.ob.b[0].loop, 1);
  assert_int_equal(a.ob.b[0].ofl.limits, OFL_LIMIT_CALL);
  assert_int_equal(decide(&a.ob.b[0]).kind, OFL_NOT_CANDIDATE);
  assert_int_equal(a.ob.b[1].ofl.n_ld, 1);
  assert_int_equal(a.ob.b[1].ofl.n_st, 0);
  assert_int_equal(a.ob.b[2].ofl.n_ld, 0);
  assert_int_equal(a.ob.b[2].ofl.n_st, 1);
  release(&a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(loop_two_loads_one_store), cmocka_unit_test(static_loop), cmocka_unit_test(limits),
      cmocka_unit_test(nested_loops),             cmocka_unit_test(unknown_divergent_call),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
