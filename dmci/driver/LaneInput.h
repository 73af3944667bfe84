// Parameter values from the command line and from files, for one seed or for B lanes: --bind NAME=NUMBER (the
// same in every lane), NAME=linspace(a,b,B), and lane files (CSV or JSON). One parser for every engine and
// every subcommand; a single run is a batch of one lane.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/Options.h"
#include "syntax/Error.h"

namespace dmci {

class Program;

// B lanes: every parameter has one value per lane. With no parameters, `count` gives B.
struct LaneBatch {
  std::vector<std::string> params;
  std::vector<std::vector<double>> values;  // [param][lane]
  int64_t count = 1;
  int64_t lanes() const { return values.empty() ? count : static_cast<int64_t>(values[0].size()); }
  // Lane k as a seed (a name and a value per parameter).
  std::vector<SeedValue> seed(size_t lane) const;
};

// Lanes from command-line bindings: NAME=NUMBER (the same in every lane) or NAME=linspace(a,b,B) (B lanes from
// a to b); all lane counts must agree.
Result<LaneBatch> parseLaneBindings(const std::vector<std::string>& binds);
// A lane file: CSV (a header of parameter names, then a row of numbers per lane; '#' comment lines) or JSON
// ({"x": [...], ...}, an array per parameter, or [{"x": ..., ...}, ...], an object per lane). Errors name
// the file, line and column.
Result<LaneBatch> readLaneFile(const std::string& path);
// The same from a lane file's text (`path` names it in errors, and a path ending in .json reads as JSON).
Result<LaneBatch> parseLaneFile(const std::string& text, const std::string& path);
// The lane file's parameters (if a path is given), then the bindings; all lane counts must agree, and a
// NAME=NUMBER binding is the same in every lane.
Result<LaneBatch> makeLanes(const std::vector<std::string>& binds, const std::string& laneFile);
// True when the bindings or a lane file ask for more than one seed (a lane file, or a linspace binding).
bool asksForLanes(const std::vector<std::string>& binds, const std::string& laneFile);
// Every parameter bound once, to a free variable of the program, with one value per lane; every wrt name bound.
std::optional<Error> checkLaneBatch(const Program& p, const LaneBatch& batch, const std::vector<std::string>& wrt);
// A seed's own checks (what every engine's evaluate makes): no name bound twice, every wrt name bound.
std::optional<Error> checkSeed(const std::vector<SeedValue>& seed, const std::vector<std::string>& wrt);

}  // namespace dmci
