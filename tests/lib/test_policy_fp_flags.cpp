// The dispatch policy raises no FP exception of the kind that means trouble
// (FE_DIVBYZERO, FE_INVALID, FE_OVERFLOW) on any problem dispatch can ask
// about, K = 0 included: autogemm_sgemm reaches choose_config with K = 0
// whenever beta != 1 (C = beta C). The C API hides flags from the caller
// anyway (FpEnvGuard), but a division by zero inside is still a bug: it would
// trap in any build that enables traps below the C boundary, and the
// distance it computes is meaningless.
//
// FE_INEXACT and FE_UNDERFLOW are not checked: ordinary log() raises them.
#include <gtest/gtest.h>

#include <cfenv>
#include <vector>

#include "autogemm/dispatch_policy.h"
#include "autogemm/shape_spec.h"

namespace {

using autogemm::KernelConfig;
using autogemm::Problem;
using autogemm::TunedEntry;

constexpr int kTrouble = FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW;

TunedEntry winner(int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool aligned,
                  const KernelConfig& cfg) {
  TunedEntry e;
  e.shape = autogemm::ShapeKey{m, n, k, ta, tb, aligned};
  e.config = cfg;
  e.gflops = 100;
  return e;
}

/// Winners of every kind the policy may compare against a problem of these
/// layouts: the generic kernel (implements anything) and default tiled
/// configs of both alignment classes, at a few sizes.
std::vector<TunedEntry> winners_for(bool ta, bool tb) {
  std::vector<TunedEntry> w;
  for (int64_t s : {16, 128, 1024})
    for (bool aligned : {false, true}) {
      const Problem p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, ta, tb, s, s, s, aligned);
      w.push_back(winner(s, s, s, ta, tb, p.aligned, KernelConfig::generic(ta, tb)));
      w.push_back(winner(s, s, s, ta, tb, p.aligned, autogemm::default_config(p)));
    }
  return w;
}

TEST(ChooseConfigFpFlags, KZeroWithTunedWinnersRaisesNothing) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const std::vector<TunedEntry> w = winners_for(ta, tb);
      for (bool aligned : {false, true})
        for (int64_t mn : {1, 7, 64, 4096}) {
          Problem p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, ta, tb, mn, mn + 1, 0, false);
          if (aligned) {  // padded leading dimensions: the 16-byte class (K = 0 alone is never in it)
            p.lda = (p.lda + 3) / 4 * 4, p.ldb = (p.ldb + 3) / 4 * 4, p.ldc = (p.ldc + 3) / 4 * 4;
            p.aligned = true;
          }
          std::feclearexcept(FE_ALL_EXCEPT);
          (void)autogemm::choose_config(p, w);
          const int raised = std::fetestexcept(kTrouble);
          std::feclearexcept(FE_ALL_EXCEPT);
          EXPECT_EQ(raised, 0) << p.to_string() << ": FP exception flags 0x" << std::hex << raised
                               << " (DIVBYZERO 0x" << FE_DIVBYZERO << ", INVALID 0x" << FE_INVALID
                               << ", OVERFLOW 0x" << FE_OVERFLOW << ")";
        }
    }
}

TEST(ChooseConfigFpFlags, OrdinaryProblemsRaiseNothing) {
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const std::vector<TunedEntry> w = winners_for(ta, tb);
      for (int64_t k : {1, 9, 4096}) {
        const Problem p = autogemm::make_problem(AUTOGEMM_ROW_MAJOR, ta, tb, 100, 3, k, true);
        std::feclearexcept(FE_ALL_EXCEPT);
        (void)autogemm::choose_config(p, w);
        const int raised = std::fetestexcept(kTrouble);
        std::feclearexcept(FE_ALL_EXCEPT);
        EXPECT_EQ(raised, 0) << p.to_string();
      }
    }
}

// The built-in winners of an H200 (every row's family model evaluated on
// the problem, fitted configs of other layouts and classes), K = 0 and
// batches included.
TEST(ChooseConfigFpFlags, BuiltinWinnersRaiseNothing) {
  const std::vector<TunedEntry> builtin = autogemm::builtin_entries("sm_90");
  ASSERT_FALSE(builtin.empty());
  for (int t = 0; t < 4; ++t)
    for (bool aligned : {false, true})
      for (int64_t k : {0, 1, 9, 4096})
        for (int64_t mn : {1, 7, 64, 4096})
          for (int64_t batch : {1, 64}) {
            const Problem p =
                autogemm::make_problem(AUTOGEMM_ROW_MAJOR, t & 1, t & 2, mn, mn + 1, k, aligned, batch);
            std::feclearexcept(FE_ALL_EXCEPT);
            (void)autogemm::choose_config(p, {}, autogemm::MathMode::Strict, autogemm::SearchLimits{}, builtin);
            const int raised = std::fetestexcept(kTrouble);
            std::feclearexcept(FE_ALL_EXCEPT);
            EXPECT_EQ(raised, 0) << p.to_string() << ": flags 0x" << std::hex << raised;
          }
}

}  // namespace
