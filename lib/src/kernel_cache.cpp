#include "kernel_cache.h"

#include "autogemm/log.h"
#include "dispatch_counters.h"

namespace autogemm {

std::shared_ptr<const LoadedKernel> KernelCache::get(const KernelConfig& cfg) {
  const std::string key = cfg.to_string();
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;

  const std::string arch = kernel_arch(cfg, dev_);  // LimitsError where the family cannot run
  const CubinKey ck{template_hash(cfg), key, arch, dev_.nvrtc_version};
  std::optional<std::vector<char>> cubin;
  if (store_) {
    try {
      cubin = store_->load_cubin(ck);
    } catch (const std::exception& e) {
      log().warn("could not read a stored kernel ({}); compiling it instead", e.what());
    }
  }
  std::shared_ptr<const LoadedKernel> k;
  if (cubin) {
    try {
      k = std::make_shared<const LoadedKernel>(LoadedKernel::load(cfg, *cubin, dev_));
      counters_->cubins++;
      log().debug("loaded stored cubin for '{}'", key);
    } catch (const std::exception& e) {
      log().warn("stored kernel '{}' did not load ({}); compiling it instead", key, e.what());
    }
  }
  if (!k) {
    CompileResult r = compile_kernel(cfg, arch);
    counters_->compiles++;
    log().info("NVRTC compiled '{}' in {:.3f} s", key, r.seconds);
    k = std::make_shared<const LoadedKernel>(LoadedKernel::load(cfg, r.cubin, dev_));
  }
  kernels_.emplace(key, k);
  return k;
}

}  // namespace autogemm
