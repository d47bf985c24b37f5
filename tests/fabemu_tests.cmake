# fabemu_unit_test(NAME SOURCE LIBS...): a Criterion test program registered with ctest.
# Unit tests may run in parallel (ctest -j): each has its own EAL prefix and no files.
# Every one is in `tests/run.sh quick` (label quick, built by the target quick), and in the
# sanitizer build too: in the ordinary build it is labelled twin, and the full suite runs
# it under the sanitizers only (tests/run.sh).
function(fabemu_unit_test name src)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE ${ARGN} PkgConfig::CRITERION)
  add_test(NAME ${name} COMMAND ${name} --verbose=0)
  set(labels "unit;quick")
  if(NOT FABEMU_SANITIZE)
    list(APPEND labels twin)
  endif()
  set_tests_properties(${name} PROPERTIES LABELS "${labels}" TIMEOUT 120)
  add_dependencies(quick ${name})
endfunction()

# fabemu_e2e_test(NAME SCRIPT [QUICK]): a bash script that runs real binaries (needs root).
# Scripts get the build's bin directory in FABEMU_BIN. Each runs alone (RUN_SERIAL, even
# under ctest -j): they share the machine's two cores, some measure timing, and their
# namespaces have fixed names. QUICK: one of the few, exact and taking seconds, that
# `tests/run.sh quick` runs beside the unit tests (they need only what the target quick
# builds: fabemu-dp and the pcap tools).
function(fabemu_e2e_test name script)
  add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${script})
  set(labels e2e)
  if(ARGV2 STREQUAL "QUICK")
    list(APPEND labels quick)
  endif()
  set_tests_properties(${name} PROPERTIES
    LABELS "${labels}" TIMEOUT 300 RUN_SERIAL ON
    ENVIRONMENT "FABEMU_BIN=${CMAKE_BINARY_DIR}/bin;FABEMU_SRC=${CMAKE_SOURCE_DIR}")
endfunction()
