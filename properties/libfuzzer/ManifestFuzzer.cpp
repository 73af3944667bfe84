// libFuzzer harness: arbitrary text as a corpus manifest (oracle/gate/Manifest.h), the first file `dmci check`
// reads: a shared corpus is input like any other.
//
// A manifest read must be whole: pairs with unique, non-empty names and files inside the corpus folder, every
// `wrt` name bound, lanes of one length (at least two) over bound names, the direct route first. An error must be
// a usage error naming the manifest; one placed in the text (bad syntax, a number past double's range) at a line
// and column of it. Anything else (an exception, a crash, a sanitizer report) is a finding.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

#include "FuzzChecks.h"
#include "oracle/gate/Manifest.h"

namespace {
using namespace dmci;
using dmci::fuzz::require;

void checkPair(const gate::GatePair& p) {
  require(!p.name.empty() && !p.file.empty() && !p.family.empty(), "a pair without its name, file or family");
  const std::filesystem::path file(p.file);
  require(!file.is_absolute() && std::none_of(file.begin(), file.end(), [](const auto& part) { return part == ".."; }),
          "a pair's file outside the corpus: " + p.file);
  for (const auto& w : p.wrt)
    require(std::any_of(p.bind.begin(), p.bind.end(), [&](const SeedValue& b) { return b.name == w; }),
            "a wrt name that bind does not bind: " + w);
  require(!p.routes.empty() && p.routes.front() == Route::Direct, "routes without the direct route first");
  for (const auto& [name, values] : p.lanes)
    require(values.size() >= 2 && values.size() == p.laneCount(), "lanes of different lengths, or one lane");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string path = "fuzz/manifest.json";
  auto manifest = gate::parseManifest(text, "fuzz", path);
  if (!manifest) {
    const Error& e = manifest.error();
    require(e.kind == ErrorKind::Usage, "not a usage error: " + e.str());
    if (e.pos.known())
      dmci::fuzz::checkErrorAt(e, text, path);
    else
      require(e.message.rfind(path + ": ", 0) == 0, "an error that does not name the manifest: " + e.str());
    return 0;
  }
  std::set<std::string> names;
  for (const auto& p : manifest->pairs) {
    checkPair(p);
    require(names.insert(p.name).second, "two pairs named " + p.name);
  }
  return 0;
}
