// Reads the corpus manifest strictly: a malformed entry is an error naming the file, the pair and the field.
#include "oracle/gate/Manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "support/JsonParse.h"

namespace dmci::gate {
namespace {

using json = nlohmann::ordered_json;

// Thrown while parsing one manifest; becomes a Usage error.
struct ManifestError {
  std::string message;
};

const std::set<std::string> kPairKeys = {"name",   "file",        "family",       "bind",   "wrt",  "literals",
                                         "expect", "closed_form", "closed_value", "routes", "note", "lanes"};

// Names one pair in messages: "pair 3 (physics/kinetic_energy/1)".
std::string where(size_t index, const json& p) {
  std::string s = "pair " + std::to_string(index + 1);
  if (p.is_object() && p.contains("name") && p["name"].is_string()) s += " (" + p["name"].get<std::string>() + ")";
  return s;
}

std::string requireString(const json& p, const char* key, const std::string& at, bool required) {
  if (!p.contains(key)) {
    if (required) throw ManifestError{at + ": missing '" + key + "'"};
    return "";
  }
  if (!p[key].is_string() || p[key].get<std::string>().empty())
    throw ManifestError{at + ": '" + key + "' must be a non-empty string"};
  return p[key].get<std::string>();
}

std::vector<std::pair<std::string, double>> numberObject(const json& p, const char* key, const std::string& at) {
  const json& o = p[key];
  if (!o.is_object()) throw ManifestError{at + ": '" + key + "' must be an object of numbers"};
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [k, v] : o.items()) {
    if (!v.is_number()) throw ManifestError{at + ": '" + key + "." + k + "' must be a number"};
    out.emplace_back(k, v.get<double>());
  }
  return out;
}

std::vector<std::string> stringArray(const json& p, const char* key, const std::string& at) {
  const json& a = p[key];
  if (!a.is_array()) throw ManifestError{at + ": '" + key + "' must be an array of strings"};
  std::vector<std::string> out;
  for (const auto& v : a) {
    if (!v.is_string()) throw ManifestError{at + ": '" + key + "' must be an array of strings"};
    if (std::find(out.begin(), out.end(), v.get<std::string>()) != out.end())
      throw ManifestError{at + ": '" + key + "' lists '" + v.get<std::string>() + "' twice"};
    out.push_back(v.get<std::string>());
  }
  return out;
}

// The routes to run: "direct" always (the reference), first, then the others listed.
std::vector<Route> parseRoutes(const json& p, const std::string& at) {
  std::vector<Route> out{Route::Direct};
  for (const auto& r : stringArray(p, "routes", at)) {
    if (r == "dmci")
      out.push_back(Route::Dmci);
    else if (r == "dmci2")
      out.push_back(Route::Dmci2);
    else if (r == "lantern")
      out.push_back(Route::Lantern);
    else if (r == "lantern-dmci")
      out.push_back(Route::LanternDmci);
    else if (r != "direct")
      throw ManifestError{at + ": unknown route '" + r + "' (expected direct, dmci, dmci2, lantern or lantern-dmci)"};
  }
  return out;
}

// "lanes": {"name": [numbers], ...}: names bound in "bind", lists of one length, at least two lanes.
void parseLanes(const json& p, const std::string& at, GatePair& g) {
  const json& o = p["lanes"];
  if (!o.is_object() || o.empty()) throw ManifestError{at + ": 'lanes' must be an object of arrays of numbers"};
  for (const auto& [k, v] : o.items()) {
    std::string field = at + ": 'lanes." + k + "'";
    if (std::none_of(g.bind.begin(), g.bind.end(), [&](const SeedValue& b) { return b.name == k; }))
      throw ManifestError{field + " names a parameter that 'bind' does not bind"};
    if (!v.is_array() || v.size() < 2) throw ManifestError{field + " must be an array of at least two numbers"};
    std::vector<double> values;
    for (const auto& x : v) {
      if (!x.is_number()) throw ManifestError{field + " must be an array of at least two numbers"};
      values.push_back(x.get<double>());
    }
    if (!g.lanes.empty() && values.size() != g.laneCount())
      throw ManifestError{field + " has " + std::to_string(values.size()) + " lanes, but '" + g.lanes.front().first +
                          "' has " + std::to_string(g.laneCount())};
    g.lanes.emplace_back(k, std::move(values));
  }
}

void parseOptional(const json& p, const std::string& at, GatePair& g) {
  if (p.contains("literals")) {
    if (!p["literals"].is_boolean()) throw ManifestError{at + ": 'literals' must be true or false"};
    g.literals = p["literals"].get<bool>();
  }
  if (p.contains("expect")) {
    std::string e = requireString(p, "expect", at, true);
    if (e == "nondifferentiable")
      g.expect = Expect::Nondifferentiable;
    else if (e != "pass")
      throw ManifestError{at + ": 'expect' must be \"pass\" or \"nondifferentiable\", got \"" + e + "\""};
  }
  if (p.contains("closed_form")) g.closedForm = numberObject(p, "closed_form", at);
  if (p.contains("closed_value")) {
    if (!p["closed_value"].is_number()) throw ManifestError{at + ": 'closed_value' must be a number"};
    g.closedValue = p["closed_value"].get<double>();
  }
  if (p.contains("routes")) g.routes = parseRoutes(p, at);
  g.note = requireString(p, "note", at, false);
  if (p.contains("lanes")) parseLanes(p, at, g);
}

GatePair parsePair(const json& p, size_t index) {
  std::string at = where(index, p);
  if (!p.is_object()) throw ManifestError{at + ": must be an object"};
  for (const auto& [k, v] : p.items())
    if (!kPairKeys.count(k)) throw ManifestError{at + ": unknown field '" + k + "'"};
  GatePair g;
  g.name = requireString(p, "name", at, true);
  g.file = requireString(p, "file", at, true);
  // A shared corpus names its programs: inside its own folder, never a path elsewhere on the machine.
  if (std::filesystem::path(g.file).is_absolute() || g.file.find('\0') != std::string::npos)
    throw ManifestError{at + ": 'file' must be a path relative to the manifest's folder, not '" + g.file + "'"};
  for (const auto& part : std::filesystem::path(g.file))
    if (part == "..") throw ManifestError{at + ": 'file' must stay inside the manifest's folder (no '..'): " + g.file};
  g.family = requireString(p, "family", at, true);
  if (!p.contains("bind")) throw ManifestError{at + ": missing 'bind'"};
  for (auto& [k, v] : numberObject(p, "bind", at)) g.bind.push_back({k, v});
  if (!p.contains("wrt")) throw ManifestError{at + ": missing 'wrt'"};
  g.wrt = stringArray(p, "wrt", at);
  for (const auto& w : g.wrt)
    if (std::none_of(g.bind.begin(), g.bind.end(), [&](const SeedValue& b) { return b.name == w; }))
      throw ManifestError{at + ": 'wrt' names '" + w + "', which 'bind' does not bind"};
  parseOptional(p, at, g);
  return g;
}

std::vector<GatePair> parsePairs(const json& doc) {
  if (!doc.is_object()) throw ManifestError{"the manifest must be a JSON object"};
  if (!doc.contains("version") || doc["version"] != 1)
    throw ManifestError{"'version' must be 1 (the only format this dmci reads)"};
  if (!doc.contains("pairs") || !doc["pairs"].is_array()) throw ManifestError{"'pairs' must be an array"};
  std::vector<GatePair> pairs;
  std::set<std::string> names;
  for (size_t k = 0; k < doc["pairs"].size(); ++k) {
    GatePair g = parsePair(doc["pairs"][k], k);
    if (!names.insert(g.name).second)
      throw ManifestError{where(k, doc["pairs"][k]) + ": the name is used by an earlier pair"};
    pairs.push_back(std::move(g));
  }
  return pairs;
}

}  // namespace

const char* expectName(Expect e) { return e == Expect::Pass ? "pass" : "nondifferentiable"; }

Result<Manifest> parseManifest(const std::string& text, const std::string& dir, const std::string& path) {
  auto doc = parseJsonText<json>(text, path);
  if (!doc) return doc.error();
  try {
    return Manifest{dir, path, parsePairs(*doc)};
  } catch (const ManifestError& e) {
    return Error{ErrorKind::Usage, path + ": " + e.message, {}};
  } catch (const nlohmann::json::exception& e) {  // a type the checks above missed: refused, never an abort
    return Error{ErrorKind::Usage, path + ": " + jsonMessage(e), {}};
  }
}

Result<Manifest> loadManifest(const std::string& dir) {
  std::string path = dir.empty() ? "manifest.json" : dir + (dir.back() == '/' ? "" : "/") + "manifest.json";
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path + " (is " + dir + " a corpus directory?)", {}};
  std::ostringstream s;
  s << in.rdbuf();
  return parseManifest(s.str(), dir, path);
}

}  // namespace dmci::gate
