// KernelFamily: everything autogemm knows about one kind of kernel.
//
// A family owns its CUDA source (one .cu file in kernel_templates/), its
// parameter table (text keys, -D macros, allowed values, defaults), which
// problems it can compute, its resources and launch, the search space and
// cost model the tuner uses, its default for a problem, the architectures it
// runs on and the accuracy it is verified against. Nothing outside the family
// knows its parameters: the tuner, the cache and the dispatcher only hold
// KernelConfig values and ask the family through them. The registry
// (kernel_families.h) is the only list of families.
//
// Every family derives from TabledFamily (tabled_family.h), which answers
// from its parameter table what only the table decides. Family headers are
// read before KernelConfig is complete (it is built from the registry's
// list), so a family defines in its .cpp every member that returns or
// constructs a KernelConfig.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "autogemm/device_info.h"
#include "autogemm/problem.h"

namespace autogemm {

struct KernelConfig;
class KernelTemplate;

/// Device limits a search space respects (read once from DeviceInfo).
struct SearchLimits {
  int max_threads = 1024;
  size_t max_smem = 227 * 1024;  ///< opt-in shared memory per block
  int sm_count = 132;
  int regs_per_sm = 65536;
  int max_threads_per_sm = 2048;
  size_t smem_per_sm = 228 * 1024;

  static SearchLimits of(const DeviceInfo& dev);
};

struct LaunchGeometry {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block = 1;
  unsigned smem = 0;  ///< dynamic shared memory bytes
};

/// What a family's arithmetic is, for the math modes (math_mode.h) and the
/// verifier. Both classes are verified against the same FP64 bound (relative
/// 1e-5 and an element bound growing with K): an FP32-accurate family is never
/// held to a looser bound than FFMA. The class says how the result is
/// computed, which decides whether a caller's math mode admits the family.
enum class AccuracyClass {
  StrictFp32,   ///< FFMA in FP32, the default everywhere
  Fp32Accurate, ///< FP32 accuracy from lower-precision tensor cores (3xTF32): opt-in
};
const char* to_string(AccuracyClass a);

/// What a family's launch needs: the loaded entry points (in the order of
/// entry_points()), the operands and the stream.
struct LaunchArgs {
  const std::vector<CUfunction>& functions;
  const CanonicalCall& call;
  CUstream stream;
  CUdeviceptr workspace;  ///< workspace_floats() floats, zero-filled once
  int sm_count;
  /// The device runs kernels launched with programmatic serialization
  /// (sm_90 and later, unless AUTOGEMM_DEPENDENT_LAUNCH=0): a strict
  /// family's main kernel, or a split-K reduction, may start before the
  /// kernel before it in the stream has ended.
  bool dependent_launch = false;
};

/// Enqueues `f`, a family's main kernel, on geometry `g` with the argument
/// list they all share: (M, N, K, alpha, A, lda, B, ldb, beta, C, ldc,
/// workspace, stride_a, stride_b, stride_c). The driver takes from the list
/// as many arguments as the kernel declares, so a kernel without a workspace
/// simply ends at C, ldc. A strided batch (only for configs that batch())
/// goes into grid z in launches of at most 65535 products, each launch's
/// operands moved to its first product. With `programmatic` and
/// a.dependent_launch, a programmatic dependent launch: the kernel must
/// begin with griddepcontrol.wait. `name` is for errors. Throws CudaError.
void launch_gemm_kernel(CUfunction f, const LaunchGeometry& g, const LaunchArgs& a, const char* name,
                        bool programmatic = false);

/// Enqueues `f`, a split-K reduction that folds a workspace of partial sums
/// into C, on a grid of 256-thread blocks spread over the GPU (grid-stride,
/// at most 8 blocks per SM), with the argument list the reductions share:
/// (M, N, alpha, workspace, beta, C, ldc). Where a.dependent_launch, it is a
/// programmatic dependent launch: the reduction must begin with
/// griddepcontrol.wait. `name` is for errors. Throws CudaError.
/// `elements_per_block`: the elements of C one 256-thread block folds per
/// step of its grid-stride loop (256: a thread each; a wide fold takes fewer).
void launch_reduce_kernel(CUfunction f, const LaunchArgs& a, const char* name, int elements_per_block = 256);

/// One text key of a family's configs: what it means and the values it takes.
/// The keys are the cache's permanent format; `autogemm_cache show` prints these.
struct ConfigKey {
  std::string key;
  std::string meaning;
  std::string values;
};

/// Floats at the start of every workspace reserved for zeroed counters (see
/// KernelFamily::workspace_floats).
constexpr size_t kWorkspaceCounterFloats = 65536;

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  /// The family's name: the first word of its configs' text and the cache's
  /// `family` column ("tiled", "generic").
  virtual const char* name() const = 0;
  /// The embedded source; its content hash versions every cache row.
  virtual const KernelTemplate& source() const = 0;

