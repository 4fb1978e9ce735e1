#include "autogemm/kernel_config.h"

#include <map>
#include <sstream>

#include "autogemm/problem.h"

namespace autogemm {
namespace {

bool one_of(int v, std::initializer_list<int> allowed) {
  for (int a : allowed)
    if (v == a) return true;
  return false;
}

bool fail(std::string* why, const std::string& msg) {
  if (why) *why = msg;
  return false;
}

}  // namespace

KernelConfig KernelConfig::generic(bool trans_a, bool trans_b) {
  KernelConfig c;
  c.kind = KernelKind::Generic;
  c.trans_a = trans_a;
  c.trans_b = trans_b;
  return c;
}

std::string KernelConfig::to_string() const {
  std::ostringstream s;
  if (kind == KernelKind::Generic) {
    s << "generic ta=" << trans_a << " tb=" << trans_b;
  } else {
    s << "tiled bm=" << bm << " bn=" << bn << " bk=" << bk << " tm=" << tm << " tn=" << tn
      << " wc=" << wc << " vec=" << vec << " sk=" << split_k;
    if (split_k > 1) s << " rd=" << split_reduce;
    s << " sw=" << swizzle;
    if (stages != 0) s << " st=" << stages;
    if (min_blocks != 1) s << " mb=" << min_blocks;
    if (k_unroll != 0) s << " ku=" << k_unroll;
    s << " ta=" << trans_a << " tb=" << trans_b;
  }
  return s.str();
}

std::optional<KernelConfig> KernelConfig::parse(const std::string& text, std::string* error) {
  std::istringstream in(text);
  std::string kind;
  in >> kind;
  KernelConfig c;
  std::map<std::string, int*> fields;
  bool ta = false, tb = false;
  int ta_i = -1, tb_i = -1;
  if (kind == "generic") {
    c.kind = KernelKind::Generic;
  } else if (kind == "tiled") {
    c.kind = KernelKind::Tiled;
    fields = {{"bm", &c.bm}, {"bn", &c.bn}, {"bk", &c.bk},      {"tm", &c.tm},
              {"tn", &c.tn}, {"wc", &c.wc}, {"vec", &c.vec},    {"sk", &c.split_k},
              {"sw", &c.swizzle}};
  } else {
    if (error) *error = "unknown kernel kind '" + kind + "'";
    return std::nullopt;
  }
  int rd_i = -1;
  if (c.kind == KernelKind::Tiled) {
    fields["rd"] = &rd_i;
    // Optional fields (defaults 0 and 1), so configs stored before they
    // existed still parse to what they meant.
    fields["st"] = &c.stages;
    fields["mb"] = &c.min_blocks;
    fields["ku"] = &c.k_unroll;
  }
  fields["ta"] = &ta_i;
  fields["tb"] = &tb_i;
  std::map<std::string, bool> seen;
  std::string tok;
  while (in >> tok) {
    const auto eq = tok.find('=');
    if (eq == std::string::npos) {
      if (error) *error = "malformed field '" + tok + "'";
      return std::nullopt;
    }
    const std::string key = tok.substr(0, eq), val = tok.substr(eq + 1);
    auto it = fields.find(key);
    if (it == fields.end() || seen[key]) {
      if (error) *error = (it == fields.end() ? "unknown field '" : "repeated field '") + key + "'";
      return std::nullopt;
    }
    seen[key] = true;
    if (val.empty() || val.size() > 6 || val.find_first_not_of("0123456789") != std::string::npos) {
      if (error) *error = "field '" + key + "' is not a small non-negative integer";
      return std::nullopt;
    }
    *it->second = std::stoi(val);
  }
  // rd belongs to split-K configs only: required with sk > 1, absent otherwise.
  if (c.kind == KernelKind::Tiled) {
    const bool has_rd = seen.count("rd") > 0;
    if (has_rd != (c.split_k > 1)) {
      if (error) *error = c.split_k > 1 ? "rd is required when sk > 1" : "rd is only allowed when sk > 1";
      return std::nullopt;
    }
    if (!has_rd) {
      fields.erase("rd");
      rd_i = 0;
    }
    if (rd_i != 0 && rd_i != 1) {
      if (error) *error = "rd must be 0 or 1";
      return std::nullopt;
    }
    c.split_reduce = rd_i;
    for (const char* opt : {"st", "mb", "ku"})
      if (!seen.count(opt)) fields.erase(opt);
  }
  if (seen.size() != fields.size()) {
    if (error) *error = "missing fields in config '" + text + "'";
    return std::nullopt;
  }
  if ((ta_i != 0 && ta_i != 1) || (tb_i != 0 && tb_i != 1)) {
    if (error) *error = "ta and tb must be 0 or 1";
    return std::nullopt;
  }
  ta = ta_i == 1;
  tb = tb_i == 1;
  c.trans_a = ta;
  c.trans_b = tb;
  std::string why;
  if (!c.is_valid(&why)) {
    if (error) *error = why;
    return std::nullopt;
  }
  return c;
}

bool KernelConfig::is_valid(std::string* why) const {
  if (kind == KernelKind::Generic) return true;
  if (!one_of(bm, {16, 32, 64, 128, 256})) return fail(why, "bm must be 16..256, a power of two");
  if (!one_of(bn, {16, 32, 64, 128, 256})) return fail(why, "bn must be 16..256, a power of two");
  if (!one_of(bk, {4, 8, 16, 32})) return fail(why, "bk must be 4, 8, 16 or 32");
  if (!one_of(tm, {1, 2, 4, 8, 16}) || tm > bm) return fail(why, "tm must be 1..16, a power of two, <= bm");
  if (!one_of(tn, {1, 2, 4, 8, 16}) || tn > bn) return fail(why, "tn must be 1..16, a power of two, <= bn");
  if (tm * tn > 256) return fail(why, "tm*tn must be <= 256 (register budget)");
  const int t = threads();
  if (t < 32 || t > 1024) return fail(why, "threads per block (bm/tm)*(bn/tn) must be 32..1024");
  if (!one_of(wc, {1, 2, 4, 8, 16, 32})) return fail(why, "wc must be a power of two <= 32");
  if ((bn / tn) % wc != 0 || (bm / tm) % (32 / wc) != 0)
    return fail(why, "the warp shape (32/wc x wc) must tile the thread grid");
  if (!one_of(vec, {1, 4})) return fail(why, "vec must be 1 or 4");
  if (split_k < 1 || split_k > 256) return fail(why, "sk must be 1..256");
  if (split_reduce != 0 && split_reduce != 1) return fail(why, "rd must be 0 or 1");
  if (split_k == 1 && split_reduce != 0) return fail(why, "rd must be 0 without split-K");
  if (!one_of(swizzle, {1, 2, 4, 8, 16})) return fail(why, "sw must be 1, 2, 4, 8 or 16");
  if (!one_of(stages, {0, 2, 3, 4})) return fail(why, "st must be 0 (register staging) or 2..4 (cp.async stages)");
  if (min_blocks < 1 || min_blocks > 4) return fail(why, "mb must be 1..4");
  if (min_blocks * t > 2048) return fail(why, "mb * threads must be <= 2048 (threads per SM)");
  if (!one_of(k_unroll, {0, 2, 4, 8, 16}) || (k_unroll != 0 && k_unroll >= bk))
    return fail(why, "ku must be 0 (all of bk) or 2, 4, 8, 16 below bk");
  return true;
}

int KernelConfig::threads() const {
  if (kind == KernelKind::Generic) return 256;
  if (tm <= 0 || tn <= 0) return 0;
  return (bm / tm) * (bn / tn);
}

size_t KernelConfig::smem_bytes() const {
  if (kind == KernelKind::Generic) return 0;
  const int pad = 4;  // AG_PAD in sgemm_tiled.cu
  const int buffers = stages > 0 ? stages : 2;  // AG_NBUF
  return size_t(buffers) * bk * ((bm + pad) + (bn + pad)) * sizeof(float);
}

bool KernelConfig::can_implement(const Problem& p) const {
  if (trans_a != p.trans_a || trans_b != p.trans_b) return false;
  if (kind == KernelKind::Generic) return true;
  if (split_k > 1 && ((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn) > int64_t(kSplitTiles)) return false;
  return vec == 1 || p.aligned;
}

size_t KernelConfig::workspace_floats(const Problem& p) const {
  if (kind == KernelKind::Generic || split_k <= 1) return 0;
  // Tile counters, then the partial tiles (see sgemm_tiled.cu).
  return kSplitTiles + size_t(split_k) * size_t(p.m) * size_t(p.n);
}

std::vector<std::string> KernelConfig::defines() const {
  std::vector<std::string> d = {"-DAG_TRANS_A=" + std::to_string(int(trans_a)),
                                "-DAG_TRANS_B=" + std::to_string(int(trans_b))};
  if (kind == KernelKind::Tiled) {
    const std::pair<const char*, int> v[] = {{"AG_BM", bm},   {"AG_BN", bn},       {"AG_BK", bk},
                                             {"AG_TM", tm},   {"AG_TN", tn},       {"AG_WC", wc},
                                             {"AG_VEC", vec}, {"AG_SPLIT_K", split_k},
                                             {"AG_SPLIT_REDUCE", split_reduce},
                                             {"AG_SWIZZLE", swizzle},
                                             {"AG_STAGES", stages},
                                             {"AG_MIN_BLOCKS", min_blocks},
                                             {"AG_KUNROLL", k_unroll}};
    for (const auto& [name, value] : v) d.push_back(std::string("-D") + name + "=" + std::to_string(value));
  }
  return d;
}

KernelConfig default_config(const Problem& p) {
  KernelConfig c;
  c.kind = KernelKind::Tiled;
  c.trans_a = p.trans_a;
  c.trans_b = p.trans_b;
  c.vec = p.aligned ? 4 : 1;
  c.bk = 8;
  c.wc = 8;
  c.split_k = 1;
  if (p.m * p.n >= 1024 * 1024) {
    // 16x8 per thread, 128 threads: near the best measured tiles on H200 at 4096^3.
    c.bm = 128, c.bn = 128, c.tm = 16, c.tn = 8, c.swizzle = 8;
  } else {
    c.bm = 64, c.bn = 64, c.tm = 4, c.tn = 4, c.swizzle = 4;
  }
  return c;
}

}  // namespace autogemm
