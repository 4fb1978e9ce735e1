#include "xerbla_recorder.h"

#include <cstddef>

std::vector<XerblaCall>& xerbla_calls() {
  static std::vector<XerblaCall> calls;
  return calls;
}

// Fortran's XERBLA(SRNAME, INFO): CHARACTER*(*) with its hidden length,
// INTEGER. Default visibility (the build hides everything else), so that a
// shared library can bind to it, as to a Fortran program's XERBLA.
extern "C" __attribute__((visibility("default"))) void xerbla_(const char* name, const int* info, size_t name_len) {
  xerbla_calls().push_back({std::string(name, name_len), *info});
}
