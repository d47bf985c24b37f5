# fabemu_unit_test(NAME SOURCE LIBS...): a Criterion test program registered with ctest.
function(fabemu_unit_test name src)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE ${ARGN} PkgConfig::CRITERION)
  add_test(NAME ${name} COMMAND ${name} --verbose=0)
  set_tests_properties(${name} PROPERTIES LABELS unit TIMEOUT 120)
endfunction()

# fabemu_e2e_test(NAME SCRIPT): a bash script that runs real binaries (needs root).
# Scripts get the build's bin directory in FABEMU_BIN. They run one at a time
# (RESOURCE_LOCK) because they share the machine's two cores and its namespaces.
function(fabemu_e2e_test name script)
  add_test(NAME ${name} COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/${script})
  set_tests_properties(${name} PROPERTIES
    LABELS e2e TIMEOUT 300 RESOURCE_LOCK machine
    ENVIRONMENT "FABEMU_BIN=${CMAKE_BINARY_DIR}/bin;FABEMU_SRC=${CMAKE_SOURCE_DIR}")
endfunction()
