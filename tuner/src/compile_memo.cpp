#include "compile_memo.h"

#include "autogemm/kernel_template.h"

namespace autogemm {

CompileMemo& CompileMemo::process() {
  static CompileMemo memo(size_t(48) << 20);  // some 500 builds (cubins are 20-100 KB)
  return memo;
}

std::string CompileMemo::key(const KernelConfig& c, const std::string& arch) {
  return template_hash(c) + " " + arch + " " + c.to_string();
}

std::optional<CompileResult> CompileMemo::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second);
  CompileResult r = it->second->result;
  r.seconds = 0;
  return r;
}

bool CompileMemo::contains(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  return index_.count(key) > 0;
}

void CompileMemo::put(const std::string& key, const CompileResult& r) {
  Entry e{key, r};
  const size_t c = cost(e);
  if (c > max_bytes_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (index_.count(key)) return;  // two threads built the same config: one copy is enough
  order_.push_front(std::move(e));
  index_[key] = order_.begin();
  bytes_ += c;
  while (bytes_ > max_bytes_) {
    bytes_ -= cost(order_.back());
    index_.erase(order_.back().key);
    order_.pop_back();
  }
}

size_t CompileMemo::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t CompileMemo::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return order_.size();
}

}  // namespace autogemm
