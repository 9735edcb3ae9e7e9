/* memside_plain: flat memory. Every physical line stays where the static map
 * puts it (memside_static_locate); no transfers of its own. The memory side of
 * every baseline configuration. */
#include "memside.h"

typedef struct plain_st {
  memside_cfg cfg;
} plain_st;

static size_t plain_state_bytes(const memside_cfg *cfg) {
  (void)cfg;
  return sizeof(plain_st);
}

static int plain_init(void *st, const memside_cfg *cfg, const memside_env *env, char *err, size_t errlen) {
  (void)env;
  plain_st *s = (plain_st *)st;
  s->cfg = *cfg;
  return memside_check_map(cfg, err, errlen);
}

static void plain_locate(const void *st, uint64_t pa, memside_target *out) {
  memside_static_locate(&((const plain_st *)st)->cfg, pa, out);
}

static int plain_route(void *st, const memside_req *rq, uint32_t *ticket, memside_target *out) {
  (void)ticket;
  memside_static_locate(&((const plain_st *)st)->cfg, rq->pa, out);
  return MEMSIDE_GO;
}

/* The kind of the map's part holding pa, which is the kind of the rank the
 * map decodes it to (addrmap.h: each part over ranks of its kind). */
static unsigned plain_kind_of(const void *st, uint64_t pa) {
  return amap_mem_type(((const plain_st *)st)->cfg.map, pa);
}

const memside_ops memside_plain_ops = {
    .name = "plain",
    .desc = "flat memory: every line where the static address map puts it",
    .state_bytes = plain_state_bytes,
    .init = plain_init,
    .locate = plain_locate,
    .route = plain_route,
    .kind_of = plain_kind_of,
    .warm_free = 1, /* nothing moves: the fast-forward leaves nothing cold here */
};
