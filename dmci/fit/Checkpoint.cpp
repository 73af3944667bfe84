// Checkpoints as JSON, the optimizer's bytes in hex.
#include "fit/Checkpoint.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/JsonNumber.h"

namespace dmci::fit {

namespace {

using json = nlohmann::ordered_json;
constexpr const char* kFormat = "dmci-fit-checkpoint/1";

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) out += digits[c >> 4], out += digits[c & 15];
  return out;
}

std::string unhex(const std::string& text) {
  auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
  std::string out(text.size() / 2, '\0');
  for (size_t k = 0; k < out.size(); ++k)
    out[k] = static_cast<char>(nibble(text[2 * k]) * 16 + nibble(text[2 * k + 1]));
  return out;
}

// Doubles as numbers, exactly (nlohmann writes the shortest text that reads back the same); non-finite as text.
double number(const json& j) {
  if (j.is_number()) return j.get<double>();
  return std::strtod(j.get<std::string>().c_str(), nullptr);
}

std::vector<double> numbers(const json& j) {
  std::vector<double> out;
  for (const auto& x : j) out.push_back(number(x));
  return out;
}

json bestJson(const RestartBest& b) {
  json j{{"u", jsonNumbers(b.u)},        {"loss", jsonNumber(b.loss)}, {"found", b.found},
         {"converged", b.converged},     {"iterations", b.iterations}, {"stop", b.stop},
         {"stop_message", b.stopMessage}};
  if (b.holdout) j["holdout"] = jsonNumber(*b.holdout);
  return j;
}

RestartBest bestOf(const json& j) {
  RestartBest b;
  b.u = numbers(j.at("u"));
  b.loss = number(j.at("loss"));
  b.found = j.at("found").get<bool>();
  b.converged = j.at("converged").get<bool>();
  b.iterations = j.at("iterations").get<int>();
  b.stop = j.value("stop", ""), b.stopMessage = j.value("stop_message", "");
  if (j.contains("holdout")) b.holdout = number(j.at("holdout"));
  return b;
}

}  // namespace

std::string checkpointText(const FitState& s, const std::string& fingerprint) {
  json curve = json::array();
  for (const auto& c : s.curve) {
    json p{c.restart, c.iteration, c.evaluations, c.seconds, jsonNumber(c.loss), jsonNumber(c.best)};
    p.push_back(c.holdout ? jsonNumber(*c.holdout) : json(nullptr));
    curve.push_back(p);
  }
  json finished = json::array();
  for (const auto& b : s.finished) finished.push_back(bestJson(b));
  json j{{"format", kFormat},
         {"fingerprint", fingerprint},
         {"restart", s.restart},
         {"iteration", s.iteration},
         {"iterations", s.iterations},
         {"evaluations", s.evaluations},
         {"seconds", s.seconds},
         {"restart_done", s.restartDone},
         {"current", bestJson(s.current)},
         {"stale", s.stale},
         {"unchanged", s.unchanged},
         {"previous", jsonNumbers(s.previous)},
         {"finished", finished},
         {"curve", curve},
         {"optimizer", hex(s.optimizer)}};
  return j.dump() + "\n";
}

Result<FitState> readCheckpoint(const std::string& path, const std::string& fingerprint) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read the checkpoint " + path, {}};
  std::ostringstream text;
  text << in.rdbuf();
  try {
    json j = json::parse(text.str());
    if (j.value("format", "") != kFormat)
      return Error{ErrorKind::Usage, path + " is not a dmci fit checkpoint", SrcPos{internFile(path), 1, 1}};
    if (j.at("fingerprint").get<std::string>() != fingerprint)
      return Error{ErrorKind::Usage,
                   path + " is the checkpoint of another fit (its program, data or settings differ from these)",
                   SrcPos{internFile(path), 1, 1}};
    FitState s;
    s.restart = j.at("restart").get<int>();
    s.iteration = j.at("iteration").get<int>();
    s.iterations = j.at("iterations").get<int>();
    s.evaluations = j.at("evaluations").get<uint64_t>();
    s.seconds = j.at("seconds").get<double>();
    s.restartDone = j.at("restart_done").get<bool>();
    s.current = bestOf(j.at("current"));
    s.stale = j.at("stale").get<int>();
    s.unchanged = j.at("unchanged").get<int>();
    s.previous = numbers(j.at("previous"));
    for (const auto& b : j.at("finished")) s.finished.push_back(bestOf(b));
    for (const auto& c : j.at("curve")) {
      CurvePoint p{
          c[0].get<int>(), c[1].get<int>(), c[2].get<uint64_t>(), number(c[3]), number(c[4]), number(c[5]), {}};
      if (!c[6].is_null()) p.holdout = number(c[6]);
      s.curve.push_back(p);
    }
    s.optimizer = unhex(j.at("optimizer").get<std::string>());
    return s;
  } catch (const nlohmann::json::exception& e) {
    return Error{ErrorKind::Usage, path + " is not a readable checkpoint: " + e.what(), SrcPos{internFile(path), 1, 1}};
  }
}

}  // namespace dmci::fit
