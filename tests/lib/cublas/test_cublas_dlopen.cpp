// The drop-in in the global scope (as LD_PRELOAD puts it) and cuBLAS loaded
// privately by a module opened with dlopen(RTLD_LOCAL), as in PyTorch: the
// module's call lands in the drop-in, which must find that private cuBLAS
// among the loaded objects and hand it the call.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "autogemm/autogemm_cublas.h"

TEST(CublasDlopen, ACublasLoadedPrivatelyIsFoundAndGetsTheCall) {
  void* client = dlopen(AUTOGEMM_CUBLAS_CLIENT, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(client, nullptr) << dlerror();
  // cuBLAS is now loaded but not global: the drop-in cannot see it by RTLD_NEXT.
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "standin_call_count"), nullptr);
  auto client_sgemm = reinterpret_cast<int (*)(float*)>(dlsym(client, "client_sgemm"));
  ASSERT_NE(client_sgemm, nullptr);
  auto calls = reinterpret_cast<int (*)()>(dlsym(client, "standin_call_count"));
  ASSERT_NE(calls, nullptr);
  autogemm_cublas_counts before, after;
  autogemm_cublas_get_counts(&before);
  float* c = reinterpret_cast<float*>(0x40000);
  EXPECT_EQ(client_sgemm(c), 0);  // CUBLAS_STATUS_SUCCESS from the stand-in
  autogemm_cublas_get_counts(&after);
  // The call went through the drop-in (routed; autogemm cannot run it here,
  // so it fell back) and the private cuBLAS ran it.
  EXPECT_EQ(after.fallbacks[0] - before.fallbacks[0] + after.routed[0] - before.routed[0], 1u);
  EXPECT_EQ(calls(), 1);
}
