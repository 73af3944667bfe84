// libFuzzer harness: arbitrary text through the lane-file reader (driver/LaneInput.h), CSV or JSON, that
// `dmci run/grad --lanes FILE` and every engine's batch take their parameter values from.
//
// Each input is read twice: as a file whose format is told by its first character, and as a .json file. A batch
// read must be whole (at least one parameter, names unique, one value per lane for every parameter, at least one
// lane) and pass the seed checks every engine makes; an error must be a usage error at a line and column of the
// text. Anything else, a crash or a sanitizer report is a finding.
#include <cstdint>
#include <string>

#include "FuzzChecks.h"
#include "driver/LaneInput.h"

namespace {
using namespace dmci;
using dmci::fuzz::require;

void checkOne(const std::string& text, const std::string& file) {
  auto batch = parseLaneFile(text, file);
  if (!batch) {
    require(batch.error().kind == ErrorKind::Usage, "not a usage error: " + batch.error().str());
    dmci::fuzz::checkErrorAt(batch.error(), text, file);
    return;
  }
  require(!batch->params.empty() && batch->values.size() == batch->params.size(), "a batch without its values");
  require(batch->lanes() >= 1, "a batch without lanes");
  for (const auto& v : batch->values)
    require(static_cast<int64_t>(v.size()) == batch->lanes(), "a parameter without one value per lane");
  for (size_t lane : {size_t{0}, static_cast<size_t>(batch->lanes() - 1)}) {
    auto seed = batch->seed(lane);
    require(seed.size() == batch->params.size(), "a lane's seed without every parameter");
    auto err = checkSeed(seed, batch->params);
    require(!err, "a lane's seed fails the engines' checks: " + (err ? err->str() : ""));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  checkOne(text, "fuzz.lanes");
  checkOne(text, "fuzz.json");
  return 0;
}
