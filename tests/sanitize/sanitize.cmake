# The sanitizer build (FABEMU_SANITIZE=ON; tests/run.sh builds it in build-asan and runs it):
# every unit test, and the end-to-end tests below, which check exact results whatever the
# machine's speed, under ASan and UBSan. The other end-to-end tests measure timing or
# carry real traffic between hosts, which a sanitized dataplane is too slow for: they run
# in the ordinary build only.
#
# Every sanitizer report of every process a test starts (fabemu-dp, fabemuctl, the tools,
# Criterion's forked test processes) goes to a file named after the test and the program
# in sanitizer-reports/ of the build. A test fails by its own exit status, as usual; and
# sanitizer_reports, which ctest runs after all of them (a fixture's cleanup), fails and
# prints every report, so that none can hide in a process whose exit status nobody looks
# at (Criterion ignores LeakSanitizer's at a test's exit; scripts run some commands with
# `|| true`). Leaks fail like any other report; tests/sanitize/lsan.supp may name
# allocations inside DPDK that are never freed, by DPDK function, and nothing else.
# (FE_SAN_E2E: tests/CMakeLists.txt lists them)
set(FE_SAN_DIR ${CMAKE_BINARY_DIR}/sanitizer-reports)
set(FE_SAN_SRC ${CMAKE_CURRENT_LIST_DIR})

# Only the listed end-to-end tests are registered (the original helper is _fabemu_e2e_test).
# The exact end-to-end tests (FE_SAN_E2E), each one at a time among themselves (their
# namespaces have fixed names) but beside the unit tests: they measure no time, and the
# unit tests under the sanitizers fill the cores while an end-to-end test waits on its
# hosts and its dataplane. Their cost puts them first where ctest has no timings of an
# earlier run (a fresh clone): else they would run last, one at a time, alone. But
# e2e_conservation, alone still: its link flaps must hold a link for a measurable time,
# which a dataplane sharing its core with the unit tests once did not ("the link was never
# held")
function(fabemu_e2e_test name)
  if(name IN_LIST FE_SAN_E2E)
    _fabemu_e2e_test(${ARGV})
    if(NOT name STREQUAL e2e_conservation)
      set_tests_properties(${name} PROPERTIES RUN_SERIAL OFF RESOURCE_LOCK fabemu_e2e
        COST 1000)
    endif()
  endif()
endfunction()

# Once tests/CMakeLists.txt has registered them all: the sanitizers' options and reports.
function(fe_sanitize_tests)
  # what no test of this build runs is not built: the MPI job (e2e_cli runs the
  # benchmarks' programs, fe-enginebench and fe-cpufloor; tests/run.sh builds the target all)
  set_target_properties(fe-allreduce PROPERTIES EXCLUDE_FROM_ALL ON)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS tests)
    set(log "log_path=${FE_SAN_DIR}/${t}:log_exe_name=1")
    set_property(TEST ${t} APPEND PROPERTY LABELS sanitize)
    set_property(TEST ${t} APPEND PROPERTY FIXTURES_REQUIRED sanitizer)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT
      "ASAN_OPTIONS=${log}:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
      "LSAN_OPTIONS=suppressions=${FE_SAN_SRC}/lsan.supp:print_suppressions=0"
      "UBSAN_OPTIONS=${log}:print_stacktrace=1:halt_on_error=1")
  endforeach()
  add_test(NAME sanitizer_reports_clear COMMAND bash ${FE_SAN_SRC}/reports.sh clear ${FE_SAN_DIR})
  set_tests_properties(sanitizer_reports_clear PROPERTIES FIXTURES_SETUP sanitizer
    LABELS sanitize)
  add_test(NAME sanitizer_reports COMMAND bash ${FE_SAN_SRC}/reports.sh check ${FE_SAN_DIR})
  set_tests_properties(sanitizer_reports PROPERTIES FIXTURES_CLEANUP sanitizer LABELS sanitize)
endfunction()
cmake_language(DEFER CALL fe_sanitize_tests)
