// The C API leaves the caller's floating-point environment alone (CPU, fake
// device pointers): no flag raised by any call on any input, flags the
// caller had raised still raised afterwards, the caller's rounding mode and
// traps kept, and a caller with traps enabled never dies inside autogemm.
// The matrix is fp_cases.h; test_gpu_fp_flags runs it on a GPU.
//
// The trap run is a separate process (this program with --fp-trap-child), so
// a trap firing cannot take the test runner down and no library or driver
// state is shared with it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cfenv>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "fp_cases.h"

namespace {

using agtest::FpBuffers;
using agtest::FpReport;

constexpr const char* kMissing = "/nonexistent-dir/autogemm-fp-flags.db";

/// A file that is not a database, for autogemm_init's refusal path.
class DamagedFile {
 public:
  DamagedFile() {
    char name[] = "/tmp/autogemm-fp-flags-XXXXXX";
    const int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    path_ = name;
    std::ofstream(path_, std::ios::trunc) << "this is a text file, not a tuning cache\n";
  }
  ~DamagedFile() { std::remove(path_.c_str()); }
  const char* path() const { return path_.c_str(); }

 private:
  std::string path_;
};

/// NULL selects $AUTOGEMM_CACHE, which main() points at a missing file.
std::vector<const char*> init_paths(const DamagedFile& f) { return {kMissing, f.path(), nullptr}; }

TEST(FpFlags, NoCallRaisesAnyFlag) {
  DamagedFile damaged;
  const FpReport r = agtest::fp_matrix(init_paths(damaged), kMissing, FpBuffers{}, 0, 0);
  EXPECT_GT(r.steps, 10000u);
  EXPECT_TRUE(r.problems.empty()) << r.text();
}

TEST(FpFlags, CallerInexactFlagIsStillRaisedAfterEveryCall) {
  DamagedFile damaged;
  const FpReport r = agtest::fp_matrix(init_paths(damaged), kMissing, FpBuffers{}, FE_INEXACT, 0);
  EXPECT_TRUE(r.problems.empty()) << r.text();
}

TEST(FpFlags, EveryCallerFlagIsStillRaisedAfterEveryCall) {
  DamagedFile damaged;
  const FpReport r = agtest::fp_matrix(init_paths(damaged), kMissing, FpBuffers{}, FE_ALL_EXCEPT, 0);
  EXPECT_TRUE(r.problems.empty()) << r.text();
}

TEST(FpFlags, CallerRoundingModeIsKept) {
  const int modes[] = {FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  const std::vector<agtest::Call> calls = agtest::fp_calls(FpBuffers{});
  for (int mode : modes) {
    ASSERT_EQ(std::fesetround(mode), 0);
    int wrong = 0;
    for (size_t i = 0; i < calls.size(); i += 97)  // a spread sample is plenty
      agtest::fp_per_call(calls[i], [&](const char*, auto&& f) {
        f();
        if (std::fegetround() != mode) ++wrong;
      });
    std::fesetround(FE_TONEAREST);
    EXPECT_EQ(wrong, 0) << "rounding mode " << mode << " changed by " << wrong << " calls";
  }
}

TEST(FpFlags, CallerWithTrapsEnabledSurvives) {
  const std::string how = agtest::run_trap_child();
  EXPECT_EQ(how, "");
}

// The harness itself: a call that does raise a flag is reported.
TEST(FpFlags, HarnessSeesARaisedFlag) {
  FpReport r;
  volatile double zero = 0.0;
  agtest::fp_step(r, 0, 0, agtest::named("1/0"), [&] { volatile double x = 1.0 / zero; (void)x; });
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_NE(r.problems[0].find("DIVBYZERO"), std::string::npos) << r.problems[0];
}

}  // namespace

int main(int argc, char** argv) {
  // autogemm_init(NULL) must not find a real cache of whoever runs the tests.
  setenv("AUTOGEMM_CACHE", "/nonexistent-dir/autogemm-fp-flags-default.db", 1);
  if (argc == 2 && std::string(argv[1]) == "--fp-trap-child") {
    DamagedFile damaged;
    return agtest::fp_trap_child(init_paths(damaged), kMissing, FpBuffers{});
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
