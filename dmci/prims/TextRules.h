// Characters and strings as data (R7RS 6.6, 6.7 and the symbol and number conversions of 6.2 and 6.5): the rules
// of the text primitives, written once over plain C++ values so that the native rows (prims/Text.cpp) and the
// oracle's (oracle/TextPrims.cpp) compute the same thing.
//
// Strings are UTF-8 and immutable (string-set! and string-fill! are mutation, which the subset rejects); a
// string's length and indices count code points. Case and character classes are Unicode's as glibc's C.UTF-8
// locale gives them (simple case mappings; char-foldcase is char-downcase), numeric digits are Unicode's Nd
// (a table of each run's zero). Nothing here is differentiable: a number a text primitive returns is a constant.
#pragma once
#include <string>
#include <vector>

namespace dmci::text {

// An argument as both machines see it.
struct Arg {
  enum class Kind { Char, String, Symbol, Number, Bool, List, Other } kind = Kind::Other;
  char32_t ch = 0;
  std::string str;         // String, Symbol
  double num = 0;          // Number
  bool b = false;          // Bool
  std::vector<Arg> items;  // List (a proper list)
  std::string shown;       // the value as error messages print it
};

// A result: a character, a string, a symbol, a number, a boolean or a list of characters.
struct Out {
  enum class Kind { Char, String, Symbol, Number, Bool, CharList } kind = Kind::Bool;
  char32_t ch = 0;
  std::string str;
  double num = 0;
  bool exact = false;  // Number: an exact integer (a count, a code point, an integer's text)
  bool b = false;
  std::u32string chars;
};

// The text primitives: name, arity, doc (for the primitive table).
struct Row {
  const char* name;
  int minArgs;
  int maxArgs;
  const char* doc;
  bool readsNumbers;  // some argument may be a number (an index, a count, a code point, a radix)
};
const std::vector<Row>& rows();

// Runs text primitive `name` (arity already checked). Throws DmciError: Type for a wrong argument, Domain for
// an index or code point out of range; no position (the caller's machine adds it).
Out apply(const std::string& name, const std::vector<Arg>& args);

}  // namespace dmci::text
