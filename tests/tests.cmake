# Test registration.  Every tests/unit/test_*.c is a cmocka program; every
# tests/integration/it_*.c starts real processes (see tests/integration/
# README).  Each test runs in its own process with a timeout.
find_library(CMOCKA_LIB cmocka REQUIRED)

file(GLOB GROVE_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
foreach(src ${GROVE_UNIT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  # Unit tests test internals, which libgrove.so does not export.
  grove_link_internal(${name})
  target_link_libraries(${name} PRIVATE ${CMOCKA_LIB})
  if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
    # gcc 12 at -O3 mistakes open_memstream buffers for dangling locals.
    target_compile_options(${name} PRIVATE -Wno-dangling-pointer)
  endif()
  if(name MATCHES "^test_mpi_")
    # Grove MPI's pure modules (datatypes, ops, matching, rings).
    target_link_libraries(${name} PRIVATE grove_mpi_obj)
    target_include_directories(${name} PRIVATE ${GROVE_MPI_GEN_DIR})
  endif()
  if(name MATCHES "^test_bcsnode")
    # The BCS node manager's data plane, from its own sources.
    file(GLOB bcsnode_src ${CMAKE_SOURCE_DIR}/tools/bcsnode/*.c)
    list(FILTER bcsnode_src EXCLUDE REGEX "_main\\.c$")
    target_sources(${name} PRIVATE ${bcsnode_src})
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/bcsnode
                               ${GROVE_MPI_GEN_DIR})
    target_link_libraries(${name} PRIVATE grove_mpi_obj)
  endif()
  if(name MATCHES "^test_agent_")
    # The node agent's pure parts are tested from its own sources.
    file(GLOB agent_src ${CMAKE_SOURCE_DIR}/tools/agent/*.c)
    list(FILTER agent_src EXCLUDE REGEX "_main\\.c$")
    target_sources(${name} PRIVATE ${agent_src})
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools)
  endif()
  if(name MATCHES "^test_top_")
    # What grove top prints, from its own sources (with the agent's
    # metric table it prints).
    target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/top/top_view.c
                   ${CMAKE_SOURCE_DIR}/tools/agent/metrics.c)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools
                               ${CMAKE_SOURCE_DIR}/tools/top)
  endif()
  if(name MATCHES "^test_hostlist")
    # grove run's Slurm host lists, from its own source.
    target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/run/hostlist.c)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/run)
  endif()
  add_test(NAME unit.${name} COMMAND ${name})
  set_tests_properties(unit.${name} PROPERTIES TIMEOUT 120 LABELS unit)
endforeach()

# The library's modules (src/<module>/), whose headers are internal.
file(GLOB GROVE_SRC_MODULES LIST_DIRECTORIES true RELATIVE ${CMAKE_SOURCE_DIR}/src
     ${CMAKE_SOURCE_DIR}/src/*)
list(FILTER GROVE_SRC_MODULES EXCLUDE REGEX "\\.")
string(REPLACE ";" "|" GROVE_SRC_MODULES "${GROVE_SRC_MODULES}")
file(GLOB GROVE_IT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/integration/it_*.c)
file(GLOB GROVE_IT_HELPERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/integration/helper_*.c)
foreach(src ${GROVE_IT_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src} ${GROVE_IT_HELPERS})
  # A test that reaches into internals (includes a header of src/) links
  # the library's objects; the others link libgrove.so, as a tool does.
  file(STRINGS ${src} uses_internals REGEX "^#include \"(${GROVE_SRC_MODULES})/")
  # The fake children of the tests of what a parent accepts speak the
  # wire protocol themselves (internals): only those tests take them.
  file(STRINGS ${src} uses_fake_child REGEX "^#include \"fake_child.h\"")
  if(uses_fake_child)
    target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/integration/fake_child.c)
  endif()
  if(uses_internals)
    grove_link_internal(${name})
  else()
    target_link_libraries(${name} PRIVATE grove)
  endif()
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src
                             ${CMAKE_SOURCE_DIR}/tests/integration)
  if(name MATCHES "^it_scope")
    # The monitor's side of an event scope through the tree.
    target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/monitor/tree_scope.c)
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/monitor)
  endif()
  add_test(NAME it.${name} COMMAND ${name})
  set_tests_properties(it.${name} PROPERTIES TIMEOUT 300 LABELS integration
    ENVIRONMENT "GROVE_BUILD_DIR=${CMAKE_BINARY_DIR};GROVE_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endforeach()

# examples/filter_fe_only.c calls a function that it_filter_load defines:
# exported, it lets that library load in the test's FE and nowhere else.
set_target_properties(it_filter_load PROPERTIES ENABLE_EXPORTS ON)

# Local children get pipes to their parent; these tests run once more
# with Unix sockets (GROVE_LOCAL_LINK=socket), the transport of a child
# that finds no descriptors for pipes, so both paths stay tested.
foreach(name it_trees it_faults it_streams it_be_forks)
  add_test(NAME it.${name}.socket COMMAND ${name})
  set_tests_properties(it.${name}.socket PROPERTIES TIMEOUT 300
    LABELS integration ENVIRONMENT
    "GROVE_BUILD_DIR=${CMAKE_BINARY_DIR};GROVE_SOURCE_DIR=${CMAKE_SOURCE_DIR};GROVE_LOCAL_LINK=socket")
endforeach()

# Shell-level tests of the command-line tools: tests/cli/*.sh.  A script
# that cannot run here (the multi-host test bed without root or network
# namespaces) exits 77, which CTest reports as skipped, with its reason.
file(GLOB GROVE_CLI_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/cli/*.sh)
foreach(src ${GROVE_CLI_TESTS})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME cli.${name} COMMAND bash ${src} ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(cli.${name} PROPERTIES TIMEOUT 300 LABELS cli
    SKIP_RETURN_CODE 77)
endforeach()

# BCS determinism holds for timing differences smaller than a slice: the
# test that checks it runs alone, so that other tests do not delay its
# ranks by more than that.
set_tests_properties(cli.mpi_bcs_replay PROPERTIES RUN_SERIAL TRUE)

# The tests that start Slurm or Open MPI's mpirun look for the job
# segments their launchers' jobs leave: one at a time.
foreach(t cli.mpi_slurm cli.mpi_ompi cli.slurm_attach cli.slurm_salloc)
  if(TEST ${t})
    set_tests_properties(${t} PROPERTIES RESOURCE_LOCK grove_launchers)
  endif()
endforeach()

include(${CMAKE_SOURCE_DIR}/tests/mpi/mpi.cmake)

if(GROVE_FUZZ)
  file(GLOB GROVE_FUZZERS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
  foreach(src ${GROVE_FUZZERS})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_compile_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer,address,undefined)
    # Fuzzers feed internal decoders.
    grove_link_internal(${name})
    if(name MATCHES "^fuzz_mpi_")
      # Grove MPI's pure parsers, compiled into the fuzzer (instrumented).
      target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src/mpi/cluster_map.c
                     ${CMAKE_SOURCE_DIR}/src/mpi/card.c)
      target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/src)
    elseif(name STREQUAL "fuzz_hostlist")
      # grove run's Slurm host lists, from its own source.
      target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/run/hostlist.c)
      target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tools/run)
    endif()
    # A bounded run: CI time is finite, coverage-guided search is not.
    # New inputs go to the build tree (the first corpus directory); the
    # committed seeds are only read.
    file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz-corpus/${name})
    add_test(NAME fuzz.${name} COMMAND ${name} -max_total_time=60 -rss_limit_mb=2048
             ${CMAKE_BINARY_DIR}/fuzz-corpus/${name}
             ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${name})
    set_tests_properties(fuzz.${name} PROPERTIES TIMEOUT 200 LABELS fuzz)
  endforeach()
  # The TCP transport's decoders are Grove MPI's, not libgrove's: the
  # one pure file is compiled in.
  target_sources(fuzz_mpi_tcp_wire PRIVATE ${CMAKE_SOURCE_DIR}/src/mpi/tcp_wire.c)
  target_include_directories(fuzz_mpi_tcp_wire PRIVATE ${GROVE_MPI_GEN_DIR})
endif()
