#include "accelsim_io.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/input_error.h"  // ConfigError

namespace strata {
namespace accelsim_io {

Compression sniff(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw ConfigError(path + ": cannot open trace file (" + std::strerror(errno) + ")");
  unsigned char m[6] = {};
  const size_t n = std::fread(m, 1, sizeof m, f);
  std::fclose(f);
  if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b) return Compression::Gzip;
  if (n >= 6 && std::memcmp(m, "\xfd" "7zXZ\0", 6) == 0) return Compression::Xz;
  if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) return Compression::Zstd;
  return Compression::None;
}

const char* compression_name(Compression c) {
  switch (c) {
    case Compression::Gzip: return "gzip";
    case Compression::Xz: return "xz";
    case Compression::Zstd: return "zstd";
    default: return "none";
  }
}

static std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

ByteStream::ByteStream(const std::string& path) : path_(path), comp_(sniff(path)) {
  switch (comp_) {
    case Compression::None:
      f_ = std::fopen(path.c_str(), "rb");
      break;
    case Compression::Gzip:
      gz_ = gzopen(path.c_str(), "rb");
      if (gz_) gzbuffer(static_cast<gzFile>(gz_), 1 << 17);
      break;
    case Compression::Xz:
    case Compression::Zstd: {
      const std::string cmd =
          std::string(comp_ == Compression::Xz ? "xz" : "zstd") + " -dc -- " + shell_quote(path) + " 2>/dev/null";
      f_ = popen(cmd.c_str(), "r");
      pipe_ = true;
      break;
    }
  }
  if (!f_ && !gz_) throw ConfigError(path + ": cannot open trace file (" + std::strerror(errno) + ")");
}

ByteStream::~ByteStream() { close(); }

void ByteStream::close() {
  if (gz_) gzclose(static_cast<gzFile>(gz_));
  if (f_) pipe_ ? pclose(f_) : std::fclose(f_);
  gz_ = nullptr;
  f_ = nullptr;
}

size_t ByteStream::read(char* buf, size_t n) {
  if (gz_) {
    const int r = gzread(static_cast<gzFile>(gz_), buf, static_cast<unsigned>(n));
    if (r < 0) {
      int e = 0;
      throw ConfigError(path_ + ": gzip decompression failed (" + gzerror(static_cast<gzFile>(gz_), &e) + ")");
    }
    return static_cast<size_t>(r);
  }
  if (!f_) return 0;
  const size_t r = std::fread(buf, 1, n, f_);
  if (r == 0 && pipe_) {  // end of the pipe: the tool's exit status tells a truncated/corrupt file
    const int st = pclose(f_);
    f_ = nullptr;
    if (st != 0)
      throw ConfigError(path_ + ": " + compression_name(comp_) + " decompression failed (is the `" +
                        (comp_ == Compression::Xz ? "xz" : "zstd") + "` tool installed, is the file complete?)");
  }
  return r;
}

bool ByteStream::skip(uint64_t n) {
  char tmp[1 << 16];
  while (n) {
    const size_t r = read(tmp, static_cast<size_t>(std::min<uint64_t>(n, sizeof tmp)));
    if (r == 0) return false;
    n -= r;
  }
  return true;
}

bool LineReader::next(const char** b, const char** e) {
  for (;;) {
    const char* p = static_cast<const char*>(std::memchr(buf_.data() + pos_, '\n', len_ - pos_));
    if (p || (eof_ && pos_ < len_)) {
      const char* start = buf_.data() + pos_;
      const char* end = p ? p : buf_.data() + len_;
      line_off_ = buf_off_ + pos_;
      ++line_no_;
      pos_ = static_cast<size_t>(end - buf_.data()) + (p ? 1 : 0);
      if (end > start && end[-1] == '\r') --end;
      *b = start;
      *e = end;
      return true;
    }
    if (eof_) return false;
    // Move the partial line to the front, grow if one line fills the buffer, refill.
    if (pos_ > 0) {
      std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
      buf_off_ += pos_;
      len_ -= pos_;
      pos_ = 0;
    }
    if (len_ == buf_.size()) buf_.resize(buf_.size() * 2);
    const size_t r = s_.read(buf_.data() + len_, buf_.size() - len_);
    if (r == 0) eof_ = true;
    len_ += r;
  }
}

}  // namespace accelsim_io
}  // namespace strata
