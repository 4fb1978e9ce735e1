#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>

#include "autogemm/tuner.h"
#include "autogemm/shape_spec.h"

namespace autogemm {

std::vector<ShapeSpec> default_suite() {
  std::vector<std::string> s;
  for (int n : {128, 256, 512, 1024, 2048, 4096, 8192})
    s.push_back(std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n));
  for (int n : {1000, 3000, 5000})
    s.push_back(std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n));
  s.push_back("127x257x509");
  for (int m : {1, 16, 128, 2048})
    for (const char* nk : {"4096x4096", "11008x4096", "4096x11008"})
      s.push_back(std::to_string(m) + "x" + nk);
  s.push_back("64x64x65536");
  s.push_back("8192x8192x256");
  s.push_back("4096x4096x128");
  s.push_back("4096x4096x4096:NT");
  s.push_back("4096x4096x4096:TN");
  std::vector<ShapeSpec> out;
  for (const auto& text : s) {
    ShapeSpec spec;
    std::string err;
    if (!parse_shape(text, &spec, &err)) throw std::logic_error(err);
    out.push_back(spec);
  }
  return out;
}

std::vector<ShapeSpec> batched_suite() {
  std::vector<ShapeSpec> out;
  // Attention-like heads, mid-size batches, a few large products, and
  // skinny products that batch poorly (each one alone fills a few SMs).
  for (const char* text : {"64x64x64@4096", "128x128x64@1024", "64x128x128:NT@512", "256x256x64@256",
                           "512x512x512@64", "1024x1024x128@16", "16x4096x4096@8"}) {
    ShapeSpec spec;
    std::string err;
    if (!parse_shape(text, &spec, &err)) throw std::logic_error(err);
    out.push_back(spec);
  }
  return out;
}

namespace {

std::vector<ShapeSpec> parsed(const std::vector<std::string>& texts) {
  std::vector<ShapeSpec> out;
  for (const std::string& text : texts) {
    ShapeSpec spec;
    std::string err;
    if (!parse_shape(text, &spec, &err)) throw std::logic_error(err);
    out.push_back(spec);
  }
  return out;
}

}  // namespace

std::vector<ShapeSpec> large_suite() {
  std::vector<std::string> s;
  for (const char* n : {"4096", "8192", "16384"})
    for (const char* ops : {"NN", "NT", "TN"}) s.push_back(std::string(n) + "x" + n + "x" + n + ":" + ops);
  return parsed(s);
}

std::vector<ShapeSpec> ksweep_suite() {
  std::vector<std::string> s;
  for (int k : {256, 1024, 4096, 16384, 65536}) s.push_back("1024x1024x" + std::to_string(k));
  return parsed(s);
}

const std::vector<std::string>& suite_names() {
  static const std::vector<std::string> names = {"public", "batched", "large", "ksweep", "classes"};
  return names;
}

namespace {

// SEED of "classes:SEED": decimal digits, below 2^32.
std::optional<uint32_t> class_seed(const std::string& name) {
  const std::string prefix = "classes:";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  const std::string digits = name.substr(prefix.size());
  if (digits.empty() || digits.size() > 10 || digits.find_first_not_of("0123456789") != std::string::npos)
    return std::nullopt;
  const uint64_t v = std::stoull(digits);
  if (v > 0xffffffffull) return std::nullopt;
  return uint32_t(v);
}

}  // namespace

std::string suite_name_error(const std::string& name) {
  for (const std::string& n : suite_names())
    if (n == name) return "";
  if (class_seed(name)) return "";
  return "unknown suite '" + name + "' (public, batched, large, ksweep, classes or classes:SEED)";
}

std::vector<ShapeSpec> named_suite(const std::string& name) {
  if (const std::optional<uint32_t> seed = class_seed(name)) return class_suite(*seed);
  if (name == "public") return default_suite();
  if (name == "batched") return batched_suite();
  if (name == "large") return large_suite();
  if (name == "ksweep") return ksweep_suite();
  if (name == "classes") return class_suite();
  throw std::runtime_error(suite_name_error(name));
}

std::vector<ShapeSpec> read_shapes_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read shapes file '" + path + "'");
  std::vector<ShapeSpec> out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.size() > 4096) throw std::runtime_error(path + ":" + std::to_string(n) + ": line too long");
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ShapeSpec spec;
    std::string err;
    if (!parse_shape(line, &spec, &err)) throw std::runtime_error(path + ":" + std::to_string(n) + ": " + err);
    out.push_back(spec);
  }
  return out;
}

std::vector<ShapeSpec> resolve_shapes(const std::vector<std::string>& shapes, const std::string& shapes_file,
                                      const std::string& suite) {
  std::vector<ShapeSpec> out;
  if (!suite.empty()) out = named_suite(suite);
  for (const auto& text : shapes) {
    ShapeSpec spec;
    std::string err;
    if (!parse_shape(text, &spec, &err)) throw std::runtime_error(err);
    out.push_back(spec);
  }
  if (!shapes_file.empty()) {
    auto more = read_shapes_file(shapes_file);
    out.insert(out.end(), more.begin(), more.end());
  }
  if (out.empty()) out = default_suite();
  return out;
}

}  // namespace autogemm
