// autogemm_cache on fixture caches (no GPU): list and its filters, merge of
// another cache file (the faster winner stays, nothing lost, cubins only with
// --trust-cubins), diff, prune, vacuum, show, coverage of the recorded shapes,
// and an export/import round trip. The tool
// runs as a child process; its JSON output is what the tests read.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "autogemm/kernel_families.h"
#include "autogemm/kernel_template.h"
#include "autogemm/nvrtc_compiler.h"
#include "cache_test_util.h"
#include "run_command.h"

namespace autogemm::test {
namespace {

using Output = autogemm::testing::CommandOutput;

std::string tool() {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = n > 0 ? std::string(self, size_t(n)) : std::string();
  return dir.substr(0, dir.rfind('/')) + "/" + TOOLS_REL + "/autogemm_cache";
}

Output run(const std::string& args) { return autogemm::testing::run_command(tool() + " " + args); }

nlohmann::json run_json(const std::string& args) {
  const Output o = run(args + " --json");
  EXPECT_EQ(o.status, 0) << args << ":\n" << o.text;
  return nlohmann::json::parse(o.text, nullptr, false);
}

DeviceKey a100() { return {"NVIDIA A100-SXM4-80GB", 8, 0, 108, 12040, 12040}; }

TrialRecord ok_trial(const std::string& config, double ms) { return {config, TrialStatus::Ok, ms, 0.001, 1000 / ms, ""}; }

/// A cache with an H200 (two shapes, tiled and warptiled) and an A100 (one
/// shape), their trials (one failed), and a cubin.
void fill(const std::string& path, double ms_4096) {
  auto c = open_rw(path);
  const ShapeKey big = shape(4096, 4096, 4096), small = shape(128, 128, 128);
  c->record_trials(h200(), big, "warptiled", "hash1",
                   {ok_trial("warptiled bm=128", ms_4096), {"warptiled bm=64", TrialStatus::CompileFailed, 0, 0, 0, "x"}});
  c->record_winner(h200(), winner(big, "warptiled bm=128", ms_4096, 0.001), cost());
  c->record_trials(h200(), small, "tiled", "hash1", {ok_trial("tiled bm=32", 0.01)});
  c->record_winner(h200(), winner(small, "tiled bm=32", 0.01, 0.0001), cost());
  c->record_trials(a100(), big, "tiled", "hash1", {ok_trial("tiled bm=64", 4.0)});
  c->record_winner(a100(), winner(big, "tiled bm=64", 4.0, 0.01), cost());
  c->store_cubin({"hash1", "warptiled bm=128", "sm_90", 13000}, std::vector<char>(64, 'k'));
}

class CacheTool : public ::testing::Test {
 protected:
  std::string db(const char* name) const { return dir_.file(name); }
  TempDir dir_;
};

TEST_F(CacheTool, ListFiltersWinnersAndTrials) {
  fill(db("a.db"), 2.0);
  EXPECT_EQ(run_json("list --db " + db("a.db")).size(), 3u);
  EXPECT_EQ(run_json("list --db " + db("a.db") + " --device H200").size(), 2u);
  EXPECT_EQ(run_json("list --db " + db("a.db") + " --family tiled").size(), 2u);
  const auto one = run_json("list --db " + db("a.db") + " --device H200 --shape 4096x4096x4096");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["config"], "warptiled bm=128");
  EXPECT_EQ(run_json("list --db " + db("a.db") + " --trials").size(), 4u);
  const auto failed = run_json("list --db " + db("a.db") + " --trials --status compile_failed");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0]["config"], "warptiled bm=64");
  const Output bad = run("list --db " + db("a.db") + " --trials --status nonsense");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.text.find("nonsense"), std::string::npos) << bad.text;
}

