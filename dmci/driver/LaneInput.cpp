// Parameter values from the command line: --bind NAME=NUMBER (the same in every lane), NAME=linspace(a,b,B), and a
// lane file (CSV or JSON, one value per lane for each named parameter). Every engine takes the batch this makes.
#include "driver/LaneInput.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "driver/Program.h"
#include "support/Csv.h"
#include "support/JsonText.h"

namespace dmci {
namespace {

[[noreturn]] void usage(const std::string& msg) { throw DmciError(ErrorKind::Usage, msg); }

double number(const std::string& text, const std::string& what) {
  char* end = nullptr;
  double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') usage(what + ": '" + text + "' is not a number");
  return x;
}

// The lanes one binding gives: one value, or linspace(a,b,B)'s B values.
std::vector<double> laneValues(const std::string& name, const std::string& v) {
  const std::string open = "linspace(";
  if (v.rfind(open, 0) != 0) return {number(v, "--bind " + name)};
  if (v.back() != ')') usage("--bind " + name + ": expected linspace(a,b,B), got '" + v + "'");
  std::string inner = v.substr(open.size(), v.size() - open.size() - 1);
  size_t c1 = inner.find(','), c2 = c1 == std::string::npos ? c1 : inner.find(',', c1 + 1);
  if (c2 == std::string::npos) usage("--bind " + name + ": expected linspace(a,b,B), got '" + v + "'");
  double a = number(inner.substr(0, c1), "--bind " + name);
  double b = number(inner.substr(c1 + 1, c2 - c1 - 1), "--bind " + name);
  double count = number(inner.substr(c2 + 1), "--bind " + name);
  if (count < 1 || count != static_cast<double>(static_cast<int64_t>(count)) || count > 1e9)
    usage("--bind " + name + ": the lane count of linspace must be a positive integer");
  std::vector<double> out(static_cast<size_t>(count));
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = out.size() == 1 ? a : a + (b - a) * static_cast<double>(k) / static_cast<double>(out.size() - 1);
  return out;
}

// --- lane files ---

[[noreturn]] void fileError(const std::string& path, uint32_t line, uint32_t col, const std::string& msg) {
  throw DmciError(Error{ErrorKind::Usage, msg, SrcPos{internFile(path), line, col}});
}

// CSV: a header of parameter names, then one row of numbers per lane; '#' starts a comment line.
LaneBatch readCsv(const std::string& path, const std::string& text) {
  LaneBatch batch;
  std::vector<CsvRow> rows = dmci::readCsv(text);
  if (rows.empty()) fileError(path, 1, 1, "no header line (parameter names separated by commas)");
  if (auto bad = checkHeader(rows[0], "parameter")) fileError(path, bad->line, bad->col, bad->message);
  for (const CsvCell& c : rows[0].cells) batch.params.push_back(c.text);
  batch.values.assign(batch.params.size(), {});
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& cells = rows[r].cells;
    if (cells.size() != batch.params.size())
      fileError(path, rows[r].line, 1,
                "expected " + std::to_string(batch.params.size()) + " values (one per header name), got " +
                    std::to_string(cells.size()));
    for (size_t k = 0; k < cells.size(); ++k) {
      std::optional<double> x = csvNumber(cells[k].text);
      if (!x)
        fileError(path, rows[r].line, cells[k].col,
                  "'" + cells[k].text + "' is not a number (" + batch.params[k] + ")");
      batch.values[k].push_back(*x);
    }
  }
  if (batch.values.empty() || batch.values[0].empty()) fileError(path, 1, 1, "no lanes: the file has a header only");
  return batch;
}

// The line and column of a byte offset.
std::pair<uint32_t, uint32_t> lineCol(const std::string& text, size_t offset) {
  uint32_t line = 1, col = 1;
  for (size_t k = 0; k < offset && k < text.size(); ++k) text[k] == '\n' ? (++line, col = 1) : ++col;
  return {line, col};
}

// JSON: {"x": [1, 2, 3], "y": [...]} (one array per parameter), or [{"x": 1, "y": 2}, ...] (one object per lane).
LaneBatch readJson(const std::string& path, const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = lineCol(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string what = e.what();
    fileError(path, line, col, "not JSON: " + what.substr(what.find(']') + 2));
  } catch (const nlohmann::json::out_of_range& e) {  // a number past double's range: "number overflow parsing '1e999'"
    std::string what = e.what(), message = what.substr(what.find(']') + 2);
    size_t open = what.find('\''), close = what.rfind('\'');
    size_t at = open < close ? text.find(what.substr(open + 1, close - open - 1)) : std::string::npos;
    auto [line, col] = lineCol(text, at == std::string::npos ? 0 : at);
    fileError(path, line, col, "not JSON: " + message);
  }
  LaneBatch batch;
  auto numberAt = [&](const nlohmann::json& v, const std::string& where) {
    if (!v.is_number()) fileError(path, 1, 1, where + ": expected a number, got " + jsonText(v));
    return v.get<double>();
  };
  if (j.is_object()) {
    for (const auto& [name, values] : j.items()) {
      if (!values.is_array()) fileError(path, 1, 1, "\"" + name + "\": expected an array of numbers, one per lane");
      batch.params.push_back(name);
      batch.values.emplace_back();
      for (size_t k = 0; k < values.size(); ++k)
        batch.values.back().push_back(numberAt(values[k], "\"" + name + "\"[" + std::to_string(k) + "]"));
    }
  } else if (j.is_array()) {
    for (size_t lane = 0; lane < j.size(); ++lane) {
      const auto& row = j[lane];
      if (!row.is_object())
        fileError(path, 1, 1, "lane " + std::to_string(lane) + ": expected an object {\"name\": number, ...}");
      if (lane == 0)
        for (const auto& [name, v] : row.items()) batch.params.push_back(name), batch.values.emplace_back();
      if (row.size() != batch.params.size())
        fileError(path, 1, 1,
                  "lane " + std::to_string(lane) + ": expected the names of lane 0 (" +
                      std::to_string(batch.params.size()) + "), got " + std::to_string(row.size()));
      for (size_t k = 0; k < batch.params.size(); ++k) {
        if (!row.contains(batch.params[k]))
          fileError(path, 1, 1, "lane " + std::to_string(lane) + ": no value for \"" + batch.params[k] + "\"");
        batch.values[k].push_back(
            numberAt(row[batch.params[k]], "lane " + std::to_string(lane) + " \"" + batch.params[k] + "\""));
      }
    }
  } else {
    fileError(path, 1, 1, "expected an object of arrays or an array of objects");
  }
  if (batch.params.empty() || batch.values[0].empty()) fileError(path, 1, 1, "no lanes");
  for (size_t k = 1; k < batch.values.size(); ++k)
    if (batch.values[k].size() != batch.values[0].size())
      fileError(path, 1, 1,
                "\"" + batch.params[k] + "\" has " + std::to_string(batch.values[k].size()) + " lanes, \"" +
                    batch.params[0] + "\" " + std::to_string(batch.values[0].size()));
  return batch;
}

}  // namespace

