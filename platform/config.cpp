#include "platform/config.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

namespace fs = std::filesystem;

namespace strata {

bool parse_size(const std::string& in, uint64_t* out) {
  std::string s;
  for (char c : in)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 18) return false;
  uint64_t v = std::stoull(s.substr(0, i));
  std::string u = s.substr(i);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return std::tolower(c); });
  uint64_t mul = 1;
  if (u.empty() || u == "b") mul = 1;
  else if (u == "k" || u == "kb" || u == "kib") mul = 1ull << 10;
  else if (u == "m" || u == "mb" || u == "mib") mul = 1ull << 20;
  else if (u == "g" || u == "gb" || u == "gib") mul = 1ull << 30;
  else if (u == "t" || u == "tb" || u == "tib") mul = 1ull << 40;
  else return false;
  if (v > UINT64_MAX / mul) return false;
  *out = v * mul;
  return true;
}

std::string did_you_mean(const std::string& got, const std::vector<std::string>& names) {
  // Levenshtein distance, one row at a time.
  auto dist = [](const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      size_t diag = row[0];
      row[0] = i;
      for (size_t j = 1; j <= b.size(); ++j) {
        const size_t up = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (std::tolower(static_cast<unsigned char>(a[i - 1])) !=
                                                                std::tolower(static_cast<unsigned char>(b[j - 1])))});
        diag = up;
      }
    }
    return row[b.size()];
  };
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const std::string& n : names)
    if (const size_t d = dist(got, n); d < best_d) best_d = d, best = n;
  const size_t allowed = std::max<size_t>(2, got.size() / 3);
  return best_d > 0 && best_d <= allowed ? " (did you mean '" + best + "'?)" : std::string();
}

const KeySpec* Config::spec(const std::string& key) {
  static std::map<std::string, const KeySpec*> index = [] {
    std::map<std::string, const KeySpec*> m;
    for (const KeySpec& k : schema()) m[k.name] = &k;
    return m;
  }();
  auto it = index.find(key);
  return it == index.end() ? nullptr : it->second;
}

