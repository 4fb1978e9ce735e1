# gemm_bench --plot-from: draws a recorded run (tests/tools/data/bench_results.json,
# six shapes of the H200 suite run of 2026-12-01) into a PNG with gnuplot, no
# GPU involved; the file must be a PNG. Run with -DBENCH=... -DDATA=... -DOUT=...
file(REMOVE "${OUT}")
execute_process(COMMAND "${BENCH}" --plot-from "${DATA}" --plot "${OUT}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gemm_bench --plot-from failed (${rc}): ${out}${err}")
endif()
file(READ "${OUT}" magic LIMIT 8 HEX)
if(NOT magic STREQUAL "89504e470d0a1a0a")
  message(FATAL_ERROR "${OUT} is not a PNG (starts with ${magic})")
endif()
file(SIZE "${OUT}" bytes)
if(bytes LESS 5000)
  message(FATAL_ERROR "${OUT} is only ${bytes} bytes: nothing was drawn")
endif()
# A file that is not gemm_bench's JSON is refused with a sentence, and nothing is written.
file(WRITE "${OUT}.bad.json" "{\"device\": \"x\"}")
execute_process(COMMAND "${BENCH}" --plot-from "${OUT}.bad.json" --plot "${OUT}.bad.png" RESULT_VARIABLE rc
                ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT err MATCHES "cannot plot" OR EXISTS "${OUT}.bad.png")
  message(FATAL_ERROR "a JSON without shapes was not refused: ${rc} ${err}")
endif()
