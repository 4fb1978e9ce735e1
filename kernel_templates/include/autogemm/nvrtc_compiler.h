// Compiler: NVRTC source + options -> cubin for one GPU architecture.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace autogemm {

/// NVRTC failed; log() holds the compiler's log (kept for the trial record).
class CompileError : public std::runtime_error {
 public:
  CompileError(const std::string& what, std::string log)
      : std::runtime_error(what), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

struct CompileResult {
  std::vector<char> cubin;
  std::string log;        ///< warnings, if any
  double seconds = 0;
};

class Compiler {
 public:
  /// Compiles `source` (named `name` in diagnostics) for `arch` ("sm_90")
  /// with extra options (e.g. -D definitions); the shared device headers
  /// (embedded_headers()) are available to its #include by name. Thread-safe: each call owns its
  /// NVRTC program. Throws CompileError with the log on failure.
  static CompileResult compile(const std::string& source, const std::string& name,
                               const std::string& arch, const std::vector<std::string>& options);
  /// NVRTC version as major*1000 + minor*10 (13.0 -> 13000).
  static int version();
};

}  // namespace autogemm
