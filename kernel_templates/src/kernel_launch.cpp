#include "autogemm/kernel_launch.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace autogemm {

std::string kernel_arch(const KernelConfig& cfg, const DeviceInfo& dev) {
  if (auto a = cfg.family().arch(dev)) return *a;
  throw LimitsError(std::string("the ") + cfg.family().name() + " family does not run on " + dev.name + " (" +
                    dev.arch() + ")");
}

namespace {

// Makes ptxas report spills as a warning in the log (the cubin is unchanged).
const char* const kWarnOnSpills = "--ptxas-options=--warn-on-spills";

// AUTOGEMM_DEPENDENT_LAUNCH=0 turns programmatic dependent launches off (for
// tools that do not follow them, and to measure what they buy).
bool dependent_launch_allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("AUTOGEMM_DEPENDENT_LAUNCH");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return allowed;
}

}  // namespace

CompileResult compile_kernel(const KernelConfig& cfg, const std::string& arch) {
  const KernelTemplate& t = cfg.family().source();
  return compile_kernel(cfg, arch, t.source(), t.file());
}

CompileResult compile_kernel(const KernelConfig& cfg, const std::string& arch, const std::string& source,
                             const std::string& name, const std::vector<std::string>& extra_options) {
  std::string why;
  if (!cfg.is_valid(&why)) throw CompileError("invalid config: " + why, why);
  std::vector<std::string> options = cfg.defines();
  options.insert(options.end(), extra_options.begin(), extra_options.end());
  options.push_back(kWarnOnSpills);
  return Compiler::compile(source, name, arch, options);
}

std::string spill_report(const CompileResult& r) {
  const size_t at = r.log.find("spilled to local memory");
  if (at == std::string::npos) return "";
  const size_t begin = r.log.rfind('\n', at), end = r.log.find('\n', at);
  return r.log.substr(begin == std::string::npos ? 0 : begin + 1,
                      end == std::string::npos ? std::string::npos : end - (begin == std::string::npos ? 0 : begin + 1));
}

LoadedKernel LoadedKernel::load(const KernelConfig& cfg, const std::vector<char>& cubin,
                                const DeviceInfo& dev) {
  if (cfg.smem_bytes() > size_t(dev.max_smem_per_block_optin))
    throw LimitsError("needs " + std::to_string(cfg.smem_bytes()) + " bytes of shared memory, the device allows " +
                      std::to_string(dev.max_smem_per_block_optin));
  LoadedKernel k;
  k.cfg_ = cfg;
  k.module_ = Module::load(cubin.data());
  for (const std::string& entry : cfg.family().entry_points(cfg)) k.functions_.push_back(k.module_.function(entry.c_str()));
  const CUfunction main = k.functions_.at(0);
  k.sm_count_ = dev.sm_count;
  k.dependent_launch_ = dev.cc_major >= 9 && dependent_launch_allowed();
  const DriverApi& d = driver();
  check(d.cuFuncGetAttribute(&k.res_.registers, CU_FUNC_ATTRIBUTE_NUM_REGS, main), "cuFuncGetAttribute");
  check(d.cuFuncGetAttribute(&k.res_.local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, main), "cuFuncGetAttribute");
  check(d.cuFuncGetAttribute(&k.res_.max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, main), "cuFuncGetAttribute");
  if (k.res_.max_threads < cfg.threads())
    throw LimitsError("uses " + std::to_string(k.res_.registers) + " registers per thread: at most " +
                      std::to_string(k.res_.max_threads) + " threads per block, the config needs " +
                      std::to_string(cfg.threads()));
  if (cfg.smem_bytes() > 48 * 1024)
    check(d.cuFuncSetAttribute(main, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(cfg.smem_bytes())),
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
  cfg_.family().launch(cfg_, LaunchArgs{functions_, call, stream, workspace, sm_count_, dependent_launch_});
}

}  // namespace autogemm
