#include "autogemm/generic_family.h"

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_config.h"
#include "autogemm/tabled_family_impl.h"

namespace autogemm {

template class TabledFamily<GenericFamily, GenericParams>;

const ParamTable<GenericParams>& GenericFamily::table() {
  static const ParamTable<GenericParams> t = {};
  return t;
}

std::optional<KernelConfig> GenericFamily::default_config(const Problem& p) const {
  return KernelConfig::generic(p.trans_a, p.trans_b);
}

LaunchGeometry GenericFamily::geometry(const KernelConfig&, const Problem& p) const {
  LaunchGeometry g;
  // 16 x 16 outputs per block (AG_G in sgemm_generic.cu), one linear grid.
  g.grid_x = unsigned(((p.m + 15) / 16) * ((p.n + 15) / 16));
  g.block = 256;
  return g;
}

void GenericFamily::launch(const KernelConfig& c, const LaunchArgs& a) const {
  launch_gemm_kernel(a.functions.at(0), geometry(c, a.call.problem), a, "cuLaunchKernelEx(agemm_generic)", true);
}

std::vector<KernelConfig> GenericFamily::search_space(const Problem&, const SearchLimits&) const { return {}; }

}  // namespace autogemm
