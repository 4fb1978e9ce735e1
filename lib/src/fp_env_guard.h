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
//   entry: the caller's environment is saved, the flags cleared, every
//          exception made non-trapping and the rounding mode set to nearest,
//          so autogemm's own host arithmetic (policy distances, sizes) does
//          not depend on the caller's mode;
//   exit:  what was saved is put back exactly, so flags raised inside are
//          dropped and flags the caller had raised before stay raised.
// On x86 the guard reads and writes the SSE control/status register and the
// x87 control and status words one by one: feholdexcept/fesetenv save and
// load the whole x87 environment (fnstenv/fldenv, microcoded), measured at
// ~370 ns a call against ~30 ns, on a dispatch path whose whole overhead
// over a bare launch is ~0.3 us (H200 host, 2026-12-02). autogemm's host
// code does its arithmetic in SSE; an x87 instruction inside (long double in
// a library it calls) is still covered: its flags are detected at exit and
// the x87 status word is rebuilt, x87 traps and rounding are set for the
// call whenever the caller changed them, and a control word changed inside
// is put back. Elsewhere the <cfenv> calls run.
#pragma once

#include <cfenv>
#include <cstdint>

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE__))
#define AUTOGEMM_FP_GUARD_X86 1
#include <xmmintrin.h>
#endif

namespace autogemm {

#ifdef AUTOGEMM_FP_GUARD_X86

class FpEnvGuard {
 public:
  FpEnvGuard() noexcept : mxcsr_(_mm_getcsr()) {
    // Keep the caller's flush-to-zero and denormals-are-zero (a mode, not a
    // flag); flags cleared, every exception masked, round to nearest.
    _mm_setcsr((mxcsr_ & kMxcsrDenormalModes) | kMxcsrAllMasked);
    asm volatile("fnstcw %0" : "=m"(x87_cw_));
    asm volatile("fnstsw %0" : "=m"(x87_sw_));
    // The caller's x87 flags (rarely any: x86-64 code computes in SSE) are
    // cleared for the call and put back at exit.
    if (x87_sw_ & kX87Flags) asm volatile("fnclex");
    if ((x87_cw_ & kX87TrapAndRounding) != kX87AllMasked) {
      const uint16_t cw = uint16_t((x87_cw_ & ~kX87TrapAndRounding) | kX87AllMasked);
      asm volatile("fldcw %0" : : "m"(cw));
    }
  }
  ~FpEnvGuard() {
    uint16_t sw, cw;
    asm volatile("fnstsw %0" : "=m"(sw));
    if ((sw ^ x87_sw_) & kX87Flags) restore_x87_flags();
    // Whatever changed the control word inside (the guard itself, or a
    // library's fesetround), the caller's comes back.
    asm volatile("fnstcw %0" : "=m"(cw));
    if (cw != x87_cw_) asm volatile("fldcw %0" : : "m"(x87_cw_));
    _mm_setcsr(mxcsr_);
  }
  FpEnvGuard(const FpEnvGuard&) = delete;
  FpEnvGuard& operator=(const FpEnvGuard&) = delete;

 private:
  static constexpr uint32_t kMxcsrDenormalModes = 0x8040;  // FTZ, DAZ
  static constexpr uint32_t kMxcsrAllMasked = 0x1F80;      // six masks, flags 0, nearest
  static constexpr uint16_t kX87TrapAndRounding = 0x0C3F;  // rounding control, six masks
  static constexpr uint16_t kX87AllMasked = 0x003F;        // nearest, six masks
  static constexpr uint16_t kX87Flags = 0x00FF;            // six flags, stack fault, summary

  // The x87 status word can only be written through a whole environment:
  // store it (this also masks x87 exceptions until the load), put the
  // caller's flags back into its status word, load it.
  void restore_x87_flags() const {
    struct {
      uint16_t cw, r0, sw, r1, rest[10];
    } env;  // the 28-byte protected-mode layout of fnstenv
    static_assert(sizeof(env) == 28, "x87 environment layout");
    asm volatile("fnstenv %0" : "=m"(env));
    env.sw = uint16_t((env.sw & ~kX87Flags) | (x87_sw_ & kX87Flags));
    asm volatile("fldenv %0" : : "m"(env));
  }

  uint32_t mxcsr_;
  uint16_t x87_cw_ = 0, x87_sw_ = 0;
};

#else

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

#endif

}  // namespace autogemm
