// libFuzzer harness: arbitrary bytes as an external proposer's standard output (search/ExternalProposer.h), and
// the programs in it as the search takes them (search/Expr.h, search/Search.h).
//
// The output is parsed as the search parses it: an error, or programs and refused items. Each program is read as
// a candidate; one that does not read must fail at a line and column of its text, and one that reads must print
// and read back to the same candidate (the search's state and its scoring re-read printed candidates) with the
// same canonical text, size and depth. The next prompt, with every program as a best member or a failure, must be
// JSON. Anything else, a crash or a sanitizer report is a finding.
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "FuzzChecks.h"
#include "search/ExternalProposer.h"
#include "search/Search.h"

namespace {
using namespace dmci;
using namespace dmci::search;
using dmci::fuzz::require;

bool sameExpr(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.text != b.text || a.items.size() != b.items.size()) return false;
  if (a.kind == Expr::Kind::Number && !dmci::fuzz::sameNumber(a.number, b.number)) return false;
  for (size_t k = 0; k < a.items.size(); ++k)
    if (!sameExpr(a.items[k], b.items[k])) return false;
  return true;
}

// The search's view of its data, for the prompt: one variable t, the target y, two rows.
const fit::DataTable& table() {
  static const fit::DataTable t = [] {
    auto r = fit::parseDataTable("t,y\n0,1\n1,2.5\n", "data.csv");
    if (!r) dmci::fuzz::finding("the harness's own table does not read: " + r.error().str());
    return *r;
  }();
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string out(reinterpret_cast<const char*>(data), size);
  ProposerReply reply = parseProposerOutput(out);
  if (!reply.error.empty()) {
    require(reply.programs.empty() && reply.rejected.empty(), "a failed reply with programs: " + reply.error);
    return 0;
  }
  std::vector<Member> best;
  std::vector<Failure> failures;
  for (const auto& why : reply.rejected) failures.push_back({"", why});
  for (const auto& text : reply.programs) {
    auto forms = readForms(text, "proposal");
    if (!forms) {
      dmci::fuzz::checkErrorAt(forms.error(), text, "proposal");
      failures.push_back({text, forms.error().str()});
      continue;
    }
    Candidate c{std::move(*forms), {{"a", 0.5}}};
    std::string printed = printForms(c.forms);
    auto again = readForms(printed, "state");
    require(again.ok(), "a printed candidate does not read back: " + (again ? "" : again.error().str()));
    require(again->size() == c.forms.size(), "a printed candidate reads back as another number of forms");
    for (size_t k = 0; k < c.forms.size(); ++k)
      require(sameExpr((*again)[k], c.forms[k]), "a printed candidate reads back different: " + printed);
    for (int digits : {2, 12})
      require(canonicalText(again->back(), digits) == canonicalText(c.value(), digits) &&
                  canonicalHash(again->back(), digits) == canonicalHash(c.value(), digits),
              "a candidate read back has another canonical text: " + printed);
    require(complexity(c.value()) >= 1 && depth(c.value()) >= 1, "a candidate without size or depth");
    best.push_back(Member{c, 0.1, 0.2, complexity(c.value()), best.size() + 1, 0.1});
  }
  Task task;
  task.data = &table();
  task.target = "y", task.vars = {"t"}, task.params = {"a"};
  SearchSettings settings;
  auto prompt = nlohmann::json::parse(proposerPrompt(task, settings, best, failures, 1), nullptr, false);
  require(!prompt.is_discarded(), "the next prompt is not JSON");
  require(prompt["best"].size() == best.size() && prompt["failures"].size() == failures.size(),
          "the next prompt lost a member or a failure");
  return 0;
}
