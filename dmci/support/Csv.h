// The one CSV reader: fit's data tables (fit/DataTable) and the lane files of every engine (driver/LaneInput)
// both split their text here, so that a cell means the same in both and every error can name its line and column.
//
// The dialect is the small one both files document: cells separated by commas (no quoting), blank lines and lines
// whose first non-blank character is '#' skipped, each cell trimmed of spaces, tabs and carriage returns. The
// reader never fails: what a row must hold (a header of names, one number per name) each caller checks, and reports
// at the row's line and the cell's column in its own words.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dmci {

struct CsvCell {
  std::string text;  // trimmed
  uint32_t col;      // 1-based: the cell's first non-blank character (its start when it is blank)
};

struct CsvRow {
  uint32_t line;    // 1-based line in the text
  uint32_t length;  // the line's length in bytes (a '\r' before the newline included)
  std::vector<CsvCell> cells;
};

// The rows of a CSV text: one per line that is neither blank nor a '#' comment, in order.
std::vector<CsvRow> readCsv(const std::string& text);

// A problem at a place in the text, for the caller to report as an error at file:line:col.
struct CsvProblem {
  uint32_t line, col;
  std::string message;
};

// True when `name`, written as it is, reads back as that one symbol: a name a program can refer to (a header
// cell, a --data-list name). Control bytes, bars and backslashes are refused before the reader is asked.
bool readsAsBareSymbol(const std::string& name);

// A header row's names; the first empty name, name that does not read back as one plain symbol (a name becomes a
// Scheme variable) or repeated name is a problem, in the words "empty NOUN name in the header", "NOUN name "x y" in
// the header is not a plain symbol (...)" (the name written as a Scheme string, control bytes escaped) and "NOUN 'x'
// appears twice in the header" (NOUN: "column", "parameter").
std::optional<CsvProblem> checkHeader(const CsvRow& header, std::string_view noun);

// A cell's number (strtod over all of the cell), or nullopt when the cell is empty or more than a number.
std::optional<double> csvNumber(const std::string& cell);

}  // namespace dmci
