// Logging: one spdlog logger for all of autogemm, level from AUTOGEMM_LOG_LEVEL
// (trace, debug, info, warn, error, off; default warn for the library).
#pragma once

#include <spdlog/spdlog.h>

namespace autogemm {

/// The "autogemm" logger (stderr), created on first use.
spdlog::logger& log();

/// Makes spdlog's process-wide default logger the autogemm one (stderr), so
/// messages of components that log through the default (cache/) look the
/// same. For autogemm's own programs only: a library must not take over its
/// host program's default logger.
void route_default_logger_to_autogemm();

/// Overrides the level (tools raise it to info); AUTOGEMM_LOG_LEVEL still wins.
void set_default_log_level(spdlog::level::level_enum level);

}  // namespace autogemm
