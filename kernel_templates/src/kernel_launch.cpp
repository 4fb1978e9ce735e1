#include "autogemm/kernel_launch.h"

#include <algorithm>

namespace autogemm {

CompileResult compile_kernel(const KernelConfig& cfg, const std::string& arch) {
  std::string why;
  if (!cfg.is_valid(&why)) throw CompileError("invalid config: " + why, why);
  const KernelTemplate& t = KernelTemplate::for_kind(cfg.kind);
  return Compiler::compile(t.source(), t.file(), arch, cfg.defines());
}

CompileResult compile_kernel(const KernelConfig& cfg, const std::string& arch, const std::string& source,
                             const std::string& name, const std::vector<std::string>& extra_options) {
  std::string why;
  if (!cfg.is_valid(&why)) throw CompileError("invalid config: " + why, why);
  std::vector<std::string> options = cfg.defines();
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  return Compiler::compile(source, name, arch, options);
}

LoadedKernel LoadedKernel::load(const KernelConfig& cfg, const std::vector<char>& cubin,
                                const DeviceInfo& dev) {
  if (cfg.smem_bytes() > size_t(dev.max_smem_per_block_optin))
    throw LimitsError("needs " + std::to_string(cfg.smem_bytes()) + " bytes of shared memory, the device allows " +
                      std::to_string(dev.max_smem_per_block_optin));
  LoadedKernel k;
  k.cfg_ = cfg;
  k.module_ = Module::load(cubin.data());
  const KernelTemplate& t = KernelTemplate::for_kind(cfg.kind);
  k.main_ = k.module_.function(t.entry());
  k.sm_count_ = dev.sm_count;
  if (cfg.kind == KernelKind::Tiled && cfg.split_k > 1 && cfg.split_reduce == 1)
    k.reduce_ = k.module_.function("agemm_splitk_reduce");
  const DriverApi& d = driver();
  check(d.cuFuncGetAttribute(&k.res_.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k.main_), "cuFuncGetAttribute");
  check(d.cuFuncGetAttribute(&k.res_.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k.main_), "cuFuncGetAttribute");
  check(d.cuFuncGetAttribute(&k.res_.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k.main_), "cuFuncGetAttribute");
  if (k.res_.max_threads < cfg.threads())
    throw LimitsError("uses " + std::to_string(k.res_.registers) + " registers per thread: at most " +
                      std::to_string(k.res_.max_threads) + " threads per block, the config needs " +
                      std::to_string(cfg.threads()));
  if (cfg.smem_bytes() > 48 * 1024)
    check(d.cuFuncSetAttribute(k.main_, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(cfg.smem_bytes())),
          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  // Occupancy from the two resources that bind for these kernels.
  const int threads = cfg.threads();
  const int regs_per_block = std::max(1, k.res_.registers) * ((threads + 31) / 32 * 32);
  int by_regs = dev.regs_per_sm / regs_per_block;
  int by_smem = cfg.smem_bytes() ? int(dev.max_smem_per_sm / (cfg.smem_bytes() + 1024)) : 32;
  int by_threads = dev.max_threads_per_sm / threads;
  k.res_.blocks_per_sm = std::max(0, std::min({by_regs, by_smem, by_threads, 32}));
  return k;
}

void LoadedKernel::launch(const CanonicalCall& call, CUstream stream, CUdeviceptr workspace) const {
  const Problem& p = call.problem;
  int m = int(p.m), n = int(p.n), k = int(p.k);
  float alpha = call.alpha, beta = call.beta;
  CUdeviceptr a = reinterpret_cast<CUdeviceptr>(call.a), b = reinterpret_cast<CUdeviceptr>(call.b),
              c = reinterpret_cast<CUdeviceptr>(call.c);
  long long lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  const LaunchGeometry g = KernelTemplate::for_kind(cfg_.kind).geometry(cfg_, p);
  const DriverApi& d = driver();
  if (cfg_.kind == KernelKind::Generic) {
    void* args[] = {&m, &n, &k, &alpha, &a, &lda, &b, &ldb, &beta, &c, &ldc};
    check(d.cuLaunchKernel(main_, g.grid_x, g.grid_y, g.grid_z, g.block, 1, 1, g.smem, stream, args, nullptr),
          "cuLaunchKernel(agemm_generic)");
    return;
  }
  void* args[] = {&m, &n, &k, &alpha, &a, &lda, &b, &ldb, &beta, &c, &ldc, &workspace};
  check(d.cuLaunchKernel(main_, g.grid_x, g.grid_y, g.grid_z, g.block, 1, 1, g.smem, stream, args, nullptr),
        "cuLaunchKernel(agemm_tiled)");
  if (reduce_) {
    const long long total = (long long)m * n;
    const unsigned blocks = unsigned(std::max<long long>(1, std::min<long long>((total + 255) / 256, (long long)sm_count_ * 8)));
    void* rargs[] = {&m, &n, &alpha, &workspace, &beta, &c, &ldc};
    check(d.cuLaunchKernel(reduce_, blocks, 1, 1, 256, 1, 1, 0, stream, rargs, nullptr),
          "cuLaunchKernel(agemm_splitk_reduce)");
  }
}

}  // namespace autogemm
