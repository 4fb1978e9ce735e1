#include "autogemm/math_mode.h"

#include <cstdlib>

namespace autogemm {

bool admits(MathMode mode, AccuracyClass a) {
  switch (a) {
    case AccuracyClass::StrictFp32: return true;
    case AccuracyClass::Fp32Accurate: return mode == MathMode::Fp32Accurate;
  }
  return false;
}

const char* to_string(MathMode m) {
  switch (m) {
    case MathMode::Strict: return "strict";
    case MathMode::Fp32Accurate: return "fp32_accurate";
  }
  return "?";
}

std::optional<MathMode> parse_math_mode(const std::string& text) {
  if (text == "strict") return MathMode::Strict;
  if (text == "fp32_accurate" || text == "3xtf32") return MathMode::Fp32Accurate;
  return std::nullopt;
}

MathMode math_mode_from_environment(std::string* bad) {
  const char* env = std::getenv("AUTOGEMM_MATH_MODE");
  if (!env || !*env) return MathMode::Strict;
  if (auto m = parse_math_mode(env)) return *m;
  if (bad) *bad = env;
  return MathMode::Strict;
}

}  // namespace autogemm
