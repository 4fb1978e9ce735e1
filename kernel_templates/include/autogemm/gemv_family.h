// The gemv family: the GEMMs whose M or N is at most 16 as one matrix
// streamed against a few vectors (kernel_templates/sgemv.cu), strict FP32,
// bound by memory bandwidth. Every
// layout reaches it through the canonical form; it has no default (it cannot
// compute a general problem) and is chosen by tuning.
#pragma once

#include "autogemm/tabled_family.h"

namespace autogemm {

class GemvFamily;

/// Parameters of sgemv.cu; GemvFamily::table() says what each one means.
struct GemvParams {
  using Family = GemvFamily;
  int one = 0;       ///< 0: M is short (y = x . op(B)); 1: N is short (y = op(A) . x)
  int rows = 1;      ///< the short dimension served: 1..rows (1 for the dot kernel)
  int threads = 256; ///< threads per block
  int k_groups = 1;  ///< thread groups along k in a block of the axpy kernel (1 for dot)
  int split_k = 1;   ///< K slices of the axpy kernel (1 for the dot kernel)
  int unroll = 1;    ///< 4 * unroll matrix loads in flight per thread
  int prefetch = 0;  ///< axpy: 1 loads the next batch before using this one (0 for dot)
  int stages = 0;    ///< axpy: 0 batches straight to registers; S: a ring of S batches in shared memory per thread
  int ld_hint = 0;   ///< 1: matrix loads bypass L1 and fetch 256 bytes into L2
  int vec = 1;       ///< 4: 16-byte loads (aligned class); 1: any

  bool operator==(const GemvParams& o) const;
};

class GemvFamily final : public TabledFamily<GemvFamily, GemvParams> {
 public:
  static constexpr const char* kName = "gemv";
  static constexpr const char* kSource = "sgemv.cu";
  static const ParamTable<GemvParams>& table();

  /// True when `c` runs the dot kernel (the matrix's rows along k contiguous).
  static bool is_dot(const KernelConfig& c);
  /// The longest short dimension (M or N) the family serves.
  static constexpr int kMaxRows = 16;
  /// Shared memory a config may ask for (the H200's opt-in limit per block).
  static constexpr size_t kMaxSmemBytes = 227 * 1024;

  bool can_implement(const KernelConfig& c, const Problem& p) const override;
  /// nullopt: a matrix-vector kernel cannot compute every problem of a class.
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
  /// Also its rows to the next power of two of p's short side: a row of
  /// 8-row sums borrowed for 4 rows would do twice the arithmetic.
  std::optional<KernelConfig> fitted(const KernelConfig& c, const Problem& p) const override;
  AccuracyClass accuracy() const override { return AccuracyClass::StrictFp32; }

 protected:
  bool constraints_hold(const GemvParams& g, const KernelConfig& c, std::string* why) const override;
};

}  // namespace autogemm
