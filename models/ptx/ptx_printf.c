/* Kernel printf (docs/ptx.md "Kernel printf"): clang lowers a device printf(fmt, ...) to
 * vprintf(fmt, buf), where buf holds the arguments after the default promotions (char and short
 * to int, float to double), each at the next offset aligned to its own size (4 or 8 bytes), as
 * the CUDA C++ Programming Guide describes the format's arguments. This file formats one
 * thread's call: it reads the format and the arguments through the caller's reader (generic
 * addresses of the thread), formats each conversion with the host's snprintf and hands the text
 * to the caller's writer in pieces. No allocation: fixed buffers on the stack. */
#include <stdio.h>

#include "ptx_impl.h"

#define FMT_MAX 4096u /* bytes of a format string, and of one %s argument */
#define OUT_CHUNK 1024u

typedef struct out_buf {
  char b[OUT_CHUNK];
  size_t n;
  void (*put)(void *ctx, const char *s, size_t n);
  void *ctx;
} out_buf;

static void out_flush(out_buf *o) {
  if (o->n && o->put) o->put(o->ctx, o->b, o->n);
  o->n = 0;
}

static void out_add(out_buf *o, const char *s, size_t n) {
  while (n) {
    size_t k = OUT_CHUNK - o->n < n ? OUT_CHUNK - o->n : n;
    memcpy(o->b + o->n, s, k);
    o->n += k, s += k, n -= k;
    if (o->n == OUT_CHUNK) out_flush(o);
  }
}

/* a NUL-terminated string of the device into dst (at most FMT_MAX - 1 characters): its length,
 * -1 for an unreadable byte, -2 when longer */
static long read_str(ptx_printf_read rd, void *rctx, uint64_t a, char *dst) {
  for (unsigned i = 0; i < FMT_MAX; ++i) {
    char ch;
    if (rd(rctx, a + i, &ch, 1) != 0) return -1;
    dst[i] = ch;
    if (!ch) return (long)i;
  }
  return -2;
}

/* The printable excerpt of the format for messages: up to 40 characters, escapes for newlines. */
static void excerpt(const char *f, char *dst, size_t cap) {
  size_t j = 0;
  for (size_t i = 0; f[i] && j + 3 < cap && i < 40; ++i) {
    unsigned char ch = (unsigned char)f[i];
    if (ch == '\n') dst[j++] = '\\', dst[j++] = 'n';
    else dst[j++] = ch >= 32 && ch < 127 ? (char)ch : '?';
  }
  dst[j] = 0;
}

