#include "addrmap.h"

#include <stdio.h>
#include <string.h>

static int is_pow2(uint32_t x) { return x && !(x & (x - 1)); }
static uint8_t log2u(uint32_t x) {
  uint8_t s = 0;
  while ((1u << s) < x) ++s;
  return s;
}

#define AMAP_NFIELDS 9
static int parse_field(const char *tok, size_t n) {
  static const char *names[AMAP_NFIELDS] = {"off", "col", "ch", "ra", "bg", "ba", "row", "st", "va"};
  for (int i = 0; i < AMAP_NFIELDS; ++i)
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
static void precompute_fast(amap_dec *m) {
  unsigned pos = 0, colbits = 0;
  uint8_t src = 0; /* 0: a slice of pa; 1: of the quotient above a non-power-of-two channel digit */
  m->fast = 1;
  for (unsigned i = 0; i < m->ndigits; ++i) {
    const amap_digit *d = &m->digit[i];
    if (d->field == AMAP_ROW) {
      m->row_pos = (uint8_t)pos;
      m->row_src = src;
      break;
    }
    if (!d->pow2 && d->field == AMAP_CH && !src && pos < 64) {
      /* the split fast path: the channel by one division, the fields above from its quotient */
      m->split = 1;
      m->split_pos = (uint8_t)pos;
      m->split_radix = d->radix;
      m->has_ch = 1;
      src = 1;
      pos = 0;
      continue;
    }
    if (!d->pow2 || pos + d->shift > 63) {
      m->fast = 0;
      m->split = 0;
      return;
    }
    const uint64_t mask = (1ull << d->shift) - 1;
    switch (d->field) {
      case AMAP_COL:
        m->col_pos[m->ncol] = (uint8_t)pos;
        m->col_out[m->ncol] = (uint8_t)colbits;
        m->col_mask[m->ncol] = mask;
        m->col_src[m->ncol] = src;
        m->ncol++;
        colbits += d->shift;
        break;
      case AMAP_CH:
      case AMAP_VA: /* the channel's low part (stacked: the vault) */
        m->fpos[0] = (uint8_t)pos;
        m->fmask[0] = mask;
        m->has_ch = 1;
        m->above_ch_pos = (uint8_t)(pos + d->shift); /* stacked: above whichever of st, va comes last */
        break;
      case AMAP_ST:
        m->st_pos = (uint8_t)pos;
        m->st_mask = mask;
        m->has_ch = 1;
        m->above_ch_pos = (uint8_t)(pos + d->shift);
        break;
      case AMAP_RA:
      case AMAP_BG:
      case AMAP_BA:
        m->fpos[d->field - AMAP_CH] = (uint8_t)pos;
        m->fmask[d->field - AMAP_CH] = mask;
        m->fsrc[d->field - AMAP_CH] = src;
        break;
      default: break;
    }
    pos += d->shift;
  }
  m->lpc_pow2 = (uint8_t)is_pow2(m->l2_per_channel);
  m->st_out = log2u(m->vaults);
  m->vault_shift = log2u(m->vaults);
  if (!m->hash) return;
  const uint32_t cnt[3] = {m->channels, m->bankgroups, m->banks};
  for (unsigned k = m->split ? 1 : 0; k < 3; ++k) /* split: the channel rotates by the multiplicative hash */
    if (cnt[k] > 1 && (!is_pow2(cnt[k]) || cnt[k] > 1024u)) { /* 10-bit table fields */
      m->fast = 0;
      m->split = 0;
      return;
    }
  const unsigned row_bits = 64 - m->row_pos - (m->row_src ? m->split_pos : 0);
  m->row_bytes_n = (uint8_t)((row_bits + 7) / 8);
  for (unsigned j = 0; j < 8; ++j)
    for (unsigned v = 0; v < 256; ++v) {
      const uint64_t row = (uint64_t)v << (8 * j);
      uint32_t e = 0;
      for (unsigned k = m->split ? 1 : 0; k < 3; ++k)
        if (cnt[k] > 1) e |= fold(row >> k, log2u(cnt[k])) << (10 * k);
      m->hash_tab[j][v] = e;
    }
}

/* Parse a layout into a decoder (see amap_init). */
static int dec_init(amap_dec *m, const char *layout, uint32_t channels, uint32_t ranks, uint32_t bankgroups,
                    uint32_t banks_per_group, uint32_t row_bytes, uint32_t l2_per_channel, int hash, char *err,
                    size_t errlen) {
  memset(m, 0, sizeof *m);
  m->channels = channels;
  m->ranks = ranks;
  m->bankgroups = bankgroups;
  m->banks = banks_per_group;
  m->l2_per_channel = l2_per_channel ? l2_per_channel : 1;
  m->hash = hash;
  uint32_t seen[AMAP_NFIELDS] = {0};
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
      snprintf(err, errlen, "layout '%s': unknown field '%.*s' (expected off, col, ch, st, va, ra, bg, ba, row)", layout,
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
  m->stacked = (uint8_t)(seen[AMAP_ST] || seen[AMAP_VA]);
  if (m->stacked && seen[AMAP_CH]) {
    snprintf(err, errlen, "layout '%s': 'ch' and 'st'/'va' both give the channel (use ch:N, or st:S va:V for S "
             "stacks of V vaults)", layout);
    return -1;
  }
  m->stacks = seen[AMAP_ST] ? seen[AMAP_ST] : 1;
  m->vaults = seen[AMAP_VA] ? seen[AMAP_VA] : 1;
  if (m->stacked && (uint64_t)m->stacks * m->vaults != channels) {
    snprintf(err, errlen, "layout '%s': st x va counts give %llu channels (%u stacks x %u vaults), geometry has %u "
             "channels", layout, (unsigned long long)m->stacks * m->vaults, m->stacks, m->vaults, channels);
    return -1;
  }
  if (!m->stacked) m->vaults = channels ? channels : 1;
  const struct { int f; uint32_t want; const char *name, *what; } chk[] = {
      {AMAP_CH, channels, "ch", "channels"}, {AMAP_RA, ranks, "ra", "ranks"},
      {AMAP_BG, bankgroups, "bg", "bank groups"}, {AMAP_BA, banks_per_group, "ba", "banks per bank group"}};
  for (unsigned i = m->stacked ? 1 : 0; i < 4; ++i) {
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

int amap_init(amap *m, const char *layout, uint32_t channels, uint32_t ranks, uint32_t bankgroups,
              uint32_t banks_per_group, uint32_t row_bytes, uint32_t l2_per_channel, int hash,
              char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  if (dec_init(&m->d, layout, channels, ranks, bankgroups, banks_per_group, row_bytes, l2_per_channel, hash, err,
               errlen) != 0)
    return -1;
  m->channels = channels;
  m->ranks = ranks;
  m->bankgroups = bankgroups;
  m->banks = banks_per_group;
  m->columns = m->d.columns;
  m->atom_bytes = m->d.atom_bytes;
  m->l2_per_channel = m->d.l2_per_channel;
  m->stacks = m->d.stacks;
  m->vaults = m->d.vaults;
  m->part_channels = 1;
  m->hash = hash;
  return 0;
}

int amap_set_partition_channels(amap *m, uint32_t k, char *err, size_t errlen) {
  if (!k || !is_pow2(k) || m->channels % k) {
    if (err && errlen)
      snprintf(err, errlen, "channels per memory partition: expected a power of two dividing the %u channels, got %u",
               m->channels, k);
    return -1;
  }
  m->part_channels = k;
  /* m->d decodes one-part maps (global channels); with parts it is unused as a decoder and its part_shift
   * serves decode_parts (the part decoders number their own channels and keep 0) */
  for (m->d.part_shift = 0; (1u << m->d.part_shift) < k; ++m->d.part_shift) {}
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

void amap_set_mem(amap *m, unsigned mem) { m->mem_default = (uint8_t)mem; }

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
static void decode_slow(const amap_dec *m, uint64_t pa, amap_loc *o) {
  uint64_t q = pa;
  uint32_t col = 0, colmul = 1, st = 0, va = 0;
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
      case AMAP_ST: st = (uint32_t)v; above_ch = q; break;
      case AMAP_VA: va = (uint32_t)v; above_ch = q; break;
      case AMAP_RA: o->ra = (uint32_t)v; break;
      case AMAP_BG: o->bg = (uint32_t)v; break;
      case AMAP_BA: o->ba = (uint32_t)v; break;
      default: break;
    }
  }
  o->col = col;
  if (m->stacked) o->ch = st * m->vaults + va;
  if (m->hash) {
    o->ch = permute(o->ch, m->channels, o->row, 0);
    o->bg = permute(o->bg, m->bankgroups, o->row, 1);
    o->ba = permute(o->ba, m->banks, o->row, 2);
  }
  o->stack = o->ch / m->vaults;
  o->vault = o->ch % m->vaults;
  o->l2_bank = (o->ch >> m->part_shift) * m->l2_per_channel + (uint32_t)(above_ch % m->l2_per_channel);
}

/* Fast path helpers (m->fast): field k of {ch, ra, bg, ba}; hashed field k of {ch, bg, ba}. */
static inline uint32_t fslice(const amap_dec *m, uint64_t pa, unsigned k) {
  return (uint32_t)((pa >> m->fpos[k]) & m->fmask[k]);
}
/* The channel before hashing: the ch slice, or vault | stack << log2(vaults) (st_mask 0 without st). */
static inline uint32_t fchannel(const amap_dec *m, uint64_t pa) {
  return fslice(m, pa, 0) | (uint32_t)((pa >> m->st_pos) & m->st_mask) << m->st_out;
}
static inline uint32_t frowhash(const amap_dec *m, uint64_t row) {
  uint32_t h = 0; /* zero bytes add entry 0 = 0: stop at the last non-zero byte */
  for (unsigned j = 0; row && j < m->row_bytes_n; ++j, row >>= 8) h ^= m->hash_tab[j][row & 0xff];
  return h;
}
static inline uint32_t fbank(const amap_dec *m, uint64_t pa, uint32_t ch) {
  const uint64_t above = m->has_ch ? pa >> m->above_ch_pos : 0;
  const uint32_t lo = m->lpc_pow2 ? (uint32_t)(above & (m->l2_per_channel - 1)) : (uint32_t)(above % m->l2_per_channel);
  return (ch >> m->part_shift) * m->l2_per_channel + lo;
}

/* The split fast path (m->split): one division for the channel digit, slices for the rest; the
 * same result as decode_slow (its rotation of a non-power-of-two channel count included). */
static void decode_split(const amap_dec *m, uint64_t pa, amap_loc *o) {
  const uint64_t q = pa >> m->split_pos;
  uint64_t v[2];
  v[0] = pa;
  v[1] = q / m->split_radix;
  uint32_t ch = (uint32_t)(q - v[1] * m->split_radix);
  uint32_t col = 0;
  for (unsigned i = 0; i < m->ncol; ++i)
    col |= (uint32_t)((v[m->col_src[i]] >> m->col_pos[i]) & m->col_mask[i]) << m->col_out[i];
  const uint64_t row = v[m->row_src] >> m->row_pos;
#define SLICE_(k) ((uint32_t)((v[m->fsrc[k]] >> m->fpos[k]) & m->fmask[k]))
  uint32_t bg = SLICE_(2), ba = SLICE_(3);
  if (m->hash) {
    const uint64_t h = row * 0x9E3779B97F4A7C15ull; /* permute(ch, channels, row, 0) */
    ch = (uint32_t)((ch + (h >> 32) % m->channels) % m->channels);
    const uint32_t t = frowhash(m, row);
    bg = (bg ^ (t >> 10)) & (m->bankgroups - 1);
    ba = (ba ^ (t >> 20)) & (m->banks - 1);
  }
  o->ch = ch;
  o->ra = SLICE_(1);
#undef SLICE_
  o->bg = bg;
  o->ba = ba;
  o->col = col;
  o->row = row;
  const uint32_t lo = m->lpc_pow2 ? (uint32_t)(v[1] & (m->l2_per_channel - 1)) : (uint32_t)(v[1] % m->l2_per_channel);
  o->l2_bank = (ch >> m->part_shift) * m->l2_per_channel + lo;
  o->stack = 0; /* never stacked: vaults = channels */
  o->vault = ch;
}

static inline void dec_decode(const amap_dec *m, uint64_t pa, amap_loc *o) {
  if (!m->fast) {
    decode_slow(m, pa, o);
    return;
  }
  if (m->split) {
    decode_split(m, pa, o);
    return;
  }
  uint32_t col = 0;
  for (unsigned i = 0; i < m->ncol; ++i) col |= (uint32_t)((pa >> m->col_pos[i]) & m->col_mask[i]) << m->col_out[i];
  const uint64_t row = pa >> m->row_pos;
  uint32_t ch = fchannel(m, pa), bg = fslice(m, pa, 2), ba = fslice(m, pa, 3);
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
  o->stack = ch >> m->vault_shift;
  o->vault = ch & (m->vaults - 1);
}

/* The rotation of a scattered round (amap_set_part_scatter): a 64-bit mixing
 * function of the round number (the finaliser of a multiply-xorshift hash),
 * taken modulo the round's block count by the caller. */
static inline uint64_t round_rotation(uint64_t round) {
  uint64_t x = round + 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

int amap_set_part_scatter(amap *m, int on, char *err, size_t errlen) {
  if (on && (!m->nparts || !m->interleave)) {
    snprintf(err, errlen, "scattered parts need interleaved parts (a hybrid map with an interleave block > 0)");
    return -1;
  }
  m->scatter = on ? 1 : 0;
  return 0;
}

/* The part serving `pa` and the part-local address. */
static inline const amap_part *part_of(const amap *m, uint64_t pa, uint64_t *local) {
  if (!m->interleave) {
    for (unsigned k = 0; k + 1 < m->nparts; ++k) {
      const amap_part *P = &m->part[k];
      if (pa - P->base < P->bytes) {
        *local = pa - P->base;
        return P;
      }
    }
    const amap_part *P = &m->part[m->nparts - 1];
    *local = pa - P->base; /* the last part takes every address above (pa < base cannot happen: bases ascend from 0) */
    return P;
  }
  const uint64_t B = m->interleave;
  const uint64_t blk = pa / B, in = pa % B;
  const uint64_t round = blk / m->round_blocks;
  uint64_t j = blk % m->round_blocks;
  if (m->scatter) j = (j + round_rotation(round)) % m->round_blocks;
  unsigned k = 0;
  while (k + 1 < m->nparts && j >= m->part[k].block0 + m->part[k].blocks) ++k;
  const amap_part *P = &m->part[k];
  *local = (round * P->blocks + (j - P->block0)) * B + in;
  return P;
}

static void decode_parts(const amap *m, uint64_t pa, amap_loc *o) {
  uint64_t local;
  const amap_part *P = part_of(m, pa, &local);
  dec_decode(&P->d, local, o);
  const uint32_t gch = P->ch[o->ch];
  /* the same L2 bank offset, in the serving channel's partition (part decoders number their own channels) */
  o->l2_bank = o->l2_bank - o->ch * P->d.l2_per_channel + (gch >> m->d.part_shift) * P->d.l2_per_channel;
  o->ch = gch;
  o->ra = P->ra[o->ra];
  o->stack = 0; /* part layouts have no stack digits (amap_init_parts) */
  o->vault = gch;
}

void amap_decode(const amap *m, uint64_t pa, amap_loc *o) {
  if (m->nparts) {
    decode_parts(m, pa, o);
    return;
  }
  dec_decode(&m->d, pa, o);
}

uint32_t amap_channel(const amap *m, uint64_t pa) {
  const amap_dec *d = &m->d;
  if (m->nparts) {
    amap_loc l;
    decode_parts(m, pa, &l);
    return l.ch;
  }
  if (d->fast && !d->split) {
    const uint32_t ch = fchannel(d, pa);
    return d->hash ? (ch ^ frowhash(d, pa >> d->row_pos)) & (d->channels - 1) : ch;
  }
  amap_loc l;
  dec_decode(d, pa, &l);
  return l.ch;
}

uint32_t amap_l2_bank(const amap *m, uint64_t pa) {
  const amap_dec *d = &m->d;
  if (m->nparts) {
    amap_loc l;
    decode_parts(m, pa, &l);
    return l.l2_bank;
  }
  if (d->fast && !d->split) {
    uint32_t ch = fchannel(d, pa);
    if (d->hash) ch = (ch ^ frowhash(d, pa >> d->row_pos)) & (d->channels - 1);
    return fbank(d, pa, ch);
  }
  amap_loc l;
  dec_decode(d, pa, &l);
  return l.l2_bank;
}

unsigned amap_mem_type(const amap *m, uint64_t pa) {
  if (m->nparts) {
    uint64_t local;
    return part_of(m, pa, &local)->mem;
  }
  for (unsigned i = 0; i < m->nregions; ++i)
    if (pa - m->region[i].base < m->region[i].size) return m->region[i].mem;
  return m->mem_default;
}

static uint64_t dec_chunk(const amap_dec *d) {
  if (d->ndigits >= 2 && d->digit[0].field == AMAP_OFF && d->digit[1].field == AMAP_COL && d->digit[1].radix > 1)
    return (uint64_t)d->digit[0].radix * d->digit[1].radix;
  return 0;
}

uint64_t amap_col_chunk_bytes(const amap *m) {
  if (!m->nparts) return dec_chunk(&m->d);
  uint64_t c = UINT64_MAX;
  for (unsigned k = 0; k < m->nparts; ++k) {
    const uint64_t x = dec_chunk(&m->part[k].d);
    if (x < c) c = x;
  }
  /* parts start at multiples of AMAP_PART_ALIGN: a chunk must not straddle one */
  return c && AMAP_PART_ALIGN % c == 0 ? c : 0;
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
  while (b) {
    const uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int amap_init_parts(amap *m, const amap_part_cfg *parts, unsigned nparts, uint64_t interleave, const char *layout,
                    uint32_t channels, uint32_t ranks, uint32_t bankgroups, uint32_t banks_per_group,
                    uint32_t row_bytes, uint32_t atom_bytes, uint32_t l2_per_channel, int hash, char *err,
                    size_t errlen) {
#define FAIL(...)                                           \
  do {                                                      \
    if (err && errlen) snprintf(err, errlen, __VA_ARGS__);  \
    return -1;                                              \
  } while (0)
  memset(m, 0, sizeof *m);
  if (nparts < 2 || nparts > AMAP_MAX_PARTS) FAIL("memory parts: expected 2..%d, got %u", AMAP_MAX_PARTS, nparts);
  if (channels > AMAP_MAX_CHANNELS || ranks > AMAP_MAX_RANKS)
    FAIL("memory parts: at most %d channels and %d ranks", AMAP_MAX_CHANNELS, AMAP_MAX_RANKS);
  if (interleave % AMAP_PART_ALIGN) FAIL("interleave block %llu: expected a multiple of %d bytes",
                                        (unsigned long long)interleave, AMAP_PART_ALIGN);
  m->channels = channels;
  m->ranks = ranks;
  m->bankgroups = bankgroups;
  m->banks = banks_per_group;
  m->columns = row_bytes / (atom_bytes ? atom_bytes : 1);
  m->atom_bytes = atom_bytes;
  m->l2_per_channel = l2_per_channel ? l2_per_channel : 1;
  m->stacks = 1;
  m->vaults = channels;
  m->part_channels = 1;
  m->hash = hash;
  m->nparts = nparts;
  m->interleave = interleave;
  uint8_t used[AMAP_MAX_CHANNELS][AMAP_MAX_RANKS];
  memset(used, 0, sizeof used);
  uint64_t g = 0, base = 0;
  for (unsigned k = 0; k < nparts; ++k) {
    const amap_part_cfg *c = &parts[k];
    amap_part *P = &m->part[k];
    const char *kn = c->mem == AMAP_MEM_DRAM ? "dram" : c->mem == AMAP_MEM_NVM ? "nvm" : "scm";
    if (c->mem > AMAP_MEM_SCM) FAIL("memory part %u: unknown kind %u", k, c->mem);
    for (unsigned j = 0; j < k; ++j)
      if (parts[j].mem == c->mem) FAIL("memory part %s appears twice", kn);
    if (c->bytes % AMAP_PART_ALIGN)
      FAIL("%s part: size %llu is not a multiple of %d bytes", kn, (unsigned long long)c->bytes, AMAP_PART_ALIGN);
    if (!c->bytes && (interleave || k + 1 < nparts))
      FAIL("%s part: needs a size > 0 (%s)", kn, interleave ? "interleaved parts" : "only the last part may be unbounded");
    if (!c->nch || !c->nra || c->nch > channels || c->nra > ranks)
      FAIL("%s part: served by %u channels x %u ranks, expected 1..%u x 1..%u", kn, c->nch, c->nra, channels, ranks);
    for (uint32_t i = 0; i < c->nch; ++i) {
      if (c->ch[i] >= channels) FAIL("%s part: channel %u out of range", kn, c->ch[i]);
      P->ch[i] = (uint16_t)c->ch[i];
    }
    for (uint32_t i = 0; i < c->nra; ++i) {
      if (c->ra[i] >= ranks) FAIL("%s part: rank %u out of range", kn, c->ra[i]);
      P->ra[i] = (uint8_t)c->ra[i];
    }
    for (uint32_t i = 0; i < c->nch; ++i)
      for (uint32_t j = 0; j < c->nra; ++j) {
        if (used[c->ch[i]][c->ra[j]]) FAIL("%s part: channel %u rank %u already serves another part", kn, c->ch[i], c->ra[j]);
        used[c->ch[i]][c->ra[j]] = 1;
      }
    P->mem = (uint8_t)c->mem;
    P->bytes = c->bytes;
    P->nch = c->nch;
    P->nra = c->nra;
    P->base = base;
    base += c->bytes;
    g = gcd64(g, c->bytes);
    char buf[256];
    const char *lay = layout;
    if (!lay || strcmp(lay, "auto") == 0) {
      if (amap_default_layout(buf, sizeof buf, atom_bytes, row_bytes, c->nch, c->nra, bankgroups, banks_per_group) != 0)
        FAIL("%s part: cannot derive a layout", kn);
      lay = buf;
    }
    char why[200];
    if (dec_init(&P->d, lay, c->nch, c->nra, bankgroups, banks_per_group, row_bytes, l2_per_channel, hash, why,
                 sizeof why) != 0)
      FAIL("%s part (%u channels x %u ranks): %s", kn, c->nch, c->nra, why);
    if (P->d.stacked)
      FAIL("%s part: stack and vault digits (st, va) need a map of one memory kind; use ch:%u", kn, c->nch);
    if (P->d.atom_bytes != atom_bytes) FAIL("%s part: layout must start with off:%u", kn, atom_bytes);
  }
  if (interleave) {
    uint64_t b0 = 0;
    for (unsigned k = 0; k < nparts; ++k) {
      m->part[k].blocks = m->part[k].bytes / g;
      m->part[k].block0 = b0;
      b0 += m->part[k].blocks;
    }
    if (b0 > 4096)
      FAIL("interleaved parts: the sizes' ratio needs %llu blocks per round (at most 4096; make the sizes "
           "simpler multiples of each other)", (unsigned long long)b0);
    m->round_blocks = b0;
  }
  return 0;
#undef FAIL
}
