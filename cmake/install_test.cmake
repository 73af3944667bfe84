# ctest install_tree: installs the build into a fresh prefix and runs the installed dmci, which must find its
# tensor-engine plugin in PREFIX/lib/dmci (no build folder, no DMCI_ENGINE_PATH).
file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD}" --prefix "${PREFIX}" RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed (${rc})")
endif()
set(ENV{DMCI_ENGINE_PATH} "")
execute_process(COMMAND "${PREFIX}/bin/dmci" run --engine tensor -e "(list (* 2 100000) (vec 1 2))"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out STREQUAL "(200000 #<tensor 2 (1 2)>)\n")
  message(FATAL_ERROR "installed dmci --engine tensor: exit ${rc}, output '${out}', error '${err}'")
endif()
execute_process(COMMAND "${PREFIX}/bin/dmci" engines OUTPUT_VARIABLE out)
if(NOT out MATCHES "tensor\tavailable")
  message(FATAL_ERROR "installed dmci engines: '${out}'")
endif()
file(REMOVE_RECURSE "${PREFIX}")
message(STATUS "installed tree: dmci --engine tensor found its plugin in lib/dmci")
