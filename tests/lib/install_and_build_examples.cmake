# The installed package used from outside the tree (cmake -P script of the
# test Install.ExamplesBuildAgainstTheInstalledPackage):
#   1. cmake --install the build tree into a scratch prefix; the header, both
#      libraries (with the SONAME link), the CMake package, autogemm.pc and
#      the tools must be there;
#   2. examples/ configured and built as its own project against that prefix
#      (find_package(autogemm CONFIG), shared and static);
#   3. examples/sgemm_example.c built with the flags pkg-config gives;
#   4. each program run with --version: it must load and report the header's
#      and the library's version, equal.
# Needs: BUILD_DIR, SOURCE_DIR, WORK_DIR, CUDA_ROOT, CUDA_INCLUDE, CUDA_LIBDIR,
# VERSION, SOVERSION, C_COMPILER.
foreach(v BUILD_DIR SOURCE_DIR WORK_DIR CUDA_ROOT CUDA_INCLUDE CUDA_LIBDIR VERSION SOVERSION C_COMPILER)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "install_and_build_examples.cmake: -D${v}=... is required")
  endif()
endforeach()
set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(f include/autogemm/autogemm.h lib/libautogemm.so lib/libautogemm.so.${SOVERSION}
          lib/libautogemm.so.${VERSION} lib/libautogemm.a lib/cmake/autogemm/autogemmConfig.cmake
          lib/cmake/autogemm/autogemmConfigVersion.cmake lib/pkgconfig/autogemm.pc
          bin/gemm_tune bin/autogemm_worker bin/gemm_bench bin/autogemm_cache
          include/autogemm/autogemm_cublas.h lib/libautogemm_cublas.so.${SOVERSION} bin/autogemm_run
          lib/libautogemm_blas.so.${SOVERSION})
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "cmake --install left out ${f}")
  endif()
endforeach()
# Internals stay out of the installed include tree.
file(GLOB headers RELATIVE ${prefix}/include/autogemm ${prefix}/include/autogemm/*)
list(SORT headers)
if(NOT headers STREQUAL "autogemm.h;autogemm_cublas.h")
  message(FATAL_ERROR "installed headers: ${headers} (only autogemm.h and autogemm_cublas.h are public)")
endif()

run("configuring examples/" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples -B ${WORK_DIR}/examples
    -DCMAKE_PREFIX_PATH=${prefix} -DCUDAToolkit_ROOT=${CUDA_ROOT} -DCMAKE_BUILD_TYPE=Release)
run("building examples/" ${CMAKE_COMMAND} --build ${WORK_DIR}/examples)

set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
set(cuda_includes)
foreach(d ${CUDA_INCLUDE})
  list(APPEND cuda_includes -I${d})
endforeach()
run("pkg-config" pkg-config --cflags --libs autogemm)
string(STRIP "${last_output}" pc_flags)
separate_arguments(pc_flags UNIX_COMMAND "${pc_flags}")
run("building with pkg-config's flags" ${C_COMPILER} -o ${WORK_DIR}/sgemm_example_pkgconfig
    ${SOURCE_DIR}/examples/sgemm_example.c ${pc_flags} ${cuda_includes} -L${CUDA_LIBDIR}
    -lcudart -lm -Wl,-rpath,${prefix}/lib -Wl,-rpath,${CUDA_LIBDIR})

foreach(exe examples/sgemm_example examples/sgemm_example_static sgemm_example_pkgconfig)
  run("${exe} --version" ${WORK_DIR}/${exe} --version)
  if(NOT last_output MATCHES "header ${VERSION}, library ${VERSION}")
    message(FATAL_ERROR "${exe} --version printed: ${last_output}")
  endif()
  message(STATUS "${exe}: ${last_output}")
endforeach()
