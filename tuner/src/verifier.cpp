#include "autogemm/verifier.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "reference_module.h"

namespace autogemm {
namespace {

constexpr size_t kGuard = 1024;  // guard floats before and after C

unsigned grid_for(size_t n, int sm_count) {
  return unsigned(std::max<size_t>(1, std::min<size_t>((n + 255) / 256, size_t(sm_count) * 32)));
}

}  // namespace

void fill_random(const DeviceInfo& dev, CUdeviceptr p, size_t n, unsigned seed, CUstream s, int spread) {
  Module mod = load_reference_module(dev, false, false);
  CUfunction f = mod.function("agemm_fill_random");
  long long count = (long long)n;
  void* args[] = {&p, &count, &seed, &spread};
  AUTOGEMM_CU(cuLaunchKernel(f, grid_for(n, dev.sm_count), 1, 1, 256, 1, 1, 0, s, args, nullptr));
  AUTOGEMM_CU(cuStreamSynchronize(s));  // the module is unloaded on return
}

Verifier::Verifier(const Problem& problem, const DeviceInfo& dev, float alpha, float beta, unsigned seed,
                   int spread)
    : p_(problem), alpha_(alpha), beta_(beta), sm_count_(dev.sm_count) {
  // A batch is laid out packed: the products' Cs form one (batch * M) x ldc
  // matrix, which the checker and the guards treat as a single C.
  pack_batch(p_);
  const Problem& p = p_;
  const size_t products = size_t(p.batch);
  const size_t a_elems = size_t(p.a_extent()) * products, b_elems = size_t(p.b_extent()) * products;
  const size_t c_rows = size_t(p.m) * products, mn = size_t(p.m) * size_t(p.n) * products;
  c_offset_ = kGuard;
  c_total_ = kGuard + c_rows * size_t(p.ldc) + kGuard;
  a_ = DeviceBuffer(std::max<size_t>(a_elems, 1) * 4);
  b_ = DeviceBuffer(std::max<size_t>(b_elems, 1) * 4);
  c_ = DeviceBuffer(c_total_ * 4);
  c0_ = DeviceBuffer(c_total_ * 4);
  ref_ = DeviceBuffer(std::max<size_t>(mn, 1) * 8);
  bound_ = DeviceBuffer(std::max<size_t>(mn, 1) * 8);
  stats_ = DeviceBuffer(5 * 8);
  ref_module_ = load_reference_module(dev, p.trans_a, p.trans_b);
  check_fn_ = ref_module_.function("agemm_check");

  Stream s;
  fill_random(dev, a_.get(), a_elems, seed * 3 + 1, s.get(), spread);
  fill_random(dev, b_.get(), b_elems, seed * 3 + 2, s.get(), spread);
  // C0: random values in the M x N window, guard floats everywhere else
  // (before, after, and in the ldc - N padding of every row).
  AUTOGEMM_CU(cuMemsetD32Async(c0_.get(), kGuardBits, c_total_, s.get()));
  fill_random(dev, c0_.get() + c_offset_ * 4, c_rows * size_t(p.ldc), seed * 3 + 3, s.get(), spread);
  if (p.ldc > p.n)
    AUTOGEMM_CU(cuMemsetD2D32Async(c0_.get() + (c_offset_ + size_t(p.n)) * 4, size_t(p.ldc) * 4,
                                   kGuardBits, size_t(p.ldc - p.n), c_rows, s.get()));
  call_.problem = p;
  call_.a = a_.as<float>();
  call_.b = b_.as<float>();
  call_.c = c_.as<float>() + c_offset_;
  call_.alpha = alpha;
  call_.beta = beta;
  launch_reference(s.get());
  s.synchronize();
}

void Verifier::launch_reference(CUstream s) {
  const Problem& p = p_;
  CUfunction ref_fn = ref_module_.function("agemm_reference");
  int m = int(p.m), n = int(p.n), k = int(p.k);
  double da = alpha_, db = beta_;
  CUdeviceptr A = 0, B = 0, C0 = 0, R = 0, Bd = 0;
  long long lda = p.lda, ldb = p.ldb, ldc = p.ldc, sa = p.stride_a, sb = p.stride_b, sc = p.stride_c;
  void* args[] = {&m, &n, &k, &da, &A, &lda, &B, &ldb, &db, &C0, &ldc, &R, &Bd, &sa, &sb, &sc};
  // Tiles of 64 x 64 outputs (gemm_reference.cu, AG_RT).
  const unsigned blocks = unsigned(((p.m + 63) / 64) * ((p.n + 63) / 64));
  // Grid y is the product (at most 65535 a launch).
  const size_t mn = size_t(p.m) * size_t(p.n);
  for (int64_t first = 0; first < p.batch; first += 65535) {
    const unsigned products = unsigned(std::min<int64_t>(65535, p.batch - first));
    A = a_.get() + size_t(first * p.stride_a) * 4;
    B = b_.get() + size_t(first * p.stride_b) * 4;
    C0 = c0_.get() + (c_offset_ + size_t(first * p.stride_c)) * 4;
    R = ref_.get() + size_t(first) * mn * 8;
    Bd = bound_.get() + size_t(first) * mn * 8;
    AUTOGEMM_CU(cuLaunchKernel(ref_fn, blocks, products, 1, 256, 1, 1, 0, s, args, nullptr));
  }
}

void Verifier::prepare(CUstream s) {
  AUTOGEMM_CU(cuMemcpyDtoDAsync(c_.get(), c0_.get(), c_total_ * 4, s));
  if (beta_ == 0.f) {
    // Poison the window: a kernel that reads C with beta == 0, or skips an
    // element, leaves NaN behind and fails.
    AUTOGEMM_CU(cuMemsetD2D32Async(c_.get() + c_offset_ * 4, size_t(p_.ldc) * 4, kPoisonBits,
                                   size_t(p_.n), size_t(p_.m * p_.batch), s));
  }
}

double Verifier::rel_tolerance(AccuracyClass a) {
  switch (a) {
    case AccuracyClass::StrictFp32:
    case AccuracyClass::Fp32Accurate: return kRelTolerance;  // never looser than FFMA
  }
  return 0;  // an unknown class passes nothing
}

double Verifier::bound_scale(AccuracyClass a, int64_t k) {
  switch (a) {
    case AccuracyClass::StrictFp32: return 1.0;
    case AccuracyClass::Fp32Accurate:
      // 3xTF32: each product misses at most 3 * 2^-22 of |ab| (the dropped
      // small*small and the two split remainders: 12 units of 2^-24), and the
      // tensor cores' FP32 accumulation aligns addends by truncation, up to
      // twice the rounding error of an IEEE add: (2 (K + 2) + 12) 2^-24
      // against FFMA's (K + 2) 2^-24, still growing with K. The relative
      // tolerance, which plain TF32 (~3e-4) fails, is FFMA's.
      return 2.0 + 12.0 / (double(k) + 2.0);
  }
  return 0;
}

VerifyResult Verifier::check(CUstream s, AccuracyClass accuracy) {
  const double tolerance = rel_tolerance(accuracy);
  double scale = bound_scale(accuracy, p_.k);
  AUTOGEMM_CU(cuMemsetD32Async(stats_.get(), 0, 10, s));
  long long m = p_.m * p_.batch, n = p_.n;  // a batch's Cs: one (batch * M) x N window
  CUdeviceptr base = c_.get(), ref = ref_.get(), bound = bound_.get(), stats = stats_.get();
  long long offset = (long long)c_offset_, ldc = p_.ldc, total = (long long)c_total_;
  unsigned guard = kGuardBits;
  void* args[] = {&m, &n, &base, &offset, &ldc, &total, &ref, &bound, &scale, &guard, &stats};
  AUTOGEMM_CU(cuLaunchKernel(check_fn_, grid_for(c_total_, sm_count_), 1, 1, 256, 1, 1, 0, s, args, nullptr));
  double h[5] = {};
  AUTOGEMM_CU(cuStreamSynchronize(s));
  AUTOGEMM_CU(cuMemcpyDtoH(h, stats_.get(), sizeof(h)));
  VerifyResult r;
  r.rel_error = h[1] > 0 ? std::sqrt(h[0] / h[1]) : std::sqrt(h[0]);
  r.over_bound = h[2];
  r.guards_hit = h[3];
  r.worst_ratio = h[4];
  std::ostringstream why;
  if (r.over_bound > 0) why << r.over_bound << " elements outside the error bound or NaN; ";
  if (r.guards_hit > 0) why << r.guards_hit << " guard floats around C overwritten; ";
  if (!(r.rel_error <= tolerance)) why << "relative error " << r.rel_error << " above " << tolerance;
  r.why = why.str();
  r.ok = r.why.empty();
  return r;
}

}  // namespace autogemm
