// Verifier: owns the operands of one problem on the GPU and judges results.
//
// Inputs are random and non-zero. The reference is computed once, on the GPU,
// with FP64 accumulation (kernel_templates/gemm_reference.cu), together with
// a per-element error bound that grows with K. Before each candidate run C
// is poisoned (NaN when beta == 0, so an unwritten element or a read of C
// shows) and surrounded by guard floats; after it, every element must be
// within its bound (NaN never passes), and every guard untouched.
#pragma once

#include <string>

#include "autogemm/cuda_driver.h"
#include "autogemm/device_info.h"
#include "autogemm/kernel_family.h"
#include "autogemm/problem.h"

namespace autogemm {

struct VerifyResult {
  bool ok = false;
  double rel_error = 0;     ///< ||out - ref||_F / ||ref||_F
  double over_bound = 0;    ///< elements outside their bound (or NaN)
  double guards_hit = 0;    ///< guard floats overwritten
  double worst_ratio = 0;   ///< max |out - ref| / bound
  std::string why;          ///< empty when ok
};

class Verifier {
 public:
  /// Allocates and fills A, B and C for `p` (leading dimensions from `p`; a
  /// batch packed tightly, whatever strides `p` has), computes the reference. The device's context must be current.
  /// `spread` > 0: each input is also scaled by 2^e, e uniform in
  /// [-spread, spread] (a wide exponent range); 0: values in ±[0.25, 1).
  Verifier(const Problem& p, const DeviceInfo& dev, float alpha, float beta, unsigned seed, int spread = 0);

  /// The call a candidate must compute (pointers into this object's buffers;
  /// its problem is `p` with a batch's strides packed).
  const CanonicalCall& call() const { return call_; }

  /// Restores C to its initial values (NaN poison when beta == 0) and guards.
  void prepare(CUstream s);
  /// Compares C with the reference under the bound of `accuracy`, the
  /// family's class (synchronizes `s`).
  VerifyResult check(CUstream s, AccuracyClass accuracy = AccuracyClass::StrictFp32);

  /// Relative error tolerance on ||out - ref|| / ||ref|| for strict FP32.
  static constexpr double kRelTolerance = 1e-5;
  /// The relative tolerance of an accuracy class.
  static double rel_tolerance(AccuracyClass a);
  /// Factor on the strict element bound (K + 2) 2^-24 sum|ab| for class `a`
  /// at depth `k` (1 for strict FP32; see verifier.cpp for 3xTF32's).
  static double bound_scale(AccuracyClass a, int64_t k);

 private:
  Problem p_;
  CanonicalCall call_;
  float alpha_, beta_;
  size_t c_total_ = 0, c_offset_ = 0;
  DeviceBuffer a_, b_, c_, c0_, ref_, bound_, stats_;
  Module ref_module_;
  CUfunction check_fn_ = nullptr;
  int sm_count_ = 0;

  void launch_reference(CUstream s);
};

/// Launches agemm_fill_random over n floats (module from the reference template).
void fill_random(const DeviceInfo& dev, CUdeviceptr p, size_t n, unsigned seed, CUstream s, int spread = 0);

/// Guard pattern written around C (a quiet-NaN payload no kernel produces).
constexpr unsigned kGuardBits = 0x7fc0dead;
/// Poison written into C when beta == 0.
constexpr unsigned kPoisonBits = 0x7fc00000;

}  // namespace autogemm
