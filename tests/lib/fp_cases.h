// The floating-point-environment matrix shared by test_fp_flags (CPU, fake
// pointers) and test_gpu_fp_flags (real device buffers): every function of
// the C API, over the argument cases of arg_cases.h (bad arguments, quick
// returns, M, N or K = 0, every layout and transpose) times alpha and beta
// values that include 0, 1, NaN, a signaling NaN, infinities and a
// denormal. After each call the flags must be exactly what they were before
// it (autogemm.h: the caller's FP environment is left alone).
//
// Nothing here does arithmetic or comparisons on the scalars (a signaling NaN
// would raise FE_INVALID in the test's own code, or trap in the child that
// runs with traps enabled): values are copied, and printed by their bits.
#pragma once

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfenv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "arg_cases.h"
#include "autogemm/autogemm.h"

extern char** environ;

namespace agtest {

/// The traps the child run enables: the exceptions that signal real trouble
/// (FE_INEXACT and FE_UNDERFLOW are raised by ordinary arithmetic).
constexpr int kTraps = FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW;

/// What the fake pointers of arg_cases.h stand for (device buffers on a GPU).
struct FpBuffers {
  const float* a = fake_a();
  const float* b = fake_b();
  float* c = fake_c();
};

inline std::vector<float> fp_scalars(bool for_beta) {
  const float qnan = std::numeric_limits<float>::quiet_NaN();
  const float snan = std::numeric_limits<float>::signaling_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float denorm = std::numeric_limits<float>::denorm_min();
  if (for_beta) return {0.f, 1.f, 0.5f, snan, -inf};
  return {1.f, 0.f, -1.5f, qnan, snan, inf, denorm};
}

/// Every validation case of every combo, for every alpha and beta, with the
/// fake pointers replaced by `buf` (null stays null).
inline std::vector<Call> fp_calls(const FpBuffers& buf) {
  std::vector<Call> out;
  for (const Combo& cb : all_combos())
    for (const Case& tc : validation_cases(cb))
      for (float alpha : fp_scalars(false))
        for (float beta : fp_scalars(true)) {
          Call c = tc.call;
          std::memcpy(&c.alpha, &alpha, sizeof alpha);  // a copy, not an FP operation
          std::memcpy(&c.beta, &beta, sizeof beta);
          if (c.a) c.a = buf.a;
          if (c.b) c.b = buf.b;
          if (c.c) c.c = buf.c;
          out.push_back(c);
        }
  return out;
}

inline std::string bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  char s[16];
  std::snprintf(s, sizeof s, "0x%08x", unsigned(u));
  return s;
}

inline std::string call_text(const Call& c) {
  return combo_name({c.layout, c.ta, c.tb}) + " layout=" + std::to_string(int(c.layout)) +
         " ta=" + std::to_string(int(c.ta)) + " tb=" + std::to_string(int(c.tb)) + " " +
         std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) +
         " ld=" + std::to_string(c.lda) + "," + std::to_string(c.ldb) + "," + std::to_string(c.ldc) +
         " alpha=" + bits(c.alpha) + " beta=" + bits(c.beta) + (c.a ? "" : " A=NULL") +
         (c.b ? "" : " B=NULL") + (c.c ? "" : " C=NULL");
}

inline std::string flag_names(int f) {
  if (f == 0) return "none";
  std::string s;
  const std::pair<int, const char*> all[] = {{FE_DIVBYZERO, "DIVBYZERO"}, {FE_INEXACT, "INEXACT"},
                                             {FE_INVALID, "INVALID"},     {FE_OVERFLOW, "OVERFLOW"},
                                             {FE_UNDERFLOW, "UNDERFLOW"}};
  for (const auto& [bit, name] : all)
    if (f & bit) s += (s.empty() ? "" : "|") + std::string(name);
  return s;
}

/// Collects what went wrong, at most `limit` lines (the first ones).
struct FpReport {
  std::vector<std::string> problems;
  size_t steps = 0;
  size_t limit = 20;
  void add(std::string p) {
    if (problems.size() < limit) problems.push_back(std::move(p));
  }
  std::string text() const {
    std::string s = std::to_string(problems.size()) + " problem(s) in " + std::to_string(steps) +
                    " calls (first " + std::to_string(limit) + " shown):\n";
    for (const auto& p : problems) s += "  " + p + "\n";
    return s;
  }
};

/// Runs `f` with exactly the flags `preset` raised and checks that exactly
/// they, and the enabled traps `traps`, are still there afterwards. `what()`
/// names the call; it is built only for a report.
template <class What, class F>
void fp_step(FpReport& r, int preset, int traps, What&& what, F&& f) {
  ++r.steps;
  std::feclearexcept(FE_ALL_EXCEPT);
  if (preset) std::feraiseexcept(preset);
  f();
  const int flags = std::fetestexcept(FE_ALL_EXCEPT);
  const int enabled = fegetexcept();
  std::feclearexcept(FE_ALL_EXCEPT);
  if (flags != preset || enabled != traps)
    r.add(std::string(what()) + ": flags " + flag_names(flags) + " after the call (" +
          flag_names(preset) + " before), traps " + flag_names(enabled) + " (" +
          flag_names(traps) + " before)");
}

