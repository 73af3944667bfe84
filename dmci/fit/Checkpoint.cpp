// Checkpoints as JSON, the optimizer's bytes in hex.
#include "fit/Checkpoint.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/JsonNumber.h"
#include "support/JsonParse.h"
#include "support/JsonText.h"

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
double number(const json& j, const std::string& at) {
  if (j.is_number()) return j.get<double>();
  const std::string text = jsonAs<std::string>(j, at);
  if (text != "inf" && text != "-inf" && text != "nan") throw JsonFieldError{at, "not a number"};
  return std::strtod(text.c_str(), nullptr);
}

std::vector<double> numbers(const json& j, const std::string& at) {
  if (!j.is_array()) throw JsonFieldError{at, "not an array of numbers"};
  std::vector<double> out;
  for (size_t k = 0; k < j.size(); ++k) out.push_back(number(j[k], at + "/" + std::to_string(k)));
  return out;
}

// Member `key` of `o` (at `at`), which must be there.
const json& member(const json& o, const std::string& at, const std::string& key) {
  if (!o.is_object()) throw JsonFieldError{at.empty() ? "/" : at, "not an object"};
  auto it = o.find(key);
  if (it == o.end()) throw JsonFieldError{at + "/" + key, "missing"};
  return *it;
}

json bestJson(const RestartBest& b) {
  json j{{"u", jsonNumbers(b.u)},        {"loss", jsonNumber(b.loss)}, {"found", b.found},
         {"converged", b.converged},     {"iterations", b.iterations}, {"stop", b.stop},
         {"stop_message", b.stopMessage}};
  if (b.holdout) j["holdout"] = jsonNumber(*b.holdout);
  return j;
}

RestartBest bestOf(const json& j, const std::string& at) {
  RestartBest b;
  b.u = numbers(member(j, at, "u"), at + "/u");
  b.loss = number(member(j, at, "loss"), at + "/loss");
  b.found = jsonAt<bool>(j, at, "found");
  b.converged = jsonAt<bool>(j, at, "converged");
  b.iterations = jsonAt<int>(j, at, "iterations");
  if (j.contains("stop")) b.stop = jsonAt<std::string>(j, at, "stop");
  if (j.contains("stop_message")) b.stopMessage = jsonAt<std::string>(j, at, "stop_message");
  if (j.contains("holdout")) b.holdout = number(j.at("holdout"), at + "/holdout");
  return b;
}

// One point of the loss curve: [restart, iteration, evaluations, seconds, loss, best, holdout or null].
CurvePoint curvePoint(const json& c, const std::string& at) {
  if (!c.is_array() || c.size() != 7) throw JsonFieldError{at, "not a curve point (an array of 7)"};
  CurvePoint p{jsonAs<int>(c[0], at + "/0"),
               jsonAs<int>(c[1], at + "/1"),
               jsonAs<uint64_t>(c[2], at + "/2"),
               number(c[3], at + "/3"),
               number(c[4], at + "/4"),
               number(c[5], at + "/5"),
               std::nullopt};
  if (!c[6].is_null()) p.holdout = number(c[6], at + "/6");
  return p;
}

// The optimizer's bytes from their hex digits.
std::string optimizerBytes(const std::string& text, const std::string& at) {
  if (text.size() % 2 || text.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw JsonFieldError{at, "not hex digits"};
  return unhex(text);
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
  return jsonText(j) + "\n";
}

Result<FitState> readCheckpoint(const std::string& path, const std::string& fingerprint) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read the checkpoint " + path, {}};
  std::ostringstream text;
  text << in.rdbuf();
  auto doc = parseJsonText<json>(text.str(), path);
  if (!doc) return doc.error();
  const json& j = *doc;
  const SrcPos at{internFile(path), 1, 1};
  if (!j.is_object() || !j.contains("format") || j["format"] != kFormat)
    return Error{ErrorKind::Usage, path + " is not a dmci fit checkpoint", at};
  try {
    if (jsonAt<std::string>(j, "", "fingerprint") != fingerprint)
      return Error{ErrorKind::Usage,
                   path + " is the checkpoint of another fit (its program, data or settings differ from these)", at};
    FitState s;
    s.restart = jsonAt<int>(j, "", "restart");
    s.iteration = jsonAt<int>(j, "", "iteration");
    s.iterations = jsonAt<int>(j, "", "iterations");
    s.evaluations = jsonAt<uint64_t>(j, "", "evaluations");
    s.seconds = jsonAt<double>(j, "", "seconds");
    s.restartDone = jsonAt<bool>(j, "", "restart_done");
    s.current = bestOf(member(j, "", "current"), "/current");
    s.stale = jsonAt<int>(j, "", "stale");
    s.unchanged = jsonAt<int>(j, "", "unchanged");
    s.previous = numbers(member(j, "", "previous"), "/previous");
    const json& finished = member(j, "", "finished");
    if (!finished.is_array()) throw JsonFieldError{"/finished", "not an array"};
    for (size_t k = 0; k < finished.size(); ++k)
      s.finished.push_back(bestOf(finished[k], "/finished/" + std::to_string(k)));
    const json& curve = member(j, "", "curve");
    if (!curve.is_array()) throw JsonFieldError{"/curve", "not an array"};
    for (size_t k = 0; k < curve.size(); ++k) s.curve.push_back(curvePoint(curve[k], "/curve/" + std::to_string(k)));
    s.optimizer = optimizerBytes(jsonAt<std::string>(j, "", "optimizer"), "/optimizer");
    return s;
  } catch (const JsonFieldError& e) {
    return Error{ErrorKind::Usage, path + " is not a readable checkpoint: " + e.pointer + ": " + e.message, at};
  }
}

}  // namespace dmci::fit