TEST_F(CacheTool, MergeKeepsTheFasterWinnerAndLosesNothing) {
  fill(db("a.db"), 2.0);
  {  // b: the same H200 shape 2x faster with another config, and a shape a lacks
    auto b = open_rw(db("b.db"));
    const ShapeKey big = shape(4096, 4096, 4096), mid = shape(1024, 1024, 1024);
    b->record_trials(h200(), big, "warptiled", "hash1", {ok_trial("warptiled bm=256", 1.0)});
    b->record_winner(h200(), winner(big, "warptiled bm=256", 1.0, 0.001), cost());
    b->record_trials(h200(), mid, "warptiled", "hash1", {ok_trial("warptiled bm=64", 0.1)});
    b->record_winner(h200(), winner(mid, "warptiled bm=64", 0.1, 0.001), cost());
    b->store_cubin({"hash1", "warptiled bm=256", "sm_90", 13000}, std::vector<char>(32, 'b'));
  }
  const auto m = run_json("merge --db " + db("a.db") + " --from " + db("b.db"));
  EXPECT_EQ(m["winners_stored"], 2);
  EXPECT_EQ(m["cubins_taken"], 0);
  EXPECT_EQ(m["cubins_left"], 1);
  auto a = TuningCache::open(db("a.db"), TuningCache::Mode::ReadOnly);
  const auto w = a->find_winner(h200(), shape(4096, 4096, 4096), "warptiled", "hash1");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->config, "warptiled bm=256");
  EXPECT_TRUE(a->find_winner(h200(), shape(1024, 1024, 1024), "warptiled", "hash1").has_value());
  EXPECT_EQ(a->load_trials(h200(), shape(4096, 4096, 4096)).size(), 3u) << "a trial was lost";
  EXPECT_FALSE(a->load_cubin({"hash1", "warptiled bm=256", "sm_90", 13000}).has_value())
      << "another machine's kernel was taken without --trust-cubins";
  a.reset();
  const Output text = run("merge --db " + db("a.db") + " --from " + db("b.db"));
  EXPECT_NE(text.text.find("--trust-cubins"), std::string::npos) << text.text;
  EXPECT_EQ(run_json("merge --db " + db("a.db") + " --from " + db("b.db") + " --trust-cubins")["cubins_taken"], 1);
  a = TuningCache::open(db("a.db"), TuningCache::Mode::ReadOnly);
  EXPECT_TRUE(a->load_cubin({"hash1", "warptiled bm=256", "sm_90", 13000}).has_value());

  // The other way round the slower incoming winner loses and a's stays.
  fill(db("slow.db"), 8.0);
  EXPECT_EQ(run_json("merge --db " + db("a.db") + " --from " + db("slow.db"))["winners_kept"], 3);
  a = TuningCache::open(db("a.db"), TuningCache::Mode::ReadOnly);
  EXPECT_EQ(a->find_winner(h200(), shape(4096, 4096, 4096), "warptiled", "hash1")->config, "warptiled bm=256");
}

TEST_F(CacheTool, MergeRefusesAFileThatIsNotACacheAndLeavesTheTargetAlone) {
  fill(db("a.db"), 2.0);
  { std::ofstream(db("junk.db")) << "not a database at all, just text that is long enough to have a header"; }
  const Output o = run("merge --db " + db("a.db") + " --from " + db("junk.db"));
  EXPECT_NE(o.status, 0);
  EXPECT_NE(o.text.find("junk.db"), std::string::npos) << o.text;
  EXPECT_EQ(run_json("list --db " + db("a.db")).size(), 3u);
}

TEST_F(CacheTool, DiffNamesAddedRemovedFasterSlowerAndSame) {
  fill(db("a.db"), 2.0);
  fill(db("b.db"), 1.0);  // the H200 4096³ winner twice as fast
  {
    auto b = open_rw(db("b.db"));
    b->record_winner(h200(), winner(shape(1024, 1024, 1024), "warptiled bm=64", 0.1, 0.001), cost());
  }
  const auto d = run_json("diff " + db("a.db") + " " + db("b.db"));
  std::map<std::string, int> n;
  for (const auto& row : d) n[row["change"].get<std::string>()]++;
  EXPECT_EQ(n["faster"], 1);
  EXPECT_EQ(n["added"], 1);
  EXPECT_EQ(n["same"], 2);
  const auto back = run_json("diff " + db("b.db") + " " + db("a.db"));
  n.clear();
  for (const auto& row : back) n[row["change"].get<std::string>()]++;
  EXPECT_EQ(n["slower"], 1);
  EXPECT_EQ(n["removed"], 1);
}

