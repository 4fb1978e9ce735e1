// MathMode: which kinds of arithmetic a caller accepts, as cuBLAS's math
// modes do. Strict FP32 (FFMA) is the default; the FP32-accurate mode also
// admits tensor-core families that reach FP32 accuracy by splitting operands
// (3xTF32). Nothing lossy (1xTF32, FP16) is ever admitted by any mode.
#pragma once

#include <optional>
#include <string>

#include "autogemm/kernel_family.h"

namespace autogemm {

enum class MathMode { Strict, Fp32Accurate };

/// True when a caller in `mode` accepts a family of class `a`.
bool admits(MathMode mode, AccuracyClass a);

/// "strict", "fp32_accurate".
const char* to_string(MathMode m);
/// Accepts what to_string gives (and "3xtf32" for fp32_accurate); nullopt otherwise.
std::optional<MathMode> parse_math_mode(const std::string& text);

/// The process default: $AUTOGEMM_MATH_MODE when it parses, else Strict.
/// `*bad` gets the variable's text when it is set but does not parse.
MathMode math_mode_from_environment(std::string* bad = nullptr);

}  // namespace autogemm
