// The tf32x3wg family: FP32-accurate GEMM on Hopper tensor cores
// (kernel_templates/sgemm_tf32x3wg.cu): each operand split into two TF32
// parts by a producer warpgroup, three wgmma products per k8 step, issued by
// one or two consumer warpgroups (sm_90a, compute capability 9.0 only).
// Operands arrive by TMA, which needs the aligned class: an unaligned problem
// runs with the pre-pass (pp=1), which copies each unaligned operand (A, B)
// into the workspace with aligned rows first; C is written in place. With
// bs=1 a pre-pass splits B into its TF32 parts in the workspace once, and
// the producers only copy; with at=1 the same pre-pass copies A^T
// k-contiguous there, for the consumers to split in registers. Opt-in: it has no
// default and is only ever chosen by tuning. Split-K (a workspace of partial
// tiles and a reduction kernel) for few output tiles; strided batches of the
// aligned class in grid z.
#pragma once

#include "autogemm/tabled_family.h"

namespace autogemm {

class Tf32x3WgFamily;

/// Parameters of sgemm_tf32x3wg.cu; Tf32x3WgFamily::table() says what each one means.
struct Tf32x3WgParams {
  using Family = Tf32x3WgFamily;
  int bn = 0;       ///< block tile width
  int wg = 0;       ///< consumer warpgroups (block tile height 64 * wg)
  int producers = 1;  ///< producer warpgroups (copy and split)
  int a_regs = 0;     ///< 1: consumers split A into registers (k-contiguous A only)
  int raw = 2;      ///< FP32 slice buffers (2..3; 0 with b_split)
  int split = 2;    ///< split TF32 slice buffers (2..3; 2..4 with b_split)
  int drain = 0;    ///< slices per accumulator drain (0: never)
  int swizzle = 1;  ///< block raster group height
  int split_k = 1;  ///< K slices in separate blocks, folded by a second kernel (1: none)
  int pre_pass = 0; ///< 1: unaligned operands copied to aligned rows in the workspace first
  int b_split = 0;  ///< 1: B split into TF32 parts by a pre-pass into the workspace (needs a_regs)
  int a_transposed = 0;  ///< 1: A^T copied k-contiguous into the workspace by a pre-pass (then a_regs)

  bool operator==(const Tf32x3WgParams& o) const;
};

class Tf32x3WgFamily final : public TabledFamily<Tf32x3WgFamily, Tf32x3WgParams> {
 public:
  static constexpr const char* kName = "tf32x3wg";
  static constexpr const char* kSource = "sgemm_tf32x3wg.cu";
  static const ParamTable<Tf32x3WgParams>& table();

  bool can_implement(const KernelConfig& c, const Problem& p) const override;
  /// nullopt: the family is opt-in (a different accuracy class) and tuned only.
  std::optional<KernelConfig> default_config(const Problem& p) const override;
  int threads(const KernelConfig& c) const override;
  size_t smem_bytes(const KernelConfig& c) const override;
  /// The counter area, then (sk > 1) sk partial tiles of M rows of N rounded
  /// up to 4, then (pp=1, unaligned) the staged A and B, then (bs=1) B's
  /// two parts, then (at=1) A k-contiguous; 0 for none.
  size_t workspace_floats(const KernelConfig& c, const Problem& p) const override;
  size_t workspace_counter_floats(const KernelConfig&) const override { return 0; }
  /// Without split-K: a strided batch runs in grid z (3-D tensor maps).
  bool batches(const KernelConfig& c) const override { return params(c).split_k == 1; }
  /// A borrowed split-K config must still leave each K run its pipeline's depth.
  bool worth_borrowing(const KernelConfig& c, const Problem& p) const override;
  /// A borrowed config in p's layouts, with the pre-pass where p is unaligned.
  std::optional<KernelConfig> fitted(const KernelConfig& c, const Problem& p) const override;
  LaunchGeometry geometry(const KernelConfig& c, const Problem& p) const override;
  std::vector<std::string> entry_points(const KernelConfig& c) const override;
  void launch(const KernelConfig& c, const LaunchArgs& a) const override;
  std::vector<KernelConfig> search_space(const Problem& p, const SearchLimits& lim) const override;
  bool in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  double cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const override;
  /// sm_90a on compute capability 9.0 (wgmma), nothing elsewhere.
  std::optional<std::string> arch(const DeviceInfo& dev) const override;
  /// Tensor cores with FP32 accuracy: only in math mode fp32_accurate.
  AccuracyClass accuracy() const override { return AccuracyClass::Fp32Accurate; }

  static int threads(const Tf32x3WgParams& t) { return 128 * (t.wg + t.producers); }
  /// Registers a consumer thread may use: the launch share of 64K, or what
  /// setmaxnreg gives it with two producer warpgroups (AG_CONSUMER_REGS).
  static int consumer_registers(const Tf32x3WgParams& t);
  static int block_m(const Tf32x3WgParams& t) { return 64 * t.wg; }
  static size_t smem_bytes(const Tf32x3WgParams& t);
  /// Accumulator registers per consumer thread (totals and register A
  /// included): what the space bounds to keep ptxas from spilling.
  static int tile_registers(const Tf32x3WgParams& t) {
    return t.bn / 2 * (t.drain > 0 ? 2 : 1) + (t.a_regs ? 32 : 0);  // + a slice's A pieces
  }
  /// Where the pre-pass stages A and B in the workspace (floats from its
  /// start, each 128-byte aligned, rows padded to 4 floats), where B's split
  /// parts go (bs=1: big then small, chunk_n rows of K padded to 4 each),
  /// where A goes k-contiguous (at=1: M rows of K padded to 4), and the end
  /// of what the config uses; nothing is staged for an aligned problem, nor
  /// B with bs=1 or A with at=1 (their pre-passes read any alignment), and C
  /// never (the kernels write it at any alignment). With bs=1 the columns are
  /// computed in bands of chunk_n (a multiple of bn; N when the parts of all
  /// of B fit in half of what dispatch allocates), each split, multiplied
  /// and (split-K) folded in turn; the partial tiles are a band's.
  struct Staging {
    size_t a = 0, b = 0, b_parts = 0, a_kmajor = 0, end = 0;
    int64_t chunk_n = 0;
  };
  static Staging staging(const Tf32x3WgParams& t, const Problem& p);

 protected:
  bool constraints_hold(const Tf32x3WgParams& p, const KernelConfig& c, std::string* why) const override;
};

}  // namespace autogemm
