#include "reference_module.h"

#include <map>
#include <mutex>
#include <tuple>

#include "autogemm/kernel_template.h"
#include "autogemm/nvrtc_compiler.h"

namespace autogemm {

Module load_reference_module(const DeviceInfo& dev, bool trans_a, bool trans_b) {
  static std::mutex mu;
  static std::map<std::tuple<std::string, bool, bool>, std::vector<char>> cubins;
  std::vector<char> cubin;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto key = std::make_tuple(dev.arch(), trans_a, trans_b);
    auto it = cubins.find(key);
    if (it == cubins.end()) {
      const KernelTemplate& t = KernelTemplate::reference();
      CompileResult r = Compiler::compile(t.source(), t.file(), dev.arch(),
                                          {"-DAG_TRANS_A=" + std::to_string(int(trans_a)),
                                           "-DAG_TRANS_B=" + std::to_string(int(trans_b))});
      it = cubins.emplace(key, std::move(r.cubin)).first;
    }
    cubin = it->second;
  }
  return Module::load(cubin.data());
}

}  // namespace autogemm
