// The tiled family: register-tiled FFMA SGEMM (kernel_templates/sgemm_tiled.cu),
// the kernel autogemm tunes for strict FP32.
#pragma once

#include "autogemm/tabled_family.h"

namespace autogemm {

class TiledFamily;

/// Parameters of sgemm_tiled.cu; TiledFamily::table() says what each one means.
struct TiledParams {
  using Family = TiledFamily;
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0;
  int wc = 8, vec = 1, split_k = 1, split_reduce = 0, swizzle = 1;
  int stages = 0, min_blocks = 1, k_unroll = 0, batched = 0;

  bool operator==(const TiledParams& o) const;
};

class TiledFamily final : public TabledFamily<TiledFamily, TiledParams> {
 public:
  static constexpr const char* kName = "tiled";
  static constexpr const char* kSource = "sgemm_tiled.cu";
  /// Split-K tile counters at the start of every workspace (AG_SPLIT_TILES).
  static constexpr size_t kSplitTiles = kWorkspaceCounterFloats;

  static const ParamTable<TiledParams>& table();

  bool can_implement(const KernelConfig& c, const Problem& p) const override;
  bool batches(const KernelConfig& c) const override;
  std::optional<KernelConfig> default_config(const Problem& p) const override;
  int threads(const KernelConfig& c) const override;
  size_t smem_bytes(const KernelConfig& c) const override;
  size_t workspace_floats(const KernelConfig& c, const Problem& p) const override;
  size_t workspace_counter_floats(const KernelConfig& c) const override;
  LaunchGeometry geometry(const KernelConfig& c, const Problem& p) const override;
  std::vector<std::string> entry_points(const KernelConfig& c) const override;
  void launch(const KernelConfig& c, const LaunchArgs& a) const override;
  std::vector<KernelConfig> search_space(const Problem& p, const SearchLimits& lim) const override;
  bool in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  double cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  std::vector<KernelConfig> history_variants(const KernelConfig& winner) const override;
  bool worth_borrowing(const KernelConfig& c, const Problem& p) const override;
  AccuracyClass accuracy() const override { return AccuracyClass::StrictFp32; }

  // The register and occupancy estimates behind the search space and model.
  /// Registers per thread the compiler will likely need; used only to prune.
  static int estimated_registers(const TiledParams& t);
  /// Resident blocks per SM by estimated registers, shared memory and threads (>= 1).
  static int blocks_per_sm(const TiledParams& t, const SearchLimits& lim);
  /// Registers per thread allowed under the config's __launch_bounds__.
  static int register_cap(const TiledParams& t);
  static int threads(const TiledParams& t);
  static size_t smem_bytes(const TiledParams& t);

 protected:
  bool constraints_hold(const TiledParams& p, const KernelConfig& c, std::string* why) const override;
};

}  // namespace autogemm
