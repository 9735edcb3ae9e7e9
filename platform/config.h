// Strata configuration: TOML files with comments and `include`, `--set`
// overrides, and validation of every key against one schema (platform/schema.cpp).
//
// A config file is TOML. Tables name the key hierarchy ([l2] size = "8MiB" is the
// key `l2.size`). `include = "base.toml"` (or a list) at the top of a file loads
// other files first (paths relative to the including file); the including file's
// keys then override them, so a variant is a small diff on a baseline.
// Every problem is reported as ConfigError with a one-line message naming the
// file and line (or the --set argument), the key and what was expected.
#pragma once
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/input_error.h"  // ConfigError

namespace strata {

enum class KeyType { Int, Float, Bool, String, Enum, Size };

// Device-field overrides (mem.timing.<field>, mem.energy.<field>; models/ref/mem/dram.h
// dram_field): numeric keys without a default -- unset means "the preset's value".
inline constexpr const char* kMemTimingPrefix = "mem.timing.";
inline constexpr const char* kMemEnergyPrefix = "mem.energy.";

struct KeySpec {
  std::string name;      // dotted key
  KeyType type;
  std::string def;       // default, as TOML-ish text ("8MiB", "16", "true", "lru"); "" for an Int/Float
                         // key: no default, the key is unset (has() false) unless a file or --set gives it
  double min = 0, max = 0;  // inclusive range for Int/Float/Size (ignored if min > max)
  std::vector<std::string> choices;  // Enum values
  std::string desc;      // one line: meaning, unit, source
};

class Config {
 public:
  // Load defaults from the schema, then the file chain of `path` (if not empty),
  // then each "key=value" override in order. Validates everything. Throws ConfigError.
  void load(const std::string& path, const std::vector<std::string>& sets);

  int64_t i(const std::string& key) const;
  double f(const std::string& key) const;
  bool b(const std::string& key) const;
  const std::string& s(const std::string& key) const;
  uint64_t size(const std::string& key) const;  // bytes
  bool has(const std::string& key) const { return values_.count(key) != 0; }
  // Where a key's value came from ("configs/x.toml:12", "--set", "default").
  const std::string& origin(const std::string& key) const;
  // Throw a ConfigError about `key` naming its origin.
  [[noreturn]] void fail(const std::string& key, const std::string& what) const;

  // Values the platform decides while it is built (a memory-side policy's derivation,
  // memside_ops.derive): each key set to its text as a file would set it, `origin` saying
  // why, then the consistency checks of load(). Throws ConfigError.
  void derive(const std::vector<std::pair<std::string, std::string>>& values, const std::string& origin);

  // The effective configuration, one "key = value  # origin" line per key (for runs/<dir>/config.txt).
  std::string dump() const;
  const std::vector<std::string>& files() const { return files_; }

  static const std::vector<KeySpec>& schema();
  static const KeySpec* spec(const std::string& key);
  // Resolve --config NAME: an existing path, or configs/NAME(.toml) under the source tree.
  static std::string resolve(const std::string& name_or_path);
  // Names of shipped configs (configs/*.toml without extension).
  static std::vector<std::string> shipped();

 private:
  struct Val {
    std::string text;    // canonical text
    int64_t iv = 0;
    double fv = 0;
    bool bv = false;
    std::string origin;
  };
  void set_value(const std::string& key, const std::string& text, bool is_string, const std::string& origin);
  void load_file(const std::string& path, int depth, std::vector<std::string>& stack);
  void check_consistency() const;
  void check_policy_keys() const;
  std::map<std::string, Val> values_;
  std::vector<std::string> files_;
};

// " (did you mean 'NAME'?)" for the name of `names` closest to `got` in edit
// distance when it is close enough (a typo), else "".
std::string did_you_mean(const std::string& got, const std::vector<std::string>& names);

// " in [4 KiB, 64 GiB]": a key's range in readable units ("" for a key without one).
std::string range_text(const KeySpec& k);

// Parse "8MiB", "768KB", "4096", "2 GiB" into bytes. Returns false if malformed.
bool parse_size(const std::string& s, uint64_t* out);

}  // namespace strata
