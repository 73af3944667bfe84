// CSV data for `dmci fit`, read with the position of every cell.
#include "fit/DataTable.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace dmci::fit {

namespace {

[[noreturn]] void fail(const std::string& path, uint32_t line, uint32_t col, const std::string& msg) {
  throw DmciError(Error{ErrorKind::Usage, msg, SrcPos{internFile(path), line, col}});
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// The cells of a line: their text (trimmed) and 1-based column.
std::vector<std::pair<std::string, uint32_t>> cellsOf(const std::string& line) {
  std::vector<std::pair<std::string, uint32_t>> cells;
  for (size_t start = 0;;) {
    size_t comma = line.find(',', start);
    std::string cell = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t lead = cell.find_first_not_of(" \t");
    cells.emplace_back(trim(cell), static_cast<uint32_t>(start + (lead == std::string::npos ? 0 : lead) + 1));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return cells;
}

void readHeader(DataTable& t, const std::vector<std::pair<std::string, uint32_t>>& cells, uint32_t line) {
  for (const auto& [name, col] : cells) {
    if (name.empty()) fail(t.path, line, col, "empty column name in the header");
    if (t.find(name) >= 0) fail(t.path, line, col, "column '" + name + "' appears twice in the header");
    t.names.push_back(name);
  }
  t.columns.assign(t.names.size(), {});
}

void readRow(DataTable& t, const std::vector<std::pair<std::string, uint32_t>>& cells, const std::string& text,
             uint32_t line, bool dropNonFinite) {
  if (cells.size() != t.names.size())
    fail(t.path, line, cells.size() < t.names.size() ? static_cast<uint32_t>(text.size() + 1) : cells.back().second,
         "expected " + std::to_string(t.names.size()) + " cells (one per column), got " + std::to_string(cells.size()));
  std::vector<double> row(cells.size());
  for (size_t k = 0; k < cells.size(); ++k) {
    const auto& [cell, col] = cells[k];
    if (cell.empty()) fail(t.path, line, col, "empty cell in column '" + t.names[k] + "'");
    char* end = nullptr;
    double x = std::strtod(cell.c_str(), &end);
    if (*end != '\0') fail(t.path, line, col, "'" + cell + "' is not a number (column '" + t.names[k] + "')");
    if (!std::isfinite(x)) {
      if (dropNonFinite) {
        ++t.dropped;
        return;
      }
      fail(t.path, line, col,
           "'" + cell + "' is not a finite number (column '" + t.names[k] +
               "'); remove the row, or give --drop-nonfinite to drop every such row");
    }
    row[k] = x;
  }
  for (size_t k = 0; k < row.size(); ++k) t.columns[k].push_back(row[k]);
  t.lines.push_back(line);
}

}  // namespace

int DataTable::find(const std::string& name) const {
  for (size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return static_cast<int>(k);
  return -1;
}

Result<int> DataTable::column(const std::string& name, const std::string& why) const {
  int k = find(name);
  if (k >= 0) return k;
  std::string have;
  for (const auto& n : names) have += (have.empty() ? "" : ", ") + n;
  return Error{ErrorKind::Usage, "no column '" + name + "' (" + why + "); the columns are " + have,
               SrcPos{internFile(path), 1, 1}};
}

std::string DataTable::rowPlace(size_t r) const { return path + ":" + std::to_string(lines[r]); }

Result<DataTable> parseDataTable(const std::string& text, const std::string& path, bool dropNonFinite) {
  return catchErrors([&] {
    DataTable t;
    t.path = path;
    std::istringstream in(text);
    std::string line;
    bool header = true;
    for (uint32_t lineNo = 1; std::getline(in, line); ++lineNo) {
      if (trim(line).empty() || trim(line)[0] == '#') continue;
      auto cells = cellsOf(line);
      if (header)
        readHeader(t, cells, lineNo), header = false;
      else
        readRow(t, cells, line, lineNo, dropNonFinite);
    }
    if (header) fail(path, 1, 1, "the data file is empty: expected a header of column names, then rows of numbers");
    if (t.rows() == 0 && t.dropped > 0)
      fail(path, 1, 1,
           "every row of the data file has a cell that is not finite (" + std::to_string(t.dropped) + " dropped)");
    if (t.rows() == 0) fail(path, 1, 1, "the data file has a header but no rows");
    return t;
  });
}

Result<DataTable> readDataTable(const std::string& path, bool dropNonFinite) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path, {}};
  std::ostringstream s;
  s << in.rdbuf();
  return parseDataTable(s.str(), path, dropNonFinite);
}

}  // namespace dmci::fit
