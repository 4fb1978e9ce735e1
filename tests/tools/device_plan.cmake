# gemm_tune --plan and --device (issue 29), no GPU: under fake launcher
# environments (Open MPI, Slurm, MPICH) each rank's plan names the GPU of its
# node-local rank modulo the visible GPUs; --device values a real run would
# refuse (banana, local outside a launcher, a GPU CUDA_VISIBLE_DEVICES hides)
# are refused by --plan too: exit 2 and one line saying why.
# Run with -DTUNE=<gemm_tune>.
set(launch_vars OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_LOCAL_SIZE
    PMIX_RANK PMI_RANK PMI_SIZE MPI_LOCALRANKID MPI_LOCALNRANKS PMI_LOCAL_RANK PMI_LOCAL_SIZE SLURM_PROCID
    SLURM_NTASKS SLURM_LOCALID SLURM_NTASKS_PER_NODE SLURM_STEP_TASKS_PER_NODE SLURM_TASKS_PER_NODE SLURM_NODEID
    CUDA_VISIBLE_DEVICES AUTOGEMM_KEEP_AFFINITY)
set(clean "")
foreach(v IN LISTS launch_vars)
  list(APPEND clean --unset=${v})
endforeach()

# plan(<want_rc> <regex> <env assignments...> -- <gemm_tune args...>)
function(plan want_rc regex)
  set(env "")
  set(args "")
  set(into env)
  foreach(a IN LISTS ARGN)
    if(a STREQUAL "--")
      set(into args)
    else()
      list(APPEND ${into} "${a}")
    endif()
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${clean} ${env} "${TUNE}" --plan --shape 256x256x256
                          --db "/tmp/never-written.{rank}.db" ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL want_rc OR NOT "${out}${err}" MATCHES "${regex}")
    message(FATAL_ERROR "gemm_tune --plan ${args} with ${env}: exit ${rc} (want ${want_rc}), want /${regex}/:\n${out}${err}")
  endif()
endfunction()

plan(0 "rank 1 of 2 \\(\\$OMPI_COMM_WORLD_RANK\\).*rank 1 gpu: local rank 1 of 2 \\(\\$OMPI_COMM_WORLD_LOCAL_RANK\\) -> GPU 1 \\(modulo the visible GPUs\\)\nrank 1 cpus: "
     OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_LOCAL_SIZE=2
     -- --device local)
plan(0 "rank 3 gpu: local rank 1 of 2 \\(\\$SLURM_LOCALID\\) -> GPU 0 \\(modulo the 1 \\$CUDA_VISIBLE_DEVICES shows\\)"
     SLURM_PROCID=3 SLURM_NTASKS=4 SLURM_LOCALID=1 "SLURM_STEP_TASKS_PER_NODE=2(x2)" SLURM_NODEID=1
     CUDA_VISIBLE_DEVICES=5 -- --device local)
plan(0 "rank 2 gpu: local rank 1 of 2 \\(\\$MPI_LOCALRANKID\\) -> GPU 1"
     PMI_RANK=2 PMI_SIZE=4 MPI_LOCALRANKID=1 MPI_LOCALNRANKS=2 -- --device local)
plan(0 "rank 0 gpu: GPUs 0,1 \\(of the 2 \\$CUDA_VISIBLE_DEVICES shows\\)" CUDA_VISIBLE_DEVICES=2,3 -- --device 0,1)
plan(2 "^gemm_tune: --device: 'banana' is not a GPU ordinal[^\n]*\n$" -- --device banana)
plan(2 "^gemm_tune: --device local takes the GPU from the launcher's node-local rank[^\n]*--device 0\\)\n$"
     -- --device local)
plan(2 "^gemm_tune: --device: GPU 2 does not exist" CUDA_VISIBLE_DEVICES=0,1 -- --device 2)
plan(2 "^gemm_tune: \\$OMPI_COMM_WORLD_LOCAL_RANK=2 is not below"
     OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_LOCAL_SIZE=2
     -- --device local)
