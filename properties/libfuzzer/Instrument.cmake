# The libFuzzer build's instrumentation (-DDMCI_LIBFUZZER=ON with clang; the `libfuzzer` preset, ci/libfuzzer).
#
# Included from the top-level CMakeLists.txt before any target is made, so that every object of the tree (the
# library, and whatever folder or library joins it later) is compiled once with coverage, AddressSanitizer,
# UBSan and libstdc++'s bounds checks. The harnesses themselves are made in properties/libfuzzer/CMakeLists.txt.
option(DMCI_LIBFUZZER "Build the libFuzzer harnesses (clang only; the whole tree gets coverage, ASan, UBSan)" OFF)
if(DMCI_LIBFUZZER)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DMCI_LIBFUZZER needs clang (e.g. cmake --preset libfuzzer, which uses clang++-14); "
                        "this build's compiler is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  set(DMCI_FUZZ_SANITIZERS -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_compile_options(-fsanitize=fuzzer-no-link ${DMCI_FUZZ_SANITIZERS} -g -D_GLIBCXX_ASSERTIONS)
  add_link_options(${DMCI_FUZZ_SANITIZERS})
  message(STATUS "libFuzzer: on; every target is instrumented (coverage, ASan, UBSan, _GLIBCXX_ASSERTIONS)")
endif()
