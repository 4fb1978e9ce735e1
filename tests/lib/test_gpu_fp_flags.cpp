// GPU: the C API leaves the caller's floating-point environment alone while
// doing real work. The matrix of test_fp_flags (fp_cases.h: every function,
// bad arguments, quick returns, M, N or K = 0, alpha and beta 0 / 1 / other /
// NaN / signaling NaN / infinite, every layout and transpose) runs here with
// device buffers and a tuning cache holding winners for every layout, so
// calls go through the whole dispatch path: plan lookup with the nearest-shape
// distance (K = 0 with beta != 1 among them), kernel build, launch.
//
// The run with traps enabled is a separate process (this program with
// --fp-trap-child and the cache path in AUTOGEMM_TEST_FP_DB), started before
// this process could hold CUDA state it might otherwise share.
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "autogemm/autogemm.h"
#include "autogemm/kernel_config.h"
#include "autogemm/kernel_family.h"
#include "autogemm/kernel_template.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/shape_spec.h"
#include "fp_cases.h"
#include "gpu_fixture.h"

namespace autogemm {
namespace {

constexpr const char* kMissing = "/nonexistent-dir/autogemm-gpu-fp-flags.db";
// Larger than any operand of the matrix (9 rows of ldc <= 1009 floats).
constexpr size_t kFloats = size_t(1) << 16;

/// A cache with a winner for every layout pair and alignment class at two
/// sizes: the generic kernel and the default tiled config. Returns its path.
std::string make_winners_db(const std::string& dir, const DeviceKey& dev) {
  const std::string db = dir + "/winners.db";
  auto cache = TuningCache::open(db, TuningCache::Mode::ReadWrite);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool aligned : {false, true})
        for (int64_t s : {16, 256}) {
          const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, ta, tb, s, s, s, aligned);
          const KernelConfig cfg = s == 16 ? KernelConfig::generic(ta, tb) : default_config(p);
          WinnerRecord w;
          w.shape = p.key();
          w.family = cfg.family().name();
          w.config = cfg.to_string();
          w.template_hash = template_hash(cfg);
          w.median_ms = 1, w.gflops = 100, w.tuned_at = 1;
          if (!cache->record_winner(dev, w, TuningCost{}))
            throw std::runtime_error("winner not stored: " + w.config);
        }
  return db;
}

struct Buffers {
  DeviceBuffer a{kFloats * 4}, b{kFloats * 4}, c{kFloats * 4};
  agtest::FpBuffers fp() const { return {a.as<const float>(), b.as<const float>(), c.as<float>()}; }
};

class GpuFpFlags : public testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    char t[] = "/tmp/autogemm-gpu-fp-XXXXXX";
    ASSERT_NE(mkdtemp(t), nullptr);
    dir_ = t;
    db_ = make_winners_db(dir_, dev_.key());
    buffers_ = std::make_unique<Buffers>();
  }
  void TearDown() override {
    if (!dir_.empty()) {
      autogemm_init(kMissing);
      std::system(("rm -rf '" + dir_ + "'").c_str());
    }
    buffers_.reset();
    GpuTest::TearDown();
  }
  /// The matrix, with init ending on the winners cache; `preset` flags
  /// raised before every call.
  agtest::FpReport run(int preset) {
    agtest::FpReport r = agtest::fp_matrix({kMissing, nullptr, db_.c_str()}, db_.c_str(),
                                           buffers_->fp(), preset, 0);
    AUTOGEMM_CU(cuCtxSynchronize());  // every launch completed without a fault
    return r;
  }

  std::string dir_, db_;
  std::unique_ptr<Buffers> buffers_;
};

TEST_F(GpuFpFlags, NoCallRaisesAnyFlag) {
  autogemm_stats before{}, after{};
  autogemm_get_stats(&before);
  const agtest::FpReport r = run(0);
  autogemm_get_stats(&after);
  EXPECT_TRUE(r.problems.empty()) << r.text();
  EXPECT_GT(after.calls, before.calls) << "the matrix launched nothing";
  EXPECT_GT(after.nearest_hits, before.nearest_hits) << "no call went through the nearest-shape policy";
}

TEST_F(GpuFpFlags, CallerInexactFlagIsStillRaisedAfterEveryCall) {
  const agtest::FpReport r = run(FE_INEXACT);
  EXPECT_TRUE(r.problems.empty()) << r.text();
}

TEST_F(GpuFpFlags, CallerWithTrapsEnabledSurvives) {
  setenv("AUTOGEMM_TEST_FP_DB", db_.c_str(), 1);
  const std::string how = agtest::run_trap_child();
  unsetenv("AUTOGEMM_TEST_FP_DB");
  EXPECT_EQ(how, "");
}

/// The child: its own context and buffers, then the matrix with traps on.
int trap_child() {
  const char* db = std::getenv("AUTOGEMM_TEST_FP_DB");
  if (!db || !gpu_available()) return 3;
  try {
    ScopedPrimaryContext ctx(0);
    Buffers buffers;
    const int rc = agtest::fp_trap_child({kMissing, nullptr, db}, db, buffers.fp());
    AUTOGEMM_CU(cuCtxSynchronize());
    return rc;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trap child: %s\n", e.what());
    return 4;
  }
}

}  // namespace
}  // namespace autogemm

// Replaces gtest_main's main (which add_gpu_test links): the linker takes
// main from this object and never pulls gtest_main's.
int main(int argc, char** argv) {
  setenv("AUTOGEMM_CACHE", "/nonexistent-dir/autogemm-gpu-fp-flags-default.db", 1);
  if (argc == 2 && std::string(argv[1]) == "--fp-trap-child") return autogemm::trap_child();
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