Result<LaneBatch> readLaneFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read lane file " + path, {}};
  std::stringstream s;
  s << in.rdbuf();
  return parseLaneFile(s.str(), path);
}

Result<LaneBatch> parseLaneFile(const std::string& text, const std::string& path) {
  return catchErrors([&] {
    size_t first = text.find_first_not_of(" \t\r\n");
    bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    if (json || (first != std::string::npos && (text[first] == '{' || text[first] == '['))) return readJson(path, text);
    LaneBatch b = readCsv(path, text);
    b.count = static_cast<int64_t>(b.values[0].size());
    return b;
  });
}

Result<LaneBatch> makeLanes(const std::vector<std::string>& binds, const std::string& laneFile) {
  return catchErrors([&] {
    LaneBatch batch;
    size_t lanes = 1;
    std::string from;  // what set the lane count
    if (!laneFile.empty()) {
      auto file = readLaneFile(laneFile);
      if (!file) throw DmciError(file.error());
      batch = *file;
      lanes = batch.values[0].size();
      from = "the lane file";
    }
    for (const auto& b : binds) {
      auto eq = b.find('=');
      if (eq == std::string::npos || eq == 0)
        usage("--bind expects NAME=NUMBER or NAME=linspace(a,b,B), got '" + b + "'");
      std::string name = b.substr(0, eq);
      for (const auto& p : batch.params)
        if (p == name) usage("--bind " + name + ": already bound" + (from.empty() ? "" : " (by " + from + ")"));
      batch.params.push_back(name);
      batch.values.push_back(laneValues(name, b.substr(eq + 1)));
      size_t n = batch.values.back().size();
      if (n > 1 && lanes > 1 && n != lanes)
        usage("--bind " + name + ": " + std::to_string(n) + " lanes, but " +
              (from.empty() ? "an earlier binding" : from) + " gives " + std::to_string(lanes));
      if (n > 1 && lanes == 1) lanes = n, from = "--bind " + name;
    }
    for (auto& v : batch.values)
      if (v.size() == 1 && lanes > 1) v.assign(lanes, v[0]);
    batch.count = static_cast<int64_t>(lanes);
    return batch;
  });
}

