// The syntax of numbers (R7RS 7.1.1, the reals of the subset): one definition for the reader's literals and for
// string->number, so that what a program writes and what it parses from text read alike.
#pragma once
#include <optional>
#include <string_view>

namespace dmci {

// A token the reader must treat as a number: a digit first, or a sign and/or '.' before a digit.
bool looksNumeric(std::string_view t);

// A number's text read whole.
struct NumberText {
  double value = 0;
  bool exact = false;        // an exact integer (syntax/Exactness.h)
  bool noExactForm = false;  // #e of a number that is no integer a double holds: an error for the caller to name
};
// Why noExactForm is an error, for the reader's message and string->number's.
inline constexpr const char* kNoExactForm =
    "has no exact form here: the exact numbers are the integers of at most 2^53 (no rationals)";
// A radix prefix (#x #o #b #d) and an exactness prefix (#e #i), at most one of each in either order, then a
// decimal in radix 10, [+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)? (or +inf.0, -inf.0, +nan.0;
// out of range, +-inf.0 or 0), or a signed integer in radix 2, 8 or 16. Without a prefix, a decimal is exact
// when it is written as an integer (no point, no exponent) that a double holds digit for digit. `radix` is the default
// a radix prefix overrides. nullopt: the text is not a number.
std::optional<NumberText> parseNumberText(std::string_view text, int radix = 10);

}  // namespace dmci
