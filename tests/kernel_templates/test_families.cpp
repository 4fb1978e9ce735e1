// Tests over kernel families: every family of the registry (all_families())
// gets the same suite, so a new family is covered by adding it to the
// registry alone. Each test is instantiated once per family, named by it
// ("Registry/Families.SpaceRoundTripsThroughText/tiled").
//
//   text round trip of every config the family's search space gives,
//   every space config valid, implementing its problem, within SearchLimits,
//   the default (where the family has one) implementing its whole class,
//   registry facts: names, lookup, sources, architectures, entry points.
//
// Family-specific checks (the tiled parameter ranges, shared-memory layout,
// defines) stay in test_kernel_config.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "autogemm/embedded_sources.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/kernel_template.h"
#include "autogemm/problem.h"
#include "fake_device.h"

namespace autogemm {

// Failure messages show configs as their canonical text (internal linkage:
// other test files of this binary may print them too).
[[maybe_unused]] static void PrintTo(const KernelConfig& c, std::ostream* os) { *os << c.to_string(); }

namespace {

/// A canonical problem of the given class; leading dimensions are minimal,
/// rounded up to 4 in the aligned class so that the class is honest.
Problem problem(int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool aligned) {
  auto up = [aligned](int64_t v) { return aligned ? (v + 3) / 4 * 4 : v; };
  Problem p;
  p.m = m, p.n = n, p.k = k, p.trans_a = ta, p.trans_b = tb, p.aligned = aligned;
  p.lda = up(ta ? m : k), p.ldb = up(tb ? k : n), p.ldc = up(n);
  return p;
}

/// The problems every family's space is checked on: odd sizes, skinny
/// (GEMV-like) ones and a large square, in both alignment classes and all
/// four layouts.
const std::vector<Problem>& space_problems() {
  static const std::vector<Problem> all = [] {
    struct Dims {
      int64_t m, n, k;
    };
    std::vector<Problem> out;
    for (const Dims& d : {Dims{127, 257, 509}, Dims{1, 4096, 4096}, Dims{13, 300, 509}, Dims{4096, 4096, 4096}})
      for (bool aligned : {true, false})
        for (int t = 0; t < 4; ++t) out.push_back(problem(d.m, d.n, d.k, t & 1, t & 2, aligned));
    return out;
  }();
  return all;
}

/// H100/H200-like limits, and tight ones a space must shrink to respect.
SearchLimits tight_limits() {
  SearchLimits l;
  l.max_threads = 256;
  l.max_smem = 16 * 1024;
  l.sm_count = 16;
  l.regs_per_sm = 32768;
  l.max_threads_per_sm = 1024;
  l.smem_per_sm = 64 * 1024;
  return l;
}

DeviceInfo fake_sm90() { return autogemm::testing::fake_h200(); }

class Families : public ::testing::TestWithParam<const KernelFamily*> {
 protected:
  const KernelFamily& family() const { return *GetParam(); }

  /// The family's space of space_problems()[i] under `lim`, computed once per
  /// program: enumerating the large problems is the slow part of the suite.
  const std::vector<KernelConfig>& space(size_t i, bool tight = false) const {
    static std::map<std::string, std::vector<KernelConfig>> memo;
    const std::string key = std::string(family().name()) + "/" + std::to_string(i) + (tight ? "/tight" : "");
    auto it = memo.find(key);
    if (it == memo.end())
      it = memo.emplace(key, family().search_space(space_problems()[i], tight ? tight_limits() : SearchLimits{}))
               .first;
    return it->second;
  }

