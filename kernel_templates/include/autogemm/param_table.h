// ParamTable: one table per family that generates its text fields, parsing,
// -D values and range checks, so the four can never disagree.
//
// A row names a field of the family's parameter struct P, its text key, its
// -D macro, its allowed values, what it means, and when it appears in the
// canonical text:
//   Always         every config prints it, parsing requires it;
//   UnlessDefault  printed only when it differs from its default, optional
//                  when parsing (so configs stored before it existed still
//                  parse to what they meant);
//   When           printed and required exactly when a predicate on the
//                  other fields holds (e.g. a reduction mode only with split-K).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace autogemm {

enum class Presence { Always, UnlessDefault, When };

template <class P>
struct Param {
  const char* key;       ///< text key, e.g. "bm"
  const char* macro;     ///< -D name, e.g. "AG_BM"; nullptr: read by the host's launch only
  int P::*field;
  std::vector<int> values;  ///< allowed values; empty: any of lo..hi
  int lo = 0, hi = 0;
  int fallback = 0;      ///< value when absent (UnlessDefault, When)
  Presence presence = Presence::Always;
  bool (*when)(const P&) = nullptr;  ///< Presence::When: present iff true
  const char* rule = "";  ///< the allowed values in words, for errors
  const char* meaning = "";  ///< what the key says about the kernel (autogemm_cache show)
};

template <class P>
class ParamTable {
 public:
  ParamTable(std::initializer_list<Param<P>> rows) : rows_(rows) {}

  const std::vector<Param<P>>& rows() const { return rows_; }

  /// "bm=128 bn=128 ..." in table order, optional fields as their presence says.
  std::string format(const P& p) const {
    std::string out;
    for (const Param<P>& r : rows_) {
      if (!printed(r, p)) continue;
      if (!out.empty()) out += ' ';
      out += std::string(r.key) + "=" + std::to_string(p.*r.field);
    }
    return out;
  }

  /// Moves this table's keys from `fields` into `p` (see KernelFamily::parse_fields).
  bool parse(std::vector<std::pair<std::string, int>>& fields, P& p, std::string* error) const {
    std::vector<const Param<P>*> absent;
    for (const Param<P>& r : rows_) {
      auto it = fields.begin();
      while (it != fields.end() && it->first != r.key) ++it;
      if (it == fields.end()) {
        if (r.presence == Presence::Always) return fail(error, std::string("missing field '") + r.key + "'");
        p.*r.field = r.fallback;
        absent.push_back(&r);
        continue;
      }
      p.*r.field = it->second;
      fields.erase(it);
    }
    // Conditional fields: required exactly when their predicate holds.
    for (const Param<P>& r : rows_) {
      if (r.presence != Presence::When) continue;
      const bool was_absent = std::find(absent.begin(), absent.end(), &r) != absent.end();
      if (was_absent == r.when(p))
        return fail(error, std::string(r.key) + (was_absent ? " is required here" : " is not allowed here") +
                               " (" + r.rule + ")");
    }
    return true;
  }

  /// "-DAG_BM=128", ... for every row with a macro, present in the text or not.
  std::vector<std::string> defines(const P& p) const {
    std::vector<std::string> out;
    for (const Param<P>& r : rows_)
      if (r.macro) out.push_back(std::string("-D") + r.macro + "=" + std::to_string(p.*r.field));
    return out;
  }

  /// Every field within its allowed values.
  bool in_range(const P& p, std::string* why) const {
    for (const Param<P>& r : rows_) {
      const int v = p.*r.field;
      bool ok = r.values.empty() ? (v >= r.lo && v <= r.hi) : false;
      for (int a : r.values) ok = ok || v == a;
      if (!ok) return fail(why, std::string(r.key) + " must be " + r.rule);
    }
    return true;
  }

 private:
  static bool printed(const Param<P>& r, const P& p) {
    switch (r.presence) {
      case Presence::Always: return true;
      case Presence::UnlessDefault: return p.*r.field != r.fallback;
      case Presence::When: return r.when(p);
    }
    return true;
  }
  static bool fail(std::string* out, const std::string& msg) {
    if (out) *out = msg;
    return false;
  }
  std::vector<Param<P>> rows_;
};

}  // namespace autogemm
