// NVRTC builds of family configs on two threads with `ptxas -v`, for the
// per-family compile tests: each build must succeed and report no spills in
// any of its kernels, and none of the logs may contain any of `forbidden`
// (ptxas warnings such as serialized wgmma).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "autogemm/kernel_launch.h"

namespace autogemm::testing {

struct NvrtcBuild {
  KernelConfig config;
  std::vector<std::string> extra;  ///< extra NVRTC options (test-only -D values)
  std::string error, log;
};

inline void build_without_spills(std::vector<NvrtcBuild>& builds, const std::string& arch,
                                 const std::vector<std::string>& forbidden = {}) {
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < builds.size();) {
      NvrtcBuild& b = builds[i];
      std::vector<std::string> extra = b.extra;
      extra.push_back("--ptxas-options=-v");
      try {
        const auto& src = b.config.family().source();
        b.log = compile_kernel(b.config, arch, src.source(), src.file(), extra).log;
      } catch (const std::exception& e) {
        b.error = e.what();
      }
    }
  };
  std::thread t1(work), t2(work);
  t1.join();
  t2.join();
  const std::regex spills("([0-9]+) bytes spill stores");
  for (const NvrtcBuild& b : builds) {
    SCOPED_TRACE(b.config.to_string() + (b.extra.empty() ? "" : " " + b.extra.front()));
    ASSERT_TRUE(b.error.empty()) << b.error;
    // Every kernel of the module (a family may have several entry points).
    size_t kernels = 0;
    for (auto it = std::sregex_iterator(b.log.begin(), b.log.end(), spills); it != std::sregex_iterator(); ++it, ++kernels)
      EXPECT_EQ((*it)[1].str(), "0") << b.log;
    ASSERT_GT(kernels, 0u) << b.log;
    for (const std::string& f : forbidden) EXPECT_EQ(b.log.find(f), std::string::npos) << f << " in:\n" << b.log;
  }
}

}  // namespace autogemm::testing
