// The tf32x3 family: FP32-accurate GEMM on tensor cores (kernel_templates/
// sgemm_tf32x3.cu): each operand split into two TF32 parts, three
// mma.sync.m16n8k8 products per step (sm_80 and newer). Opt-in: it has no
// default and is only ever chosen by tuning. No split-K, no workspace.
#pragma once

#include "autogemm/tabled_family.h"

namespace autogemm {

class Tf32x3Family;

/// Parameters of sgemm_tf32x3.cu; Tf32x3Family::table() says what each one means.
struct Tf32x3Params {
  using Family = Tf32x3Family;
  int bm = 0, bn = 0, bk = 0;  ///< block tile and K slice per stage
  int wm = 0, wn = 0;          ///< warp tile
  int stages = 3;              ///< cp.async buffers per operand (2..4)
  int vec = 1;                 ///< 4: 16-byte copies (aligned class); 1: any
  int drain = 0;               ///< K slices per accumulator drain (0: never)
  int swizzle = 1;             ///< block raster group height

  bool operator==(const Tf32x3Params& o) const;
};

class Tf32x3Family final : public TabledFamily<Tf32x3Family, Tf32x3Params> {
 public:
  static constexpr const char* kName = "tf32x3";
  static constexpr const char* kSource = "sgemm_tf32x3.cu";
  static const ParamTable<Tf32x3Params>& table();

  bool can_implement(const KernelConfig& c, const Problem& p) const override;
  /// nullopt: the family is opt-in (a different accuracy class) and tuned only.
  std::optional<KernelConfig> default_config(const Problem& p) const override;
  int threads(const KernelConfig& c) const override;
  size_t smem_bytes(const KernelConfig& c) const override;
  size_t workspace_floats(const KernelConfig&, const Problem&) const override { return 0; }
  size_t workspace_counter_floats(const KernelConfig&) const override { return 0; }
  LaunchGeometry geometry(const KernelConfig& c, const Problem& p) const override;
  std::vector<std::string> entry_points(const KernelConfig&) const override { return {"agemm_tf32x3"}; }
  void launch(const KernelConfig& c, const LaunchArgs& a) const override;
  std::vector<KernelConfig> search_space(const Problem& p, const SearchLimits& lim) const override;
  bool in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  double cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  /// The device's own target from compute capability 8.0 (mma.sync .tf32).
  std::optional<std::string> arch(const DeviceInfo& dev) const override;
  /// Tensor cores with FP32 accuracy: only in math mode fp32_accurate.
  AccuracyClass accuracy() const override { return AccuracyClass::Fp32Accurate; }

  static int threads(const Tf32x3Params& t);
  static size_t smem_bytes(const Tf32x3Params& t);
  /// Accumulator and fragment registers per thread (without addressing):
  /// what the search space bounds to keep ptxas from spilling.
  static int tile_registers(const Tf32x3Params& t);
  /// Resident blocks per SM by estimated registers, shared memory and threads (>= 1).
  static int blocks_per_sm(const Tf32x3Params& t, const SearchLimits& lim);

 protected:
  bool constraints_hold(const Tf32x3Params& p, const KernelConfig& c, std::string* why) const override;
};

}  // namespace autogemm
