// KernelConfig: the typed, range-checked parameters of one kernel.
//
// A config is everything NVRTC needs to specialise a template: a family's
// parameters plus the operand layouts. Its canonical text form (to_string)
// is what the cache stores; parse() is the only way text from outside (a
// cache file, a command line) becomes a config, and it rejects anything out
// of range, so no outside text ever reaches NVRTC.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "autogemm/kernel_families.h"

namespace autogemm {

struct Problem;

struct KernelConfig {
  FamilyParams params = GenericParams{};
  /// Operand layouts of the canonical problem the kernel is built for.
  bool trans_a = false, trans_b = false;

  KernelConfig() = default;
  template <class P>
  KernelConfig(const P& p, bool ta, bool tb) : params(p), trans_a(ta), trans_b(tb) {}

  const KernelFamily& family() const { return family_of(params); }
  template <class P>
  bool is() const { return std::holds_alternative<P>(params); }
  /// The family's parameters; throws std::bad_variant_access for another family.
  template <class P>
  const P& get() const { return std::get<P>(params); }
  template <class P>
  P& get() { return std::get<P>(params); }

  /// Canonical text: "<family> <family fields> ta=<0|1> tb=<0|1>", e.g.
  /// "tiled bm=128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0" or
  /// "generic ta=0 tb=0". Each family's parameter table says which fields
  /// appear and when.
  std::string to_string() const;
  /// Parses canonical text (fields in any order); nullopt (with *error)
  /// unless the family is known and every field is present, known, a small
  /// non-negative integer and in range (is_valid).
  static std::optional<KernelConfig> parse(const std::string& text, std::string* error = nullptr);
  /// Static range and consistency checks, independent of any device.
  bool is_valid(std::string* why = nullptr) const;

  int threads() const { return family().threads(*this); }
  /// Dynamic shared memory in bytes.
  size_t smem_bytes() const { return family().smem_bytes(*this); }
  /// True when this config computes `p` correctly (layouts, alignment, limits).
  bool can_implement(const Problem& p) const;
  /// Largest workspace dispatch allocates, in floats: 256 MiB of split-K
  /// partials or of an operand's staged copy, plus the zeroed counters in
  /// front of them (kWorkspaceCounterFloats), so that an 8192x8192 operand
  /// can be staged (8192^3:NT ran at 0.91 of cuBLAS without tp=1 on the
  /// H200, 4096^3:NT at 1.01 with it). The tuner never proposes a config
  /// that needs more.
  static constexpr size_t kMaxWorkspaceFloats = (size_t(64) << 20) + 65536;
  /// Workspace floats needed for `p`, 0 if none (see KernelFamily).
  size_t workspace_floats(const Problem& p) const { return family().workspace_floats(*this, p); }

  /// -D definitions for NVRTC: the layouts, then the family's parameters.
  std::vector<std::string> defines() const;

  bool operator==(const KernelConfig& o) const {
    return params == o.params && trans_a == o.trans_a && trans_b == o.trans_b;
  }

  /// The fallback that implements any problem of these layouts.
  static KernelConfig generic(bool trans_a, bool trans_b);
};

/// Every key of `family`'s config text with its meaning, in text order,
/// then the layout keys every family shares (ta, tb).
std::vector<ConfigKey> config_keys(const KernelFamily& family);

/// The built-in default for `p`: the first family in registry order with a
/// default for p (a config implementing any problem of its layouts and
/// alignment class, reasonable at every size).
KernelConfig default_config(const Problem& p);

}  // namespace autogemm
