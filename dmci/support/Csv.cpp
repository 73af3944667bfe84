// The one CSV reader (see Csv.h): lines to rows of trimmed cells with their columns.
#include "support/Csv.h"

#include <cstdlib>
#include <sstream>

#include "syntax/Datum.h"
#include "syntax/Reader.h"

namespace dmci {
namespace {

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The cells of a line: their text (trimmed) and 1-based column.
std::vector<CsvCell> cellsOf(const std::string& line) {
  std::vector<CsvCell> cells;
  for (size_t start = 0;;) {
    size_t comma = line.find(',', start);
    std::string cell = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t lead = cell.find_first_not_of(" \t");
    cells.push_back({trim(cell), static_cast<uint32_t>(start + (lead == std::string::npos ? 0 : lead) + 1)});
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

}  // namespace

// The reader would take "|x|" or a name with a bar-escaped byte as a symbol: those bytes are refused first.
bool readsAsBareSymbol(const std::string& name) {
  for (char ch : name) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F || ch == '|' || ch == '\\') return false;
  }
  auto read = readAll(name, "<header>");
  return read.ok() && read.value().size() == 1 && read.value()[0]->kind == DatumKind::Symbol &&
         read.value()[0]->text == name;
}

std::vector<CsvRow> readCsv(const std::string& text) {
  std::vector<CsvRow> rows;
  std::istringstream in(text);
  std::string line;
  for (uint32_t lineNo = 1; std::getline(in, line); ++lineNo) {
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    rows.push_back({lineNo, static_cast<uint32_t>(line.size()), cellsOf(line)});
  }
  return rows;
}

std::optional<CsvProblem> checkHeader(const CsvRow& header, std::string_view noun) {
  const std::string n(noun);
  for (size_t k = 0; k < header.cells.size(); ++k) {
    const CsvCell& c = header.cells[k];
    if (c.text.empty()) return CsvProblem{header.line, c.col, "empty " + n + " name in the header"};
    // A name in the header becomes a Scheme variable: it must read back as that one symbol, written as it is.
    if (!readsAsBareSymbol(c.text))
      return CsvProblem{header.line, c.col,
                        n + " name " + print(*Datum::string(c.text)) + " in the header is not a plain symbol (a " + n +
                            " name becomes a Scheme variable: no spaces, quotes, parentheses, ';', '#', control " +
                            "characters, nor a number)"};
    for (size_t j = 0; j < k; ++j)
      if (header.cells[j].text == c.text)
        return CsvProblem{header.line, c.col, n + " '" + c.text + "' appears twice in the header"};
  }
  return std::nullopt;
}

std::optional<double> csvNumber(const std::string& cell) {
  char* end = nullptr;
  double x = std::strtod(cell.c_str(), &end);
  if (cell.empty() || *end != '\0') return std::nullopt;
  return x;
}

}  // namespace dmci
