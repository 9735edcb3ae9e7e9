#include "addrmap.h"

#include <stdio.h>
#include <string.h>

static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }
static uint8_t log2u(uint32_t x) {
  uint8_t s = 0;
  while ((1u << s) < x) ++s;
  return s;
}

static int parse_field(const char *tok, size_t n) {
  static const char *names[] = {"off", "col", "ch", "ra", "bg", "ba", "row"};
  for (int i = 0; i < 7; ++i)
    if (strlen(names[i]) == n && strncmp(tok, names[i], n) == 0) return i;
  return -1;
}

/* Defined with the decoders below. */
static inline uint32_t fold(uint64_t x, unsigned bits);

/* Fast path set-up: when every counted digit is a power of two, each field is
 * a bit slice of the address and the column is the concatenation of its pieces
 * (low piece first), so decoding needs no loop over digits and no division.
 * With hashing, fold(row >> salt, b) is linear over GF(2) in the row bits, so
 * the three folds together are the XOR of one precomputed table entry per row
 * byte (at most 8 lookups instead of up to 64/b slice steps per field). */
static void precompute_fast(amap *m) {
  unsigned pos = 0, colbits = 0;
  m->fast = 1;
  for (unsigned i = 0; i < m->ndigits; ++i) {
    const amap_digit *d = &m->digit[i];
    if (d->field == AMAP_ROW) {
      m->row_pos = (uint8_t)pos;
      break;
    }
    if (!d->pow2 || pos + d->shift > 63) {
      m->fast = 0;
      return;
    }
    const uint64_t mask = (1ull << d->shift) - 1;
    switch (d->field) {
      case AMAP_COL:
        m->col_pos[m->ncol] = (uint8_t)pos;
        m->col_out[m->ncol] = (uint8_t)colbits;
        m->col_mask[m->ncol] = mask;
        m->ncol++;
        colbits += d->shift;
        break;
      case AMAP_CH:
      case AMAP_RA:
      case AMAP_BG:
      case AMAP_BA:
        m->fpos[d->field - AMAP_CH] = (uint8_t)pos;
        m->fmask[d->field - AMAP_CH] = mask;
        if (d->field == AMAP_CH) {
          m->has_ch = 1;
          m->above_ch_pos = (uint8_t)(pos + d->shift);
        }
        break;
      default: break;
    }
    pos += d->shift;
  }
  m->lpc_pow2 = (uint8_t)is_pow2(m->l2_per_channel);
  if (!m->hash) return;
  const uint32_t cnt[3] = {m->channels, m->bankgroups, m->banks};
  for (unsigned k = 0; k < 3; ++k)
    if (cnt[k] > 1 && (!is_pow2(cnt[k]) || cnt[k] > 1024u)) { /* 10-bit table fields */
      m->fast = 0;
      return;
    }
  m->row_bytes_n = (uint8_t)((64 - m->row_pos + 7) / 8);
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned v = 0; v < 256; ++v) {
      const uint64_t row = (uint64_t)v << (8 * j);
      uint32_t e = 0;
      for (unsigned k = 0; k < 3; ++k)
        if (cnt[k] > 1) e |= fold(row >> k, log2u(cnt[k])) << (10 * k);
      m->hash_tab[j][v] = e;
    }
}

