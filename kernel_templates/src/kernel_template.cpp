#include "autogemm/kernel_template.h"

#include "autogemm/embedded_sources.h"

namespace autogemm {

KernelTemplate::KernelTemplate(const char* file, const char* entry) : file_(file), entry_(entry) {
  const EmbeddedSource& s = embedded_source(file);
  source_ = s.source;
  hash_ = s.sha256;
}

const KernelTemplate& KernelTemplate::for_kind(KernelKind kind) {
  static const KernelTemplate tiled("sgemm_tiled.cu", "agemm_tiled");
  static const KernelTemplate generic("sgemm_generic.cu", "agemm_generic");
  return kind == KernelKind::Tiled ? tiled : generic;
}

const KernelTemplate& KernelTemplate::reference() {
  static const KernelTemplate ref("gemm_reference.cu", "agemm_reference");
  return ref;
}

LaunchGeometry KernelTemplate::geometry(const KernelConfig& cfg, const Problem& p) const {
  LaunchGeometry g;
  if (cfg.kind == KernelKind::Generic) {
    g.grid_x = unsigned(((p.m + 15) / 16) * ((p.n + 15) / 16));
    g.block = 256;
    return g;
  }
  g.grid_x = unsigned(((p.m + cfg.bm - 1) / cfg.bm) * ((p.n + cfg.bn - 1) / cfg.bn));
  g.grid_z = unsigned(cfg.split_k);
  g.block = unsigned(cfg.threads());
  g.smem = unsigned(cfg.smem_bytes());
  return g;
}

const std::string& template_hash(const KernelConfig& cfg) {
  return KernelTemplate::for_kind(cfg.kind).hash();
}

}  // namespace autogemm
