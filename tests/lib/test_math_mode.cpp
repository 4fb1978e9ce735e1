// Math modes through the C API (no GPU needed): strict by default, a process
// mode and per-thread overrides, invalid values refused with a reason, the
// environment variable read at start (a child process per value), and the
// admission rule behind them: only FP32-accurate classes ever join strict.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "autogemm/autogemm.h"
#include "autogemm/math_mode.h"

namespace {

struct MathModes : ::testing::Test {
  void TearDown() override {
    autogemm_set_thread_math_mode(AUTOGEMM_MATH_DEFAULT);
    autogemm_set_math_mode(AUTOGEMM_MATH_STRICT);
  }
};

TEST_F(MathModes, StrictUntilTheProcessOrTheThreadChoosesOtherwise) {
  EXPECT_EQ(autogemm_get_math_mode(), AUTOGEMM_MATH_STRICT);
  ASSERT_EQ(autogemm_set_math_mode(AUTOGEMM_MATH_FP32_ACCURATE), AUTOGEMM_SUCCESS);
  EXPECT_EQ(autogemm_get_math_mode(), AUTOGEMM_MATH_FP32_ACCURATE);
  ASSERT_EQ(autogemm_set_thread_math_mode(AUTOGEMM_MATH_STRICT), AUTOGEMM_SUCCESS);
  EXPECT_EQ(autogemm_get_math_mode(), AUTOGEMM_MATH_STRICT);
  // Another thread follows the process mode, not this thread's.
  autogemm_math_mode other = AUTOGEMM_MATH_DEFAULT;
  std::thread([&] { other = autogemm_get_math_mode(); }).join();
  EXPECT_EQ(other, AUTOGEMM_MATH_FP32_ACCURATE);
  ASSERT_EQ(autogemm_set_thread_math_mode(AUTOGEMM_MATH_DEFAULT), AUTOGEMM_SUCCESS);
  EXPECT_EQ(autogemm_get_math_mode(), AUTOGEMM_MATH_FP32_ACCURATE);
}

TEST_F(MathModes, InvalidModesAreRefusedWithAReasonAndChangeNothing) {
  EXPECT_EQ(autogemm_set_math_mode(autogemm_math_mode(7)), AUTOGEMM_INVALID_MATH_MODE);
  EXPECT_NE(std::string(autogemm_last_error()).find("math mode 7"), std::string::npos) << autogemm_last_error();
  EXPECT_EQ(autogemm_set_math_mode(AUTOGEMM_MATH_DEFAULT), AUTOGEMM_INVALID_MATH_MODE);  // process: no default
  EXPECT_EQ(autogemm_set_thread_math_mode(autogemm_math_mode(-2)), AUTOGEMM_INVALID_MATH_MODE);
  EXPECT_EQ(autogemm_get_math_mode(), AUTOGEMM_MATH_STRICT);
  EXPECT_STRNE(autogemm_status_string(AUTOGEMM_INVALID_MATH_MODE), "unknown status");
}

/// The mode a fresh process (this test binary, exec'd again to run only
/// MathModeEnvChild) starts in with AUTOGEMM_MATH_MODE=value (unset: nullptr).
int mode_in_fresh_process(const char* value) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (value)
      setenv("AUTOGEMM_MATH_MODE", value, 1);
    else
      unsetenv("AUTOGEMM_MATH_MODE");
    setenv("AUTOGEMM_TEST_MATH_CHILD", "1", 1);
    execl("/proc/self/exe", "test_math_mode", "--gtest_filter=MathModeEnvChild.*", static_cast<char*>(nullptr));
    _exit(100);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Runs only in the exec'd child: exits with the mode its first call sees.
TEST(MathModeEnvChild, ExitsWithTheModeOfAFreshProcess) {
  if (!std::getenv("AUTOGEMM_TEST_MATH_CHILD")) GTEST_SKIP() << "runs in the child of MathModeEnvironment only";
  _exit(int(autogemm_get_math_mode()));
}

TEST(MathModeEnvironment, TheVariableSetsTheProcessDefault) {
  EXPECT_EQ(mode_in_fresh_process(nullptr), AUTOGEMM_MATH_STRICT);
  EXPECT_EQ(mode_in_fresh_process("strict"), AUTOGEMM_MATH_STRICT);
  EXPECT_EQ(mode_in_fresh_process("fp32_accurate"), AUTOGEMM_MATH_FP32_ACCURATE);
  EXPECT_EQ(mode_in_fresh_process("3xtf32"), AUTOGEMM_MATH_FP32_ACCURATE);
  EXPECT_EQ(mode_in_fresh_process("tf32"), AUTOGEMM_MATH_STRICT);  // not a mode: strict, with a warning
}

TEST(MathModeAdmission, StrictAdmitsFfmaOnlyAndAccurateAdmitsBoth) {
  using autogemm::AccuracyClass;
  using autogemm::MathMode;
  EXPECT_TRUE(autogemm::admits(MathMode::Strict, AccuracyClass::StrictFp32));
  EXPECT_FALSE(autogemm::admits(MathMode::Strict, AccuracyClass::Fp32Accurate));
  EXPECT_TRUE(autogemm::admits(MathMode::Fp32Accurate, AccuracyClass::StrictFp32));
  EXPECT_TRUE(autogemm::admits(MathMode::Fp32Accurate, AccuracyClass::Fp32Accurate));
  for (MathMode m : {MathMode::Strict, MathMode::Fp32Accurate}) EXPECT_EQ(autogemm::parse_math_mode(to_string(m)), m);
  EXPECT_EQ(autogemm::parse_math_mode("3xtf32"), MathMode::Fp32Accurate);
  EXPECT_FALSE(autogemm::parse_math_mode("tf32").has_value());  // lossy: no such mode
  EXPECT_FALSE(autogemm::parse_math_mode("").has_value());
}

}  // namespace
