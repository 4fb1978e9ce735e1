#include "autogemm/kernel_template.h"

#include "autogemm/embedded_sources.h"

namespace autogemm {

KernelTemplate::KernelTemplate(const char* file) : file_(file) {
  const EmbeddedSource& s = embedded_source(file);
  source_ = s.source;
  hash_ = s.sha256;
}

const KernelTemplate& KernelTemplate::reference() {
  static const KernelTemplate ref("gemm_reference.cu");
  return ref;
}

const std::string& template_hash(const KernelConfig& cfg) { return cfg.family().source().hash(); }

}  // namespace autogemm
