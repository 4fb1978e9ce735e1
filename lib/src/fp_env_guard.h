// FpEnvGuard: the caller's floating-point environment is theirs.
//
// A library must not change the caller's FP exception flags: programs test
// them (fetestexcept) around their own arithmetic, and a flag autogemm left
// raised (FE_DIVBYZERO from a policy ratio, FE_INEXACT from any log(), or
// FE_INVALID from comparing a signaling-NaN alpha) would be blamed on them.
// A caller may also have enabled traps (feenableexcept), which would turn such
// an operation inside autogemm into SIGFPE.
//
// One guard lives at the top of every exported function (lib/src/c_api.cpp):
//   entry: feholdexcept saves the whole environment (flags, traps, rounding),
//          clears the flags and makes every exception non-trapping; the
//          rounding mode is set to nearest so autogemm's own host arithmetic
//          (policy distances, sizes) does not depend on the caller's mode;
//   exit:  fesetenv puts back exactly what was saved, so flags raised inside
//          are dropped and flags the caller had raised before stay raised.
// Cost: a few dozen cycles per call (x87 and SSE control/status words), small
// against a kernel launch.
#pragma once

#include <cfenv>

namespace autogemm {

class FpEnvGuard {
 public:
  FpEnvGuard() noexcept : held_(std::feholdexcept(&saved_) == 0) {
    if (held_ && std::fegetround() != FE_TONEAREST) std::fesetround(FE_TONEAREST);
  }
  ~FpEnvGuard() {
    if (held_) std::fesetenv(&saved_);
  }
  FpEnvGuard(const FpEnvGuard&) = delete;
  FpEnvGuard& operator=(const FpEnvGuard&) = delete;

 private:
  std::fenv_t saved_;
  bool held_;  // feholdexcept can fail only on exotic targets: then leave all alone
};

}  // namespace autogemm
