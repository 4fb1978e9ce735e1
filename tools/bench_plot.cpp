#include "bench_plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace autogemm::bench {
namespace {

/// A scratch directory for the data and the script, removed afterwards.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gemm_bench_plot_XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const char* name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

/// gnuplot's string quoting: single quotes, a quote doubled.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

/// One row per shape: index, label, autogemm, cuBLAS, ratio[, fp32-accurate, cuBLAS TF32].
bool write_data(const nlohmann::json& results, const std::string& path) {
  const nlohmann::json& shapes = results.at("shapes");
  if (!shapes.is_array() || shapes.empty()) throw std::runtime_error("the results hold no shapes to plot");
  const bool accurate = shapes[0].contains("fp32_accurate");
  std::ofstream f(path);
  int i = 0;
  for (const nlohmann::json& s : shapes) {
    std::string label = s.at("shape").get<std::string>();
    for (char& c : label)
      if (c == '"' || c == ' ') c = '_';
    f << i++ << " \"" << label << "\" " << s.at("autogemm_tflops").get<double>() << " "
      << s.at("cublas_tflops").get<double>() << " " << s.at("ratio").get<double>();
    if (accurate)
      f << " " << s.at("fp32_accurate").at("tflops").get<double>() << " "
        << s.at("cublas_tf32").at("tflops").get<double>();
    f << "\n";
  }
  if (!f) throw std::runtime_error("cannot write the plot data to " + path);
  return accurate;
}

std::string script(const nlohmann::json& results, const std::string& data, const std::string& png, bool accurate,
                   size_t shapes) {
  std::ostringstream s;
  const int width = int(std::max<size_t>(800, 60 * shapes + 200));
  s << "set terminal pngcairo size " << width << ",600 noenhanced font 'sans,10'\n"
    << "set output " << quoted(png) << "\n"
    << "set title " << quoted("autogemm vs cuBLAS SGEMM on " + results.value("device", std::string("GPU")) +
                              " (geometric mean ratio " +
                              std::to_string(results.value("geomean_ratio", 0.0)).substr(0, 5) + ")")
    << "\n"
    << "set ylabel 'TFLOP/s'\nset yrange [0:*]\nset grid ytics\nset key top left\n"
    << "set style data histograms\nset style histogram clustered gap 1\nset style fill solid 0.85 border -1\n"
    << "set xtics rotate by -45 scale 0\nset boxwidth 0.9\n"
    << "plot " << quoted(data) << " using 3:xtic(2) title 'autogemm' lc rgb '#1f77b4', '' using 4 title "
    << "'cuBLAS SGEMM' lc rgb '#aaaaaa'";
  if (accurate)
    s << ", '' using 6 title 'autogemm fp32_accurate' lc rgb '#2ca02c', '' using 7 title 'cuBLAS TF32 (lossy)' lc "
         "rgb '#dddddd'";
  // The ratio autogemm/cuBLAS above each group of bars.
  s << ", '' using 1:($3 > $4 ? $3 : $4):(sprintf('%.2fx', $5)) with labels offset 0,0.8 notitle\n";
  return s.str();
}

/// Runs gnuplot on `script_path`; its stderr goes to `log_path`.
void run_gnuplot(const std::string& script_path, const std::string& log_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  std::vector<char*> argv = {const_cast<char*>("gnuplot"), const_cast<char*>(script_path.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw std::runtime_error(std::string("cannot run gnuplot (") + std::strerror(rc) +
                             "); install it (Debian: apt-get install gnuplot-nox)");
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream log(log_path);
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    throw std::runtime_error("gnuplot failed: " + text.substr(0, 2000));
  }
}

}  // namespace

void plot_results(const nlohmann::json& results, const std::string& png_path) {
  ScratchDir dir;
  const std::string data = dir.file("results.dat"), plot = dir.file("plot.gp");
  const bool accurate = write_data(results, data);
  const std::string png = std::filesystem::absolute(png_path).string();
  {
    std::ofstream f(plot);
    f << script(results, data, png, accurate, results.at("shapes").size());
    if (!f) throw std::runtime_error("cannot write the gnuplot script");
  }
  run_gnuplot(plot, dir.file("gnuplot.log"));
  if (!std::filesystem::exists(png)) throw std::runtime_error("gnuplot wrote no " + png);
}

}  // namespace autogemm::bench
