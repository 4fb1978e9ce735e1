#include "autogemm/kernel_config.h"

#include <sstream>

#include "autogemm/problem.h"

namespace autogemm {
namespace {

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

// "key=value" tokens into (key, value) pairs: values are small non-negative
// decimal integers (at most 6 digits, so no overflow and no wrap-around).
bool split_fields(std::istringstream& in, std::vector<std::pair<std::string, int>>& fields,
                  std::string* error) {
  std::string tok;
  while (in >> tok) {
    const auto eq = tok.find('=');
    if (eq == std::string::npos || eq == 0) return fail(error, "malformed field '" + tok + "'");
    const std::string key = tok.substr(0, eq), val = tok.substr(eq + 1);
    for (const auto& f : fields)
      if (f.first == key) return fail(error, "repeated field '" + key + "'");
    if (val.empty() || val.size() > 6 || val.find_first_not_of("0123456789") != std::string::npos)
      return fail(error, "field '" + key + "' is not a small non-negative integer");
    fields.emplace_back(key, std::stoi(val));
  }
  return true;
}

// Takes the layout fields, common to every family, out of `fields`.
bool take_layouts(std::vector<std::pair<std::string, int>>& fields, KernelConfig& c, std::string* error) {
  int found = 0;
  for (auto it = fields.begin(); it != fields.end();) {
    if (it->first != "ta" && it->first != "tb") {
      ++it;
      continue;
    }
    if (it->second != 0 && it->second != 1) return fail(error, "ta and tb must be 0 or 1");
    (it->first == "ta" ? c.trans_a : c.trans_b) = it->second == 1;
    ++found;
    it = fields.erase(it);
  }
  return found == 2 || fail(error, "missing field 'ta' or 'tb'");
}

}  // namespace

KernelConfig KernelConfig::generic(bool trans_a, bool trans_b) {
  return KernelConfig(GenericParams{}, trans_a, trans_b);
}

std::vector<ConfigKey> config_keys(const KernelFamily& family) {
  std::vector<ConfigKey> keys = family.config_keys();
  keys.push_back({"ta", "1 = op(A) is A transposed: the canonical row-major A is stored K x M (m contiguous)", "0 or 1"});
  keys.push_back({"tb", "1 = op(B) is B transposed: the canonical row-major B is stored N x K (k contiguous)", "0 or 1"});
  return keys;
}

std::string KernelConfig::to_string() const {
  const KernelFamily& f = family();
  std::string s = f.name();
  const std::string fields = f.format(*this);
  if (!fields.empty()) s += " " + fields;
  s += std::string(" ta=") + (trans_a ? "1" : "0") + " tb=" + (trans_b ? "1" : "0");
  return s;
}

std::optional<KernelConfig> KernelConfig::parse(const std::string& text, std::string* error) {
  std::istringstream in(text);
  std::string name;
  in >> name;
  const KernelFamily* family = find_family(name);
  if (!family) {
    fail(error, "unknown kernel family '" + name + "'");
    return std::nullopt;
  }
  std::vector<std::pair<std::string, int>> fields;
  KernelConfig c;
  if (!split_fields(in, fields, error) || !take_layouts(fields, c, error) ||
      !family->parse_fields(fields, c, error))
    return std::nullopt;
  if (!fields.empty()) {
    fail(error, "unknown field '" + fields.front().first + "' for family " + name);
    return std::nullopt;
  }
  if (!c.is_valid(error)) return std::nullopt;
  return c;
}

bool KernelConfig::is_valid(std::string* why) const { return family().is_valid(*this, why); }

bool KernelConfig::can_implement(const Problem& p) const {
  if (trans_a != p.trans_a || trans_b != p.trans_b) return false;
  if (p.batch > 1 && !family().batches(*this)) return false;
  return family().can_implement(*this, p);
}

std::vector<std::string> KernelConfig::defines() const {
  std::vector<std::string> d = {std::string("-DAG_TRANS_A=") + (trans_a ? "1" : "0"),
                                std::string("-DAG_TRANS_B=") + (trans_b ? "1" : "0")};
  for (std::string& v : family().defines(*this)) d.push_back(std::move(v));
  return d;
}

std::optional<KernelConfig> KernelFamily::fitted(const KernelConfig& c, const Problem& p) const {
  if (c.can_implement(p)) return c;
  KernelConfig t = c;
  t.trans_a = p.trans_a, t.trans_b = p.trans_b;
  // Through the canonical text, so the result is range-checked like any
  // config from outside; the copy width is a field of every family that has one.
  std::string text = t.to_string();
  if (!p.aligned)
    for (const char* wide : {" vec=4", " vec=2"})
      if (const size_t at = text.find(wide); at != std::string::npos) text.replace(at, 6, " vec=1");
  auto out = KernelConfig::parse(text);
  if (!out || !out->can_implement(p)) return std::nullopt;
  return out;
}

KernelConfig default_config(const Problem& p) {
  for (const KernelFamily* f : all_families())
    if (auto c = f->default_config(p); c && c->can_implement(p)) return *c;
  return KernelConfig::generic(p.trans_a, p.trans_b);
}

}  // namespace autogemm
