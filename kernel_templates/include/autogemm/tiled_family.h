// The tiled family: register-tiled FFMA SGEMM (kernel_templates/sgemm_tiled.cu),
// the kernel autogemm tunes for strict FP32.
#pragma once

#include "autogemm/kernel_family.h"
#include "autogemm/param_table.h"

namespace autogemm {

class TiledFamily;

/// Parameters of sgemm_tiled.cu (see its parameter block for their meaning).
struct TiledParams {
  using Family = TiledFamily;
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0;
  int wc = 8;            ///< threads of a warp along N
  int vec = 1;           ///< 4: 16-byte global access (aligned class); 1: any
  int split_k = 1;       ///< K slices reduced deterministically (1..256)
  int split_reduce = 0;  ///< split-K only: 0 the last block of a tile reduces
                         ///< in-kernel; 1 a second kernel reduces all tiles
  int swizzle = 1;       ///< block raster group height
  int stages = 0;        ///< 0 register staging (two shared buffers), 2..4 cp.async
  int min_blocks = 1;    ///< blocks per SM promised to __launch_bounds__
  int k_unroll = 0;      ///< k steps unrolled in the inner product (0: all bk)
  int batched = 0;       ///< 1: a strided batch in grid z (without split-K only)

  bool operator==(const TiledParams& o) const;
};

class TiledFamily final : public KernelFamily {
 public:
  /// Split-K tile counters at the start of every workspace (AG_SPLIT_TILES).
  static constexpr size_t kSplitTiles = kWorkspaceCounterFloats;

  static const TiledFamily& instance();
  static const ParamTable<TiledParams>& table();

  const char* name() const override { return "tiled"; }
  const KernelTemplate& source() const override;
  std::string format(const KernelConfig& c) const override;
  bool parse_fields(std::vector<std::pair<std::string, int>>& fields, KernelConfig& c,
                    std::string* error) const override;
  std::vector<std::string> defines(const KernelConfig& c) const override;
  bool is_valid(const KernelConfig& c, std::string* why) const override;
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
  double cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  std::vector<KernelConfig> history_variants(const KernelConfig& winner) const override;
  bool worth_borrowing(const KernelConfig& c, const Problem& p) const override;
  std::optional<std::string> arch(const DeviceInfo& dev) const override;
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
};

}  // namespace autogemm
