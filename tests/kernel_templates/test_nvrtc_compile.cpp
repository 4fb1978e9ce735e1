// NVRTC builds of the templates for sm_90 (CPU only: NVRTC needs no GPU).
// The cubins cannot be loaded here; each must be a non-empty ELF image that
// carries the expected entry points. Every family compiles its defaults and
// a few of its space's configs (FamilyCompile, one instance per family);
// tiled variants and the reference kernel follow. About 60 compiles, on 2
// threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "autogemm/kernel_launch.h"
#include "fake_device.h"

namespace {

using autogemm::CompileError;
using autogemm::CompileResult;
using autogemm::KernelConfig;
using autogemm::KernelFamily;
using autogemm::KernelTemplate;
using autogemm::Problem;
using autogemm::TiledFamily;
using autogemm::TiledParams;

const char* const kArch = "sm_90";

/// The target `c`'s family builds for on an H200 (sm_90, or sm_90a for wgmma).
std::string h200_arch(const KernelConfig& c) { return autogemm::kernel_arch(c, autogemm::testing::fake_h200()); }

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

Job compile_job(const KernelConfig& c) {
  return {c.to_string(), [c] { return autogemm::compile_kernel(c, h200_arch(c)); }, c.family().entry_points(c), {}, {}};
}

Problem problem(int64_t m, int64_t n, int64_t k, int t, bool aligned) {
  Problem p;
  p.m = m, p.n = n, p.k = k, p.trans_a = t & 1, p.trans_b = (t >> 1) & 1, p.aligned = aligned;
  p.lda = p.trans_a ? m : k, p.ldb = p.trans_b ? k : n, p.ldc = n;
  return p;
}

/// What a family must build: its defaults for small and large problems of
/// every layout and alignment class, and the first, last and cheapest (by
/// its cost model) configs of its space for an odd-sized problem of two
/// layouts, for an M = 1 and an N = 1 problem and for an M = 13 one. A family with an empty space is still built through its defaults.
std::vector<KernelConfig> family_configs(const KernelFamily& f) {
  std::vector<KernelConfig> out;
  std::set<std::string> seen;
  auto add = [&](const KernelConfig& c) {
    if (seen.insert(c.to_string()).second) out.push_back(c);
  };
  for (int t = 0; t < 4; ++t)
    for (bool aligned : {true, false})
      for (int64_t size : {64, 4096})
        if (auto d = f.default_config(problem(size, size, size, t, aligned))) add(*d);
  const autogemm::SearchLimits lim;
  // Odd sizes in two layouts, the matrix-vector shapes (M or N of 1) and a
  // short M.
  const Problem samples[] = {problem(127, 257, 509, 0, true), problem(127, 257, 509, 3, false),
                             problem(1, 257, 509, 0, true), problem(127, 1, 509, 3, false),
                             problem(13, 257, 509, 0, true)};
  // A strided batch: the families that batch build their bt=1 variants.
  Problem batched = problem(64, 96, 80, 1, true);
  batched.batch = 512;
  pack_batch(batched);
  if (auto d = f.default_config(batched); d && d->can_implement(batched)) add(*d);
  for (const Problem& p : samples) {
    const std::vector<KernelConfig> space = f.search_space(p, lim);
    if (space.empty()) continue;
    size_t cheapest = 0;
    for (size_t i = 1; i < space.size(); ++i)
      if (f.cost(space[i], p, lim) < f.cost(space[cheapest], p, lim)) cheapest = i;
    for (size_t i : {size_t(0), space.size() - 1, cheapest}) add(space[i]);
  }
  if (const std::vector<KernelConfig> space = f.search_space(batched, lim); !space.empty()) add(space.back());
  return out;
}

class FamilyCompile : public ::testing::TestWithParam<const KernelFamily*> {};

TEST_P(FamilyCompile, DefaultsAndSpaceSamplesBuildWithTheirEntryPoints) {
  const std::vector<KernelConfig> configs = family_configs(*GetParam());
  ASSERT_FALSE(configs.empty()) << "nothing of " << GetParam()->name() << " to compile";
  ASSERT_LE(configs.size(), 32u) << "keep this test quick; test_default_space_compiles builds the rest";
  std::vector<Job> jobs;
  for (const KernelConfig& c : configs) jobs.push_back(compile_job(c));
  run_all(jobs);
  expect_built(jobs);
}

INSTANTIATE_TEST_SUITE_P(Registry, FamilyCompile, ::testing::ValuesIn(autogemm::all_families()),
                         [](const ::testing::TestParamInfo<const KernelFamily*>& info) {
                           return std::string(info.param->name());
                         });

TEST(NvrtcCompile, ReferenceAllTransposes) {
  const KernelTemplate& ref = KernelTemplate::reference();
  std::vector<Job> jobs;
  for (int t = 0; t < 4; ++t) {
    const std::vector<std::string> opts = {"-DAG_TRANS_A=" + std::to_string(t & 1),
                                           "-DAG_TRANS_B=" + std::to_string((t >> 1) & 1)};
    jobs.push_back({"reference " + opts[0] + " " + opts[1],
                    [&ref, opts] { return autogemm::Compiler::compile(ref.source(), ref.file(), kArch, opts); },
                    {"agemm_reference", "agemm_check", "agemm_fill_random", "agemm_hold"}, {}, {}});
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
          TiledParams p;
          p.bm = s.bm, p.bn = s.bn, p.bk = s.bk, p.tm = s.tm, p.tn = s.tn, p.wc = s.wc;
          p.vec = vec, p.split_k = sk, p.swizzle = swizzles[i % 5];
          // Split-K alternates between the in-kernel and the separate reduction.
          p.split_reduce = sk > 1 ? (i / 2) % 2 : 0;
          // Half of them through the cp.async pipeline, some partly unrolled.
          p.stages = (i % 2) ? 2 + i % 3 : 0;
          p.k_unroll = (i % 3 == 0 && s.bk >= 8) ? s.bk / 2 : 0;
          const KernelConfig c(p, t & 1, (t >> 1) & 1);
          std::string why;
          ASSERT_TRUE(c.is_valid(&why)) << c.to_string() << ": " << why;
          jobs.push_back(compile_job(c));
        }
        ++i;
      }
  ASSERT_EQ(jobs.size(), 32u);
  run_all(jobs);
  expect_built(jobs);
}

TEST(NvrtcCompile, InvalidConfigThrowsCompileErrorWithoutCallingNvrtc) {
  const KernelConfig c = *KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=4 ta=0 tb=0");
  for (auto spoil : std::vector<std::function<void(TiledParams&)>>{
           [](TiledParams& x) { x.bm = 48; },  [](TiledParams& x) { x.bk = 3; },
           [](TiledParams& x) { x.vec = 2; },  [](TiledParams& x) { x.split_k = 0; },
           [](TiledParams& x) { x.tm = 0; },   [](TiledParams& x) { x.wc = 3; },
           [](TiledParams& x) { x.split_reduce = 1; }, [](TiledParams& x) { x.stages = 1; }}) {
    KernelConfig bad = c;
    spoil(bad.get<TiledParams>());
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
  const KernelTemplate& t = TiledFamily::instance().source();
  try {
    autogemm::Compiler::compile(t.source(), t.file(), kArch, {});
    FAIL() << "compiled without -D parameters";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("AG_BM must be defined"), std::string::npos) << e.log();
  }
}

}  // namespace
