// libFuzzer harness: arbitrary text as a shard's report for `dmci merge` (reports/Provenance.h, GateReport.h,
// FuzzReport.h): the JSON files a sharded gate or fuzz campaign leaves, read back from wherever they were copied.
//
// The text is parsed as merge parses it (support/JsonParse.h), then read as a report of its own kind and merged
// alone and with itself. Each step gives a value or an error: a syntax error or a number past double's range at a
// line and column of the text; a report that reads and merges alone keeps its pair or failure count; the same
// shard twice is refused. Anything else (an exception, a crash, a sanitizer report) is a finding.
#include <cstdint>
#include <string>

#include "FuzzChecks.h"
#include "oracle/gate/Summary.h"
#include "reports/FuzzReport.h"
#include "reports/GateReport.h"
#include "support/JsonParse.h"

namespace {
using namespace dmci;
using dmci::fuzz::require;
using json = nlohmann::ordered_json;

void checkGate(const json& doc, const std::string& path) {
  auto report = reports::readGateReport(doc, path);
  if (!report) return;
  auto alone = reports::mergeGateReports({*report});
  if (alone) {
    require(alone->run.results.size() == report->run.results.size(), "a one-shard merge changed the pair count");
    (void)gate::summarize(alone->run);
  }
  require(!reports::mergeGateReports({*report, *report}), "the same gate shard merged twice");
}

void checkFuzz(const json& doc, const std::string& path) {
  auto report = reports::readFuzzReport(doc, path);
  if (!report) return;
  auto alone = reports::mergeFuzzReports({*report});
  if (alone) require(alone->report.cases == report->report.cases, "a one-shard merge changed the case count");
  require(!reports::mergeFuzzReports({*report, *report}), "the same fuzz shard merged twice");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string path = "fuzz.json";
  auto doc = parseJsonText<json>(text, path, ErrorKind::Io);
  if (!doc) {
    dmci::fuzz::checkErrorAt(doc.error(), text, path);
    return 0;
  }
  auto from = reports::provenanceFromJson(*doc, path);
  if (!from) return 0;
  checkGate(*doc, path);
  checkFuzz(*doc, path);
  return 0;
}
