// Byte and line input for the Accel-Sim trace reader (workloads/accelsim.cpp):
// sequential decompressing streams (plain, gzip via zlib, xz and zstd through
// the `xz -dc` / `zstd -dc` tools, as Accel-Sim itself does) and a line reader
// that knows each line's byte offset and number. Internal to the reader.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace strata {
namespace accelsim_io {

enum class Compression { None, Gzip, Xz, Zstd };

// Compression of a file from its first bytes; throws ConfigError if it cannot be opened.
Compression sniff(const std::string& path);
const char* compression_name(Compression c);

// Sequential uncompressed bytes of a (possibly compressed) file.
class ByteStream {
 public:
  explicit ByteStream(const std::string& path);  // throws ConfigError
  ~ByteStream();
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;
  // Up to n bytes; 0 at the end. Throws ConfigError on a decompression error.
  size_t read(char* buf, size_t n);
  // Discards n bytes (returns false if the stream ended first).
  bool skip(uint64_t n);
  Compression compression() const { return comp_; }

 private:
  std::string path_;
  Compression comp_;
  FILE* f_ = nullptr;   // plain file or pipe
  void* gz_ = nullptr;  // gzFile
  bool pipe_ = false;
  void close();
};

// Lines of a ByteStream (without the line end, '\r' stripped), with the byte
// offset of each line's first character and its 1-based number.
class LineReader {
 public:
  explicit LineReader(const std::string& path) : s_(path) {}
  bool next(const char** b, const char** e);
  uint64_t line_offset() const { return line_off_; }
  uint64_t line_number() const { return line_no_; }
  Compression compression() const { return s_.compression(); }

 private:
  ByteStream s_;
  std::vector<char> buf_ = std::vector<char>(1 << 20);
  size_t pos_ = 0, len_ = 0;
  uint64_t buf_off_ = 0, line_off_ = 0, line_no_ = 0;
  bool eof_ = false;
};

}  // namespace accelsim_io
}  // namespace strata
