// TuningCache: whole-file operations of the cache tool (all cubins for a
// merge, VACUUM). The per-row reads and writes are in records.cpp.
#include "autogemm/tuning_cache.h"

#include "impl.h"

namespace autogemm {

using detail::Db;
using detail::Stmt;

std::vector<StoredCubin> TuningCache::load_all_cubins() const {
  auto lock = impl_->enter();
  Db& db = impl_->db;
  Stmt s = db.prepare("SELECT template_hash, config, arch, nvrtc_version, cubin FROM cubins "
                      "ORDER BY template_hash, config, arch, nvrtc_version");
  std::vector<StoredCubin> out;
  while (s.step()) {
    StoredCubin c;
    c.key = CubinKey{s.column_text(0), s.column_text(1), s.column_text(2), int(s.column_int(3))};
    if (s.column_type(4) == SQLITE_BLOB) c.cubin = s.column_blob(4);
    if (!c.cubin.empty()) out.push_back(std::move(c));  // an empty one is no kernel: left behind
  }
  return out;
}

void TuningCache::vacuum() {
  auto lock = impl_->enter();
  impl_->db.exec("VACUUM", "compacting the file (VACUUM)");
}

}  // namespace autogemm
