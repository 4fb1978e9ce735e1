#include "autogemm/cpu_affinity.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

#include "autogemm/log.h"

namespace autogemm {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  return line;
}

/// What a user of this launcher types to leave the ranks unbound.
std::string unbind_advice(const std::string& source) {
  if (source.rfind("SLURM_", 0) == 0) return "srun --cpu-bind=none ...";
  if (source.rfind("OMPI_", 0) == 0) return "mpirun --bind-to none ...";
  return "mpirun --bind-to none ... (Open MPI) or srun --cpu-bind=none ... (Slurm)";
}

std::string cpus_text(const std::vector<int>& cpus) {
  return std::to_string(cpus.size()) + (cpus.size() == 1 ? " CPU (" : " CPUs (") + cpu_list_text(cpus) + ")";
}

}  // namespace

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::set<int> cpus;
  size_t at = 0;
  while (at < text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string item = text.substr(at, comma - at);
    char* end = nullptr;
    const long lo = std::strtol(item.c_str(), &end, 10);
    long hi = lo;
    if (end == item.c_str() || lo < 0) return {};
    if (*end == '-') {
      const char* from = end + 1;
      hi = std::strtol(from, &end, 10);
      if (end == from || hi < lo) return {};
    }
    if (*end != '\0' || hi >= CPU_SETSIZE) return {};
    for (long c = lo; c <= hi; ++c) cpus.insert(int(c));
    at = comma + 1;
  }
  return {cpus.begin(), cpus.end()};
}

AffinityPlan plan_affinity(const std::vector<int>& current, const std::vector<int>& host, const LocalRank& local,
                           const LaunchRank& launch, bool keep) {
  AffinityPlan plan;
  if (local.source.empty() && launch.source.empty()) return plan;  // no launcher: the mask is the user's
  const int ranks = std::max(1, local.size > 0 ? local.size : launch.size);
  const int me = (local.source.empty() ? launch.rank : local.rank) % ranks;
  const size_t n = host.size(), from = size_t(me) * n / size_t(ranks), to = size_t(me + 1) * n / size_t(ranks);
  if (to <= from || current.size() >= to - from) return plan;  // already its share or more
  const std::vector<int> share(host.begin() + long(from), host.begin() + long(to));
  const std::string source = local.source.empty() ? launch.source : local.source;
  const std::string who =
      "local rank " + std::to_string(me) + " of " + std::to_string(ranks) + " on this host ($" + source + ")";
  if (keep) {
    plan.action = AffinityPlan::Action::Warn;
    plan.message = "the launcher bound " + who + " to " + cpus_text(current) +
                   " and --keep-affinity (or AUTOGEMM_KEEP_AFFINITY=1) keeps it: the NVRTC compile pool has " +
                   std::to_string(current.size()) + " of the " + std::to_string(share.size()) +
                   " CPUs of its share, and tuning runs that much slower; run " + unbind_advice(source) +
                   " or drop --keep-affinity";
    return plan;
  }
  plan.action = AffinityPlan::Action::Widen;
  plan.cpus = share;
  plan.message = "the launcher bound " + who + " to " + cpus_text(current) + "; widened to " + cpus_text(share) +
                 ", its share of this host's " + std::to_string(n) +
                 ", for the NVRTC compile pool (--keep-affinity keeps the binding)";
  return plan;
}

std::vector<int> affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> out;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) out.push_back(c);
  return out;
}

std::vector<int> host_cpus() {
  std::vector<int> cpus;
  std::ifstream groups("/proc/self/cgroup");
  for (std::string line; cpus.empty() && std::getline(groups, line);)
    if (line.rfind("0::", 0) == 0)  // cgroup v2: its cpuset bounds what sched_setaffinity grants
      cpus = parse_cpu_list(read_first_line("/sys/fs/cgroup" + line.substr(3) + "/cpuset.cpus.effective"));
  if (cpus.empty()) cpus = parse_cpu_list(read_first_line("/sys/devices/system/cpu/online"));
  std::set<int> all(cpus.begin(), cpus.end());
  for (int c : affinity_cpus()) all.insert(c);
  return {all.begin(), all.end()};
}

int usable_cpu_count() {
  const size_t n = affinity_cpus().size();
  if (n > 0) return int(n);
  return int(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

AffinityPlan affinity_plan_of_this_process(bool keep) {
  const char* env = std::getenv("AUTOGEMM_KEEP_AFFINITY");
  keep = keep || (env && std::string(env) == "1");
  return plan_affinity(affinity_cpus(), host_cpus(), local_rank_from_environment(), launch_rank_from_environment(),
                       keep);
}

AffinityPlan fit_affinity_to_launch(bool keep) {
  const std::vector<int> current = affinity_cpus();
  AffinityPlan plan = affinity_plan_of_this_process(keep);
  if (plan.action == AffinityPlan::Action::Widen) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c : plan.cpus) CPU_SET(c, &set);
    const std::vector<int> granted = sched_setaffinity(0, sizeof set, &set) == 0 ? affinity_cpus() : current;
    if (granted.size() <= current.size()) {  // a cpuset (cgroup v1, a container) refused the share
      plan.action = AffinityPlan::Action::Warn;
      plan.message = "could not widen the launcher's binding to " + cpu_list_text(plan.cpus) +
                     " (this process's cpuset refuses it): the NVRTC compile pool has " +
                     std::to_string(granted.size()) + " CPU(s); run the launcher without binding (--bind-to none, " +
                     "--cpu-bind=none)";
    } else if (granted != plan.cpus) {
      plan.message += " (this process's cpuset granted " + cpus_text(granted) + ")";
    }
    plan.cpus = granted;
  }
  if (plan.action == AffinityPlan::Action::Widen) log().info("{}", plan.message);
  if (plan.action == AffinityPlan::Action::Warn) log().warn("{}", plan.message);
  return plan;
}

}  // namespace autogemm
