// Built-in winners (builtin_winners.h) and how the dispatch policy uses them
// before anything is tuned: the build embeds every table file as it is, a
// damaged row is counted and left out, every row parses and implements its own shape,
// a shape of the table runs its row, other layouts and the unaligned class
// get a row's tiles made to fit, a stored winner of this device still wins
// where it is faster, and every problem gets a config that implements it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "autogemm/builtin_winners.h"
#include "autogemm/dispatch_policy.h"
#include "autogemm/gemv_family.h"
#include "autogemm/problem.h"
#include "autogemm/shape_spec.h"
#include "autogemm/warptiled_family.h"

namespace autogemm {
namespace {

const std::vector<TunedEntry>& sm90() {
  static const std::vector<TunedEntry> e = builtin_entries("sm_90");
  return e;
}

Problem problem(int64_t m, int64_t n, int64_t k, bool ta = false, bool tb = false, bool aligned = true,
                int64_t batch = 1) {
  ShapeKey s{m, n, k, ta, tb, aligned, batch};
  return make_problem(s);
}

int vec_of(const KernelConfig& c) {
  const std::string t = c.to_string();
  const size_t at = t.find(" vec=");
  return at == std::string::npos ? 1 : std::stoi(t.substr(at + 5));
}

TEST(BuiltinWinners, EveryRowOfEveryTableParsesAndImplementsItsOwnShape) {
  ASSERT_FALSE(builtin_winner_tables().empty());
  for (const BuiltinWinnerTable& t : builtin_winner_tables()) {
    SCOPED_TRACE(t.arch);
    ASSERT_GT(builtin_winner_rows(t.arch), 0u);
    ASSERT_EQ(builtin_winners(t.arch).size(), builtin_winner_rows(t.arch)) << "a row no longer parses";
    for (const BuiltinWinner& b : builtin_winners(t.arch)) {
      SCOPED_TRACE(b.config.to_string());
      EXPECT_GT(b.median_ms, 0);
      const Problem p = make_problem(b.shape);
      EXPECT_EQ(p.key(), b.shape) << "the row's shape is not canonical";
      EXPECT_TRUE(b.config.can_implement(p));
      EXPECT_LE(b.config.workspace_floats(p), kMaxWorkspaceFloats);
    }
  }
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(BuiltinWinners, TheBuildEmbedsEveryTableFileAsItIs) {
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(AUTOGEMM_BUILTIN_WINNERS_DIR)) {
    if (e.path().extension() != ".tsv") continue;
    ++files;
    const std::string arch = e.path().stem().string(), text = read_file(e.path());
    SCOPED_TRACE(arch);
    const BuiltinWinnerTable* t = nullptr;
    for (const BuiltinWinnerTable& x : builtin_winner_tables())
      if (arch == x.arch) t = &x;
    ASSERT_NE(t, nullptr) << "not embedded";
    EXPECT_EQ(text, t->text) << "the build embedded another text: rebuild";
    // Counted here without the parser: the lines after the column line.
    std::istringstream lines(text);
    size_t data = 0;
    bool after_columns = false;
    for (std::string line; std::getline(lines, line);) {
      if (after_columns && !line.empty()) ++data;
      after_columns = after_columns || line == kBuiltinWinnerColumns;
    }
    EXPECT_EQ(builtin_winner_rows(arch), data);
  }
  EXPECT_EQ(files, builtin_winner_tables().size());
  EXPECT_GT(builtin_winner_rows("sm_90"), 0u);
}

TEST(BuiltinWinners, TheHeaderNamesWhereTheRowsComeFrom) {
  const std::string p = builtin_winners_provenance("sm_90");
  for (const char* line : {"# gpu: NVIDIA H200", " (132 SMs)\n", "# driver: 580.159.04\n", "# commit: ", "# date: ",
                           "#   python3 scripts/builtin_table.py "})
    EXPECT_NE(p.find(line), std::string::npos) << line;
  EXPECT_EQ(p.find("\tgemv"), std::string::npos) << "no data row";
  EXPECT_TRUE(builtin_winners_provenance("sm_80").empty());
}

TEST(BuiltinWinners, ADamagedRowIsCountedAndLeftOut) {
  const std::string cfg = "warptiled bm=32 bn=32 bk=16 wm=32 wn=16 ln=4 st=4 vec=4 sw=1 ta=0 tb=0";
  const std::string good = "128\t128\t128\t0\t0\t1\t1\t0.00467656\t" + cfg;
  std::string out_of_range = cfg;
  out_of_range.replace(out_of_range.find("bm=32"), 5, "bm=33");
  const std::vector<std::string> bad = {
      "128\t128\t128\t0\t0\t1\t1\t0.1",               // 8 fields
      good + "\textra",                                 // 10 fields
      "12x\t128\t128\t0\t0\t1\t1\t0.1\t" + cfg,        // not a number
      "128\t\t128\t0\t0\t1\t1\t0.1\t" + cfg,           // empty
      "128\t128\t128\t2\t0\t1\t1\t0.1\t" + cfg,        // a flag of 2
      "128\t128\t128\t0\t0\t1\t0\t0.1\t" + cfg,        // batch 0
      "-128\t128\t128\t0\t0\t1\t1\t0.1\t" + cfg,       // negative
      "128\t128\t128\t0\t0\t1\t1\tnan\t" + cfg,        // not finite
      "128\t128\t128\t0\t0\t1\t1\t-1\t" + cfg,         // not positive
      "128\t128\t128\t0\t0\t1\t1\t0.1\t" + out_of_range,  // KernelConfig::parse rejects it
      "128 128 128 0 0 1 1 0.1 " + cfg,                  // spaces, not tabs
  };
  for (const std::string& row : bad) {
    SCOPED_TRACE(row);
    const std::string text = std::string("# comment\n") + kBuiltinWinnerColumns + "\n" + good + "\n" + row + "\n";
    const ParsedBuiltinWinners p = parse_builtin_winners(text);
    EXPECT_EQ(p.rows, 2u);
    ASSERT_EQ(p.winners.size(), 1u);
    EXPECT_EQ(p.winners[0].shape, (ShapeKey{128, 128, 128, false, false, true, 1}));
    EXPECT_EQ(p.winners[0].median_ms, 0.00467656);
    EXPECT_EQ(p.winners[0].config.to_string(), cfg);
  }
  // CRLF line ends, blank lines and no final newline are fine.
  const ParsedBuiltinWinners crlf = parse_builtin_winners("# c\r\n\r\n" + good + "\r\n\n" + good);
  EXPECT_EQ(crlf.rows, 2u);
  EXPECT_EQ(crlf.winners.size(), 2u);
}

TEST(BuiltinWinners, OnlyTheMeasuredArchitectureHasAny) {
  EXPECT_TRUE(builtin_winners("sm_80").empty());
  EXPECT_TRUE(builtin_winners("sm_100").empty());
  EXPECT_TRUE(builtin_entries("sm_89").empty());
  EXPECT_EQ(builtin_entries("sm_90").size(), builtin_winners("sm_90").size());
}

TEST(BuiltinDispatch, AShapeOfTheTableRunsItsRowAsADefault) {
  for (const BuiltinWinner& b : builtin_winners("sm_90")) {
    const Problem p = make_problem(b.shape);
    const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
    EXPECT_EQ(c.source, PlanSource::Default) << "built in, not tuned here";
    EXPECT_EQ(c.config, b.config) << p.to_string();
  }
}

TEST(BuiltinDispatch, AStoredWinnerOfThisDeviceStaysExact) {
  const Problem p = problem(4096, 4096, 4096);
  const KernelConfig mine = KernelConfig::generic(false, false);
  const std::vector<TunedEntry> stored = {TunedEntry{p.key(), mine, 1.0, 500.0}};
  const PlanChoice c = choose_config(p, stored, MathMode::Strict, SearchLimits{}, sm90());
  EXPECT_EQ(c.source, PlanSource::Exact);
  EXPECT_EQ(c.config, mine);
}

TEST(BuiltinDispatch, AFasterStoredWinnerOfANearShapeIsBorrowed) {
  const Problem p = problem(600, 600, 600);
  const KernelConfig near = *KernelConfig::parse("warptiled bm=64 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0");
  ASSERT_TRUE(near.can_implement(p));
  // Faster on its own shape than any built-in row would make 600^3.
  const std::vector<TunedEntry> stored = {TunedEntry{problem(640, 640, 640).key(), near, 1.0, 1e-5}};
  const PlanChoice c = choose_config(p, stored, MathMode::Strict, SearchLimits{}, sm90());
  EXPECT_EQ(c.source, PlanSource::Nearest);
  EXPECT_EQ(c.config, near);
}

TEST(BuiltinDispatch, OtherLayoutsAndTheUnalignedClassGetRowsMadeToFit) {
  for (int t = 0; t < 4; ++t)
    for (bool aligned : {true, false}) {
      const Problem p = problem(1536, 1536, 1536, t & 1, t & 2, aligned);
      const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
      SCOPED_TRACE(p.to_string() + ": " + c.config.to_string());
      EXPECT_EQ(c.source, PlanSource::Default);
      EXPECT_TRUE(c.config.can_implement(p));
      EXPECT_EQ(c.config.trans_a, p.trans_a);
      EXPECT_EQ(c.config.trans_b, p.trans_b);
      if (!aligned) {
        EXPECT_EQ(vec_of(c.config), 1);
      }
      EXPECT_FALSE(c.config == default_config(p)) << "1536^3 has measured rows near it (1024^3, 2048^3, 3000^3)";
    }
}

// The table's rows are strict tunings: in fp32_accurate mode a row of
// exactly the shape is the fastest strict config, not the fastest admitted
// one, and competes with this device's tf32x3wg winners of other shapes.
TEST(BuiltinDispatch, InFp32AccurateModeAStrictRowOfTheShapeCompetesWithThisDevicesWinners) {
  const Problem p = problem(8192, 8192, 8192);
  const PlanChoice table_row = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
  ASSERT_EQ(table_row.config.family().accuracy(), AccuracyClass::StrictFp32);
  const Problem big = problem(16384, 16384, 16384);
  const auto wg = KernelConfig::parse("tf32x3wg bn=128 wg=2 pw=1 ar=1 raw=0 split=3 dr=1 sw=8 bs=1 ta=0 tb=0");
  ASSERT_TRUE(wg.has_value());
  // Measured on an H100: 73 ms at 16384^3 (120 TFLOP/s).
  const std::vector<TunedEntry> mine = {TunedEntry{big.key(), *wg, 120000.0, 73.0}};
  EXPECT_EQ(choose_config(p, mine, MathMode::Fp32Accurate, SearchLimits{}, sm90()).config, *wg);
  EXPECT_EQ(choose_config(p, mine, MathMode::Strict, SearchLimits{}, sm90()).config, table_row.config);
  // A winner that would run slower than the table's row leaves the row.
  const std::vector<TunedEntry> slow = {TunedEntry{big.key(), *wg, 12000.0, 730.0}};
  EXPECT_EQ(choose_config(p, slow, MathMode::Fp32Accurate, SearchLimits{}, sm90()).config, table_row.config);
}

// In fp32_accurate mode a strict row of the shape stands for the strict
// class, as in strict mode: a strict row of another shape, however fast its
// estimate, does not displace it.
TEST(BuiltinDispatch, InFp32AccurateModeNoStrictEstimateDisplacesTheShapesStrictRow) {
  const Problem p = problem(2048, 2048, 2048);
  const KernelConfig own = *KernelConfig::parse("warptiled bm=128 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0");
  const KernelConfig near = *KernelConfig::parse("warptiled bm=64 bn=128 bk=8 wm=64 wn=64 ln=4 st=3 vec=4 sw=8 ta=0 tb=0");
  ASSERT_TRUE(own.can_implement(p));
  ASSERT_TRUE(near.can_implement(p));
  // The near row ran 2560^3 a hundred times faster than its model: its
  // estimate of 2048^3 beats the shape's own measured time.
  const std::vector<TunedEntry> table = {TunedEntry{p.key(), own, 1.0, 1.0},
                                         TunedEntry{problem(2560, 2560, 2560).key(), near, 1.0, 1e-3}};
  EXPECT_EQ(choose_config(p, {}, MathMode::Strict, SearchLimits{}, table).config, own);
  EXPECT_EQ(choose_config(p, {}, MathMode::Fp32Accurate, SearchLimits{}, table).config, own);
  // Without the shape's row the near one is borrowed.
  EXPECT_EQ(choose_config(p, {}, MathMode::Fp32Accurate, SearchLimits{}, {table[1]}).config, near);
}

TEST(BuiltinDispatch, AGemvRowBorrowedForFewerRowsSumsOnlyThose) {
  for (int64_t m : {2, 3, 4, 5}) {
    const Problem p = problem(m, 4096, 4096);
    const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
    SCOPED_TRACE(p.to_string() + ": " + c.config.to_string());
    ASSERT_TRUE(c.config.is<GemvParams>());
    EXPECT_EQ(c.config.get<GemvParams>().rows, m <= 2 ? 2 : m <= 4 ? 4 : 8);
  }
}

// A row's config made to fit another problem is borrowed only where its
// family's space could have offered it there (KernelFamily::in_space): the
// H100 ran a 16-row gemv ring, fitted to scalar loads for this column-major
// TT product, at 0.30 of cuBLAS; the space keeps rings to 16-byte loads.
// An unaligned NT product (both operands k-contiguous) before tuning: the
// table's 4096^3:NT row (B staged) and 2048x4096x4096's NN row are equally
// near it, the eighth nearest; which came first in the table decided which
// competed, and the NN row's tile with B copied in place ran 30.7 TFLOP/s
// on an H100, the NT row's config 35.2 (2026-12-07, kernel_probe).
TEST(BuiltinDispatch, AnUnalignedNtProductBeforeTuningStagesItsB) {
  const Problem p = make_problem(AUTOGEMM_ROW_MAJOR, false, true, 851, 4095, 2695, false);
  ASSERT_FALSE(p.aligned);
  const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
  SCOPED_TRACE(c.config.to_string());
  ASSERT_TRUE(c.config.is<WarpTiledParams>());
  EXPECT_EQ(c.config.get<WarpTiledParams>().stage_b, 1);
}

TEST(BuiltinDispatch, ABorrowedConfigIsOneItsFamilysSpaceCouldOffer) {
  const Problem p = make_problem(AUTOGEMM_COL_MAJOR, true, true, 15, 1197, 15199, false);
  ASSERT_FALSE(p.aligned);
  const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
  SCOPED_TRACE(c.config.to_string());
  EXPECT_TRUE(c.config.family().in_space(c.config, p, SearchLimits{}));
  if (c.config.is<GemvParams>()) {
    EXPECT_EQ(c.config.get<GemvParams>().stages, 0);
  }
}

TEST(BuiltinDispatch, EveryProblemGetsAConfigThatImplementsIt) {
  std::mt19937_64 rng(2026);
  auto dim = [&] {
    switch (rng() % 4) {
      case 0: return int64_t(1 + rng() % 16);
      case 1: return int64_t(1 + rng() % 300);
      case 2: return int64_t(1 + rng() % 6000);
      default: return int64_t(1) << (rng() % 15);
    }
  };
  for (int i = 0; i < 1500; ++i) {
    const int64_t batch = rng() % 5 == 0 ? int64_t(1 + rng() % 600) : 1;
    const Problem p = problem(dim(), dim(), dim(), rng() & 1, rng() & 1, rng() & 1, batch_bucket(batch));
    const PlanChoice c = choose_config(p, {}, MathMode::Strict, SearchLimits{}, sm90());
    ASSERT_TRUE(c.config.can_implement(p)) << p.to_string() << ": " << c.config.to_string();
    ASSERT_LE(c.config.workspace_floats(p), kMaxWorkspaceFloats) << p.to_string();
    ASSERT_EQ(c.source, PlanSource::Default);
    // A row of another shape, not the family's own default, is one the
    // family's space could have offered p.
    if (!(c.config.family().default_config(p) == c.config)) {
      ASSERT_TRUE(c.config.family().in_space(c.config, p, SearchLimits{})) << p.to_string() << ": " << c.config.to_string();
    }
  }
}

}  // namespace
}  // namespace autogemm
