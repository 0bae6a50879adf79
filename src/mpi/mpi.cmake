# Grove MPI: libgrove-mpi (shared and static), mpi.h, the compiler
# wrappers (mpicc, mpicxx), mpiexec/mpirun and grove-mpi.pc.
# Included from the top CMakeLists.txt after the grove library targets.

# The function list drives two generated files: the weak MPI_ functions
# that call the PMPI_ implementations, and the function ids of the
# statistics (src/mpi/gen_mpi_api.py).  Made at configure time, and again
# whenever the list changes.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(GROVE_MPI_FUNCS_H ${CMAKE_SOURCE_DIR}/include/grove_mpi_functions.h)
set(GROVE_MPI_GEN_DIR ${CMAKE_BINARY_DIR}/mpi-gen)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${GROVE_MPI_FUNCS_H} ${CMAKE_SOURCE_DIR}/src/mpi/gen_mpi_api.py)
execute_process(
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/src/mpi/gen_mpi_api.py
          ${GROVE_MPI_FUNCS_H} ${GROVE_MPI_GEN_DIR}
  RESULT_VARIABLE grove_mpi_gen_rc)
if(NOT grove_mpi_gen_rc EQUAL 0)
  message(FATAL_ERROR "src/mpi/gen_mpi_api.py failed")
endif()

file(GLOB GROVE_MPI_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/mpi/*.c)
add_library(grove_mpi_obj OBJECT ${GROVE_MPI_SOURCES} ${GROVE_MPI_GEN_DIR}/mpi_weak.c)
set_target_properties(grove_mpi_obj PROPERTIES POSITION_INDEPENDENT_CODE ON)
target_include_directories(grove_mpi_obj
  PUBLIC $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include>
  PRIVATE ${CMAKE_SOURCE_DIR}/src ${GROVE_MPI_GEN_DIR})
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(grove_mpi_obj PRIVATE -fno-semantic-interposition)
endif()
# The TCP transport's handshake uses libsodium's HMAC-SHA256 and
# randomness (src/mpi/tcp_hs.c), as the tree's does.
target_link_libraries(grove_mpi_obj PRIVATE PkgConfig::SODIUM)

# Start-up under Open MPI's mpirun needs PMIx's header only (types and
# key names); the library is loaded at run time (src/mpi/boot_pmix.c).
pkg_check_modules(PMIX QUIET pmix)
if(PMIX_FOUND)
  target_compile_definitions(grove_mpi_obj PRIVATE GROVE_HAVE_PMIX=1)
  target_include_directories(grove_mpi_obj SYSTEM PRIVATE ${PMIX_INCLUDE_DIRS})
  message(STATUS "Grove MPI: with PMIx ${PMIX_VERSION} (mpirun start-up)")
else()
  message(STATUS "Grove MPI: built without PMIx (pmix.h not found; "
                 "install libpmix-dev for Open MPI's mpirun)")
endif()

add_library(grove-mpi SHARED $<TARGET_OBJECTS:grove_mpi_obj>)
target_include_directories(grove-mpi PUBLIC
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
target_link_libraries(grove-mpi PRIVATE grove PkgConfig::SODIUM m rt)
set_target_properties(grove-mpi PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 0
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/src/mpi/libgrove-mpi.map)
# Exports MPI_*, PMPI_* and the predefined objects only.
target_link_options(grove-mpi PRIVATE
  "LINKER:--version-script=${CMAKE_SOURCE_DIR}/src/mpi/libgrove-mpi.map")

add_library(grove-mpi_static STATIC $<TARGET_OBJECTS:grove_mpi_obj>)
set_target_properties(grove-mpi_static PROPERTIES OUTPUT_NAME grove-mpi)
target_include_directories(grove-mpi_static PUBLIC
  $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/include> $<INSTALL_INTERFACE:include>)
target_link_libraries(grove-mpi_static PUBLIC grove_static m rt)

install(TARGETS grove-mpi grove-mpi_static)
install(FILES include/mpi.h include/grove_mpi_functions.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# Compiler wrappers and launcher names: one copy for the build tree (uses
# the sources' headers and the build's libraries, found at run time by
# rpath) and one for the installed tree.
# A sanitizer build's library needs its programs built with the same
# runtime (it must come first in the list of loaded libraries).
if(GROVE_SANITIZE)
  set(GROVE_MPI_SAN_FLAGS "-fsanitize=address,undefined ")
else()
  set(GROVE_MPI_SAN_FLAGS "")
endif()
function(grove_mpi_wrappers dir incdir libdir bindir)
  foreach(w mpicc mpicxx)
    if(w STREQUAL "mpicc")
      set(GROVE_MPI_DRIVER "cc")
      set(GROVE_MPI_DRIVER_ENV "GROVE_MPICC_CC")
    else()
      set(GROVE_MPI_DRIVER "c++")
      set(GROVE_MPI_DRIVER_ENV "GROVE_MPICXX_CXX")
    endif()
    set(GROVE_MPI_INCDIR ${incdir})
    set(GROVE_MPI_LIBDIR ${libdir})
    configure_file(${CMAKE_SOURCE_DIR}/src/mpi/wrapper.sh.in ${dir}/${w} @ONLY
                   FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                   GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
  foreach(w mpiexec mpirun)
    set(GROVE_MPI_BINDIR ${bindir})
    configure_file(${CMAKE_SOURCE_DIR}/src/mpi/mpiexec.sh.in ${dir}/${w} @ONLY
                   FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
                   GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endforeach()
endfunction()
grove_mpi_wrappers(${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR}/include
                   ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR})
# Installed: relative to the wrapper's own directory ($here), like
# grove.pc is relative to itself.
file(RELATIVE_PATH grove_mpi_bin_to_inc ${CMAKE_INSTALL_FULL_BINDIR}
     ${CMAKE_INSTALL_FULL_INCLUDEDIR})
grove_mpi_wrappers(${CMAKE_BINARY_DIR}/mpi-install "$here/${grove_mpi_bin_to_inc}"
                   "$here/${GROVE_REL_BIN_TO_LIB}" "$here")
install(PROGRAMS ${CMAKE_BINARY_DIR}/mpi-install/mpicc
                 ${CMAKE_BINARY_DIR}/mpi-install/mpicxx
                 ${CMAKE_BINARY_DIR}/mpi-install/mpiexec
                 ${CMAKE_BINARY_DIR}/mpi-install/mpirun
        DESTINATION ${CMAKE_INSTALL_BINDIR})
configure_file(${CMAKE_SOURCE_DIR}/src/mpi/grove-mpi.pc.in grove-mpi.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/grove-mpi.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# grove run reads the statistics layout (function ids) of the job segment.
target_include_directories(grove-cli PRIVATE ${GROVE_MPI_GEN_DIR})
set_target_properties(grove-mpi PROPERTIES INSTALL_RPATH "$ORIGIN")

# The MPI examples (the tutorial's programs: docs/tutorial-mpi.md).
file(GLOB GROVE_MPI_EXAMPLES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/examples/mpi/*.c)
foreach(src ${GROVE_MPI_EXAMPLES})
  get_filename_component(name ${src} NAME_WE)
  add_executable(mpi_${name} ${src})
  target_link_libraries(mpi_${name} PRIVATE grove-mpi)
endforeach()