int amap_init(amap *m, const char *layout, uint32_t channels, uint32_t ranks, uint32_t bankgroups,
              uint32_t banks_per_group, uint32_t row_bytes, uint32_t l2_per_channel, int hash,
              char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  m->channels = channels;
  m->ranks = ranks;
  m->bankgroups = bankgroups;
  m->banks = banks_per_group;
  m->l2_per_channel = l2_per_channel ? l2_per_channel : 1;
  m->hash = hash;
  uint32_t seen[7] = {0};
  uint64_t colprod = 1;
  const char *p = layout;
  int have_row = 0;
  while (*p) {
    while (*p == ' ' || *p == '\t') ++p;
    if (!*p) break;
    if (have_row) {
      snprintf(err, errlen, "layout '%s': 'row' must be the last field", layout);
      return -1;
    }
    const char *t = p;
    while (*p && *p != ':' && *p != ' ') ++p;
    int f = parse_field(t, (size_t)(p - t));
    if (f < 0) {
      snprintf(err, errlen, "layout '%s': unknown field '%.*s' (expected off, col, ch, ra, bg, ba, row)", layout,
               (int)(p - t), t);
      return -1;
    }
    uint32_t radix = 0;
    if (f == AMAP_ROW) {
      if (*p == ':') {
        snprintf(err, errlen, "layout '%s': 'row' takes no count", layout);
        return -1;
      }
      have_row = 1;
    } else {
      if (*p != ':') {
        snprintf(err, errlen, "layout '%s': field '%.*s' needs a count (name:count)", layout, (int)(p - t), t);
        return -1;
      }
      ++p;
      unsigned long v = 0;
      int nd = 0;
      while (*p >= '0' && *p <= '9' && nd < 10) v = v * 10 + (unsigned long)(*p++ - '0'), ++nd;
      if (nd == 0 || v == 0 || v > 0x40000000ul) {
        snprintf(err, errlen, "layout '%s': field '%.*s' needs a positive count", layout, (int)(p - t), t);
        return -1;
      }
      radix = (uint32_t)v;
      if (f != AMAP_COL && seen[f]) {
        snprintf(err, errlen, "layout '%s': field '%.*s' appears twice", layout, (int)(p - t - 1 - nd), t);
        return -1;
      }
    }
    if (m->ndigits == AMAP_MAX_DIGITS) {
      snprintf(err, errlen, "layout '%s': more than %d fields", layout, AMAP_MAX_DIGITS);
      return -1;
    }
    amap_digit *d = &m->digit[m->ndigits++];
    d->field = (uint8_t)f;
    d->radix = radix;
    d->pow2 = (uint8_t)(radix ? is_pow2(radix) : 1);
    d->shift = (uint8_t)(radix ? log2u(radix) : 0);
    if (f == AMAP_COL) colprod *= radix;
    if (f == AMAP_OFF) m->atom_bytes = radix;
    seen[f] = seen[f] ? seen[f] * radix : (radix ? radix : 1);
  }
  if (!have_row) {
    snprintf(err, errlen, "layout '%s': must end with 'row'", layout);
    return -1;
  }
  if (!seen[AMAP_OFF] || m->digit[0].field != AMAP_OFF) {
    snprintf(err, errlen, "layout '%s': must start with 'off:<bytes per column access>'", layout);
    return -1;
  }
  const struct { int f; uint32_t want; const char *name, *what; } chk[] = {
      {AMAP_CH, channels, "ch", "channels"}, {AMAP_RA, ranks, "ra", "ranks"},
      {AMAP_BG, bankgroups, "bg", "bank groups"}, {AMAP_BA, banks_per_group, "ba", "banks per bank group"}};
  for (unsigned i = 0; i < 4; ++i) {
    uint32_t got = seen[chk[i].f] ? seen[chk[i].f] : 1;
    if (got != chk[i].want) {
      snprintf(err, errlen, "layout '%s': %s field count %u does not match the geometry (%u %s)", layout, chk[i].name, got, chk[i].want, chk[i].what);
      return -1;
    }
  }
  if (colprod * m->atom_bytes != row_bytes) {
    snprintf(err, errlen, "layout '%s': off x col counts give %llu-byte rows, geometry says %u", layout,
             (unsigned long long)(colprod * m->atom_bytes), row_bytes);
    return -1;
  }
  m->columns = (uint32_t)colprod;
  precompute_fast(m);
  return 0;
}

int amap_default_layout(char *buf, size_t len, uint32_t atom_bytes, uint32_t row_bytes, uint32_t channels,
                        uint32_t ranks, uint32_t bankgroups, uint32_t banks_per_group) {
  if (!buf || !len || !atom_bytes || !row_bytes || row_bytes % atom_bytes || !channels || !ranks || !bankgroups ||
      !banks_per_group)
    return -1;
  const uint32_t cols = row_bytes / atom_bytes;
  uint32_t low = atom_bytes >= 128 ? 1 : 128 / atom_bytes; /* columns of one 128 B line */
  while (low > 1 && cols % low) low /= 2;
  const uint32_t high = cols / low;
  int n = snprintf(buf, len, "off:%u", atom_bytes);
  size_t used = n > 0 ? (size_t)n : len;
#define ADD_(name, count)                                                          \
  do {                                                                             \
    if ((count) > 1 && used < len) {                                               \
      n = snprintf(buf + used, len - used, " %s:%u", name, (unsigned)(count));     \
      used += n > 0 ? (size_t)n : len;                                             \
    }                                                                              \
  } while (0)
  ADD_("col", low);
  ADD_("ch", channels);
  ADD_("bg", bankgroups);
  ADD_("col", high);
  ADD_("ba", banks_per_group);
  ADD_("ra", ranks);
#undef ADD_
  if (used < len) {
    n = snprintf(buf + used, len - used, " row");
    used += n > 0 ? (size_t)n : len;
  }
  return used < len ? 0 : -1;
}

int amap_add_region(amap *m, uint64_t base, uint64_t size, unsigned mem) {
  if (m->nregions == AMAP_MAX_REGIONS) return -1;
  m->region[m->nregions].base = base;
  m->region[m->nregions].size = size;
  m->region[m->nregions].mem = (uint8_t)mem;
  m->nregions++;
  return 0;
}

static inline uint64_t take(const amap_digit *d, uint64_t *q) {
  uint64_t v;
  if (d->pow2) {
    v = *q & ((1ull << d->shift) - 1);
    *q >>= d->shift;
  } else {
    v = *q % d->radix;
    *q /= d->radix;
  }
  return v;
}

/* XOR of all `bits`-wide slices of x: every row bit influences the result, so
 * arrays a power-of-two number of rows apart still land in different banks. */
static inline uint32_t fold(uint64_t x, unsigned bits) {
  uint64_t r = 0;
  const uint64_t m = (1ull << bits) - 1;
  while (x) {
    r ^= x & m;
    x >>= bits;
  }
  return (uint32_t)r;
}

