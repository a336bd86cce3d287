# cases_registered.cmake - a test program's cases (`PROGRAM --list`, one a
# line) against the cases CMake registered for it (CASES, comma-separated):
# a case left out of gj2k_add_test_program's CASES would never run in CI.
# Usage: cmake -DPROGRAM=path -DCASES=a,b,c -P cases_registered.cmake
cmake_minimum_required(VERSION 3.13)
execute_process(COMMAND ${PROGRAM} --list OUTPUT_VARIABLE listed RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} --list: exit status ${status}")
endif()
string(REGEX REPLACE "\n$" "" listed "${listed}")
string(REPLACE "\n" ";" listed "${listed}")
string(REPLACE "," ";" registered "${CASES}")
set(missing "")
foreach(name IN LISTS listed)
  if(NOT name IN_LIST registered)
    list(APPEND missing "${name}")
  endif()
endforeach()
set(unknown "")
foreach(name IN LISTS registered)
  if(NOT name IN_LIST listed)
    list(APPEND unknown "${name}")
  endif()
endforeach()
if(missing OR unknown)
  message(FATAL_ERROR "${PROGRAM}: cases in its table but not registered: [${missing}]; "
                      "registered but not in its table: [${unknown}]")
endif()
