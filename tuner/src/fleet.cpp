#include "autogemm/fleet.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <stdexcept>

namespace autogemm {
namespace {

/// The value of `name` as a non-negative int, if set; throws when it is not one.
bool read_int(const char* name, int* out) {
  const char* v = std::getenv(name);
  if (!v || !*v) return false;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < 0 || x > 1000000)
    throw std::invalid_argument(std::string("$") + name + "='" + v + "' is not a process rank or count");
  *out = int(x);
  return true;
}

/// The variables one launcher sets: a rank and the count it is below.
struct Pair {
  const char* rank;
  const char* size;
};

}  // namespace

LaunchRank launch_rank_from_environment() {
  static const Pair kLaunchers[] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                    {"PMIX_RANK", "OMPI_COMM_WORLD_SIZE"},
                                    {"PMIX_RANK", "SLURM_NTASKS"},
                                    {"PMI_RANK", "PMI_SIZE"},
                                    {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const Pair& p : kLaunchers) {
    LaunchRank r;
    if (!read_int(p.rank, &r.rank) || !read_int(p.size, &r.size)) continue;
    if (r.size < 1 || r.rank >= r.size)
      throw std::invalid_argument(std::string("$") + p.rank + "=" + std::to_string(r.rank) + " is not below $" +
                                  p.size + "=" + std::to_string(r.size));
    r.source = p.rank;
    return r;
  }
  return LaunchRank{};
}

int slurm_tasks_on_node(const std::string& text, int node) {
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const long tasks = std::strtol(item.c_str(), &end, 10);
    long repeat = 1;
    if (end == item.c_str() || tasks < 0) return 0;
    if (*end == '(') {  // "N(xR)"
      if (end[1] != 'x') return 0;
      char* close = nullptr;
      repeat = std::strtol(end + 2, &close, 10);
      if (repeat < 1 || *close != ')' || close[1] != '\0') return 0;
    } else if (*end != '\0') {
      return 0;
    }
    if (node < repeat) return int(tasks);
    node -= int(repeat);
    at = comma + 1;
  }
  return 0;
}

LocalRank local_rank_from_environment() {
  static const Pair kLaunchers[] = {{"OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
                                    {"MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
                                    {"PMI_LOCAL_RANK", "PMI_LOCAL_SIZE"},
                                    {"SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"}};
  for (const Pair& p : kLaunchers) {
    LocalRank r;
    if (!read_int(p.rank, &r.rank)) continue;
    r.source = p.rank;
    int node = 0;
    const char* per_node = std::getenv("SLURM_STEP_TASKS_PER_NODE");
    if (!per_node) per_node = std::getenv("SLURM_TASKS_PER_NODE");
    if (r.source == "SLURM_LOCALID" && per_node && read_int("SLURM_NODEID", &node))
      r.size = slurm_tasks_on_node(per_node, node);
    if (r.size == 0) read_int(p.size, &r.size);
    if (r.size > 0 && r.rank >= r.size)
      throw std::invalid_argument(std::string("$") + p.rank + "=" + std::to_string(r.rank) +
                                  " is not below the launcher's count of processes on this host (" +
                                  std::to_string(r.size) + ")");
    return r;
  }
  return LocalRank{};
}

double tuning_cost_estimate(const Problem& p) {
  // About 4 s of compiling and start-up per shape, and a second per 1e11
  // flops of timed work (the H200 tuning times of docs/PERFORMANCE.md).
  return 4.0 + p.flops() / 1e11;
}

std::vector<std::vector<size_t>> balance(const std::vector<double>& costs, int parts) {
  if (parts < 1) throw std::invalid_argument("cannot split work into " + std::to_string(parts) + " parts");
  std::vector<size_t> order(costs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::vector<std::vector<size_t>> groups(static_cast<size_t>(parts));
  std::vector<double> load(static_cast<size_t>(parts), 0.0);
  for (size_t i : order) {
    const size_t g = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    groups[g].push_back(i);
    load[g] += costs[i];
  }
  for (auto& g : groups) std::sort(g.begin(), g.end());
  return groups;
}

std::vector<int> parse_device_list(const std::string& text, int count) {
  std::vector<int> out;
  if (text == "all") {
    for (int i = 0; i < count; ++i) out.push_back(i);
    if (out.empty()) throw std::invalid_argument("--device all: this machine has no GPU");
    return out;
  }
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const long v = item.empty() ? -1 : std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0)
      throw std::invalid_argument("--device: '" + item + "' is not a GPU ordinal (use all, local, 0 or a list like 0,1)");
    if (v >= count)
      throw std::invalid_argument("--device: GPU " + item + " does not exist (this machine has " +
                                  std::to_string(count) + ")");
    if (std::find(out.begin(), out.end(), int(v)) != out.end())
      throw std::invalid_argument("--device: GPU " + item + " is listed twice");
    out.push_back(int(v));
    at = comma + 1;
  }
  return out;
}

std::string rank_cache_path(const std::string& pattern, const LaunchRank& r) {
  const std::string tag = "{rank}";
  if (r.size > 1 && pattern.find(tag) == std::string::npos)
    throw std::invalid_argument("gemm_tune runs as rank " + std::to_string(r.rank) + " of " + std::to_string(r.size) +
                                " ($" + r.source + "): give each rank its own cache file, e.g. --db " +
                                "tuning.{rank}.db, then combine them with autogemm_cache merge");
  std::string out = pattern;
  for (size_t at = out.find(tag); at != std::string::npos; at = out.find(tag, at))
    out.replace(at, tag.size(), std::to_string(r.rank)), at += std::to_string(r.rank).size();
  return out;
}

}  // namespace autogemm
