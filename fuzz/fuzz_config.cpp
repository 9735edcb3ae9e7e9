// libFuzzer target: the config loader and the --set parser (platform/config.cpp,
// the schema's consistency checks). Input: a TOML file, then optionally a line
// "%%" and one --set argument per line.
#include "fuzz/fuzz_common.h"
#include "platform/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<std::string> parts = strata_fuzz::split_parts(data, size);
  const std::string path = strata_fuzz::write_file(
      "case.toml", reinterpret_cast<const uint8_t*>(parts[0].data()), parts[0].size());
  std::vector<std::string> sets;
  for (size_t i = 1; i < parts.size(); ++i) {
    size_t b = 0;
    for (size_t nl; (nl = parts[i].find('\n', b)) != std::string::npos; b = nl + 1) sets.push_back(parts[i].substr(b, nl - b));
    if (b < parts[i].size()) sets.push_back(parts[i].substr(b));
  }
  try {
    strata::Config cfg;
    cfg.load(path, sets);
    (void)cfg.dump();
  } catch (const strata::ConfigError&) {
  }
  return 0;
}
