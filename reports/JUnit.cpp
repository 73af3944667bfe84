// Writes JUnit XML: escapes text for attributes and content, counts tests and failures per suite and in all.
#include "reports/JUnit.h"

#include <cstdio>
#include <sstream>

#include "support/AtomicFile.h"

namespace dmci::reports {
namespace {

// Text as XML character data or an attribute value. Characters XML 1.0 cannot hold at all (control characters
// other than tab, newline and return) become '?'.
std::string escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        out += c < 0x20 || c == 0x7f ? '?' : ch;
    }
  }
  return out;
}

// In element content newlines read better as they are.
std::string content(const std::string& s) {
  std::string e = escaped(s), out;
  for (size_t k = 0; k < e.size(); ++k) {
    if (e.compare(k, 5, "&#10;") == 0) {
      out += '\n';
      k += 4;
    } else {
      out += e[k];
    }
  }
  return out;
}

std::string seconds(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", x < 0 ? 0.0 : x);
  return buf;
}

size_t failures(const JUnitSuite& s) {
  size_t n = 0;
  for (const auto& c : s.cases) n += c.failure.has_value();
  return n;
}

void writeCase(std::ostringstream& o, const JUnitCase& c) {
  o << "    <testcase name=\"" << escaped(c.name) << "\" classname=\"" << escaped(c.classname) << "\" time=\""
    << seconds(c.seconds) << "\"";
  if (!c.failure && c.output.empty()) {
    o << "/>\n";
    return;
  }
  o << ">\n";
  if (c.failure)
    o << "      <failure message=\"" << escaped(c.failure->message) << "\" type=\"" << escaped(c.failure->type) << "\">"
      << content(c.failure->text) << "</failure>\n";
  if (!c.output.empty()) o << "      <system-out>" << content(c.output) << "</system-out>\n";
  o << "    </testcase>\n";
}

void writeSuite(std::ostringstream& o, const JUnitSuite& s) {
  o << "  <testsuite name=\"" << escaped(s.name) << "\" tests=\"" << s.cases.size() << "\" failures=\"" << failures(s)
    << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds(s.seconds) << "\">\n";
  if (!s.properties.empty()) {
    o << "    <properties>\n";
    for (const auto& [k, v] : s.properties)
      o << "      <property name=\"" << escaped(k) << "\" value=\"" << escaped(v) << "\"/>\n";
    o << "    </properties>\n";
  }
  for (const auto& c : s.cases) writeCase(o, c);
  o << "  </testsuite>\n";
}

}  // namespace

std::string junitXml(const std::string& name, const std::vector<JUnitSuite>& suites) {
  size_t tests = 0, failed = 0;
  double time = 0;
  for (const auto& s : suites) tests += s.cases.size(), failed += failures(s), time += s.seconds;
  std::ostringstream o;
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" << escaped(name) << "\" tests=\"" << tests
    << "\" failures=\"" << failed << "\" errors=\"0\" skipped=\"0\" time=\"" << seconds(time) << "\">\n";
  for (const auto& s : suites) writeSuite(o, s);
  o << "</testsuites>\n";
  return o.str();
}

Result<bool> writeJUnit(const std::string& path, const std::string& name, const std::vector<JUnitSuite>& suites) {
  return writeFileAtomically(path, junitXml(name, suites));
}

}  // namespace dmci::reports
