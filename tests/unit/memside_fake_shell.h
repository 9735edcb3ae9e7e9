/* A fake memory-side shell for the policy unit tests (test_memside*.c,
 * test_blocks.c; memside_test_env.h makes an env of it): records the
 * transfers a policy issues and the tickets it releases, and never refuses a
 * transfer. */
#ifndef STRATA_TEST_MEMSIDE_FAKE_SHELL_H
#define STRATA_TEST_MEMSIDE_FAKE_SHELL_H
#include "memside/memside.h"

typedef struct fake_shell {
  memside_xfer x[1024];
  int n;
  uint32_t released[1024];
  int nrel;
} fake_shell;

static inline int fake_issue(void *ctx, const memside_xfer *x) {
  fake_shell *f = (fake_shell *)ctx;
  f->x[f->n++] = *x;
  return 0;
}

static inline void fake_release(void *ctx, uint32_t ticket) {
  fake_shell *f = (fake_shell *)ctx;
  f->released[f->nrel++] = ticket;
}

#endif
