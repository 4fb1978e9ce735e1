#include "autogemm/search_space.h"

#include <stdexcept>

namespace autogemm {

std::vector<KernelConfig> SearchSpace::enumerate(const Problem& p, const SearchLimits& lim,
                                                 const std::vector<const KernelFamily*>& families) {
  std::vector<KernelConfig> out;
  for (const KernelFamily* f : families)
    for (KernelConfig& c : f->search_space(p, lim)) out.push_back(std::move(c));
  return out;
}

std::vector<KernelConfig> SearchSpace::enumerate(const Problem& p, const SearchLimits& lim) {
  return enumerate(p, lim, all_families());
}

std::vector<const KernelFamily*> tunable_families(const DeviceInfo& dev, const std::vector<std::string>& names,
                                                  MathMode mode) {
  std::vector<const KernelFamily*> out;
  for (const std::string& n : names) {
    const KernelFamily* f = find_family(n);
    if (!f) throw std::invalid_argument("unknown kernel family '" + n + "'");
    if (!admits(mode, f->accuracy()))
      throw std::invalid_argument("the " + n + " family (" + to_string(f->accuracy()) +
                                  ") is only tuned in math mode fp32_accurate");
  }
  for (const KernelFamily* f : all_families()) {
    bool wanted = names.empty();
    for (const std::string& n : names) wanted = wanted || n == f->name();
    if (wanted && f->arch(dev) && admits(mode, f->accuracy())) out.push_back(f);
  }
  return out;
}

}  // namespace autogemm