  // ---- parameters (the family's parameter table) ----------------------------
  /// The parameter fields of the canonical text, after the name and before
  /// "ta=.. tb=..", e.g. "bm=128 bn=128 ... sw=8".
  virtual std::string format(const KernelConfig& c) const = 0;
  /// Takes this family's fields out of `fields` (key -> value, syntax
  /// already checked) into `c`; false with *error for a missing field.
  /// Unknown keys are left in `fields` for the caller to reject.
  virtual bool parse_fields(std::vector<std::pair<std::string, int>>& fields, KernelConfig& c,
                            std::string* error) const = 0;
  /// -D values of the parameters (the layouts are added by KernelConfig).
  virtual std::vector<std::string> defines(const KernelConfig& c) const = 0;
  /// Range and consistency checks, independent of any device.
  virtual bool is_valid(const KernelConfig& c, std::string* why) const = 0;
  /// Every key of the family's text, in text order, with its meaning (none
  /// for a family without parameters).
  virtual std::vector<ConfigKey> config_keys() const { return {}; }

  // ---- problems --------------------------------------------------------------
  /// True when `c` computes `p` correctly (layouts, alignment, size limits).
  /// Layouts are checked by KernelConfig before this is asked.
  virtual bool can_implement(const KernelConfig& c, const Problem& p) const = 0;
  /// Whether `c` computes a strided batch (Problem::batch > 1) in one launch:
  /// its kernel takes the strides after the workspace and blockIdx.z as the
  /// product (launch_gemm_kernel puts the batch there). KernelConfig asks
  /// this before can_implement; a family that never batches keeps the default.
  virtual bool batches(const KernelConfig& c) const {
    (void)c;
    return false;
  }
  /// A config of this family that implements every problem of p's layouts
  /// and alignment class, reasonable at p's size; nullopt if the family has
  /// no such config (it is then only ever chosen by tuning).
  virtual std::optional<KernelConfig> default_config(const Problem& p) const = 0;

  // ---- resources and launch ----------------------------------------------------
  virtual int threads(const KernelConfig& c) const = 0;
  /// Dynamic shared memory in bytes.
  virtual size_t smem_bytes(const KernelConfig& c) const = 0;
  /// Workspace floats `c` needs for `p` (0: none). One workspace serves every
  /// family and problem in turn: it is zero-filled when allocated, and its
  /// first kWorkspaceCounterFloats floats are counters that every kernel
  /// leaves zero (tiled's split-K relies on it); anything else a family
  /// stores goes after them.
  virtual size_t workspace_floats(const KernelConfig& c, const Problem& p) const = 0;
  /// Floats at the start of the workspace holding counters, which a tuner
  /// re-zeroes before each candidate so a faulty one cannot poison the next.
  virtual size_t workspace_counter_floats(const KernelConfig& c) const = 0;
  virtual LaunchGeometry geometry(const KernelConfig& c, const Problem& p) const = 0;
  /// Kernel entry points to load from the module, the main one first.
  virtual std::vector<std::string> entry_points(const KernelConfig& c) const = 0;
  /// Enqueues the product (one or more launches). Throws CudaError.
  virtual void launch(const KernelConfig& c, const LaunchArgs& a) const = 0;

  // ---- tuning ------------------------------------------------------------------
  /// Every candidate worth trying for `p` under `lim`, in a deterministic
  /// order (an interrupted tuning resumes by skipping what it measured);
  /// a family declares it as data, a ParamSpace (param_space.h).
  virtual std::vector<KernelConfig> search_space(const Problem& p, const SearchLimits& lim) const = 0;
  /// Estimated run time of `c` on `p` (lower is better). Units are the
  /// family's own: costs rank candidates within one family only.
  virtual double cost(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const = 0;
  /// Whether `c` is a variant the model strategy never ranks among its
  /// picks and measures only next to a fast config (the neighbour pass):
  /// a variant of every tile that pays off for the best few would otherwise
  /// take half the budget from the tiles themselves.
  virtual bool neighbour_only(const KernelConfig&) const { return false; }
  /// Configs a winner of another shape suggests for a new one (the winner
  /// itself first), for history-led candidate selection.
  virtual std::vector<KernelConfig> history_variants(const KernelConfig& winner) const = 0;
  /// Whether dispatch may run `c`, tuned for another shape, on `p` before p
  /// is tuned (it can implement p; this asks whether it is sensible there).
  virtual bool worth_borrowing(const KernelConfig& c, const Problem& p) const = 0;
  /// Whether `c` meets every constraint of this family's search space for
  /// `p` under `lim` (ParamSpace::admits): dispatch borrows only configs the
  /// space could have offered p. True for a family without a space.
  virtual bool in_space(const KernelConfig& c, const Problem& p, const SearchLimits& lim) const {
    (void)c, (void)p, (void)lim;
    return true;
  }
  /// `c`, tuned for another shape (of other layouts or class, maybe), made
  /// to fit `p` for dispatch before p is tuned: p's transposes and, where p
  /// is unaligned, scalar global access (vec=1); nullopt where it still
  /// cannot implement p. A family may adapt more of it (gemv: its rows).
  virtual std::optional<KernelConfig> fitted(const KernelConfig& c, const Problem& p) const;

  // ---- architecture and accuracy -------------------------------------------------
  /// The NVRTC target for `dev` ("sm_90", "sm_90a"), nullopt if the family
  /// cannot run there. Part of every cubin key.
  virtual std::optional<std::string> arch(const DeviceInfo& dev) const = 0;
  virtual AccuracyClass accuracy() const = 0;
};

}  // namespace autogemm
