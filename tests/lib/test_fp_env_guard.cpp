// FpEnvGuard (lib/src/fp_env_guard.h) on its own: inside a guard the flags
// are clear, exceptions do not trap and rounding is to nearest, in both the
// SSE and the x87 unit; after it the caller's flags, traps, rounding and
// denormal modes are exactly as before, and flags raised inside (SSE or x87)
// are gone. test_fp_flags checks the same through every C API call.
#include <gtest/gtest.h>

#include <cfenv>
#include <cstdlib>

#include "fp_env_guard.h"

namespace autogemm {
namespace {

// Volatile operands: the compiler folds nothing, every operation runs.
volatile double zero_d = 0.0, one_d = 1.0;
volatile long double zero_ld = 0.0L, one_ld = 1.0L;

void raise_sse_divbyzero() { volatile double x = one_d / zero_d; (void)x; }
void raise_x87_divbyzero() { volatile long double x = one_ld / zero_ld; (void)x; }

struct FpEnvGuardTest : ::testing::Test {
  void SetUp() override { std::feclearexcept(FE_ALL_EXCEPT), std::fesetround(FE_TONEAREST); }
  void TearDown() override { std::feclearexcept(FE_ALL_EXCEPT), std::fesetround(FE_TONEAREST); }
};

TEST_F(FpEnvGuardTest, FlagsRaisedInsideAreDroppedInEitherUnit) {
  for (auto raise : {raise_sse_divbyzero, raise_x87_divbyzero}) {
    {
      const FpEnvGuard g;
      raise();
      ASSERT_TRUE(std::fetestexcept(FE_DIVBYZERO)) << "the operation must raise the flag inside";
    }
    EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), 0);
  }
}

TEST_F(FpEnvGuardTest, CallerFlagsAreClearInsideAndKeptAfter) {
  raise_sse_divbyzero();
  raise_x87_divbyzero();
  std::feraiseexcept(FE_INEXACT | FE_UNDERFLOW);
  const int before = std::fetestexcept(FE_ALL_EXCEPT);
  {
    const FpEnvGuard g;
    EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), 0) << "flags clear inside, in both units";
    raise_x87_divbyzero();  // raised again inside: still raised after, as before
    std::feraiseexcept(FE_INVALID);
  }
  EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), before);
}

TEST_F(FpEnvGuardTest, RoundingIsNearestInsideAndTheCallersAfter) {
  for (int mode : {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO}) {
    ASSERT_EQ(std::fesetround(mode), 0);
    {
      const FpEnvGuard g;
      EXPECT_EQ(std::fegetround(), FE_TONEAREST);
      volatile long double third = one_ld / 3.0L, back = third * 3.0L;
      EXPECT_EQ(back, 1.0L) << "x87 rounding inside must be to nearest";
    }
    EXPECT_EQ(std::fegetround(), mode);
  }
}

#ifdef AUTOGEMM_FP_GUARD_X86
// A library called inside that changes the rounding mode (both units)
// does not change the caller's.
TEST_F(FpEnvGuardTest, ARoundingModeSetInsideDoesNotLeak) {
  {
    const FpEnvGuard g;
    ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  }
  EXPECT_EQ(std::fegetround(), FE_TONEAREST);
  volatile long double third = one_ld / 3.0L, back = third * 3.0L;
  EXPECT_EQ(back, 1.0L) << "the x87 rounding mode leaked";
}

TEST_F(FpEnvGuardTest, DenormalModesOfTheCallerStay) {
  const unsigned saved = _mm_getcsr();
  _mm_setcsr(saved | 0x8040);  // flush-to-zero and denormals-are-zero
  {
    const FpEnvGuard g;
    EXPECT_EQ(_mm_getcsr() & 0x8040, 0x8040u);
  }
  EXPECT_EQ(_mm_getcsr() & 0x8040, 0x8040u);
  _mm_setcsr(saved);
}
#endif

// With the caller's traps on, an exception inside must not trap, and the
// traps are on again after (the child process would die by SIGFPE).
TEST_F(FpEnvGuardTest, CallerTrapsAreOffInsideAndOnAfter) {
  EXPECT_EXIT(
      {
        feenableexcept(FE_DIVBYZERO | FE_INVALID);
        {
          const FpEnvGuard g;
          raise_sse_divbyzero();
          raise_x87_divbyzero();
        }
        std::exit(fegetexcept() == (FE_DIVBYZERO | FE_INVALID) && std::fetestexcept(FE_ALL_EXCEPT) == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace autogemm
