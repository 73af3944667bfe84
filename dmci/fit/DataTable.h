// The data a fit reads: a CSV table of named numeric columns, one row per observation, with each row's line
// in the file kept so that an error at a row can name it. Errors (an empty file, a missing header, an empty or
// non-numeric cell, a NaN or infinite cell, a ragged row, a column asked for that the file lacks) are Usage errors
// at file:line:col. Rows with a NaN or infinite cell are dropped instead only when asked (dropNonFinite), and
// counted.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "syntax/Error.h"

namespace dmci::fit {

struct DataTable {
  std::string path;
  std::vector<std::string> names;            // the header
  std::vector<std::vector<double>> columns;  // [column][row]
  std::vector<uint32_t> lines;               // each row's line in the file
  size_t dropped = 0;                        // rows dropped for a cell that is not finite (dropNonFinite)
  size_t rows() const { return lines.size(); }
  // The column called `name`, or -1.
  int find(const std::string& name) const;
  // The column called `name`; a Usage error at the header (file:1:1) naming the columns there are.
  Result<int> column(const std::string& name, const std::string& why) const;
  // Row r as file:line.
  std::string rowPlace(size_t r) const;
};

// Reads a CSV file: a header of column names, then one row of numbers per line; blank lines and lines starting
// with '#' are skipped.
Result<DataTable> readDataTable(const std::string& path, bool dropNonFinite = false);
// The same from text (`path` names it in errors).
Result<DataTable> parseDataTable(const std::string& text, const std::string& path, bool dropNonFinite = false);

}  // namespace dmci::fit
