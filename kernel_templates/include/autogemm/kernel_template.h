// KernelTemplate: one embedded kernel source (file name, text, content hash).
// Families own theirs (KernelFamily::source()); the FP64 reference kernel used
// by the tuner and the tests is here too.
#pragma once

#include <string>

#include "autogemm/kernel_config.h"

namespace autogemm {

class KernelTemplate {
 public:
  /// The embedded file `file` (e.g. "sgemm_tiled.cu"); throws std::out_of_range
  /// if it was not embedded at build time.
  explicit KernelTemplate(const char* file);

  /// gemm_reference.cu: FP64 reference, checker and random fill (tuner, tests).
  static const KernelTemplate& reference();

  const std::string& file() const { return file_; }
  const std::string& source() const { return source_; }
  /// Content hash: part of every cache row built from this template.
  const std::string& hash() const { return hash_; }

 private:
  std::string file_, source_, hash_;
};

/// Hash of the template that implements `cfg`.
const std::string& template_hash(const KernelConfig& cfg);

}  // namespace autogemm