// A bound in readable units: sizes in the largest binary unit that divides them (4 KiB, 64 GiB), integers
// whole (9200000000000000000, not 9.2e+18), other numbers as %g.
static std::string bound_text(double x, KeyType t) {
  char buf[64];
  if (t == KeyType::Size && x >= 1024) {
    static const char* const kUnit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    uint64_t v = static_cast<uint64_t>(x);
    int u = -1;
    while (v % 1024 == 0 && v >= 1024 && u < 5) {
      v /= 1024;
      ++u;
    }
    if (u >= 0) {
      std::snprintf(buf, sizeof buf, "%llu %s", static_cast<unsigned long long>(v), kUnit[u]);
      return buf;
    }
  }
  if ((t == KeyType::Int || t == KeyType::Size) && x == std::floor(x)) {
    std::snprintf(buf, sizeof buf, t == KeyType::Size ? "%.0f B" : "%.0f", x);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

std::string range_text(const KeySpec& k) {
  if (k.min > k.max) return "";
  return " in [" + bound_text(k.min, k.type) + ", " + bound_text(k.max, k.type) + "]";
}

[[noreturn]] static void bad(const std::string& origin, const std::string& key, const std::string& what) {
  throw ConfigError(origin + ": key '" + key + "': " + what);
}

void Config::set_value(const std::string& key, const std::string& text, bool is_string, const std::string& origin) {
  const KeySpec* k = spec(key);
  if (!k) {
    // A device-field override: name the valid fields of its kind.
    for (const char* p : {kMemTimingPrefix, kMemEnergyPrefix})
      if (const std::string pre = p; key.compare(0, pre.size(), pre) == 0) {
        std::string names;
        for (const KeySpec& s : schema())
          if (s.name.compare(0, pre.size(), pre) == 0) names += (names.empty() ? "" : ", ") + s.name.substr(pre.size());
        bad(origin, key, "unknown device field '" + key.substr(pre.size()) + "'; expected one of " + names);
      }
    // Suggest the closest known key by shared prefix.
    std::string best;
    size_t best_len = 0;
    for (const KeySpec& s : schema()) {
      size_t n = 0;
      while (n < s.name.size() && n < key.size() && s.name[n] == key[n]) ++n;
      if (n > best_len) best_len = n, best = s.name;
    }
    bad(origin, key, "unknown key" + (best_len >= 3 ? " (did you mean '" + best + "'?)" : std::string()) +
                         "; `strata --list-keys` lists every key");
  }
  Val v;
  v.origin = origin;
  v.text = text;
  switch (k->type) {
    case KeyType::Int: {
      char* end = nullptr;
      errno = 0;
      long long x = is_string ? 0 : std::strtoll(text.c_str(), &end, 0);
      if (is_string || text.empty() || *end || errno)
        bad(origin, key, "expected an integer" + range_text(*k) + ", got '" + text + "'");
      if (k->min <= k->max && (x < k->min || x > k->max))
        bad(origin, key, "expected an integer" + range_text(*k) + ", got " + text);
      v.iv = x;
      v.fv = static_cast<double>(x);
      break;
    }
    case KeyType::Float: {
      char* end = nullptr;
      double x = is_string ? 0 : std::strtod(text.c_str(), &end);
      if (is_string || text.empty() || *end || !std::isfinite(x))
        bad(origin, key, "expected a number" + range_text(*k) + ", got '" + text + "'");
      if (k->min <= k->max && (x < k->min || x > k->max))
        bad(origin, key, "expected a number" + range_text(*k) + ", got " + text);
      v.fv = x;
      break;
    }
    case KeyType::Bool:
      if (is_string || (text != "true" && text != "false"))
        bad(origin, key, "expected true or false, got '" + text + "'");
      v.bv = text == "true";
      break;
    case KeyType::String:
      break;
    case KeyType::Enum: {
      if (std::find(k->choices.begin(), k->choices.end(), text) == k->choices.end()) {
        std::string c;
        for (const auto& x : k->choices) c += (c.empty() ? "" : ", ") + x;
        bad(origin, key, "expected one of " + c + ", got '" + text + "'");
      }
      break;
    }
    case KeyType::Size: {
      uint64_t x = 0;
      if (!parse_size(text, &x))
        bad(origin, key, "expected a size such as 4096, \"768KiB\" or \"8MiB\", got '" + text + "'");
      if (k->min <= k->max && (x < k->min || x > k->max))
        bad(origin, key, "expected a size" + range_text(*k) + ", got " + text);
      v.iv = static_cast<int64_t>(x);
      v.fv = static_cast<double>(x);
      break;
    }
  }
  values_[key] = v;
}

// A TOML float as text that still reads as a float ("4.0", not "4"): an
// integer key then rejects it instead of taking 4.0 as 4.
static std::string float_text(double x) {
  std::ostringstream o;
  o.precision(17);
  o << x;
  std::string t = o.str();
  if (t.find_first_of(".eEn") == std::string::npos) t += ".0";  // n: inf, nan
  return t;
}

static std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

static void flatten(const toml::table& t, const std::string& prefix, const std::string& file,
                    std::vector<std::tuple<std::string, std::string, bool, std::string>>& out) {
  for (const auto& [k, node] : t) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    std::string where = file + ":" + std::to_string(node.source().begin.line);
    if (const toml::table* sub = node.as_table()) {
      flatten(*sub, key, file, out);
    } else if (node.is_string()) {
      out.emplace_back(key, *node.value<std::string>(), true, where);
    } else if (node.is_integer()) {
      out.emplace_back(key, std::to_string(*node.value<int64_t>()), false, where);
    } else if (node.is_floating_point()) {
      out.emplace_back(key, float_text(*node.value<double>()), false, where);
    } else if (node.is_boolean()) {
      out.emplace_back(key, *node.value<bool>() ? "true" : "false", false, where);
    } else {
      throw ConfigError(where + ": key '" + key + "': expected a number, string, boolean or table");
    }
  }
}

void Config::load_file(const std::string& path, int depth, std::vector<std::string>& stack) {
  if (depth > 16) throw ConfigError(path + ": include depth over 16 (include cycle?)");
  std::error_code ec;
  std::string canon = fs::weakly_canonical(path, ec).string();
  if (std::find(stack.begin(), stack.end(), canon) != stack.end())
    throw ConfigError(path + ": include cycle (" + stack.back() + " includes it again)");
  if (!fs::is_regular_file(path)) throw ConfigError(path + ": cannot open config file (no such file)");
  toml::table tbl;
  try {
    tbl = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw ConfigError(path + ":" + std::to_string(e.source().begin.line) + ": " + std::string(e.description()));
  }
  stack.push_back(canon);
  files_.push_back(path);
  fs::path dir = fs::path(path).parent_path();
  if (const toml::node* inc = tbl.get("include")) {
    std::vector<std::string> incs;
    std::string where = path + ":" + std::to_string(inc->source().begin.line);
    if (inc->is_string()) {
      incs.push_back(*inc->value<std::string>());
    } else if (const toml::array* a = inc->as_array()) {
      for (const auto& e : *a) {
        if (!e.is_string()) throw ConfigError(where + ": key 'include': expected a file name or a list of them");
        incs.push_back(*e.value<std::string>());
      }
    } else {
      throw ConfigError(where + ": key 'include': expected a file name or a list of them");
    }
    for (const std::string& f : incs) {
      fs::path p = fs::path(f).is_absolute() ? fs::path(f) : dir / f;
      // Not beside the including file: a shipped config (configs/), as --config NAME finds it.
      const fs::path shipped = fs::path(STRATA_SOURCE_DIR) / "configs" / f;
      if (!fs::is_regular_file(p) && !fs::path(f).is_absolute() && fs::is_regular_file(shipped)) p = shipped;
      if (!fs::is_regular_file(p))
        throw ConfigError(where + ": key 'include': cannot open '" + p.string() + "' (nor configs/" + f + ")");
      load_file(p.string(), depth + 1, stack);
    }
    tbl.erase("include");
  }
  std::vector<std::tuple<std::string, std::string, bool, std::string>> kv;
  flatten(tbl, "", path, kv);
  for (const auto& [k, text, is_str, where] : kv) set_value(k, text, is_str, where);
  stack.pop_back();
}

void Config::load(const std::string& path, const std::vector<std::string>& sets) {
  values_.clear();
  files_.clear();
  for (const KeySpec& k : schema()) {
    if (k.def.empty() && (k.type == KeyType::Int || k.type == KeyType::Float)) continue;  // unset until given
    const bool is_str = k.type == KeyType::String || k.type == KeyType::Enum;
    set_value(k.name, k.def, is_str, "default");
  }
  if (!path.empty()) {
    std::vector<std::string> stack;
    load_file(path, 0, stack);
  }
  for (const std::string& a : sets) {
    const std::string origin = "--set " + a;
    size_t eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError(origin + ": expected key=value (e.g. --set l2.size=4MiB)");
    // Spaces around the key and the value are not part of them (--set ' gpu.num_sms = 4 ').
    std::string key = trim(a.substr(0, eq)), val = trim(a.substr(eq + 1));
    if (key.empty()) throw ConfigError(origin + ": expected key=value (e.g. --set l2.size=4MiB)");
    // Parse the value as TOML so numbers, booleans and quoted strings mean what they do in files;
    // anything that is not a TOML value is taken as a bare string (--set l2.policy=lru).
    std::string text = val;
    bool is_str = true, comment = false;
    try {
      toml::table t = toml::parse("v = " + val);
      const toml::node* n = t.get("v");
      if (val.find('#') != std::string::npos && !(n->is_string() && (val.back() == '"' || val.back() == '\'')))
        comment = true;  // a TOML comment after the value (a quoted string may hold '#')
      if (n->is_string()) text = *n->value<std::string>();
      else if (n->is_integer()) text = std::to_string(*n->value<int64_t>()), is_str = false;
      else if (n->is_floating_point()) {
        text = float_text(*n->value<double>());
        is_str = false;
      } else if (n->is_boolean()) text = *n->value<bool>() ? "true" : "false", is_str = false;
    } catch (const toml::parse_error&) {
      comment = val.find('#') != std::string::npos;
    }
    if (comment)
      throw ConfigError(origin + ": key '" + key + "': expected a value without a '#' comment, got '" + val +
                        "' (quote a string that contains '#')");
    const KeySpec* k = spec(key);
    if (k && k->type == KeyType::Size) is_str = false;  // "8MiB" and 8388608 both fine
    set_value(key, text, is_str, origin);
  }
  check_consistency();
  check_policy_keys();
}

void Config::derive(const std::vector<std::pair<std::string, std::string>>& values, const std::string& origin) {
  for (const auto& [key, text] : values) {
    const KeySpec* k = spec(key);
    set_value(key, text, k && (k->type == KeyType::String || k->type == KeyType::Enum), origin);
  }
  check_consistency();
}

const std::string& Config::origin(const std::string& key) const {
  static const std::string none = "?";
  auto it = values_.find(key);
  return it == values_.end() ? none : it->second.origin;
}

void Config::fail(const std::string& key, const std::string& what) const {
  // A key no file sets (a config that lacks it, e.g. cut short): name the config that should.
  if (origin(key) == "default" && !files_.empty())
    bad(files_.front() + " (not set there, default '" + s(key) + "')", key, what);
  bad(origin(key), key, what);
}

int64_t Config::i(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("config key not in schema: " + key);
  return it->second.iv;
}
double Config::f(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("config key not in schema: " + key);
  return it->second.fv;
}
bool Config::b(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("config key not in schema: " + key);
  return it->second.bv;
}
const std::string& Config::s(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw std::logic_error("config key not in schema: " + key);
  return it->second.text;
}
uint64_t Config::size(const std::string& key) const { return static_cast<uint64_t>(i(key)); }

std::string Config::dump() const {
  std::ostringstream o;
  for (const auto& [k, v] : values_) {
    const KeySpec* sp = spec(k);
    const bool quote = sp && (sp->type == KeyType::String || sp->type == KeyType::Enum);
    o << k << " = " << (quote ? "\"" + v.text + "\"" : v.text) << "   # " << v.origin << "\n";
  }
  return o.str();
}

std::string Config::resolve(const std::string& name) {
  if (fs::is_regular_file(name)) return name;
  for (const std::string& base : {std::string("configs"), std::string(STRATA_SOURCE_DIR) + "/configs"}) {
    for (const std::string& ext : {std::string(".toml"), std::string("")}) {
      fs::path p = fs::path(base) / (name + ext);
      if (fs::is_regular_file(p)) return p.string();
    }
  }
  throw ConfigError(name + ": cannot open config file (no such file, and no configs/" + name + ".toml" +
                    did_you_mean(fs::path(name).stem().string(), shipped()) +
                    "; `strata --list-configs` lists the shipped ones)");
}

std::vector<std::string> Config::shipped() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(std::string(STRATA_SOURCE_DIR) + "/configs", ec))
    if (e.path().extension() == ".toml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace strata
