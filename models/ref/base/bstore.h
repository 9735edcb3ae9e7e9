/* bstore: sparse byte-addressable backing store (functional memory).
 *
 * Holds the data of a large physical address space and costs only what is
 * touched: 4 KiB pages allocated on first write, found through an
 * open-addressing hash of page numbers with a one-entry lookup cache.
 * Untouched bytes read as zero. Used for device contents and for the golden
 * memory of the --check mode.
 *
 * Allocation happens only when a page is first written (not per request).
 * Pages are carved in first-write order out of zero-filled 2 MiB slabs, which
 * the host backs with transparent huge pages where it can (Linux): a store of
 * tens of MiB then costs a few dozen page faults instead of one per 4 KiB page
 * (faults dominated the host time of filling the stores, above all in VMs).
 * A store therefore holds up to one partly used slab more than it touched.
 */
#ifndef STRATA_BSTORE_H
#define STRATA_BSTORE_H
#include <stddef.h>
#include <stdint.h>

#define BSTORE_PAGE_BITS 12u
#define BSTORE_PAGE_BYTES (1u << BSTORE_PAGE_BITS)

typedef struct bstore_page {
  uint64_t pn;              /* page number (addr >> BSTORE_PAGE_BITS) */
  unsigned char *bytes;     /* BSTORE_PAGE_BYTES bytes */
} bstore_page;

typedef struct bstore {
  bstore_page *slots;       /* hash table, capacity power of two; bytes==NULL = empty */
  size_t cap, used;
  uint64_t last_pn;         /* one-entry lookup cache */
  unsigned char *last;
  unsigned char *slab;      /* current slab: its next free page */
  size_t slab_left;         /* pages left in the current slab */
  void **slabs;             /* every slab (for bstore_free) */
  size_t nslabs, slabs_cap;
} bstore;

/* Initialise an empty store. Returns 0, or -1 when out of memory. */
int bstore_init(bstore *s);
/* Free every page. The store can be re-initialised afterwards. */
void bstore_free(bstore *s);
/* Copy len bytes at addr into out (zeros where never written). */
void bstore_read(bstore *s, uint64_t addr, void *out, size_t len);
/* Write len bytes at addr. Returns 0, or -1 when out of memory. */
int bstore_write(bstore *s, uint64_t addr, const void *in, size_t len);
/* Write the bytes of a 128-byte line whose bit b of mask[b/64] is set.
 * line_addr must be 128-byte aligned. Returns 0 or -1 (out of memory). */
int bstore_write_masked(bstore *s, uint64_t line_addr, const unsigned char *line, const uint64_t mask[2]);
/* Call fn(ctx, page address, its BSTORE_PAGE_BYTES bytes) for every page
 * written so far, in address order (set-up work, e.g. loading a program's
 * initial data into the devices; allocates a temporary list). The store must
 * not change during the walk. Returns 0, or -1 when out of memory. */
typedef void (*bstore_page_fn)(void *ctx, uint64_t addr, const unsigned char *bytes);
int bstore_foreach(bstore *s, bstore_page_fn fn, void *ctx);
/* Bytes of host memory held by pages (for memory-use reports). */
size_t bstore_footprint(const bstore *s);

#endif
