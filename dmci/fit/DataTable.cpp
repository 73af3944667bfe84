// CSV data for `dmci fit`: the one CSV reader (support/Csv) splits the cells; this checks them as numbers.
#include "fit/DataTable.h"

#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>

#include "support/Csv.h"

namespace dmci::fit {

namespace {

[[noreturn]] void fail(const std::string& path, uint32_t line, uint32_t col, const std::string& msg) {
  throw DmciError(Error{ErrorKind::Usage, msg, SrcPos{internFile(path), line, col}});
}

void readRow(DataTable& t, const CsvRow& r, bool dropNonFinite) {
  const auto& cells = r.cells;
  if (cells.size() != t.names.size())
    fail(t.path, r.line, cells.size() < t.names.size() ? r.length + 1 : cells.back().col,
         "expected " + std::to_string(t.names.size()) + " cells (one per column), got " + std::to_string(cells.size()));
  std::vector<double> row(cells.size());
  for (size_t k = 0; k < cells.size(); ++k) {
    const auto& [cell, col] = cells[k];
    if (cell.empty()) fail(t.path, r.line, col, "empty cell in column '" + t.names[k] + "'");
    std::optional<double> x = csvNumber(cell);
    if (!x) fail(t.path, r.line, col, "'" + cell + "' is not a number (column '" + t.names[k] + "')");
    if (!std::isfinite(*x)) {
      if (dropNonFinite) {
        ++t.dropped;
        return;
      }
      fail(t.path, r.line, col,
           "'" + cell + "' is not a finite number (column '" + t.names[k] +
               "'); remove the row, or give --drop-nonfinite to drop every such row");
    }
    row[k] = *x;
  }
  for (size_t k = 0; k < row.size(); ++k) t.columns[k].push_back(row[k]);
  t.lines.push_back(r.line);
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
    std::vector<CsvRow> rows = readCsv(text);
    if (!rows.empty()) {
      if (auto bad = checkHeader(rows[0], "column")) fail(path, bad->line, bad->col, bad->message);
      for (const CsvCell& c : rows[0].cells) t.names.push_back(c.text);
      t.columns.assign(t.names.size(), {});
    }
    for (size_t r = 1; r < rows.size(); ++r) readRow(t, rows[r], dropNonFinite);
    if (rows.empty())
      fail(path, 1, 1, "the data file is empty: expected a header of column names, then rows of numbers");
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
