// KernelTemplate: one embedded kernel source and what the host must know to
// build and launch it (entry points, options, launch geometry).
#pragma once

#include <string>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"

namespace autogemm {

struct LaunchGeometry {
  unsigned grid_x = 1, grid_y = 1, grid_z = 1;
  unsigned block = 1;
  unsigned smem = 0;  ///< dynamic shared memory bytes
};

class KernelTemplate {
 public:
  /// The template that implements configs of `kind`.
  static const KernelTemplate& for_kind(KernelKind kind);
  /// gemm_reference.cu: FP64 reference, checker and random fill (tuner, tests).
  static const KernelTemplate& reference();

  const std::string& file() const { return file_; }
  const std::string& source() const { return source_; }
  /// Content hash: part of every cache row built from this template.
  const std::string& hash() const { return hash_; }
  /// Name of the GEMM entry point.
  const char* entry() const { return entry_; }

  /// Launch geometry of `cfg` for problem `p`.
  LaunchGeometry geometry(const KernelConfig& cfg, const Problem& p) const;

 private:
  KernelTemplate(const char* file, const char* entry);
  std::string file_, source_, hash_;
  const char* entry_;
};

/// Hash of the template that implements `cfg`.
const std::string& template_hash(const KernelConfig& cfg);

}  // namespace autogemm
