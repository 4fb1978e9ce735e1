# The cache inspection tool, include()d from tools/CMakeLists.txt. It links the
# cache library, autogemm_core for the shape grammar every tool shares
# (autogemm::parse_shape) and NVRTC's version (prune), autogemm_templates for
# this build's template hashes (prune; no CUDA call is ever made), CLI11,
# nlohmann-json and spdlog.
#
# The target cannot be called autogemm_cache: that is the library target in
# cache/ (CMake target names are global). The program is still installed and
# run as `autogemm_cache` (OUTPUT_NAME).
find_package(CLI11 REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(spdlog REQUIRED)
add_executable(autogemm_cache_tool ${CMAKE_CURRENT_LIST_DIR}/autogemm_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache_tool_format.cpp ${CMAKE_CURRENT_LIST_DIR}/cache_tool_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cache_tool_views.cpp)
set_target_properties(autogemm_cache_tool PROPERTIES OUTPUT_NAME autogemm_cache)
target_link_libraries(autogemm_cache_tool PRIVATE
  autogemm_cache autogemm_templates autogemm_core autogemm_tuner CLI11::CLI11 nlohmann_json::nlohmann_json
  spdlog::spdlog_header_only)