Result<LaneBatch> parseLaneBindings(const std::vector<std::string>& binds) { return makeLanes(binds, ""); }

std::vector<SeedValue> LaneBatch::seed(size_t lane) const {
  std::vector<SeedValue> out;
  for (size_t k = 0; k < params.size(); ++k) out.push_back({params[k], values[k][lane]});
  return out;
}

bool asksForLanes(const std::vector<std::string>& binds, const std::string& laneFile) {
  return !laneFile.empty() || std::any_of(binds.begin(), binds.end(), [](const std::string& b) {
    return b.find("linspace(") != std::string::npos;
  });
}

namespace {
// The one "no --bind value" check, for seeds and batches.
std::optional<Error> wrtBound(const std::vector<std::string>& names, const std::vector<std::string>& wrt) {
  for (const auto& w : wrt)
    if (std::find(names.begin(), names.end(), w) == names.end())
      return Error{ErrorKind::Usage, "--wrt names '" + w + "', which has no --bind value", {}};
  return std::nullopt;
}
}  // namespace

std::optional<Error> checkSeed(const std::vector<SeedValue>& seed, const std::vector<std::string>& wrt) {
  std::vector<std::string> names;
  for (const auto& b : seed) {
    if (std::find(names.begin(), names.end(), b.name) != names.end())
      return Error{ErrorKind::Usage, "parameter '" + b.name + "' is bound twice", {}};
    names.push_back(b.name);
  }
  return wrtBound(names, wrt);
}

std::optional<Error> checkLaneBatch(const Program& p, const LaneBatch& batch, const std::vector<std::string>& wrt) {
  auto free = p.freeParameters();  // a primitive's name is not one: binding it would shadow the primitive
  for (size_t k = 0; k < batch.params.size(); ++k) {
    const std::string& n = batch.params[k];
    if (std::find(batch.params.begin(), batch.params.begin() + static_cast<std::ptrdiff_t>(k), n) !=
        batch.params.begin() + static_cast<std::ptrdiff_t>(k))
      return Error{ErrorKind::Usage, "parameter '" + n + "' is bound twice", {}};
    if (std::find(free.begin(), free.end(), n) == free.end())
      return Error{ErrorKind::Usage, "parameter '" + n + "' is not a free variable of " + p.file(), {}};
  }
  if (auto err = wrtBound(batch.params, wrt)) return err;
  if (batch.values.size() != batch.params.size())
    return Error{ErrorKind::Usage, "a lane batch needs one value list per parameter", {}};
  for (const auto& v : batch.values)
    if (static_cast<int64_t>(v.size()) != batch.lanes())
      return Error{ErrorKind::Usage, "every parameter needs one value per lane", {}};
  return std::nullopt;
}

}  // namespace dmci
