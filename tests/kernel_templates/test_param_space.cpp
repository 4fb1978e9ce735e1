// ParamSpace (param_space.h): a family's space declared as data is the
// product of its axes in order, filtered by its constraints, with its rules
// applied; a constraint runs once the axes it reads are bound.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/param_space.h"

namespace autogemm {
namespace {

using P = TiledParams;
using Point = SpacePoint<P>;

Problem square(int64_t n) {
  Problem p;
  p.m = p.n = p.k = n;
  p.lda = p.ldb = p.ldc = n;
  p.aligned = n % 4 == 0;
  return p;
}

std::vector<std::string> texts(const std::vector<KernelConfig>& configs) {
  std::vector<std::string> out;
  for (const KernelConfig& c : configs) {
    const P& t = c.get<P>();
    out.push_back(std::to_string(t.bm) + "x" + std::to_string(t.bn) + "/" + std::to_string(t.vec));
  }
  return out;
}

int early_checks = 0;

TEST(ParamSpace, IsTheProductOfTheAxesInOrderFilteredAndWithItsRules) {
  enum { BM, BN };
  const ParamSpace<P> space({axis(&P::bm, {32, 64, 128}), axis(&P::bn, {32, 64})},
                             {{"access width from the class", -1,
                               [](P& c, const Problem& p) { c.vec = p.aligned ? 4 : 1; }}},
                             {{"no wider than tall", BN, [](const Point& x) { return x.params.bn <= x.params.bm; }},
                              {"the config sees its layouts", kWholeConfig,
                               [](const Point& x) { return x.config != nullptr && !x.config->trans_a; }}});
  EXPECT_EQ(texts(space.enumerate(square(256), SearchLimits{})),
            (std::vector<std::string>{"32x32/4", "64x32/4", "64x64/4", "128x32/4", "128x64/4"}));
  EXPECT_EQ(texts(space.enumerate(square(255), SearchLimits{})).front(), "32x32/1");
  Problem transposed = square(256);
  transposed.trans_a = true;
  EXPECT_TRUE(space.enumerate(transposed, SearchLimits{}).empty());
}

TEST(ParamSpace, ConstraintsRunOnceTheirAxesAreBound) {
  enum { BM, BN, BK };
  early_checks = 0;
  // A constraint on the first axis prunes before the inner axes are walked:
  // 3 checks (one per bm), not 3 * 2 * 2.
  const ParamSpace<P> space({axis(&P::bm, {32, 64, 128}), axis(&P::bn, {32, 64}), axis(&P::bk, {8, 16})}, {},
                             {{"only 64 rows", BM, [](const Point& x) {
                                 ++early_checks;
                                 return x.params.bm == 64;
                               }}});
  const std::vector<KernelConfig> all = space.enumerate(square(256), SearchLimits{});
  EXPECT_EQ(early_checks, 3);
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[1].get<P>().bn, 32);  // bk varies fastest
  EXPECT_EQ(all[1].get<P>().bk, 16);
}

TEST(ParamSpace, AnAxisSetsSeveralFieldsTogether) {
  const SpaceAxis<P> pipes{{&P::bk, &P::stages}, {{16, 3}, {32, 2}}};
  const ParamSpace<P> space({axis(&P::bm, {64}), pipes}, {}, {});
  const std::vector<KernelConfig> all = space.enumerate(square(256), SearchLimits{});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].get<P>().bk, 16);
  EXPECT_EQ(all[0].get<P>().stages, 3);
  EXPECT_EQ(all[1].get<P>().bk, 32);
  EXPECT_EQ(all[1].get<P>().stages, 2);
}

}  // namespace
}  // namespace autogemm
