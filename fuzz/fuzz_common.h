// Shared helpers of the libFuzzer targets (fuzz/*.cpp, docs/fuzzing.md): a
// private scratch folder per process and a file writer. A target feeds the
// input to one parser; bad input must end in ConfigError (the user's fault,
// exit 2 in the CLI); anything else -- a crash, an ASan/UBSan report, another
// exception, a hang -- is a finding.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace strata_fuzz {

inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/strata-fuzz-XXXXXX";
    const char* d = mkdtemp(tmpl);
    if (!d) std::abort();
    return std::string(d);
  }();
  return dir;
}

inline std::string write_file(const std::string& name, const uint8_t* data, size_t size) {
  const std::string path = scratch_dir() + "/" + name;
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  return path;
}

// Split the input at lines "%%" (the parts of a multi-file input).
inline std::vector<std::string> split_parts(const uint8_t* data, size_t size) {
  std::vector<std::string> parts(1);
  const std::string in(reinterpret_cast<const char*>(data), size);
  size_t pos = 0;
  while (pos <= in.size()) {
    const size_t nl = in.find('\n', pos);
    const std::string line = in.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (line == "%%") parts.emplace_back();
    else parts.back() += line + (nl == std::string::npos ? "" : "\n");
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return parts;
}

}  // namespace strata_fuzz

// libsystemc.so refers to sc_main (its own main() calls it); the target's main
// is libFuzzer's, so this one is never called. Included by one file per target.
extern "C" int sc_main(int, char**) { return 0; }
