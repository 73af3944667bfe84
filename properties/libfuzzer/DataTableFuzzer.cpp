// libFuzzer harness: arbitrary text through fit's CSV reader (fit/DataTable.h), the table `dmci fit` and
// `dmci search` read their data from.
//
// A table read must be whole (a name per column, unique and non-empty; every column one number per row; rows in
// file order, each at a line of the text) and must read back the same from the CSV written from it; an error
// must be at a line and column of the text. Anything else, a crash or a sanitizer report is a finding.
#include <cstdint>
#include <cstdio>
#include <string>

#include "FuzzChecks.h"
#include "fit/DataTable.h"

namespace {
using namespace dmci;
using dmci::fuzz::require;

void checkWhole(const fit::DataTable& t, const std::string& text) {
  require(!t.names.empty() && t.columns.size() == t.names.size(), "a table without one column per name");
  require(t.rows() > 0, "a table without rows");
  for (size_t k = 0; k < t.names.size(); ++k) {
    require(!t.names[k].empty(), "an empty column name");
    require(t.find(t.names[k]) == static_cast<int>(k), "column '" + t.names[k] + "' found elsewhere");
    require(t.columns[k].size() == t.rows(), "column '" + t.names[k] + "' is ragged");
    require(t.column(t.names[k], "fuzz").ok(), "column '" + t.names[k] + "' not found by name");
  }
  uint32_t lines = 1;
  for (char c : text) lines += c == '\n';
  for (size_t r = 0; r < t.rows(); ++r) {
    require(t.lines[r] >= 2 && t.lines[r] <= lines, "row " + std::to_string(r) + " at a line outside the text");
    require(r == 0 || t.lines[r] > t.lines[r - 1], "rows out of file order");
    require(t.rowPlace(r) == t.path + ":" + std::to_string(t.lines[r]), "a row's place is not file:line");
  }
  // A name that no header can hold: longer than every name in this one (the names joined, and one byte more).
  std::string absent = "?";
  for (const auto& name : t.names) absent += name;
  auto missing = t.column(absent, "fuzz");
  require(!missing.ok(), "a column found that the header lacks");
  dmci::fuzz::checkErrorAt(missing.error(), text, t.path);
}

// The table as CSV: its header, then every row with 17 significant digits (what strtod reads back exactly).
std::string writeCsv(const fit::DataTable& t) {
  std::string out;
  for (size_t k = 0; k < t.names.size(); ++k) out += (k ? "," : "") + t.names[k];
  out += '\n';
  for (size_t r = 0; r < t.rows(); ++r) {
    for (size_t k = 0; k < t.columns.size(); ++k) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", t.columns[k][r]);
      out += (k ? "," : "") + std::string(buf);
    }
    out += '\n';
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size), file = "fuzz.csv";
  auto table = fit::parseDataTable(text, file);
  if (!table) {
    require(table.error().kind == ErrorKind::Usage, "not a usage error: " + table.error().str());
    dmci::fuzz::checkErrorAt(table.error(), text, file);
    return 0;
  }
  checkWhole(*table, text);
  auto again = fit::parseDataTable(writeCsv(*table), "again.csv");
  require(again.ok(), "the table written back does not read: " + (again ? "" : again.error().str()));
  require(again->names == table->names && again->rows() == table->rows(), "the table read back differs");
  for (size_t k = 0; k < table->columns.size(); ++k)
    for (size_t r = 0; r < table->rows(); ++r)
      require(dmci::fuzz::sameNumber(again->columns[k][r], table->columns[k][r]),
              "a number read back differs (column '" + table->names[k] + "')");
  return 0;
}
