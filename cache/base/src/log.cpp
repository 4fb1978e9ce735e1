#include "autogemm/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <mutex>

namespace autogemm {
namespace {

std::shared_ptr<spdlog::logger> make_logger() {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("autogemm", sink);
  logger->set_pattern("[autogemm %L] %v");
  logger->set_level(spdlog::level::warn);
  if (const char* env = std::getenv("AUTOGEMM_LOG_LEVEL"))
    logger->set_level(spdlog::level::from_str(env));
  return logger;
}

}  // namespace

const std::shared_ptr<spdlog::logger>& logger_ptr() {
  static const std::shared_ptr<spdlog::logger> logger = make_logger();
  return logger;
}

spdlog::logger& log() { return *logger_ptr(); }

void set_default_log_level(spdlog::level::level_enum level) {
  if (std::getenv("AUTOGEMM_LOG_LEVEL")) return;
  log().set_level(level);
}

}  // namespace autogemm
