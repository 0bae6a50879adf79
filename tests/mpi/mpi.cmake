# Grove MPI tests: every tests/mpi/progs/*.c is an MPI program that checks
# its own results; its first line names the rank counts it runs at
# ("/* grove-mpi-test ranks=1,2,3,4,8 */"), and each becomes one test
# "mpi.<program>.<ranks>" run by `grove run -n <ranks>`, one
# "mpi.bcs.<program>.<ranks>" run by `grove run --bcs -n <ranks>`, and,
# for 2 ranks or more, one "mpi.tcp.<program>.<ranks>" run by
# `grove run --transport tcp -n <ranks>`.
file(GLOB GROVE_MPI_TEST_PROGS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/mpi/progs/*.c)
foreach(src ${GROVE_MPI_TEST_PROGS})
  get_filename_component(name ${src} NAME_WE)
  file(STRINGS ${src} header LIMIT_COUNT 1)
  if(NOT header MATCHES "grove-mpi-test ranks=([0-9,]+)")
    continue()
  endif()
  string(REPLACE "," ";" rank_counts "${CMAKE_MATCH_1}")
  set(target mpitest_${name})
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE grove-mpi m)
  target_include_directories(${target} PRIVATE ${CMAKE_SOURCE_DIR}/tests/mpi/progs)
  foreach(n ${rank_counts})
    add_test(NAME mpi.${name}.${n}
             COMMAND ${CMAKE_BINARY_DIR}/grove run -n ${n} $<TARGET_FILE:${target}>)
    set_tests_properties(mpi.${name}.${n} PROPERTIES TIMEOUT 120 LABELS mpi)
    # The same program in BCS mode (docs/bcs.md): the same results.
    add_test(NAME mpi.bcs.${name}.${n}
             COMMAND ${CMAKE_BINARY_DIR}/grove run --bcs -n ${n} $<TARGET_FILE:${target}>)
    set_tests_properties(mpi.bcs.${name}.${n} PROPERTIES TIMEOUT 180 LABELS "mpi;bcs")
    # The same program over the TCP transport (docs/mpi.md): every peer
    # on a socket, the world's collectives on point-to-point schedules.
    if(n GREATER 1)
      add_test(NAME mpi.tcp.${name}.${n}
               COMMAND ${CMAKE_BINARY_DIR}/grove run --transport tcp -n ${n} $<TARGET_FILE:${target}>)
      set_tests_properties(mpi.tcp.${name}.${n} PROPERTIES TIMEOUT 180 LABELS "mpi;tcp")
    endif()
  endforeach()
endforeach()

# Unit tests and launcher tests of Grove MPI live with the others
# (tests/unit/test_mpi_*.c, tests/cli/mpi_*.sh).

# test_mpi_stats checks the report grove run prints (tools/run/
# stats_report.c), which is the launcher's, not the library's.
if(TARGET test_mpi_stats)
  target_sources(test_mpi_stats PRIVATE ${CMAKE_SOURCE_DIR}/tools/run/stats_report.c)
  target_include_directories(test_mpi_stats PRIVATE ${CMAKE_SOURCE_DIR}/tools/run)
endif()

# The matching unit test again with transfers copied through the rings
# (the fallback when the kernel refuses process_vm_readv).
add_test(NAME unit.test_mpi_match.nocma COMMAND test_mpi_match)
set_tests_properties(unit.test_mpi_match.nocma PROPERTIES TIMEOUT 120
  LABELS unit ENVIRONMENT "GROVE_MPI_CMA=0")


# Programs the launcher tests (tests/cli/mpi_*.sh) run: tests/mpi/launch/
# *.c, built as mpilaunch_<name> beside grove, not run by CTest themselves.
file(GLOB GROVE_MPI_LAUNCH_PROGS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/mpi/launch/*.c)
foreach(src ${GROVE_MPI_LAUNCH_PROGS})
  get_filename_component(name ${src} NAME_WE)
  if(NOT TARGET mpilaunch_${name})
    add_executable(mpilaunch_${name} ${src})
    target_link_libraries(mpilaunch_${name} PRIVATE grove-mpi m)
  endif()
endforeach()
