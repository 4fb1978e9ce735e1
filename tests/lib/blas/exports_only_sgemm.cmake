# exports_only_sgemm.cmake — fails unless the library LIB defines exactly one
# dynamic symbol, sgemm_ (nothing of autogemm, fmt, spdlog or the C++
# library can then interpose on a program's own names). Run by ctest as
#   cmake -DNM=<nm> -DLIB=<libautogemm_blas.so> -P exports_only_sgemm.cmake
execute_process(COMMAND ${NM} -D --defined-only ${LIB} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIB} failed: ${err}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(names "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^[0-9a-fA-F]* *[A-Za-z] " "" name "${line}")
  list(APPEND names "${name}")
endforeach()
if(NOT names STREQUAL "sgemm_")
  message(FATAL_ERROR "${LIB} exports '${names}', not sgemm_ alone")
endif()
message(STATUS "${LIB} exports sgemm_ alone")
