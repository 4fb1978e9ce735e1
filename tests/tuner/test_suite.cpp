// The public suite and shapes files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "autogemm/tuner.h"

namespace autogemm {
namespace {

std::string write_temp(const std::string& text) {
  char path[] = "/tmp/autogemm-shapes-XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  return path;
}

TEST(Suite, IsThePublicSuite) {
  const auto s = default_suite();
  EXPECT_EQ(s.size(), 28u);
  std::set<std::string> names;
  for (const auto& x : s) names.insert(x.to_string());
  for (const char* want : {"128x128x128:NN", "8192x8192x8192:NN", "127x257x509:NN", "1x11008x4096:NN",
                           "2048x4096x11008:NN", "64x64x65536:NN", "8192x8192x256:NN", "4096x4096x128:NN",
                           "4096x4096x4096:NT", "4096x4096x4096:TN"})
    EXPECT_TRUE(names.count(want)) << want;
}

TEST(Suite, NamedSuitesAreTheListedOnes) {
  for (const std::string& name : suite_names()) EXPECT_FALSE(named_suite(name).empty()) << name;
  EXPECT_THROW(named_suite("nope"), std::runtime_error);
  const auto large = named_suite("large");
  ASSERT_EQ(large.size(), 9u);
  EXPECT_EQ(large.back().to_string(), "16384x16384x16384:TN");
  const auto ks = named_suite("ksweep");
  ASSERT_EQ(ks.size(), 5u);
  EXPECT_EQ(ks.front().k, 256);
  EXPECT_EQ(ks.back().k, 65536);
}

// A class sweep covers every value of every class axis at least 24 times,
// each shape inside the class it was drawn for, no shape twice.
void expect_covers_every_class(const std::vector<ShapeSpec>& s) {
  ASSERT_GE(s.size(), 80u);
  std::map<std::string, int> count;
  std::set<std::string> texts;
  for (const ShapeSpec& x : s) {
    SCOPED_TRACE(x.to_string());
    texts.insert(x.to_string());
    const int64_t small = std::min(x.m, x.n);
    count[small <= 16 ? "mn<=16" : small <= 64 ? "mn<=64" : small <= 256 ? "mn<=256" : "mn>256"]++;
    const bool all4 = x.m % 4 == 0 && x.n % 4 == 0 && x.k % 4 == 0, all_odd = x.m % 2 && x.n % 2 && x.k % 2;
    EXPECT_TRUE(all4 || all_odd);
    const Problem p = x.problem();
    EXPECT_EQ(p.aligned, all4) << "every dimension odd gives an odd leading dimension";
    count[all4 ? "aligned" : "unaligned"]++;
    count[std::string(x.trans_a ? "T" : "N") + (x.trans_b ? "T" : "N")]++;
    count[x.layout == AUTOGEMM_COL_MAJOR ? "col" : "row"]++;
    count[x.k <= 1024 ? "short k" : "long k"]++;
    EXPECT_LE(double(x.m) * double(x.n) * double(x.k), double(int64_t(1) << 35) * 1.01);
    EXPECT_LE(std::max(x.m, x.n), 8192);
  }
  EXPECT_EQ(texts.size(), s.size()) << "a shape drawn twice";
  for (const char* c : {"mn<=16", "mn<=64", "mn<=256", "mn>256", "aligned", "unaligned", "NN", "NT", "TN", "TT",
                        "row", "col", "short k", "long k"})
    EXPECT_GE(count[c], 24) << c;
}

// The sweep is the same list on every call (and platform: only raw mt19937
// output is used), and the list every recorded sweep was measured on
// (docs/results/2026-12-06-s31/bench_classes_h100.json, in this order).
TEST(Suite, ClassSweepCoversEveryClass) {
  const auto s = class_suite();
  expect_covers_every_class(s);
  ASSERT_EQ(s.size(), 96u);
  EXPECT_EQ(s[0].to_string(), "561x63x4067:NN");
  EXPECT_EQ(s[31].to_string(), "15x615x2165:TT");
  EXPECT_EQ(s[63].to_string(), "11x8191x71:NN");
  EXPECT_EQ(s[95].to_string(), "col:1x6803x8871:NT");
  const auto again = named_suite("classes:" + std::to_string(kClassSuiteSeed));
  ASSERT_EQ(again.size(), s.size());
  for (size_t i = 0; i < s.size(); ++i) EXPECT_EQ(again[i].to_string(), s[i].to_string());
}

// Another seed: the same classes on other shapes, so defaults learned on it
// are judged on shapes they never saw.
TEST(Suite, ClassSweepOfAnotherSeedIsAnotherDraw) {
  std::set<std::string> sweep;
  for (const ShapeSpec& x : class_suite()) sweep.insert(x.to_string());
  for (uint32_t seed : {1u, 2u, 4294967295u}) {
    SCOPED_TRACE(seed);
    const auto s = named_suite("classes:" + std::to_string(seed));
    expect_covers_every_class(s);
    int shared = 0;
    for (const ShapeSpec& x : s) shared += int(sweep.count(x.to_string()));
    EXPECT_LE(shared, 2);
  }
  for (const char* bad : {"classes:", "classes:x", "classes:-1", "classes:4294967296", "classes:1 ", "classes 1"}) {
    EXPECT_NE(suite_name_error(bad), "") << bad;
    EXPECT_THROW(named_suite(bad), std::runtime_error) << bad;
  }
  for (const std::string& name : suite_names()) EXPECT_EQ(suite_name_error(name), "") << name;
}

TEST(ShapesFile, ReadsShapesCommentsAndBlankLines) {
  const std::string path = write_temp("# my shapes\n4096x4096x4096\n\n  128x256x64:NT  # inline\r\ncol:7x9x11:TT\n");
  const auto s = read_shapes_file(path);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[1].to_string(), "128x256x64:NT");
  EXPECT_EQ(s[2].layout, AUTOGEMM_COL_MAJOR);
  std::remove(path.c_str());
}

TEST(ShapesFile, BadLineIsReportedWithItsNumber) {
  const std::string path = write_temp("4096x4096x4096\n12x0x5\n");
  try {
    read_shapes_file(path);
    FAIL() << "accepted a zero dimension";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(":2:"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

TEST(ShapesFile, MissingFileIsAClearError) {
  EXPECT_THROW(read_shapes_file("/nonexistent/shapes.txt"), std::runtime_error);
}

}  // namespace
}  // namespace autogemm

namespace autogemm {
namespace {

TEST(ResolveShapes, CommandLineThenFileElseSuite) {
  EXPECT_EQ(resolve_shapes({}, "").size(), default_suite().size());
  const std::string path = write_temp("7x8x9:TT\n");
  const auto s = resolve_shapes({"1x2x3", "col:4x5x6:NT"}, path);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].to_string(), "1x2x3:NN");
  EXPECT_EQ(s[1].to_string(), "col:4x5x6:NT");
  EXPECT_EQ(s[2].to_string(), "7x8x9:TT");
  EXPECT_THROW(resolve_shapes({"4096x4096"}, ""), std::runtime_error);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace autogemm
