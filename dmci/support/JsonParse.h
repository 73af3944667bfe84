// Parsing the JSON text of an input file so that no text ends the tool. nlohmann's parser throws parse_error on
// bad syntax and out_of_range on a number past double's range ("number overflow parsing '1e999'"); both become
// an Error at file:line:col. What the document means (its fields and their types) is each reader's to check; a
// reader that reaches into it with nlohmann's own accessors catches their type_error and out_of_range (jsonMessage
// words them), so that a wrong type is a usage error naming the file, never an abort.
#pragma once
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>

#include "syntax/Error.h"

namespace dmci {

// The 1-based line and column of byte `offset` of `text` (one past a line's last byte at most).
inline std::pair<uint32_t, uint32_t> jsonLineCol(const std::string& text, size_t offset) {
  uint32_t line = 1, col = 1;
  for (size_t k = 0; k < offset && k < text.size(); ++k) text[k] == '\n' ? (++line, col = 1) : ++col;
  return {line, col};
}

// nlohmann's message without its "[json.exception.KIND.N] " prefix.
inline std::string jsonMessage(const nlohmann::json::exception& e) {
  std::string what = e.what();
  size_t close = what.find("] ");
  return close == std::string::npos ? what : what.substr(close + 2);
}

// `text`, read from `file`, as a document of type Json (nlohmann::json or ordered_json); else an error of `kind`
// at the place of the first problem: "not valid JSON: ..." or "a number past double's range: ...".
template <class Json>
Result<Json> parseJsonText(const std::string& text, const std::string& file, ErrorKind kind = ErrorKind::Usage) {
  try {
    return Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    auto [line, col] = jsonLineCol(text, e.byte > 0 ? e.byte - 1 : 0);
    return Error{kind, "not valid JSON: " + jsonMessage(e), SrcPos{internFile(file), line, col}};
  } catch (const nlohmann::json::out_of_range& e) {  // the message quotes the number: find it in the text
    std::string what = e.what();
    size_t open = what.find('\''), close = what.rfind('\'');
    size_t at = open < close ? text.find(what.substr(open + 1, close - open - 1)) : std::string::npos;
    auto [line, col] = jsonLineCol(text, at == std::string::npos ? 0 : at);
    return Error{kind, "a number past double's range: " + jsonMessage(e), SrcPos{internFile(file), line, col}};
  }
}

// A member read by jsonAt that is missing or of the wrong type: its JSON pointer ("/current/iterations") and why.
struct JsonFieldError {
  std::string pointer, message;
};

// `v`, found at JSON pointer `pointer`, as T: a bool, a string, a double, or an integer type whose range holds it
// (a fraction or a number past T's range is refused, never cast); else throws JsonFieldError.
template <class T, class Json>
T jsonAs(const Json& v, const std::string& pointer) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw JsonFieldError{pointer, "not true or false"};
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw JsonFieldError{pointer, "not a string"};
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!v.is_number()) throw JsonFieldError{pointer, "not a number"};
  } else {
    static_assert(std::is_integral_v<T>);
    constexpr auto lo = std::numeric_limits<T>::min();
    constexpr auto hi = static_cast<uint64_t>(std::numeric_limits<T>::max());
    bool fits = false;
    if (v.is_number_unsigned()) {
      fits = v.template get<uint64_t>() <= hi;
    } else if (v.is_number_integer()) {
      const int64_t x = v.template get<int64_t>();
      fits = x >= 0 ? static_cast<uint64_t>(x) <= hi : std::is_signed_v<T> && x >= static_cast<int64_t>(lo);
    }
    if (!fits) throw JsonFieldError{pointer, "not a whole number in range"};
  }
  return v.template get<T>();
}

// Member `key` of `o` (found at JSON pointer `at`) as T, by jsonAs; a missing member, or an `o` that is not an
// object, throws JsonFieldError.
template <class T, class Json>
T jsonAt(const Json& o, const std::string& at, const std::string& key) {
  if (!o.is_object()) throw JsonFieldError{at.empty() ? "/" : at, "not an object"};
  auto it = o.find(key);
  if (it == o.end()) throw JsonFieldError{at + "/" + key, "missing"};
  return jsonAs<T>(*it, at + "/" + key);
}

}  // namespace dmci
