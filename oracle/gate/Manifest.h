// The corpus manifest: the (program, seed) pairs the gate checks, read from DIR/manifest.json.
//
// Format (version 1):
//   { "version": 1, "pairs": [ { "name": "physics/kinetic_energy/1",
//       "file": "physics/kinetic_energy.scm",   relative to the corpus directory
//       "family": "closed-form", "bind": {"m": 2.0, "v": 3.0}, "wrt": ["m", "v"],
//       "literals": true, "expect": "pass" | "nondifferentiable",
//       "closed_form": {"m": 4.5, "physics/kinetic_energy.scm:1:4": 9.0},   optional
//       "closed_value": 9.0, "routes": ["direct", "dmci"], "note": "..." } ] }   optional
//       "lanes": {"v": [1, 2, 3]}   optional: values per lane for some of the bound parameters (the others
//                                   keep their "bind" value); the gate runs the lanes as one batch and
//                                   each lane alone, and they must agree
// A program runs under its manifest name ("file"), so its literal keys read
// "physics/kinetic_energy.scm:1:4" wherever the corpus lies.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "driver/Program.h"

namespace dmci::gate {

enum class Expect { Pass, Nondifferentiable };
const char* expectName(Expect e);

// One (program, seed) pair of the manifest.
struct GatePair {
  std::string name;
  std::string file;  // relative to the corpus directory
  std::string family;
  std::vector<SeedValue> bind;  // in manifest order
  std::vector<std::string> wrt;
  bool literals = false;
  Expect expect = Expect::Pass;
  std::vector<std::pair<std::string, double>> closedForm;  // gradient components known exactly
  std::optional<double> closedValue;
  std::vector<Route> routes{Route::Direct, Route::Dmci};  // always holds Direct, first
  std::string note;
  // Lanes: parameter name -> one value per lane (every list the same length, at least 2; names bound in `bind`).
  std::vector<std::pair<std::string, std::vector<double>>> lanes;
  size_t laneCount() const { return lanes.empty() ? 0 : lanes.front().second.size(); }
};

struct Manifest {
  std::string dir;   // the corpus directory
  std::string path;  // dir/manifest.json
  std::vector<GatePair> pairs;
};

// Parses manifest text; errors name `path`, the pair (by index and name) and the field.
Result<Manifest> parseManifest(const std::string& text, const std::string& dir, const std::string& path);
// Reads and parses DIR/manifest.json.
Result<Manifest> loadManifest(const std::string& dir);

}  // namespace dmci::gate