int ptx_printf_run(ptx_printf_read rd, void *rctx, uint64_t fmt_addr, uint64_t args_addr,
                   void (*put)(void *ctx, const char *s, size_t n), void *pctx, int *nargs, char *err, size_t errlen) {
  char fmt[FMT_MAX], sarg[FMT_MAX], ex[96];
  long flen = read_str(rd, rctx, fmt_addr, fmt);
  if (flen == -1) {
    snprintf(err, errlen, "printf format at 0x%llx is not readable", (unsigned long long)fmt_addr);
    return -1;
  }
  if (flen == -2) {
    snprintf(err, errlen, "printf format at 0x%llx is longer than %u bytes", (unsigned long long)fmt_addr, FMT_MAX - 1);
    return -1;
  }
  out_buf o;
  o.n = 0;
  o.put = put;
  o.ctx = pctx;
  uint64_t off = 0; /* next argument offset in the buffer */
  int used = 0;
#define BAD(...)                              \
  do {                                        \
    excerpt(fmt, ex, sizeof ex);              \
    char what_[160];                          \
    snprintf(what_, sizeof what_, __VA_ARGS__); \
    snprintf(err, errlen, "printf format \"%s\": %s", ex, what_); \
    return -1;                                \
  } while (0)
  /* the next argument of `size` bytes (4 or 8) */
#define ARG(size, dst)                                                                          \
  do {                                                                                          \
    if (!args_addr) BAD("conversion %d needs an argument, but the call passed none", used + 1); \
    off = (off + (size) - 1) & ~(uint64_t)((size) - 1);                                         \
    uint64_t v_ = 0;                                                                            \
    if (rd(rctx, args_addr + off, &v_, (size)) != 0)                                            \
      BAD("argument %d at 0x%llx is not readable", used + 1, (unsigned long long)(args_addr + off)); \
    off += (size);                                                                              \
    ++used;                                                                                     \
    (dst) = v_;                                                                                 \
  } while (0)
  for (long i = 0; i < flen;) {
    if (fmt[i] != '%') {
      long j = i;
      while (j < flen && fmt[j] != '%') ++j;
      out_add(&o, fmt + i, (size_t)(j - i));
      i = j;
      continue;
    }
    if (fmt[i + 1] == '%') {
      out_add(&o, "%", 1);
      i += 2;
      continue;
    }
    /* %[flags][width][.precision][length]conversion */
    char spec[48];
    size_t sn = 0;
    spec[sn++] = '%';
    long j = i + 1;
    while (j < flen && (fmt[j] == '-' || fmt[j] == '+' || fmt[j] == ' ' || fmt[j] == '#' || fmt[j] == '0')) {
      if (sn < 8) spec[sn++] = fmt[j];
      ++j;
    }
    int width = -1, prec = -1;
    if (fmt[j] == '*') {
      uint64_t v;
      ARG(4, v);
      width = (int32_t)v;
      ++j;
    } else {
      long w = 0;
      bool digits = false;
      while (fmt[j] >= '0' && fmt[j] <= '9') {
        w = w * 10 + (fmt[j++] - '0');
        digits = true;
        if (w > 4096) BAD("field width larger than 4096");
      }
      if (digits) width = (int)w;
    }
    if (fmt[j] == '.') {
      ++j;
      if (fmt[j] == '*') {
        uint64_t v;
        ARG(4, v);
        prec = (int32_t)v;
        ++j;
      } else {
        long pv = 0;
        while (fmt[j] >= '0' && fmt[j] <= '9') {
          pv = pv * 10 + (fmt[j++] - '0');
          if (pv > 4096) BAD("precision larger than 4096");
        }
        prec = (int)pv;
      }
    }
    if (width > 4096 || width < -4096) BAD("field width larger than 4096");
    if (prec > 4096) BAD("precision larger than 4096");
    /* length: hh h l ll z j t (L: long double, which device code does not have) */
    int len = 0; /* 0 int, 1 hh, 2 h, 8 64-bit */
    if (fmt[j] == 'h') {
      len = fmt[j + 1] == 'h' ? 1 : 2;
      j += len == 1 ? 2 : 1;
    } else if (fmt[j] == 'l') {
      len = 8;
      j += fmt[j + 1] == 'l' ? 2 : 1;
    } else if (fmt[j] == 'z' || fmt[j] == 'j' || fmt[j] == 't') {
      len = 8;
      ++j;
    } else if (fmt[j] == 'L') {
      BAD("length modifier 'L' (long double) is not supported");
    }
    char conv = fmt[j];
    if (!conv) BAD("incomplete conversion at the end");
    if (width >= 0) sn += (size_t)snprintf(spec + sn, sizeof spec - sn, "%d", width);
    if (prec >= 0) sn += (size_t)snprintf(spec + sn, sizeof spec - sn, ".%d", prec);
    char piece[8320];
    int pn = 0;
    uint64_t v = 0;
    switch (conv) {
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
        ARG(len == 8 ? 8 : 4, v);
        const bool sgn = conv == 'd' || conv == 'i';
        spec[sn++] = 'l', spec[sn++] = 'l', spec[sn++] = conv, spec[sn] = 0;
        long long sv;
        unsigned long long uv;
        if (len == 8) sv = (long long)v, uv = v;
        else if (len == 1) sv = (signed char)v, uv = (unsigned char)v;
        else if (len == 2) sv = (short)v, uv = (unsigned short)v;
        else sv = (int32_t)v, uv = (uint32_t)v;
        pn = sgn ? snprintf(piece, sizeof piece, spec, sv) : snprintf(piece, sizeof piece, spec, uv);
        break;
      }
      case 'c':
        if (len == 8) BAD("conversion '%%lc' (wide characters) is not supported");
        ARG(4, v);
        spec[sn++] = 'c', spec[sn] = 0;
        pn = snprintf(piece, sizeof piece, spec, (int)(unsigned char)v);
        break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        ARG(8, v);
        spec[sn++] = conv, spec[sn] = 0;
        pn = snprintf(piece, sizeof piece, spec, ptx_f64(v));
        break;
      case 's': {
        if (len == 8) BAD("conversion '%%ls' (wide strings) is not supported");
        ARG(8, v);
        const char *s = "(null)";
        if (v) {
          long sl = read_str(rd, rctx, v, sarg);
          if (sl == -1) BAD("the string of argument %d at 0x%llx is not readable", used, (unsigned long long)v);
          if (sl == -2) BAD("the string of argument %d is longer than %u bytes", used, FMT_MAX - 1);
          s = sarg;
        }
        spec[sn++] = 's', spec[sn] = 0;
        pn = snprintf(piece, sizeof piece, spec, s);
        break;
      }
      case 'p':
        ARG(8, v);
        /* the device address as 0x and hex digits */
        snprintf(sarg, sizeof sarg, "0x%llx", (unsigned long long)v);
        spec[sn++] = 's', spec[sn] = 0;
        pn = snprintf(piece, sizeof piece, spec, sarg);
        break;
      case 'n': BAD("conversion '%%n' is not supported");
      default:
        if ((unsigned char)conv >= 32 && (unsigned char)conv < 127) BAD("unsupported conversion '%%%c'", conv);
        BAD("unsupported conversion character 0x%02x", (unsigned char)conv);
    }
    if (pn < 0) BAD("conversion %d could not be formatted", used);
    out_add(&o, piece, (size_t)pn < sizeof piece ? (size_t)pn : sizeof piece - 1);
    i = j + 1;
  }
#undef ARG
#undef BAD
  out_flush(&o);
  *nargs = used;
  return 0;
}
