// CompilePool: a tuning pass's builds ahead of its measuring
// (tuner/src/compile_pool.h). Every job here is ruled out by `skip` or kept
// in the process's CompileMemo, so no NVRTC runs: what is tested is which
// jobs the pool starts at all.
#include <gtest/gtest.h>

#include <chrono>

#include "compile_pool.h"

namespace autogemm::tuning {
namespace {

std::vector<Job> four_jobs() {
  const auto c = KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=1 ta=0 tb=0");
  return std::vector<Job>(4, Job{*c, "sm_90"});
}

const auto rule_out_all = [](const Job&) { return true; };

// With builds that took 1000 s on average, none from `first_cut` on starts
// when the deadline is 100 s away; the ones before first_cut always do.
TEST(CompilePool, NoBuildStartsThatWouldEndPastTheDeadline) {
  const std::vector<Job> jobs = four_jobs();
  BuildTimes slow;
  slow.add(1000.0);
  CompilePool pool(jobs, 2, rule_out_all, slow, Clock::now() + std::chrono::seconds(100), 1);
  EXPECT_TRUE(pool.get(0).ruled_out);
  for (size_t i = 1; i < jobs.size(); ++i) {
    const Compiled c = pool.get(i);
    EXPECT_TRUE(c.past_deadline) << i;
    EXPECT_FALSE(c.ruled_out) << i << ": asked of `skip`, so it was going to be built";
  }
}

// The same jobs start where the builds' mean leaves them time (an hour
// away), where no build was timed yet, and without a deadline.
TEST(CompilePool, BuildsThatEndBeforeTheDeadlineStart) {
  const std::vector<Job> jobs = four_jobs();
  BuildTimes slow, none;
  slow.add(1000.0);
  for (auto [times, deadline] : {std::pair<BuildTimes*, Clock::time_point>{&slow, Clock::now() + std::chrono::hours(1)},
                                 {&none, Clock::now() + std::chrono::seconds(100)},
                                 {&slow, Clock::time_point::max()}}) {
    CompilePool pool(jobs, 2, rule_out_all, *times, deadline, 1);
    for (size_t i = 0; i < jobs.size(); ++i) {
      const Compiled c = pool.get(i);
      EXPECT_TRUE(c.ruled_out) << i;
      EXPECT_FALSE(c.past_deadline) << i;
    }
  }
}

// Ruled-out jobs cost no build time: they leave the estimate alone.
TEST(CompilePool, RuledOutJobsAddNoBuildTime) {
  const std::vector<Job> jobs = four_jobs();
  BuildTimes times;
  times.add(2.0);
  {
    CompilePool pool(jobs, 2, rule_out_all, times);
    for (size_t i = 0; i < jobs.size(); ++i) pool.get(i);
  }
  EXPECT_DOUBLE_EQ(times.mean_s(), 2.0);
}

// A build the process kept from an earlier shape costs nothing: it starts
// however near the deadline, and it adds no time to the builds' mean (a
// suite's kept builds made the mean a third of a real build's).
TEST(CompilePool, KeptBuildsStartPastTheDeadlineAndAddNoBuildTime) {
  // A config no other test builds, so the process-wide memo holds it only here.
  const auto c = KernelConfig::parse("tiled bm=64 bn=64 bk=8 tm=4 tn=4 wc=8 vec=4 sk=1 sw=8 ta=1 tb=1");
  ASSERT_TRUE(c.has_value());
  const std::vector<Job> jobs(3, Job{*c, "sm_90"});
  CompileResult kept;
  kept.cubin = {'k'};
  kept.seconds = 1.0;
  CompileMemo::process().put(CompileMemo::key(*c, "sm_90"), kept);
  BuildTimes slow;
  slow.add(1000.0);
  {
    CompilePool pool(jobs, 2, nullptr, slow, Clock::now() + std::chrono::seconds(100), 1);
    for (size_t i = 0; i < jobs.size(); ++i) {
      const Compiled got = pool.get(i);
      EXPECT_FALSE(got.past_deadline) << i;
      EXPECT_FALSE(got.built_now) << i;
      ASSERT_TRUE(got.result.has_value()) << i << ": " << got.error;
      EXPECT_EQ(got.result->cubin, kept.cubin);
    }
  }
  EXPECT_DOUBLE_EQ(slow.mean_s(), 1000.0);
}

// The picks stop where the neighbour pass could no longer build (twice the
// mean build: the picks' own builds in flight end first) and measure two
// configs before its deadline; without a next deadline nothing is cut.
TEST(StarvesNextPass, LeavesTwoBuildsAndTwoMeasurements) {
  const Clock::time_point t0 = Clock::now();
  const auto at = [&](double s) {
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  // 16384^3 on an H100: builds ~1.5 s, a measurement ~0.4 s: 3.8 s needed.
  EXPECT_FALSE(starves_next_pass(at(4.6), at(8.5), 1.5, 0.4));
  EXPECT_TRUE(starves_next_pass(at(4.8), at(8.5), 1.5, 0.4));
  // A small shape: measurements of microseconds, builds of half a second.
  EXPECT_FALSE(starves_next_pass(at(7.0), at(8.5), 0.5, 1e-4));
  EXPECT_TRUE(starves_next_pass(at(7.6), at(8.5), 0.5, 1e-4));
  EXPECT_FALSE(starves_next_pass(at(1e6), Clock::time_point::max(), 1.5, 0.4));
}

}  // namespace
}  // namespace autogemm::tuning
