#if defined(__linux__)
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise */
#include <sys/mman.h>
#endif
#include "bstore.h"

#include <stdlib.h>
#include <string.h>

/* Slabs: 2 MiB (one x86-64 huge page), aligned to 2 MiB so the kernel can
 * back them with transparent huge pages. Anonymous mappings are zero-filled. */
#define SLAB_BYTES ((size_t)2 << 20)
#define SLAB_PAGES (SLAB_BYTES / BSTORE_PAGE_BYTES)

static void *slab_alloc(void) {
#if defined(__linux__)
  /* Map one slab more than needed and trim to a 2 MiB boundary. */
  unsigned char *m = mmap(NULL, 2 * SLAB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return NULL;
  const size_t head = (SLAB_BYTES - ((uintptr_t)m & (SLAB_BYTES - 1))) & (SLAB_BYTES - 1);
  if (head) munmap(m, head);
  munmap(m + head + SLAB_BYTES, SLAB_BYTES - head);
  m += head;
#ifdef MADV_HUGEPAGE
  madvise(m, SLAB_BYTES, MADV_HUGEPAGE); /* advice only: ignored where THP is off */
#endif
  return m;
#else
  return calloc(1, SLAB_BYTES);
#endif
}

static void slab_free(void *p) {
#if defined(__linux__)
  munmap(p, SLAB_BYTES);
#else
  free(p);
#endif
}

/* A zero-filled page from the current slab (a new slab when it is used up). */
static unsigned char *page_alloc(bstore *s) {
  if (s->slab_left == 0) {
    if (s->nslabs == s->slabs_cap) {
      const size_t ncap = s->slabs_cap ? 2 * s->slabs_cap : 16;
      void **n = realloc(s->slabs, ncap * sizeof *n);
      if (!n) return NULL;
      s->slabs = n;
      s->slabs_cap = ncap;
    }
    unsigned char *slab = slab_alloc();
    if (!slab) return NULL;
    s->slabs[s->nslabs++] = slab;
    s->slab = slab;
    s->slab_left = SLAB_PAGES;
  }
  unsigned char *p = s->slab;
  s->slab += BSTORE_PAGE_BYTES;
  s->slab_left--;
  return p;
}

static size_t slot_of(uint64_t pn, size_t cap) {
  uint64_t h = pn * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
  return (size_t)(h >> 17) & (cap - 1);
}

int bstore_init(bstore *s) {
  s->cap = 1024;
  s->used = 0;
  s->slots = calloc(s->cap, sizeof *s->slots);
  s->last_pn = UINT64_MAX;
  s->last = NULL;
  s->slab = NULL;
  s->slab_left = 0;
  s->slabs = NULL;
  s->nslabs = s->slabs_cap = 0;
  return s->slots ? 0 : -1;
}

void bstore_free(bstore *s) {
  for (size_t i = 0; i < s->nslabs; ++i) slab_free(s->slabs[i]);
  free(s->slabs);
  free(s->slots);
  s->slots = NULL;
  s->cap = s->used = 0;
  s->last = NULL;
  s->last_pn = UINT64_MAX;
  s->slab = NULL;
  s->slab_left = 0;
  s->slabs = NULL;
  s->nslabs = s->slabs_cap = 0;
}

static unsigned char *find(bstore *s, uint64_t pn) {
  if (pn == s->last_pn) return s->last;
  size_t i = slot_of(pn, s->cap);
  while (s->slots[i].bytes) {
    if (s->slots[i].pn == pn) {
      s->last_pn = pn;
      s->last = s->slots[i].bytes;
      return s->last;
    }
    i = (i + 1) & (s->cap - 1);
  }
  return NULL;
}

static int grow(bstore *s) {
  size_t ncap = s->cap * 2;
  bstore_page *n = calloc(ncap, sizeof *n);
  if (!n) return -1;
  for (size_t i = 0; i < s->cap; ++i) {
    if (!s->slots[i].bytes) continue;
    size_t j = slot_of(s->slots[i].pn, ncap);
    while (n[j].bytes) j = (j + 1) & (ncap - 1);
    n[j] = s->slots[i];
  }
  free(s->slots);
  s->slots = n;
  s->cap = ncap;
  return 0;
}

static unsigned char *find_or_add(bstore *s, uint64_t pn) {
  unsigned char *p = find(s, pn);
  if (p) return p;
  if ((s->used + 1) * 4 > s->cap * 3 && grow(s) != 0) return NULL; /* load factor <= 0.75 */
  p = page_alloc(s);
  if (!p) return NULL;
  size_t i = slot_of(pn, s->cap);
  while (s->slots[i].bytes) i = (i + 1) & (s->cap - 1);
  s->slots[i].pn = pn;
  s->slots[i].bytes = p;
  s->used++;
  s->last_pn = pn;
  s->last = p;
  return p;
}

void bstore_read(bstore *s, uint64_t addr, void *out, size_t len) {
  unsigned char *o = out;
  while (len) {
    uint64_t pn = addr >> BSTORE_PAGE_BITS;
    size_t off = (size_t)(addr & (BSTORE_PAGE_BYTES - 1));
    size_t n = BSTORE_PAGE_BYTES - off;
    if (n > len) n = len;
    const unsigned char *p = find(s, pn);
    if (p)
      memcpy(o, p + off, n);
    else
      memset(o, 0, n);
    o += n;
    addr += n;
    len -= n;
  }
}

int bstore_write(bstore *s, uint64_t addr, const void *in, size_t len) {
  const unsigned char *i = in;
  while (len) {
    uint64_t pn = addr >> BSTORE_PAGE_BITS;
    size_t off = (size_t)(addr & (BSTORE_PAGE_BYTES - 1));
    size_t n = BSTORE_PAGE_BYTES - off;
    if (n > len) n = len;
    unsigned char *p = find_or_add(s, pn);
    if (!p) return -1;
    memcpy(p + off, i, n);
    i += n;
    addr += n;
    len -= n;
  }
  return 0;
}

int bstore_write_masked(bstore *s, uint64_t line_addr, const unsigned char *line, const uint64_t mask[2]) {
  if ((mask[0] | mask[1]) == 0) return 0;
  unsigned char *p = find_or_add(s, line_addr >> BSTORE_PAGE_BITS);
  if (!p) return -1;
  p += line_addr & (BSTORE_PAGE_BYTES - 1);
  for (unsigned w = 0; w < 2; ++w) {
    uint64_t m = mask[w];
    if (m == UINT64_MAX) {
      memcpy(p + 64 * w, line + 64 * w, 64);
      continue;
    }
    while (m) {
      unsigned b = (unsigned)__builtin_ctzll(m);
      p[64 * w + b] = line[64 * w + b];
      m &= m - 1;
    }
  }
  return 0;
}

size_t bstore_footprint(const bstore *s) { return s->used * BSTORE_PAGE_BYTES + s->cap * sizeof *s->slots; }

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

int bstore_foreach(bstore *s, bstore_page_fn fn, void *ctx) {
  /* Pages in page-number order, so a walk (and whatever it writes elsewhere)
   * does not depend on the hash table's layout. */
  uint64_t *pns = malloc((s->used ? s->used : 1) * sizeof *pns);
  if (!pns) return -1;
  size_t n = 0;
  for (size_t i = 0; i < s->cap; ++i)
    if (s->slots[i].bytes) pns[n++] = s->slots[i].pn;
  qsort(pns, n, sizeof *pns, cmp_u64);
  for (size_t i = 0; i < n; ++i) fn(ctx, pns[i] << BSTORE_PAGE_BITS, find(s, pns[i]));
  free(pns);
  return 0;
}
