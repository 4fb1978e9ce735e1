// Logging: one spdlog logger for all of autogemm, level from AUTOGEMM_LOG_LEVEL
// (trace, debug, info, warn, error, off; default warn for the library).
#pragma once

#include <spdlog/spdlog.h>

namespace autogemm {

/// The "autogemm" logger (stderr), created on first use.
spdlog::logger& log();

/// Overrides the level (tools raise it to info); AUTOGEMM_LOG_LEVEL still wins.
void set_default_log_level(spdlog::level::level_enum level);

}  // namespace autogemm
