// GpuTest: base fixture of every GPU test. Skips (with the reason) where
// there is no CUDA driver or GPU; otherwise makes device 0's primary context
// current for the test.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "autogemm/cuda_driver.h"
#include "autogemm/device_info.h"

namespace autogemm::testing {

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!gpu_available(&why)) GTEST_SKIP() << "no GPU on this machine: " << why;
    // One retained primary context for the whole test program: releasing it
    // between tests would destroy it and everything loaded in it.
    static ScopedPrimaryContext* keep = new ScopedPrimaryContext(0);
    (void)keep;
    ctx_ = std::make_unique<ScopedPrimaryContext>(0);
    dev_ = DeviceInfo::current();
  }
  void TearDown() override { ctx_.reset(); }

  std::unique_ptr<ScopedPrimaryContext> ctx_;
  DeviceInfo dev_;
};

}  // namespace autogemm::testing
