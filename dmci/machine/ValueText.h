// A run's value as a user sees it: the written form a Scheme prints ((1 #t a), "text", #\a, a tensor as
// nested rows) and the same value as JSON (lists as arrays, a tensor as nested arrays). `dmci run` prints
// any value through these; Runtime::show stays the short form that error messages quote.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "runtime/Runtime.h"

namespace dmci {

// The written form: lists, booleans, symbols, strings (escaped), characters, numbers (integral ones as
// integers), procedures as #<procedure>, tensors as #<tensor 2x2 ((1 2) (3 4))>.
std::string writeValue(const Runtime& rt, const Value& v);
// The JSON text: numbers (non-finite ones as "inf", "-inf", "nan"), booleans, lists as arrays, the empty
// list as [], symbols as {"symbol": name}, strings as strings, characters as {"char": text}, procedures as
// {"procedure": name}, tensors as nested arrays of numbers.
std::string valueJson(const Runtime& rt, const Value& v);
// A tensor's written form from its shape and row-major entries (rank 1: `rows` entries).
std::string writeTensor(int rank, int rows, int cols, const double* data);
// The same tensor as JSON: an array of numbers (rank 1) or an array of rows.
nlohmann::ordered_json tensorJson(int rank, int rows, int cols, const double* data);

}  // namespace dmci