TEST_F(CacheTool, PruneRemovesOnlyRowsOfOldTemplatesAndCubinsOfAnotherNvrtc) {
  fill(db("a.db"), 2.0);  // every row of template "hash1": not this build's
  const std::string current = find_family("warptiled")->source().hash();
  const int nvrtc = Compiler::version();
  {
    auto c = open_rw(db("a.db"));
    const ShapeKey mid = shape(512, 512, 512);
    c->record_trials(h200(), mid, "warptiled", current, {ok_trial("warptiled bm=32", 0.02)});
    c->record_winner(h200(), winner(mid, "warptiled bm=32", 0.02, 0.0001, current), cost());
    c->store_cubin({current, "warptiled bm=32", "sm_90", nvrtc}, std::vector<char>(16, 'c'));
    c->store_cubin({current, "warptiled bm=32", "sm_90", nvrtc + 1}, std::vector<char>(16, 'o'));
  }
  const auto dry = run_json("prune --dry-run --db " + db("a.db"));
  EXPECT_EQ(dry["winners"], 3);
  EXPECT_EQ(dry["trials"], 4);
  EXPECT_EQ(dry["tuning_runs"], 3);
  EXPECT_EQ(dry["cubins"], 2);  // hash1's, and the current template's of another NVRTC
  EXPECT_EQ(run_json("list --db " + db("a.db")).size(), 4u) << "a dry run removed something";
  const Output text = run("prune --dry-run --db " + db("a.db"));
  EXPECT_NE(text.text.find("would remove"), std::string::npos) << text.text;

  const auto done = run_json("prune --db " + db("a.db"));
  EXPECT_EQ(done["winners"], 3);
  EXPECT_EQ(done["cubins"], 2);
  const auto left = run_json("list --db " + db("a.db"));
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]["config"], "warptiled bm=32");
  auto c = TuningCache::open(db("a.db"), TuningCache::Mode::ReadOnly);
  EXPECT_TRUE(c->load_cubin({current, "warptiled bm=32", "sm_90", nvrtc}).has_value());
  EXPECT_EQ(c->load_all_cubins().size(), 1u);
  EXPECT_EQ(run_json("prune --dry-run --db " + db("a.db"))["winners"], 0);
}

TEST_F(CacheTool, VacuumKeepsEveryRow) {
  fill(db("a.db"), 2.0);
  const auto v = run_json("vacuum --db " + db("a.db"));
  EXPECT_GT(v["bytes_after"].get<int64_t>(), 0);
  EXPECT_EQ(run_json("list --db " + db("a.db") + " --trials").size(), 4u);
}

/// What an application recorded on the H200: one shape tuned in fill(), one not.
void record(const std::string& path) {
  open_rw(path)->record_requests(h200(), {ShapeRequest{shape(4096, 4096, 4096), 90, true, 1000, 2000},
                                          ShapeRequest{shape(33, 4096, 4096, false, false, false), 10, false, 1000, 2000}});
}

