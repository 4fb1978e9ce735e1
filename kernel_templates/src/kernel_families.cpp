#include "autogemm/kernel_families.h"

#include <algorithm>
#include <utility>

#include "autogemm/cuda_driver.h"
#include "autogemm/kernel_config.h"

namespace autogemm {
namespace {

template <size_t... I>
std::vector<const KernelFamily*> list(std::index_sequence<I...>) {
  return {&std::variant_alternative_t<I, FamilyParams>::Family::instance()...};
}

}  // namespace

SearchLimits SearchLimits::of(const DeviceInfo& dev) {
  SearchLimits l;
  l.max_threads = dev.max_threads_per_block;
  l.max_smem = size_t(dev.max_smem_per_block_optin);
  l.sm_count = dev.sm_count;
  l.regs_per_sm = dev.regs_per_sm;
  l.max_threads_per_sm = dev.max_threads_per_sm;
  l.smem_per_sm = size_t(dev.max_smem_per_sm);
  return l;
}

namespace {

// One launch; a programmatic dependent launch (sm_90+) where asked: the
// kernel may start before the previous kernel of the stream has ended, and
// must begin with griddepcontrol.wait.
void enqueue(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned block, unsigned smem, CUstream stream,
             void** args, bool programmatic, const char* name) {
  if (!programmatic) {
    check(driver().cuLaunchKernel(f, gx, gy, gz, block, 1, 1, smem, stream, args, nullptr), name);
    return;
  }
  CUlaunchAttribute attr{};
  attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig cfg{};
  cfg.gridDimX = gx, cfg.gridDimY = gy, cfg.gridDimZ = gz;
  cfg.blockDimX = block, cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.sharedMemBytes = smem;
  cfg.hStream = stream;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  check(driver().cuLaunchKernelEx(&cfg, f, args, nullptr), name);
}

}  // namespace

void launch_gemm_kernel(CUfunction f, const LaunchGeometry& g, const LaunchArgs& a, const char* name,
                        bool programmatic) {
  const Problem& p = a.call.problem;
  int m = int(p.m), n = int(p.n), k = int(p.k);
  float alpha = a.call.alpha, beta = a.call.beta;
  const float* a0 = a.call.a;
  const float* b0 = a.call.b;
  float* c0 = a.call.c;
  CUdeviceptr pa = 0, pb = 0, pc = 0, ws = a.workspace;
  long long lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  long long sa = p.stride_a, sb = p.stride_b, sc = p.stride_c;
  void* args[] = {&m, &n, &k, &alpha, &pa, &lda, &pb, &ldb, &beta, &pc, &ldc, &ws, &sa, &sb, &sc};
  // Grid z holds at most 65535 blocks: a larger batch takes several launches.
  constexpr int64_t kMaxZ = 65535;
  const int64_t batch = std::max<int64_t>(1, p.batch);
  for (int64_t first = 0; first < batch; first += kMaxZ) {
    const unsigned z = batch > 1 ? unsigned(std::min(kMaxZ, batch - first)) : g.grid_z;
    // Pointer arithmetic on the host only where the pointers are real (a
    // null operand is never read: alpha == 0 or beta == 0).
    pa = reinterpret_cast<CUdeviceptr>(a0 ? a0 + first * sa : nullptr);
    pb = reinterpret_cast<CUdeviceptr>(b0 ? b0 + first * sb : nullptr);
    pc = reinterpret_cast<CUdeviceptr>(c0 ? c0 + first * sc : nullptr);
    enqueue(f, g.grid_x, g.grid_y, z, g.block, g.smem, a.stream, args, programmatic && a.dependent_launch, name);
  }
}

void launch_reduce_kernel(CUfunction f, const LaunchArgs& a, const char* name, int elements_per_block) {
  const Problem& p = a.call.problem;
  int m = int(p.m), n = int(p.n);
  float alpha = a.call.alpha, beta = a.call.beta;
  CUdeviceptr pc = reinterpret_cast<CUdeviceptr>(a.call.c), ws = a.workspace;
  long long ldc = p.ldc;
  const long long total = (long long)m * n;
  const unsigned blocks =
      unsigned(std::max<long long>(1, std::min<long long>((total + elements_per_block - 1) / elements_per_block,
                                                           (long long)a.sm_count * 8)));
  void* args[] = {&m, &n, &alpha, &ws, &beta, &pc, &ldc};
  // The reduction's launch overlaps the main kernel's last blocks; its
  // griddepcontrol.wait holds every read until the main kernel is done.
  enqueue(f, blocks, 1, 1, 256, 0, a.stream, args, a.dependent_launch, name);
}

const char* to_string(AccuracyClass a) {
  switch (a) {
    case AccuracyClass::StrictFp32: return "strict FP32";
    case AccuracyClass::Fp32Accurate: return "FP32-accurate tensor cores";
  }
  return "?";
}

const std::vector<const KernelFamily*>& all_families() {
  static const std::vector<const KernelFamily*> families =
      list(std::make_index_sequence<std::variant_size_v<FamilyParams>>());
  return families;
}

const KernelFamily* find_family(const std::string& name) {
  for (const KernelFamily* f : all_families())
    if (name == f->name()) return f;
  return nullptr;
}

const KernelFamily& family_of(const FamilyParams& p) {
  return std::visit([](const auto& v) -> const KernelFamily& {
    return std::decay_t<decltype(v)>::Family::instance();
  }, p);
}

}  // namespace autogemm
