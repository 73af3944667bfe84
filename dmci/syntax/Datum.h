// Datum: the reader's output, plain data with a source position on every node, and its printer.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "syntax/SrcPos.h"

namespace dmci {

enum class DatumKind { Nil, Bool, Number, Char, Symbol, String, List, Vector };

struct Datum;
using DatumPtr = std::shared_ptr<const Datum>;

// A list is held as a vector of items plus an optional dotted tail, so long
// lists are neither deep C++ recursion nor long pointer chains.
struct Datum {
  DatumKind kind = DatumKind::Nil;
  bool boolean = false;  // Bool: the value; Number: the number is exact (syntax/Exactness.h)
  double number = 0.0;
  uint32_t ch = 0;              // Char: code point
  std::string text;             // Symbol name or String contents (unescaped)
  std::vector<DatumPtr> items;  // List: at least one item; Vector: its elements (any number)
  DatumPtr tail;                // List: nullptr for a proper list, else the dotted tail (never Nil)
  SrcPos pos;

  Datum() = default;
  Datum(const Datum&) = delete;
  Datum& operator=(const Datum&) = delete;
  // Frees nesting of any depth without recursion (a printed long let* nests as deep as it is long).
  ~Datum();

  static DatumPtr nil(SrcPos p = {});
  static DatumPtr boolean_(bool b, SrcPos p = {});
  static DatumPtr num(double v, SrcPos p = {});
  static DatumPtr character(uint32_t c, SrcPos p = {});
  static DatumPtr symbol(std::string name, SrcPos p = {});
  static DatumPtr string(std::string s, SrcPos p = {});
  // A list; an empty items vector with no tail gives Nil. A tail that is a list is spliced in.
  static DatumPtr list(std::vector<DatumPtr> items, SrcPos p = {}, DatumPtr tail = nullptr);
  // A vector literal #(x ...): self-evaluating, its elements constants.
  static DatumPtr vector(std::vector<DatumPtr> items, SrcPos p = {});

  bool isSymbol(const char* name) const { return kind == DatumKind::Symbol && text == name; }
  bool isProperList() const { return kind == DatumKind::Nil || (kind == DatumKind::List && !tail); }
  // Head symbol of a list form, or "" when there is none.
  const std::string& head() const;
};

// Prints a datum so that reading it back gives an equal datum (positions aside); any depth, no recursion.
std::string print(const Datum& d);
inline std::string print(const DatumPtr& d) { return print(*d); }
// Structural equality, ignoring positions; numbers compare bitwise-equal (NaN == NaN).
bool equalDatum(const Datum& a, const Datum& b);
// Appends code point c to out as UTF-8 (the reader and the printer share it).
void appendUtf8(std::string& out, uint32_t c);
// Formats a double in the shortest form that reads back to the same value (-0.0 as "-0.0", its sign kept).
std::string formatNumber(double v);

}  // namespace dmci
