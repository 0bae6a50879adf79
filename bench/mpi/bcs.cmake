# The benchmark programs of BCS mode (docs/bcs.md, "Benchmarks"):
# bench/mpi/bcs_validate.c, stencil.c and allreduce_heavy.c, built into
# BUILD/bench-mpi/ where scripts/bench-bcs.sh runs them.  They are plain
# MPI, so any MPI's compiler wrapper builds them too.
# Included from the top CMakeLists.txt after the tests, to register its
# own.
set(GROVE_BCS_BENCH_PROGS bcs_validate stencil allreduce_heavy)
foreach(name ${GROVE_BCS_BENCH_PROGS})
  add_executable(mpibench_${name} ${CMAKE_SOURCE_DIR}/bench/mpi/${name}.c)
  set_target_properties(mpibench_${name} PROPERTIES OUTPUT_NAME ${name}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench-mpi)
  target_link_libraries(mpibench_${name} PRIVATE grove-mpi m)
endforeach()

if(GROVE_TESTS)
  # Each program briefly, in direct mode, at 2 and 4 ranks (and the
  # blocking stencil at 3, a ring of odd size, whose send/receive order
  # must not deadlock): the programs check their results and exit 1 on a
  # wrong one.  The same runs under --bcs (mpibench.bcs.*), whose
  # results must be the same.  No time is checked.
  set(bcs_bench_validate bcs_validate --iters 200 --every 4 --bytes 64)
  set(bcs_bench_stencil_blocking stencil --steps 30 --grain-us 20
      --bytes 100 --cells 64 --mode blocking --allreduce-every 3)
  set(bcs_bench_stencil_nonblocking stencil --steps 30 --grain-us 20
      --bytes 100 --cells 64 --mode nonblocking --allreduce-every 1)
  set(bcs_bench_allreduce_heavy allreduce_heavy --iters 500 --compute-us 1)
  foreach(run validate stencil_blocking stencil_nonblocking allreduce_heavy)
    set(ranks 2 4)
    if(run STREQUAL "stencil_blocking")
      set(ranks 2 3 4)
    endif()
    list(POP_FRONT bcs_bench_${run} prog)
    foreach(n ${ranks})
      add_test(NAME mpibench.${run}.${n}
               COMMAND ${CMAKE_BINARY_DIR}/grove run -n ${n}
                       $<TARGET_FILE:mpibench_${prog}> ${bcs_bench_${run}})
      set_tests_properties(mpibench.${run}.${n} PROPERTIES TIMEOUT 120
        LABELS mpi)
      add_test(NAME mpibench.bcs.${run}.${n}
               COMMAND ${CMAKE_BINARY_DIR}/grove run --bcs -n ${n}
                       $<TARGET_FILE:mpibench_${prog}> ${bcs_bench_${run}})
      set_tests_properties(mpibench.bcs.${run}.${n} PROPERTIES TIMEOUT 180
        LABELS "mpi;bcs")
    endforeach()
  endforeach()
  # scripts/plot-bcs.sh needs gnuplot, which only the benchmarks'
  # packages install (scripts/install-mpi-peers.sh): without it the test
  # says so and is skipped, not passed.
  if(TEST cli.bcs_plot)
    set_tests_properties(cli.bcs_plot PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endif()

# The MagPIe experiment (bench/mpi/bcast_wan.c, scripts/bench-magpie.sh,
# docs/mpi.md "Clusters"): it asks the library's own planner for the
# model's prediction, so it links the static library and its internals.
add_executable(mpibench_bcast_wan ${CMAKE_SOURCE_DIR}/bench/mpi/bcast_wan.c)
set_target_properties(mpibench_bcast_wan PROPERTIES OUTPUT_NAME bcast_wan
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench-mpi)
target_include_directories(mpibench_bcast_wan PRIVATE ${CMAKE_SOURCE_DIR}/src
  ${GROVE_MPI_GEN_DIR})
target_link_libraries(mpibench_bcast_wan PRIVATE grove-mpi_static m)
if(GROVE_TESTS)
  # Correctness only (the program checks the data): 4 emulated clusters
  # with a fast emulated WAN, each algorithm.
  foreach(algo plogp binomial magpie)
    add_test(NAME mpibench.bcast_wan.${algo}.8
             COMMAND ${CMAKE_BINARY_DIR}/grove run -n 8
                     $<TARGET_FILE:mpibench_bcast_wan> --sizes 1K,100000,1M --reps 1)
    set_tests_properties(mpibench.bcast_wan.${algo}.8 PROPERTIES TIMEOUT 120
      LABELS "mpi;hier" ENVIRONMENT
      "GROVE_MPI_CLUSTERS=4x2;GROVE_MPI_BCAST=${algo};GROVE_MPI_WAN=1ms,500MB/s")
  endforeach()
endif()
