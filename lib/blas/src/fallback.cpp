#include "fallback.h"

#include <dlfcn.h>

#include "host_sgemm.h"

namespace autogemm::blas {

SgemmFn next_sgemm() {
  static const SgemmFn next = [] {
    auto f = reinterpret_cast<SgemmFn>(dlsym(RTLD_NEXT, "sgemm_"));
    if (f == &::sgemm_) f = nullptr;  // this library reached twice: calling it would never end
    Dl_info info{};
    if (f && dladdr(reinterpret_cast<void*>(f), &info) && info.dli_fname) set_next_sgemm_origin(info.dli_fname);
    return f;
  }();
  return next;
}

void fall_back(const FortranSgemm& g, Why why, const char* what) {
  const SgemmFn next = next_sgemm();
  try {
    count_fallback(why, what, next ? Ran::NextSgemm : Ran::HostLoop);
  } catch (...) {
    // Out of memory for the log line: the product matters more than the count.
  }
  if (!next) return host_sgemm(g);
  // Our copies of the values the caller passed; length 1 for the characters.
  next(&g.trans_a, &g.trans_b, &g.m, &g.n, &g.k, &g.alpha, g.a, &g.lda, g.b, &g.ldb, &g.beta, g.c, &g.ldc, 1, 1);
}

}  // namespace autogemm::blas
