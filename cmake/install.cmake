# What `cmake --install` puts under the prefix for the library: the C header,
# libautogemm.so (with its SONAME links) and libautogemm.a, a CMake package
# (find_package(autogemm CONFIG) gives autogemm::autogemm and
# autogemm::autogemm_static) and a pkg-config file (autogemm.pc; --static
# adds what the archive needs). The tools install themselves (tools/, tuner/).
include(CMakePackageConfigHelpers)

install(TARGETS autogemm autogemm_static EXPORT autogemmTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Only the C header is public; the other headers of lib/include are internals.
install(FILES ${PROJECT_SOURCE_DIR}/lib/include/autogemm/autogemm.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/autogemm)

set(AUTOGEMM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/autogemm)
install(EXPORT autogemmTargets NAMESPACE autogemm:: DESTINATION ${AUTOGEMM_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/autogemmConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/autogemmConfig.cmake INSTALL_DESTINATION ${AUTOGEMM_CMAKE_DIR})
# 0.x: every minor release may change the ABI (the SONAME follows the major).
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/autogemmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/autogemmConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/autogemmConfigVersion.cmake
  DESTINATION ${AUTOGEMM_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own place, so the
# tree works wherever it is installed (cmake --install --prefix DIR).
file(RELATIVE_PATH AUTOGEMM_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" AUTOGEMM_PC_TO_PREFIX "${AUTOGEMM_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/autogemm.pc.in ${CMAKE_CURRENT_BINARY_DIR}/autogemm.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/autogemm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