TEST_F(CacheTool, CoverageSetsTheRecordAgainstTheWinners) {
  fill(db("a.db"), 2.0);
  record(db("a.db"));
  const auto cov = run_json("coverage --db " + db("a.db"));
  ASSERT_EQ(cov.size(), 2u);  // both devices; only the H200 recorded anything
  const auto& h = cov[0]["device"]["name"] == "NVIDIA H200" ? cov[0] : cov[1];
  EXPECT_EQ(h["shapes_recorded"], 2);
  EXPECT_EQ(h["shapes_tuned"], 1);
  EXPECT_EQ(h["calls"], 100);
  EXPECT_EQ(h["calls_tuned"], 90);
  EXPECT_EQ(h["winners_not_recorded"], 1);  // 128x128x128 was tuned but never asked for
  EXPECT_EQ(h["shapes"][0]["winner"]["config"], "warptiled bm=128");
  EXPECT_EQ(h["shapes"][1]["tuned"], false);
  const Output text = run("coverage --db " + db("a.db") + " --device H200");
  EXPECT_EQ(text.status, 0);
  EXPECT_NE(text.text.find("1 of 2 recorded shape(s) tuned, 90.0% of 100"), std::string::npos) << text.text;
  const Output none = run("coverage --db " + db("a.db") + " --device A100");
  EXPECT_NE(none.text.find("no recorded shapes"), std::string::npos) << none.text;
}

TEST_F(CacheTool, ShowGivesWinnersTrialsAndCallsOfOneShape) {
  fill(db("a.db"), 2.0);
  record(db("a.db"));
  const auto all = run_json("show --db " + db("a.db") + " --shape 4096x4096x4096");
  ASSERT_EQ(all.size(), 2u);  // H200 and A100
  const auto one = run_json("show --db " + db("a.db") + " --shape 4096x4096x4096 --device H200");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0]["winners"].size(), 1u);
  ASSERT_EQ(one[0]["trials"].size(), 2u);
  EXPECT_EQ(one[0]["trials"][0]["status"], "ok");  // fastest verified first
  EXPECT_EQ(one[0]["trials"][1]["status"], "compile_failed");
  ASSERT_EQ(one[0]["requests"].size(), 1u);
  EXPECT_EQ(one[0]["requests"][0]["calls"], 90);
  // The config text is the cache's permanent key: show says what its keys mean.
  const auto& keys = one[0]["config_keys"]["warptiled"];
  ASSERT_FALSE(keys.empty());
  EXPECT_EQ(keys[0]["key"], "bm");
  EXPECT_NE(keys[0]["meaning"].get<std::string>().find("rows of C"), std::string::npos);
  EXPECT_EQ(keys.back()["key"], "tb");
  const Output text = run("show --db " + db("a.db") + " --shape 4096x4096x4096 --device H200");
  EXPECT_NE(text.text.find("1 winner(s), 2 trial(s), 90 recorded call(s)"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("config keys:"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("lanes of a warp laid along N"), std::string::npos) << text.text;
  EXPECT_NE(run("show --db " + db("a.db") + " --shape 5x5x5").text.find("nothing stored"), std::string::npos);
  EXPECT_NE(run("show --db " + db("a.db") + " --shape 5x5").status, 0);
}

TEST_F(CacheTool, MergeAndImportCarryTheRecordedCalls) {
  fill(db("a.db"), 2.0);
  record(db("b.db"));
  EXPECT_EQ(run_json("merge --db " + db("a.db") + " --from " + db("b.db"))["recorded_shapes"], 2);
  EXPECT_EQ(run_json("coverage --db " + db("a.db") + " --device H200")[0]["calls"], 100);
  ASSERT_EQ(run("export --db " + db("a.db") + " --out " + db("a.json")).status, 0);
  ASSERT_EQ(run("import --db " + db("c.db") + " --in " + db("a.json")).status, 0);
  EXPECT_EQ(run_json("coverage --db " + db("c.db")), run_json("coverage --db " + db("a.db")));
}

TEST_F(CacheTool, ExportThenImportReproducesTheWinners) {
  fill(db("a.db"), 2.0);
  ASSERT_EQ(run("export --db " + db("a.db") + " --out " + db("a.json")).status, 0);
  ASSERT_EQ(run("import --db " + db("c.db") + " --in " + db("a.json")).status, 0);
  EXPECT_EQ(run_json("list --db " + db("c.db")), run_json("list --db " + db("a.db")));
}

}  // namespace
}  // namespace autogemm::test
