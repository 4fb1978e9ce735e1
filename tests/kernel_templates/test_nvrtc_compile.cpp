// NVRTC builds of the templates for sm_90 (CPU only: NVRTC needs no GPU).
// The cubins cannot be loaded here; each must be a non-empty ELF image that
// carries the expected entry points. At most 40 compiles, on 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "autogemm/kernel_launch.h"

namespace {

using autogemm::CompileError;
using autogemm::CompileResult;
using autogemm::KernelConfig;
using autogemm::KernelKind;
using autogemm::KernelTemplate;

const char* const kArch = "sm_90";

bool is_elf(const std::vector<char>& b) {
  return b.size() > 64 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
}

bool has_symbol(const std::vector<char>& b, const std::string& name) {
  const std::string needle = name + '\0';  // a whole symbol-table string
  return std::search(b.begin(), b.end(), needle.begin(), needle.end()) != b.end();
}

struct Job {
  std::string name;
  std::function<CompileResult()> build;
  std::vector<std::string> entries;
  CompileResult result;
  std::string error;
};

/// Runs the jobs on a pool of two threads.
void run_all(std::vector<Job>& jobs) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
      try {
        jobs[i].result = jobs[i].build();
      } catch (const CompileError& e) {
        jobs[i].error = std::string(e.what()) + "\n" + e.log();
      } catch (const std::exception& e) {
        jobs[i].error = e.what();
      }
    }
  };
  std::thread t1(worker), t2(worker);
  t1.join();
  t2.join();
}

void expect_built(const std::vector<Job>& jobs) {
  for (const Job& j : jobs) {
    SCOPED_TRACE(j.name);
    EXPECT_TRUE(j.error.empty()) << j.error;
    if (!j.error.empty()) continue;
    EXPECT_TRUE(is_elf(j.result.cubin)) << "cubin of " << j.result.cubin.size() << " bytes";
    for (const std::string& e : j.entries) EXPECT_TRUE(has_symbol(j.result.cubin, e)) << e;
    // Warnings do not fail the build, but are worth seeing.
    if (!j.result.log.empty()) std::cout << "[ NVRTC log ] " << j.name << ":\n" << j.result.log << "\n";
  }
}

TEST(NvrtcCompile, GenericAllTransposes) {
  std::vector<Job> jobs;
  for (int t = 0; t < 4; ++t) {
    const KernelConfig c = KernelConfig::generic(t & 1, t & 2);
    jobs.push_back({c.to_string(), [c] { return autogemm::compile_kernel(c, kArch); },
                    {"agemm_generic"}, {}, {}});
  }
  run_all(jobs);
  expect_built(jobs);
}

TEST(NvrtcCompile, ReferenceAllTransposes) {
  const KernelTemplate& ref = KernelTemplate::reference();
  std::vector<Job> jobs;
  for (int t = 0; t < 4; ++t) {
    const std::vector<std::string> opts = {"-DAG_TRANS_A=" + std::to_string(t & 1),
                                           "-DAG_TRANS_B=" + std::to_string((t >> 1) & 1)};
    jobs.push_back({"reference " + opts[0] + " " + opts[1],
                    [&ref, opts] { return autogemm::Compiler::compile(ref.source(), ref.file(), kArch, opts); },
                    {"agemm_reference", "agemm_check", "agemm_fill_random"}, {}, {}});
  }
  run_all(jobs);
  expect_built(jobs);
}

struct Tile {
  int bm, bn, bk, tm, tn, wc;
};

TEST(NvrtcCompile, TiledConfigsAcrossTransposesVectorWidthsAndSplitK) {
  // Covers: the two built-in defaults (128x128x8 t8x8, 64x64x8 t4x4), thread
  // tiles below the 4-wide fragment (t2x2, t1x8), the deepest and shallowest
  // K slices, the largest register tile, 256-wide tiles and every wc shape;
  // register staging and 2..4 cp.async stages; full and partial k unrolling.
  const Tile tiles[] = {
      {128, 128, 8, 8, 8, 8},  {64, 64, 8, 4, 4, 8},   {32, 32, 16, 2, 2, 4},
      {128, 64, 16, 8, 4, 8},  {256, 128, 8, 16, 8, 8}, {16, 256, 4, 1, 8, 32},
      {64, 32, 32, 4, 2, 4},   {128, 256, 8, 8, 16, 16},
  };
  const int swizzles[] = {1, 2, 4, 8, 16};
  std::vector<Job> jobs;
  int i = 0;
  for (int t = 0; t < 4; ++t)
    for (int vec : {1, 4})
      for (int sk : {1, 4}) {
        for (int pick : {(i * 3) % 8, (i * 3 + 4) % 8}) {
          const Tile& s = tiles[pick];
          KernelConfig c;
          c.kind = KernelKind::Tiled;
          c.bm = s.bm, c.bn = s.bn, c.bk = s.bk, c.tm = s.tm, c.tn = s.tn, c.wc = s.wc;
          c.vec = vec, c.split_k = sk, c.swizzle = swizzles[i % 5];
          c.trans_a = t & 1, c.trans_b = (t >> 1) & 1;
          // Half of them through the cp.async pipeline, some partly unrolled.
          c.stages = (i % 2) ? 2 + i % 3 : 0;
          c.k_unroll = (i % 3 == 0 && s.bk >= 8) ? s.bk / 2 : 0;
          std::string why;
          ASSERT_TRUE(c.is_valid(&why)) << c.to_string() << ": " << why;
          jobs.push_back({c.to_string(), [c] { return autogemm::compile_kernel(c, kArch); },
                          {"agemm_tiled"}, {}, {}});
        }
        ++i;
      }
  ASSERT_EQ(jobs.size(), 32u);
  run_all(jobs);
  expect_built(jobs);
}

TEST(NvrtcCompile, InvalidConfigThrowsCompileErrorWithoutCallingNvrtc) {
  KernelConfig c = *KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=0");
  for (auto spoil : std::vector<std::function<void(KernelConfig&)>>{
           [](KernelConfig& x) { x.bm = 48; },  [](KernelConfig& x) { x.bk = 3; },
           [](KernelConfig& x) { x.vec = 2; },  [](KernelConfig& x) { x.split_k = 0; },
           [](KernelConfig& x) { x.tm = 0; },   [](KernelConfig& x) { x.wc = 3; }}) {
    KernelConfig bad = c;
    spoil(bad);
    ASSERT_FALSE(bad.is_valid());
    try {
      autogemm::compile_kernel(bad, kArch);
      ADD_FAILURE() << "compiled " << bad.to_string();
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find("invalid config"), std::string::npos) << e.what();
    }
  }
}

TEST(NvrtcCompile, TiledTemplateWithoutParametersFailsWithTheLog) {
  const KernelTemplate& t = KernelTemplate::for_kind(KernelKind::Tiled);
  try {
    autogemm::Compiler::compile(t.source(), t.file(), kArch, {});
    FAIL() << "compiled without -D parameters";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("AG_BM must be defined"), std::string::npos) << e.log();
  }
}

}  // namespace
