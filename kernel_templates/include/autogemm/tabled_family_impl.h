// The members of TabledFamily (tabled_family.h) that need KernelConfig
// complete. Only a family's .cpp includes this, and instantiates the base
// for itself there: `template class TabledFamily<XFamily, XParams>;`.
#pragma once

#include "autogemm/kernel_config.h"
#include "autogemm/kernel_template.h"
#include "autogemm/tabled_family.h"

namespace autogemm {

template <class Derived, class P>
const KernelTemplate& TabledFamily<Derived, P>::source() const {
  static const KernelTemplate t(Derived::kSource);
  return t;
}

template <class Derived, class P>
std::string TabledFamily<Derived, P>::format(const KernelConfig& c) const {
  return Derived::table().format(params(c));
}

template <class Derived, class P>
bool TabledFamily<Derived, P>::parse_fields(std::vector<std::pair<std::string, int>>& fields, KernelConfig& c,
                                            std::string* error) const {
  P p;
  if (!Derived::table().parse(fields, p, error)) return false;
  c.params = p;
  return true;
}

template <class Derived, class P>
std::vector<std::string> TabledFamily<Derived, P>::defines(const KernelConfig& c) const {
  return Derived::table().defines(params(c));
}

template <class Derived, class P>
bool TabledFamily<Derived, P>::is_valid(const KernelConfig& c, std::string* why) const {
  const P& p = params(c);
  return Derived::table().in_range(p, why) && constraints_hold(p, c, why);
}

template <class Derived, class P>
std::vector<ConfigKey> TabledFamily<Derived, P>::config_keys() const {
  std::vector<ConfigKey> out;
  for (const Param<P>& r : Derived::table().rows()) out.push_back({r.key, r.meaning, r.rule});
  return out;
}

template <class Derived, class P>
std::vector<KernelConfig> TabledFamily<Derived, P>::history_variants(const KernelConfig& winner) const {
  return {winner};
}

template <class Derived, class P>
bool TabledFamily<Derived, P>::same(const P& a, const P& b) {
  for (const Param<P>& r : Derived::table().rows())
    if (a.*r.field != b.*r.field) return false;
  return true;
}

template <class Derived, class P>
const P& TabledFamily<Derived, P>::params(const KernelConfig& c) {
  return c.template get<P>();
}

}  // namespace autogemm
