// The shape grammar of the command line and of shapes files, and the
// canonical problem of a shape as users write it (tools, tests).
#pragma once

#include <cstdint>
#include <string>

#include "autogemm/autogemm.h"
#include "autogemm/problem.h"

namespace autogemm {

/// Canonical problem for a shape as users write it (tools, tests); a batch
/// is packed tightly (each stride is one product's extent).
Problem make_problem(autogemm_layout layout, bool trans_a, bool trans_b, int64_t m, int64_t n,
                     int64_t k, bool aligned, int64_t batch = 1);

/// Parses "MxNxK" with an optional layout/transpose suffix ":NN", ":NT",
/// ":TN", ":TT", an optional "col"/"row" prefix and an optional strided
/// batch "@COUNT" at the end, e.g. "4096x4096x4096:NT", "col:128x256x64:TN"
/// or "64x64x64@4096". Returns false with a message on any error.
struct ShapeSpec {
  autogemm_layout layout = AUTOGEMM_ROW_MAJOR;
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  std::string to_string() const;
  /// Canonical problem with minimal leading dimensions and aligned pointers.
  Problem problem() const;
};
bool parse_shape(const std::string& text, ShapeSpec* out, std::string* error);

}  // namespace autogemm
