// The warptiled family: warp-tiled FFMA SGEMM on a multi-stage cp.async
// pipeline (kernel_templates/sgemm_warptiled.cu), strict FP32. Every problem
// class reaches the same inner product: unaligned problems change only the
// width of the global-to-shared copies. Split-K goes through a workspace and
// a second, reducing launch; a k-contiguous A or B may be transposed into
// the workspace by a first launch.
#pragma once

#include "autogemm/tabled_family.h"

namespace autogemm {

class WarpTiledFamily;

/// Parameters of sgemm_warptiled.cu; WarpTiledFamily::table() says what each one means.
struct WarpTiledParams {
  using Family = WarpTiledFamily;
  int bm = 0, bn = 0, bk = 0;  ///< block tile and K slice per stage
  int wm = 0, wn = 0;          ///< warp tile
  int ln = 8;                  ///< lanes of a warp along N
  int stages = 3;              ///< cp.async stages (2..4)
  int vec = 1;                 ///< 4: 16-byte copies (aligned class); 1: any
  int split_k = 1;             ///< K slices, reduced by a second kernel (1..16)
  int swizzle = 1;             ///< block raster group height
  int batched = 0;             ///< 1: a strided batch in grid z (without split-K only)
  int peel = 0;                ///< 1: a side at most kPeelMax past a multiple of the tile is peeled off
  int stage_b = 0;             ///< 1: a k-contiguous B is transposed into the workspace first
  int stage_a = 0;             ///< 1: a k-contiguous A is transposed into the workspace first
  int ffma_order = 0;          ///< a k step's FFMAs: 0 by rows, 1 by rows turning, 2 by columns turning

  /// The thread tile (rows x columns of C per thread).
  int tm() const { return ln > 0 ? wm * ln / 32 : 0; }
  int tn() const { return ln > 0 ? wn / ln : 0; }
  bool operator==(const WarpTiledParams& o) const;
};

class WarpTiledFamily final : public TabledFamily<WarpTiledFamily, WarpTiledParams> {
 public:
  static constexpr const char* kName = "warptiled";
  static constexpr const char* kSource = "sgemm_warptiled.cu";
  static const ParamTable<WarpTiledParams>& table();

  bool can_implement(const KernelConfig& c, const Problem& p) const override;
  bool batches(const KernelConfig& c) const override;
  std::optional<KernelConfig> default_config(const Problem& p) const override;
  int threads(const KernelConfig& c) const override;
  size_t smem_bytes(const KernelConfig& c) const override;
  size_t workspace_floats(const KernelConfig& c, const Problem& p) const override;
  size_t workspace_counter_floats(const KernelConfig&) const override { return 0; }
  LaunchGeometry geometry(const KernelConfig& c, const Problem& p) const override;
  std::vector<std::string> entry_points(const KernelConfig& c) const override;
  void launch(const KernelConfig& c, const LaunchArgs& a) const override;
  std::vector<KernelConfig> search_space(const Problem& p, const SearchLimits& lim) const override;
  bool in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  double cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  /// A staged A (sa=1) and an FFMA order other than 0 are tried only as
  /// twins of a fast config (the model cannot tell them apart).
  bool neighbour_only(const KernelConfig& c) const override;
  /// The device's own target from compute capability 8.0 (cp.async).
  std::optional<std::string> arch(const DeviceInfo& dev) const override;
  AccuracyClass accuracy() const override { return AccuracyClass::StrictFp32; }

  static int threads(const WarpTiledParams& t);
  static size_t smem_bytes(const WarpTiledParams& t);
  /// Registers per thread ptxas is expected to use (accumulators, two sets
  /// of fragments, addressing); used to prune and to estimate occupancy.
  static int estimated_registers(const WarpTiledParams& t);
  /// Resident blocks per SM by estimated registers, shared memory and threads (>= 1).
  static int blocks_per_sm(const WarpTiledParams& t, const SearchLimits& lim);
  /// Output tiles of p under t: the main kernel's blocks per K slice.
  static int64_t tiles(const WarpTiledParams& t, const Problem& p);

  /// Rows or columns a peeled strip may hold (agemm_warptiled_peel8).
  static constexpr int kPeelMax = 8;
  /// The part of C the main kernel computes under `t` (all of it unless
  /// t.peel and a side is 1..kPeelMax past a multiple of its tile side);
  /// the agemm_warptiled_peel kernels compute the rest.
  struct MainPart {
    int64_t m = 0, n = 0;
  };
  static MainPart main_part(const WarpTiledParams& t, const Problem& p);
  /// Row length, in floats, of B staged by agemm_warptiled_transpose (t.stage_b).
  static int64_t staged_ldb(const Problem& p) { return (p.n + 3) / 4 * 4; }
  /// Row length, in floats, of A staged as K x M rows (t.stage_a).
  static int64_t staged_lda(const Problem& p) { return (p.m + 3) / 4 * 4; }
  /// Where B is staged in the workspace (floats from its start): after the
  /// counter area and any split-K partial tiles, 128-byte aligned.
  static size_t staged_b_at(const WarpTiledParams& t, const Problem& p);
  /// Where A is staged: after B's copy, if any, 128-byte aligned.
  static size_t staged_a_at(const WarpTiledParams& t, const Problem& p);
  /// K rows a staged copy holds at once: all of K where the whole copy fits
  /// what dispatch allocates (KernelConfig::kMaxWorkspaceFloats), else the
  /// most that fit, a multiple of 32, and the product runs in K chunks, C
  /// accumulating (beta 1 after the first); 0 where none fit, or with
  /// split-K, whose partials span the whole K. Why: a whole copy of
  /// 16384^3:NT's B takes 1 GiB, four chunks of 256 MiB cost three more
  /// passes over C (about 1 % there), and unstaged it ran at 0.93 of cuBLAS.
  static int64_t staged_k(const WarpTiledParams& t, const Problem& p);

 protected:
  bool constraints_hold(const WarpTiledParams& p, const KernelConfig& c, std::string* why) const override;
};

}  // namespace autogemm
