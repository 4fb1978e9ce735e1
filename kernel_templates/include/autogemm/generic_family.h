// The generic family: the fallback SGEMM (kernel_templates/sgemm_generic.cu)
// that implements any problem on any CUDA GPU. It has no parameters beyond
// the layouts and is never tuned: dispatch takes it when nothing else loads.
#pragma once

#include "autogemm/tabled_family.h"

namespace autogemm {

class GenericFamily;

struct GenericParams {
  using Family = GenericFamily;
  bool operator==(const GenericParams&) const { return true; }
};

class GenericFamily final : public TabledFamily<GenericFamily, GenericParams> {
 public:
  static constexpr const char* kName = "generic";
  static constexpr const char* kSource = "sgemm_generic.cu";
  /// Empty: the fallback has no parameters.
  static const ParamTable<GenericParams>& table();

  bool can_implement(const KernelConfig&, const Problem&) const override { return true; }
  bool batches(const KernelConfig&) const override { return true; }
  std::optional<KernelConfig> default_config(const Problem& p) const override;
  int threads(const KernelConfig&) const override { return 256; }
  size_t smem_bytes(const KernelConfig&) const override { return 0; }
  size_t workspace_floats(const KernelConfig&, const Problem&) const override { return 0; }
  size_t workspace_counter_floats(const KernelConfig&) const override { return 0; }
  LaunchGeometry geometry(const KernelConfig& c, const Problem& p) const override;
  std::vector<std::string> entry_points(const KernelConfig&) const override { return {"agemm_generic"}; }
  void launch(const KernelConfig& c, const LaunchArgs& a) const override;
  /// Empty: the fallback is not tuned.
  std::vector<KernelConfig> search_space(const Problem&, const SearchLimits&) const override;
  double cost(const KernelConfig&, const Problem& p, const SearchLimits&) const override { return p.flops(); }
  AccuracyClass accuracy() const override { return AccuracyClass::StrictFp32; }
};

}  // namespace autogemm
