# gemm_tune under a real launcher (Open MPI's mpirun, 2 ranks, no GPU): each
# rank reads its rank from the environment mpirun sets and prints its share
# (--plan); together the shares are the whole shape list, each shape once,
# each rank names its own cache file, and with --device local the GPU of its
# node-local rank. Run with -DMPIRUN=... -DTUNE=...
# -DSHAPES=... -DDB=.../t.{rank}.db
execute_process(COMMAND "${MPIRUN}" --allow-run-as-root --oversubscribe -np 2 "${TUNE}" --plan --device local --shapes-file "${SHAPES}"
                        --db "${DB}"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mpirun -np 2 gemm_tune --plan failed (${rc}):\n${out}\n${err}")
endif()
foreach(rank 0 1)
  string(REPLACE "{rank}" "${rank}" file "${DB}")
  if(NOT out MATCHES "rank ${rank} of 2 \\(\\$[A-Z_]+\\): [0-9]+ of [0-9]+ shape\\(s\\) into ${file}")
    message(FATAL_ERROR "rank ${rank} did not report its share and cache file ${file}:\n${out}")
  endif()
  if(NOT out MATCHES "rank ${rank} gpu: local rank ${rank} of 2 \\(\\$OMPI_COMM_WORLD_LOCAL_RANK\\) -> GPU ")
    message(FATAL_ERROR "rank ${rank} did not name the GPU of its node-local rank:\n${out}")
  endif()
endforeach()
file(STRINGS "${SHAPES}" wanted REGEX "^[^#]")
string(REGEX MATCHALL "rank [01]: [^\n]+" lines "${out}")
set(got "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE "^rank [01]: " "" shape "${line}")
  list(APPEND got "${shape}")
endforeach()
list(LENGTH wanted n_wanted)
list(LENGTH got n_got)
set(unique "${got}")
list(REMOVE_DUPLICATES unique)
list(LENGTH unique n_unique)
if(NOT n_got EQUAL n_wanted OR NOT n_unique EQUAL n_got)
  message(FATAL_ERROR "the ranks' shares are not the ${n_wanted} shapes once each (${n_got} listed, ${n_unique} distinct):\n${out}")
endif()