  /// Every config the family offers for the space problems: its spaces and
  /// its defaults (a family with an empty space is still seen through its default).
  std::vector<KernelConfig> own_configs() const {
    std::vector<KernelConfig> out;
    std::set<std::string> seen;
    auto add = [&](const KernelConfig& c) {
      if (seen.insert(c.to_string()).second) out.push_back(c);
    };
    for (size_t i = 0; i < space_problems().size(); ++i) {
      for (const KernelConfig& c : space(i)) add(c);
      if (auto d = family().default_config(space_problems()[i])) add(*d);
    }
    return out;
  }
};

// ---- the search space -------------------------------------------------------------

TEST_P(Families, SpaceRoundTripsThroughText) {
  const std::string prefix = std::string(family().name()) + " ";
  size_t total = 0;
  for (size_t i = 0; i < space_problems().size(); ++i) {
    SCOPED_TRACE(space_problems()[i].to_string());
    total += space(i).size();
    for (const KernelConfig& c : space(i)) {
      const std::string s = c.to_string();
      ASSERT_EQ(s.rfind(prefix, 0), 0u) << s << ": the text must begin with the family's name";
      std::string err;
      const auto back = KernelConfig::parse(s, &err);
      ASSERT_TRUE(back.has_value()) << s << ": " << err;
      ASSERT_TRUE(*back == c) << s;
      ASSERT_EQ(back->to_string(), s);
      ASSERT_EQ(&back->family(), &family()) << s;
    }
  }
  RecordProperty("space_configs", int(total));  // in --gtest_output=xml: the suite is not vacuous
}

// The config text is the cache's permanent key; every key in it must say
// what it means (autogemm_cache show prints these).
TEST_P(Families, EveryKeyOfTheTextHasAMeaning) {
  std::map<std::string, std::string> meaning;
  for (const ConfigKey& k : config_keys(family())) {
    EXPECT_FALSE(k.meaning.empty()) << k.key;
    EXPECT_FALSE(k.values.empty()) << k.key;
    EXPECT_TRUE(meaning.emplace(k.key, k.meaning).second) << k.key << " twice";
  }
  const std::vector<KernelConfig> configs = own_configs();
  ASSERT_FALSE(configs.empty());
  for (const KernelConfig& c : configs) {
    std::istringstream words(c.to_string());
    std::string word;
    words >> word;  // the family's name
    while (words >> word) {
      const std::string key = word.substr(0, word.find('='));
      EXPECT_EQ(meaning.count(key), 1u) << key << " in " << c.to_string();
    }
  }
}

TEST_P(Families, SpaceIsDeterministicAndHasNoDuplicates) {
  for (size_t i = 0; i < space_problems().size(); ++i) {
    const Problem& p = space_problems()[i];
    SCOPED_TRACE(p.to_string());
    // An interrupted tuning resumes by skipping what it measured: the order
    // of a second enumeration must be the same.
    const std::vector<KernelConfig> again = family().search_space(p, SearchLimits{});
    ASSERT_EQ(again.size(), space(i).size());
    std::set<std::string> seen;
    for (size_t j = 0; j < again.size(); ++j) {
      ASSERT_TRUE(again[j] == space(i)[j]) << again[j].to_string() << " vs " << space(i)[j].to_string();
      ASSERT_TRUE(seen.insert(again[j].to_string()).second) << "duplicate " << again[j].to_string();
    }
  }
}

TEST_P(Families, SpaceConfigsAreValidImplementTheirProblemAndRespectTheLimits) {
  for (bool tight : {false, true}) {
    const SearchLimits lim = tight ? tight_limits() : SearchLimits{};
    for (size_t i = 0; i < space_problems().size(); ++i) {
      const Problem& p = space_problems()[i];
      SCOPED_TRACE(p.to_string() + (tight ? " (tight limits)" : ""));
      for (const KernelConfig& c : space(i, tight)) {
        std::string why;
        ASSERT_TRUE(c.is_valid(&why)) << c.to_string() << ": " << why;
        ASSERT_TRUE(c.can_implement(p)) << c.to_string();
        ASSERT_EQ(c.trans_a, p.trans_a) << c.to_string();
        ASSERT_EQ(c.trans_b, p.trans_b) << c.to_string();
        ASSERT_GE(c.threads(), 1) << c.to_string();
        ASSERT_LE(c.threads(), lim.max_threads) << c.to_string();
        ASSERT_LE(c.smem_bytes(), lim.max_smem) << c.to_string();
        // Dispatch refuses bigger workspaces: the tuner must never pick one.
        ASSERT_LE(c.workspace_floats(p), KernelConfig::kMaxWorkspaceFloats) << c.to_string();
        // The model ranks these: every cost must be a usable number.
        const double cost = family().cost(c, p, lim);
        ASSERT_TRUE(std::isfinite(cost) && cost > 0) << c.to_string() << ": cost " << cost;
      }
    }
  }
}

TEST_P(Families, EveryConfigOfTheSpaceIsInIt) {
  // What dispatch asks of a borrowed config (in_space) holds for every
  // candidate the space offers.
  for (size_t i = 0; i < space_problems().size(); ++i) {
    const Problem& p = space_problems()[i];
    SCOPED_TRACE(p.to_string());
    for (const KernelConfig& c : space(i)) ASSERT_TRUE(family().in_space(c, p, SearchLimits{})) << c.to_string();
  }
}

// ---- the default --------------------------------------------------------------

TEST_P(Families, DefaultImplementsEveryProblemOfItsClass) {
  const int64_t sizes[] = {1, 3, 16, 127, 509, 4096, 65537};
  int defaults = 0;
  for (const Problem& probe : space_problems()) {
    const auto d = family().default_config(probe);
    if (!d) continue;  // the family is only ever chosen by tuning here
    ++defaults;
    SCOPED_TRACE(d->to_string() + ", the default for " + probe.to_string());
    std::string why;
    ASSERT_TRUE(d->is_valid(&why)) << why;
    ASSERT_EQ(&d->family(), &family());
    ASSERT_EQ(KernelConfig::parse(d->to_string()).value_or(KernelConfig{}), *d);
    // Any problem of the probe's layouts and alignment class, at any size.
    for (int64_t m : sizes)
      for (int64_t n : sizes)
        for (int64_t k : sizes) {
          const Problem q = problem(m, n, k, probe.trans_a, probe.trans_b, probe.aligned);
          ASSERT_TRUE(d->can_implement(q)) << q.to_string();
          ASSERT_LE(d->workspace_floats(q), KernelConfig::kMaxWorkspaceFloats) << q.to_string();
        }
  }
  RecordProperty("problems_with_a_default", defaults);
}

// ---- registry facts -------------------------------------------------------------

TEST_P(Families, NameFindsTheFamily) {
  const std::string name = family().name();
  ASSERT_FALSE(name.empty());
  // The name is the first word of the canonical text and a cache column.
  EXPECT_EQ(name.find_first_of(" \t\n="), std::string::npos) << name;
  EXPECT_EQ(find_family(name), &family());
}

TEST_P(Families, ConfigsAreOfTheirFamily) {
  const std::vector<KernelConfig> configs = own_configs();
  ASSERT_FALSE(configs.empty()) << "the family offers neither a space nor a default for any test problem";
  for (const KernelConfig& c : configs) {
    EXPECT_EQ(&family_of(c.params), &family()) << c.to_string();
    EXPECT_EQ(&c.family(), &family()) << c.to_string();
    EXPECT_EQ(template_hash(c), family().source().hash()) << c.to_string();
    const auto variants = family().history_variants(c);
    ASSERT_FALSE(variants.empty()) << c.to_string();
    EXPECT_EQ(variants.front(), c) << "a winner's variants begin with the winner";
    for (const KernelConfig& v : variants) EXPECT_EQ(&v.family(), &family()) << v.to_string();
  }
}

TEST_P(Families, SourceIsEmbeddedWithItsHash) {
  const KernelTemplate& t = family().source();
  ASSERT_FALSE(t.file().empty());
  EXPECT_FALSE(t.hash().empty());
  EXPECT_GT(t.source().size(), 100u);
  const EmbeddedSource& e = embedded_source(t.file());
  EXPECT_EQ(t.source(), e.source);
  EXPECT_EQ(t.hash(), e.sha256);
  EXPECT_NE(t.hash(), KernelTemplate::reference().hash());
}

TEST_P(Families, RunsOnSm90) {
  const DeviceInfo dev = fake_sm90();
  const auto arch = family().arch(dev);
  ASSERT_TRUE(arch.has_value()) << "every family is expected to run on an H100/H200";
  EXPECT_EQ(arch->rfind("sm_90", 0), 0u) << *arch;
  for (const KernelConfig& c : own_configs()) EXPECT_EQ(kernel_arch(c, dev), *arch) << c.to_string();
}

TEST_P(Families, EntryPointsAreKernelsOfTheSource) {
  const std::string& src = family().source().source();
  for (const KernelConfig& c : own_configs()) {
    const std::vector<std::string> entries = family().entry_points(c);
    ASSERT_FALSE(entries.empty()) << c.to_string();
    for (const std::string& e : entries)
      EXPECT_NE(src.find(e + "("), std::string::npos) << e << " of " << c.to_string();
  }
}

TEST_P(Families, GeometryAndWorkspaceAgreeWithTheResources) {
  for (const KernelConfig& c : own_configs()) {
    for (const Problem& p : space_problems()) {
      if (!c.can_implement(p)) continue;
      const LaunchGeometry g = family().geometry(c, p);
      ASSERT_EQ(g.block, unsigned(c.threads())) << c.to_string();
      ASSERT_EQ(g.smem, unsigned(c.smem_bytes())) << c.to_string();
      ASSERT_GE(g.grid_x, 1u) << c.to_string() << " on " << p.to_string();
      ASSERT_GE(g.grid_y, 1u);
      ASSERT_GE(g.grid_z, 1u);
      // The counters a tuner re-zeroes lie at the start of the workspace.
      ASSERT_LE(family().workspace_counter_floats(c), c.workspace_floats(p)) << c.to_string();
    }
  }
}

TEST_P(Families, AccuracyClassHasAName) {
  EXPECT_STRNE(to_string(family().accuracy()), "?");
  EXPECT_STRNE(to_string(family().accuracy()), "");
}

INSTANTIATE_TEST_SUITE_P(Registry, Families, ::testing::ValuesIn(all_families()),
                         [](const ::testing::TestParamInfo<const KernelFamily*>& info) {
                           return std::string(info.param->name());
                         });

// ---- the registry as a whole ------------------------------------------------------

TEST(FamilyRegistry, OneFamilyPerAlternativeWithUniqueNames) {
  const auto& all = all_families();
  EXPECT_EQ(all.size(), std::variant_size_v<FamilyParams>);
  std::set<std::string> names;
  for (const KernelFamily* f : all) {
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(names.insert(f->name()).second) << "two families are called " << f->name();
  }
  std::set<std::string> files;
  for (const KernelFamily* f : all) EXPECT_TRUE(files.insert(f->source().file()).second) << f->source().file();
  for (const char* unknown : {"", "nope", "TILED", "tiled ", "generic2"})
    EXPECT_EQ(find_family(unknown), nullptr) << "'" << unknown << "'";
}

TEST(FamilyRegistry, BuiltInDefaultIsTheFirstFamilysDefault) {
  for (const Problem& p : space_problems()) {
    const KernelFamily* first = nullptr;
    for (const KernelFamily* f : all_families())
      if (!first && f->default_config(p)) first = f;
    ASSERT_NE(first, nullptr) << "no family has a default for " << p.to_string();
    EXPECT_EQ(default_config(p), *first->default_config(p)) << p.to_string();
  }
}

}  // namespace
}  // namespace autogemm
