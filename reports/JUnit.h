// JUnit XML, the test-result format CI systems display (Jenkins, GitLab, GitHub Actions' reporters): the one
// writer that `dmci check --junit`, `dmci fuzz --junit` and `dmci merge --junit` use.
//
// The structure is the common schema's (Ant's JUnit task, Jenkins' junit-10.xsd; reports/junit.xsd states the
// part we write): <testsuites> holds <testsuite name tests failures errors skipped time>, which holds
// <properties>, then <testcase name classname time>, each with at most one <failure message type>text</failure>
// and its <system-out>.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "syntax/Error.h"

namespace dmci::reports {

struct JUnitFailure {
  std::string message;  // one line
  std::string type;     // what kind of failure, e.g. "gate.fail" or "fuzz.triangle"
  std::string text;     // the details
};

struct JUnitCase {
  std::string classname, name;
  double seconds = 0;
  std::optional<JUnitFailure> failure;
  std::string output;  // <system-out>, left out when empty
};

struct JUnitSuite {
  std::string name;
  double seconds = 0;
  std::vector<std::pair<std::string, std::string>> properties;  // shard, fingerprint, seed
  std::vector<JUnitCase> cases;
};

// The document: <testsuites> with the suites' totals.
std::string junitXml(const std::string& name, const std::vector<JUnitSuite>& suites);
// Writes it atomically; an Io error names the path.
Result<bool> writeJUnit(const std::string& path, const std::string& name, const std::vector<JUnitSuite>& suites);

}  // namespace dmci::reports
