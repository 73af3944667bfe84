// libFuzzer harness: arbitrary text through the reader, the printer, the expander and both routes under small budgets.
//
// Built by dmci_fuzz_harness (properties/libfuzzer/CMakeLists.txt): a libFuzzer binary for ci/libfuzzer, and in
// every build a regression run over corpus/**/*.scm and crashes/program/ (ctest: libfuzzer_program). Every input
// must end in a value or a clean Error: a crash, a sanitizer report, a leak or a hang (past the budgets) is a
// finding.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "driver/Program.h"
#include "syntax/Reader.h"

namespace {
using namespace dmci;

// print -> read is the identity on whatever the reader accepts.
void checkRoundTrip(const std::vector<DatumPtr>& forms) {
  for (const auto& d : forms) {
    auto again = readAll(print(*d), "again.scm");
    if (!again || again->size() != 1 || !equalDatum(*(*again)[0], *d)) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto forms = readAll(text, "fuzz.scm");
  if (!forms) return 0;
  checkRoundTrip(*forms);
  auto program = Program::fromText(text, "fuzz.scm");
  if (!program) return 0;
  EvalOptions opts;
  opts.budget = Budget{20'000, 200'000, 1.0};
  opts.wrtLiterals = true;
  std::vector<SeedValue> seed;
  for (const auto& name : program->freeParameters()) seed.push_back({name, 0.5});
  for (const auto& n : seed) opts.wrt.push_back(n.name);
  for (Route r : {Route::Direct, Route::Dmci}) {
    opts.route = r;
    (void)program->evaluate(seed, opts);
  }
  return 0;
}
