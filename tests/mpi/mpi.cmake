# Grove MPI tests: every tests/mpi/progs/*.c is an MPI program that checks
# its own results; its first line names the rank counts it runs at
# ("/* grove-mpi-test ranks=1,2,3,4,8 */"), and each becomes one test
# "mpi.<program>.<ranks>" run by `grove run -n <ranks>`, one
# "mpi.bcs.<program>.<ranks>" run by `grove run --bcs -n <ranks>`, and,
# for 2 ranks or more, one "mpi.tcp.<program>.<ranks>" run by
# `grove run --transport tcp -n <ranks>` and one "mpi.hier.<program>.<ranks>"
# with the ranks split into emulated clusters (GROVE_MPI_CLUSTERS,
# docs/mpi.md "Clusters"), so that Bcast, Reduce, Allreduce and Barrier
# run hierarchically.
set(GROVE_MPI_HIER_MAP_2 "0,1")
set(GROVE_MPI_HIER_MAP_3 "0,1-2")
set(GROVE_MPI_HIER_MAP_4 "0+3,1-2")
# uneven clusters, one of a single rank, and interleaved ones
set(GROVE_MPI_HIER_MAP_8 "0-2,3,4+6,5+7")
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
    if(DEFINED GROVE_MPI_HIER_MAP_${n})
      add_test(NAME mpi.hier.${name}.${n}
               COMMAND ${CMAKE_BINARY_DIR}/grove run -n ${n} $<TARGET_FILE:${target}>)
      set_tests_properties(mpi.hier.${name}.${n} PROPERTIES TIMEOUT 120
        LABELS "mpi;hier" ENVIRONMENT "GROVE_MPI_CLUSTERS=${GROVE_MPI_HIER_MAP_${n}}")
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

# Hierarchical collectives with the emulated WAN between clusters on
# (GROVE_MPI_WAN: every message between clusters is delayed and shaped,
# src/mpi/wan_shaper.c), and with each broadcast algorithm of
# GROVE_MPI_BCAST and the P-LogP parameters of a file.  Results only.
foreach(prog coll_basic coll_nonblocking p2p_order p2p_requests)
  add_test(NAME mpi.hier.wan.${prog}.8
           COMMAND ${CMAKE_BINARY_DIR}/grove run -n 8 $<TARGET_FILE:mpitest_${prog}>)
  set_tests_properties(mpi.hier.wan.${prog}.8 PROPERTIES TIMEOUT 300
    LABELS "mpi;hier" ENVIRONMENT
    "GROVE_MPI_CLUSTERS=${GROVE_MPI_HIER_MAP_8};GROVE_MPI_WAN=200us,500MB/s")
endforeach()
foreach(algo plogp binomial magpie)
  add_test(NAME mpi.hier.${algo}.coll_basic.8
           COMMAND ${CMAKE_BINARY_DIR}/grove run -n 8 $<TARGET_FILE:mpitest_coll_basic>)
  set_tests_properties(mpi.hier.${algo}.coll_basic.8 PROPERTIES TIMEOUT 180
    LABELS "mpi;hier" ENVIRONMENT
    "GROVE_MPI_CLUSTERS=4x2;GROVE_MPI_BCAST=${algo};GROVE_MPI_WAN=100us,1GB/s;GROVE_LOGP_PARAMS=${CMAKE_SOURCE_DIR}/docs/bcast.logp")
endforeach()
