// Reading a report's JSON back, field by field: each missing or mistyped field is an error that names the file,
// the object (e.g. "pairs[3] (physics/kinetic/1)") and the field, thrown as a DmciError (the readers turn it into
// a Result with catchErrors).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "syntax/Error.h"

namespace dmci::reports {

// Fields of one JSON object, each failure naming the file, the object and the field.
class Fields {
  using json = nlohmann::ordered_json;

 public:
  Fields(const json& o, std::string where) : o_(o), where_(std::move(where)) {
    if (!o_.is_object()) fail("", "not an object");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw DmciError(ErrorKind::Io, where_ + (field.empty() ? "" : "." + field) + ": " + what);
  }
  const json& at(const std::string& key) const {
    auto it = o_.find(key);
    if (it == o_.end()) fail(key, "missing");
    return *it;
  }
  bool has(const std::string& key) const { return o_.contains(key); }
  Fields object(const std::string& key) const { return Fields(at(key), where_ + "." + key); }
  std::string text(const std::string& key) const { return typed(key, &json::is_string).get<std::string>(); }
  double number(const std::string& key) const { return typed(key, &json::is_number).get<double>(); }
  bool flag(const std::string& key) const { return typed(key, &json::is_boolean).get<bool>(); }
  std::vector<std::string> texts(const std::string& key) const {
    std::vector<std::string> out;
    for (const auto& t : typed(key, &json::is_array)) {
      if (!t.is_string()) fail(key, "holds a non-string");
      out.push_back(t.get<std::string>());
    }
    return out;
  }
  // A number as jsonNumber writes it ("inf", "-inf", "nan" for the non-finite ones); null is none.
  std::optional<double> maybeNumber(const std::string& key) const {
    const json& v = at(key);
    if (v.is_null()) return std::nullopt;
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) {
      const std::string& s = v.get_ref<const std::string&>();
      if (s == "inf" || s == "-inf" || s == "nan") return std::strtod(s.c_str(), nullptr);
    }
    fail(key, "not a number");
  }
  // An object of numbers, in its order.
  std::vector<std::pair<std::string, double>> numbers(const std::string& key) const {
    std::vector<std::pair<std::string, double>> out;
    Fields o = object(key);
    for (const auto& [k, v] : o.o_.items()) {
      auto x = o.maybeNumber(k);
      if (!x) o.fail(k, "null");
      out.emplace_back(k, *x);
    }
    return out;
  }
  // An object of counts.
  std::map<std::string, uint64_t> counts(const std::string& key) const {
    std::map<std::string, uint64_t> out;
    Fields o = object(key);
    for (const auto& [k, v] : o.o_.items()) out[k] = o.count(k);
    return out;
  }
  uint64_t count(const std::string& key) const {
    const json& v = at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < 0) fail(key, "not a count");
    return v.get<uint64_t>();
  }
  const json& raw() const { return o_; }
  const std::string& where() const { return where_; }

 private:
  const json& typed(const std::string& key, bool (json::*is)() const noexcept) const {
    const json& v = at(key);
    if (!(v.*is)()) fail(key, "of the wrong type");
    return v;
  }

  const json& o_;
  std::string where_;
};

}  // namespace dmci::reports
