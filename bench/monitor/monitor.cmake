# The micro-benchmarks of live monitoring (docs/monitoring.md,
# "Benchmarks"): bench/monitor/gsum.c and compute_gsum.c, built into
# BUILD/bench-monitor/ where scripts/bench-monitor.sh runs them.  Plain
# MPI, so any MPI's compiler wrapper builds them too;
# tests/cli/monitor_gsum.sh runs them briefly with a monitor attached.
foreach(name gsum compute_gsum)
  add_executable(monbench_${name} ${CMAKE_SOURCE_DIR}/bench/monitor/${name}.c)
  set_target_properties(monbench_${name} PROPERTIES OUTPUT_NAME ${name}
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench-monitor)
  target_link_libraries(monbench_${name} PRIVATE grove-mpi m)
endforeach()

# The cost per tuple of the analysis itself, without a job
# (bench/monitor/analysis_feed.c): linked with Grove's internal objects,
# as the unit tests are.
add_executable(monbench_analysis_feed
  ${CMAKE_SOURCE_DIR}/bench/monitor/analysis_feed.c)
set_target_properties(monbench_analysis_feed PROPERTIES
  OUTPUT_NAME analysis_feed
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench-monitor)
grove_link_internal(monbench_analysis_feed)
