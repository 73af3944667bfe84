// A harness with a known fault, for the regression driver's own tests (properties/libfuzzer/CMakeLists.txt): an
// input that starts with "TRAP" aborts, any other input returns. It shows that a saved reproducer which still
// crashes fails its CTest run and is named in the output.
#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size >= 4 && std::memcmp(data, "TRAP", 4) == 0) std::abort();
  return 0;
}