inline auto named(std::string text) {
  return [text = std::move(text)] { return text; };
}

/// Each C API function that takes the sgemm arguments, on one call.
template <class Check>
void fp_per_call(const Call& c, Check&& step) {
  autogemm_status st = AUTOGEMM_SUCCESS;
  step("autogemm_sgemm", [&] {
    st = autogemm_sgemm(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.alpha, c.a, c.lda, c.b, c.ldb,
                        c.beta, c.c, c.ldc, nullptr);
  });
  step("autogemm_status_string + autogemm_last_error", [&] {
    (void)autogemm_status_string(st);
    (void)autogemm_last_error();
  });
  step("autogemm_describe", [&] {
    char text[AUTOGEMM_PLAN_CONFIG_SIZE + AUTOGEMM_PLAN_SOURCE_SIZE];
    autogemm_describe(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c, c.ldc,
                      text, sizeof text);
    autogemm_describe(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c, c.ldc,
                      text, 1);
    autogemm_describe(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c, c.ldc,
                      nullptr, 0);
  });
  step("autogemm_describe_plan", [&] {
    autogemm_plan_info info;
    autogemm_describe_plan(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c,
                           c.ldc, &info);
    autogemm_describe_plan(c.layout, c.ta, c.tb, c.m, c.n, c.k, c.a, c.lda, c.b, c.ldb, c.c,
                           c.ldc, nullptr);
  });
}

/// The whole matrix: autogemm_init on each of `init_paths` (NULL allowed),
/// the functions without sgemm arguments, every call of fp_calls(buf), then
/// autogemm_shutdown and autogemm_init(final_path). `preset` flags are raised
/// before each call; `traps` are the traps the caller has enabled.
inline FpReport fp_matrix(const std::vector<const char*>& init_paths, const char* final_path,
                          const FpBuffers& buf, int preset, int traps) {
  FpReport r;
  for (const char* p : init_paths)
    fp_step(r, preset, traps, named(std::string("autogemm_init(") + (p ? p : "NULL") + ")"),
            [&] { autogemm_init(p); });
  fp_step(r, preset, traps, named("autogemm_version"), [&] {
    int ma = -1, mi = -1, pa = -1;
    autogemm_version(&ma, &mi, &pa);
    autogemm_version(nullptr, nullptr, nullptr);
  });
  fp_step(r, preset, traps, named("autogemm_get_stats"), [&] {
    autogemm_stats s;
    autogemm_get_stats(&s);
    autogemm_get_stats(nullptr);
  });
  fp_step(r, preset, traps, named("autogemm_record_shapes(1, then 0)"), [&] {
    autogemm_record_shapes(1);
    autogemm_record_shapes(0);
  });
  fp_step(r, preset, traps, named("autogemm_flush_recorded_shapes"), [&] { autogemm_flush_recorded_shapes(); });
  fp_step(r, preset, traps, named("autogemm_status_string(every value)"), [&] {
    for (int s = -1; s <= 30; ++s) (void)autogemm_status_string(autogemm_status(s));
    (void)autogemm_status_string(autogemm_status(999));
  });
  for (const Call& c : fp_calls(buf))
    fp_per_call(c, [&](const char* fn, auto&& f) {
      fp_step(r, preset, traps, [&] { return std::string(fn) + " on " + call_text(c); }, f);
    });
  fp_step(r, preset, traps, named("autogemm_shutdown"), [&] { autogemm_shutdown(); });
  fp_step(r, preset, traps, named("autogemm_init(final path)"), [&] { autogemm_init(final_path); });
  return r;
}

/// The child-process run with traps enabled: 0 when every call returned with
/// flags and traps as they were; 1 (report on stderr) otherwise. A trap
/// inside autogemm kills the process with SIGFPE instead.
inline int fp_trap_child(const std::vector<const char*>& init_paths, const char* final_path,
                         const FpBuffers& buf) {
  std::feclearexcept(FE_ALL_EXCEPT);
  if (feenableexcept(kTraps) == -1) {
    std::fprintf(stderr, "feenableexcept failed\n");
    return 2;
  }
  const FpReport r = fp_matrix(init_paths, final_path, buf, 0, kTraps);
  fedisableexcept(kTraps);
  if (r.problems.empty()) return 0;
  std::fprintf(stderr, "%s", r.text().c_str());
  return 1;
}

/// Runs this test program again as `exe --fp-trap-child` and describes how
/// it ended: "" for exit status 0.
inline std::string run_trap_child() {
  char exe[4096] = {};
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) <= 0) return "cannot find /proc/self/exe";
  char arg[] = "--fp-trap-child";
  char* argv[] = {exe, arg, nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, exe, nullptr, nullptr, argv, environ) != 0) return "posix_spawn failed";
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return "waitpid failed";
  if (WIFSIGNALED(status))
    return "the child died of signal " + std::to_string(WTERMSIG(status)) +
           (WTERMSIG(status) == SIGFPE ? " (SIGFPE: a trap fired inside autogemm)" : "");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "the child exited with status " + std::to_string(WEXITSTATUS(status)) +
           " (its stderr above lists the calls)";
  return "";
}

}  // namespace agtest
