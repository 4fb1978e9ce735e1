// TabledFamily: the base of every family whose parameters are a ParamTable.
//
// Everything that is only the table's business comes from the table here:
// the family's name and source, its config text, parsing, -D values, range
// checks, the meaning of each key and equality of parameters. A family
// derives as `class XFamily final : public TabledFamily<XFamily, XParams>`,
// declares `static constexpr const char* kName`, `kSource` (its .cu file)
// and `static const ParamTable<XParams>& table()`, and writes only what is
// its own: constraints between fields (constraints_hold), resources, launch, search
// space and cost model. Its .cpp includes tabled_family_impl.h and
// instantiates the base once: `template class TabledFamily<XFamily, XParams>;`.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "autogemm/kernel_family.h"
#include "autogemm/param_table.h"

namespace autogemm {

template <class Derived, class P>
class TabledFamily : public KernelFamily {
 public:
  /// The family's one instance (the registry hands it out).
  static const Derived& instance() {
    static const Derived family;
    return family;
  }

  const char* name() const override { return Derived::kName; }
  const KernelTemplate& source() const override;
  std::string format(const KernelConfig& c) const override;
  bool parse_fields(std::vector<std::pair<std::string, int>>& fields, KernelConfig& c,
                    std::string* error) const override;
  std::vector<std::string> defines(const KernelConfig& c) const override;
  /// Every field within its table range, then the family's constraints_hold().
  bool is_valid(const KernelConfig& c, std::string* why) const override;
  std::vector<ConfigKey> config_keys() const override;
  /// The device's own target; a family bound to an architecture overrides it.
  std::optional<std::string> arch(const DeviceInfo& dev) const override { return dev.arch(); }
  /// The winner alone; a family with variants worth measuring overrides it.
  std::vector<KernelConfig> history_variants(const KernelConfig& winner) const override;
  /// Always; a family whose configs only suit some shapes overrides it.
  bool worth_borrowing(const KernelConfig& c, const Problem& p) const override {
    (void)c, (void)p;
    return true;
  }

  /// Field-by-field equality over the table's rows (the Params' operator==).
  static bool same(const P& a, const P& b);

 protected:
  /// The family's parameters in `c`; throws std::bad_variant_access for another family's.
  static const P& params(const KernelConfig& c);
  /// Constraints between fields (and the layouts in `c`) beyond each
  /// field's range: false with *why.
  virtual bool constraints_hold(const P& p, const KernelConfig& c, std::string* why) const {
    (void)p, (void)c, (void)why;
    return true;
  }
};

}  // namespace autogemm