static inline uint32_t permute(uint32_t v, uint32_t count, uint64_t row, unsigned salt) {
  if (count <= 1) return v;
  if (is_pow2(count)) return (v ^ fold(row >> salt, log2u(count))) & (count - 1);
  /* not a power of two: rotate by a multiplicative hash of the row */
  const uint64_t h = (row + salt) * 0x9E3779B97F4A7C15ull;
  return (uint32_t)((v + (h >> 32) % count) % count);
}

/* Reference decode: successive div/mod over the digits (any radix). */
static void decode_slow(const amap *m, uint64_t pa, amap_loc *o) {
  uint64_t q = pa;
  uint32_t col = 0, colmul = 1;
  uint64_t above_ch = 0;
  memset(o, 0, sizeof *o);
  for (unsigned i = 0; i < m->ndigits; ++i) {
    const amap_digit *d = &m->digit[i];
    if (d->field == AMAP_ROW) {
      o->row = q;
      break;
    }
    uint64_t v = take(d, &q);
    switch (d->field) {
      case AMAP_COL: col += (uint32_t)v * colmul; colmul *= d->radix; break;
      case AMAP_CH: o->ch = (uint32_t)v; above_ch = q; break;
      case AMAP_RA: o->ra = (uint32_t)v; break;
      case AMAP_BG: o->bg = (uint32_t)v; break;
      case AMAP_BA: o->ba = (uint32_t)v; break;
      default: break;
    }
  }
  o->col = col;
  if (m->hash) {
    o->ch = permute(o->ch, m->channels, o->row, 0);
    o->bg = permute(o->bg, m->bankgroups, o->row, 1);
    o->ba = permute(o->ba, m->banks, o->row, 2);
  }
  o->l2_bank = o->ch * m->l2_per_channel + (uint32_t)(above_ch % m->l2_per_channel);
}

/* Fast path helpers (m->fast): field k of {ch, ra, bg, ba}; hashed field k of {ch, bg, ba}. */
static inline uint32_t fslice(const amap *m, uint64_t pa, unsigned k) {
  return (uint32_t)((pa >> m->fpos[k]) & m->fmask[k]);
}
static inline uint32_t frowhash(const amap *m, uint64_t row) {
  uint32_t h = 0;
  for (unsigned j = 0; j < m->row_bytes_n; ++j) h ^= m->hash_tab[j][(row >> (8 * j)) & 0xff];
  return h;
}
static inline uint32_t fbank(const amap *m, uint64_t pa, uint32_t ch) {
  const uint64_t above = m->has_ch ? pa >> m->above_ch_pos : 0;
  const uint32_t lo = m->lpc_pow2 ? (uint32_t)(above & (m->l2_per_channel - 1)) : (uint32_t)(above % m->l2_per_channel);
  return ch * m->l2_per_channel + lo;
}

void amap_decode(const amap *m, uint64_t pa, amap_loc *o) {
  if (!m->fast) {
    decode_slow(m, pa, o);
    return;
  }
  uint32_t col = 0;
  for (unsigned i = 0; i < m->ncol; ++i) col |= (uint32_t)((pa >> m->col_pos[i]) & m->col_mask[i]) << m->col_out[i];
  const uint64_t row = pa >> m->row_pos;
  uint32_t ch = fslice(m, pa, 0), bg = fslice(m, pa, 2), ba = fslice(m, pa, 3);
  if (m->hash) { /* counts of 1 have fold 0 and mask 0: the value stays 0 */
    const uint32_t h = frowhash(m, row);
    ch = (ch ^ h) & (m->channels - 1);
    bg = (bg ^ (h >> 10)) & (m->bankgroups - 1);
    ba = (ba ^ (h >> 20)) & (m->banks - 1);
  }
  o->ch = ch;
  o->ra = fslice(m, pa, 1);
  o->bg = bg;
  o->ba = ba;
  o->col = col;
  o->row = row;
  o->l2_bank = fbank(m, pa, ch);
}

uint32_t amap_channel(const amap *m, uint64_t pa) {
  if (m->fast) {
    const uint32_t ch = fslice(m, pa, 0);
    return m->hash ? (ch ^ frowhash(m, pa >> m->row_pos)) & (m->channels - 1) : ch;
  }
  amap_loc l;
  decode_slow(m, pa, &l);
  return l.ch;
}

uint32_t amap_l2_bank(const amap *m, uint64_t pa) {
  if (m->fast) {
    uint32_t ch = fslice(m, pa, 0);
    if (m->hash) ch = (ch ^ frowhash(m, pa >> m->row_pos)) & (m->channels - 1);
    return fbank(m, pa, ch);
  }
  amap_loc l;
  decode_slow(m, pa, &l);
  return l.l2_bank;
}

unsigned amap_mem_type(const amap *m, uint64_t pa) {
  for (unsigned i = 0; i < m->nregions; ++i)
    if (pa - m->region[i].base < m->region[i].size) return m->region[i].mem;
  return AMAP_MEM_DRAM;
}
