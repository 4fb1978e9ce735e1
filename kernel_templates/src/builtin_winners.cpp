// The built-in winner tables: kernel_templates/builtin_winners/<arch>.tsv,
// embedded by cmake/embed_winners.cmake (builtin_winner_tables), parsed here
// at first use. The format and the rules for a bad row: builtin_winners.h.
#include "autogemm/builtin_winners.h"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string_view>
#include <type_traits>

namespace autogemm {
namespace {

constexpr size_t kFields = 9;  // m n k trans_a trans_b aligned batch median_ms config

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  for (size_t at = 0;;) {
    const size_t end = line.find(sep, at);
    out.push_back(line.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
    if (end == std::string_view::npos) return out;
    at = end + 1;
  }
}

/// The whole field as a number in [lo, hi]; from_chars, so the C locale's
/// format whatever the program's locale.
template <typename T>
std::optional<T> number(std::string_view field, T lo, T hi) {
  T v{};
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), v);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(v)) return std::nullopt;
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

std::optional<BuiltinWinner> parse_row(std::string_view line) {
  const std::vector<std::string_view> f = split(line, '\t');
  if (f.size() != kFields) return std::nullopt;
  constexpr int64_t kBig = int64_t(1) << 40;
  int64_t v[7];
  for (size_t i = 0; i < 7; ++i) {
    const bool flag = i >= 3 && i <= 5;
    const auto x = number<int64_t>(f[i], flag ? 0 : 1, flag ? 1 : kBig);
    if (!x) return std::nullopt;
    v[i] = *x;
  }
  const auto ms = number<double>(f[7], 0.0, 1e9);
  auto cfg = KernelConfig::parse(std::string(f[8]));
  if (!ms || !(*ms > 0) || !cfg) return std::nullopt;
  ShapeKey s;
  s.m = v[0], s.n = v[1], s.k = v[2];
  s.trans_a = v[3] != 0, s.trans_b = v[4] != 0, s.aligned = v[5] != 0, s.batch = v[6];
  return BuiltinWinner{s, *cfg, *ms};
}

struct Table {
  ParsedBuiltinWinners parsed;
  std::string provenance;
};

const std::map<std::string, Table>& tables() {
  static const std::map<std::string, Table> all = [] {
    std::map<std::string, Table> out;
    for (const BuiltinWinnerTable& t : builtin_winner_tables()) {
      Table& e = out[t.arch];
      e.parsed = parse_builtin_winners(t.text);
      for (std::string_view line : split(t.text, '\n'))
        if (!line.empty() && line.front() == '#') e.provenance.append(line).push_back('\n');
    }
    return out;
  }();
  return all;
}

const Table* find(const std::string& arch) {
  const auto it = tables().find(arch);
  return it == tables().end() ? nullptr : &it->second;
}

}  // namespace

ParsedBuiltinWinners parse_builtin_winners(const std::string& text) {
  ParsedBuiltinWinners out;
  for (std::string_view line : split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#' || line == kBuiltinWinnerColumns) continue;
    ++out.rows;
    // A row left out: a parameter the families no longer have, or a damaged
    // line (the tests insist that every embedded row parses).
    if (auto w = parse_row(line)) out.winners.push_back(std::move(*w));
  }
  return out;
}

const std::vector<BuiltinWinner>& builtin_winners(const std::string& arch) {
  static const std::vector<BuiltinWinner> none;
  const Table* t = find(arch);
  return t ? t->parsed.winners : none;
}

size_t builtin_winner_rows(const std::string& arch) {
  const Table* t = find(arch);
  return t ? t->parsed.rows : 0;
}

std::string builtin_winners_provenance(const std::string& arch) {
  const Table* t = find(arch);
  return t ? t->provenance : std::string();
}

}  // namespace autogemm
