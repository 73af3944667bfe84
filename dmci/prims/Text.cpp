// Characters and strings as data: the native rows of the text primitives (their rules: prims/TextRules.h), and
// string-map and string-for-each, library procedures in Scheme over string->list like map over lists.
#include <array>
#include <stdexcept>
#include <utility>

#include "prims/PrimTable.h"
#include "prims/TextRules.h"
#include "runtime/ExactValue.h"
#include "runtime/Materialise.h"

namespace dmci {
namespace {

constexpr size_t kTextRows = 50;  // text::rows().size(), checked when the table is built

text::Arg argOf(const Runtime& rt, const Value& v, bool deep) {
  text::Arg a;
  using K = text::Arg::Kind;
  switch (v.tag) {
    case Tag::Char:
      a.kind = K::Char;
      a.ch = static_cast<char32_t>(v.i);
      break;
    case Tag::String:
      a.kind = K::String;
      a.str = rt.strings[static_cast<size_t>(v.i)];
      break;
    case Tag::Symbol:
      a.kind = K::Symbol;
      a.str = symbolName(v.i);
      break;
    case Tag::Real:
      a.kind = K::Number;
      a.num = v.num;
      break;
    case Tag::Bool:
      a.kind = K::Bool;
      a.b = v.i != 0;
      break;
    case Tag::Pair:
    case Tag::Nil:
      if (deep) {
        Value l = v;
        while (l.tag == Tag::Pair) {
          a.items.push_back(argOf(rt, rt.car(l), false));
          l = rt.cdr(l);
        }
        if (l.tag == Tag::Nil) a.kind = K::List;
      }
      break;
    default:
      break;
  }
  a.shown = rt.show(v);
  return a;
}

Value valueOf(Runtime& rt, const text::Out& o) {
  using K = text::Out::Kind;
  switch (o.kind) {
    case K::Char:
      return Value::make(Tag::Char, static_cast<int32_t>(o.ch));
    case K::String:
      return rt.string(o.str);
    case K::Symbol:
      return Value::make(Tag::Symbol, internSymbol(o.str));
    case K::Number:
      return o.exact ? exactNumberValue(o.num) : Value::real(o.num);
    case K::Bool:
      return Value::boolean(o.b);
    case K::CharList: {
      std::vector<Value> cs;
      for (char32_t c : o.chars) cs.push_back(Value::make(Tag::Char, static_cast<int32_t>(c)));
      return heapList(rt, cs);
    }
  }
  return Value::nil();
}

// The native rule of text row I: its arguments as the rules see them, the result back as a value.
template <size_t I>
Value textPrim(Runtime& rt, const Value* a, int n) {
  const text::Row& row = text::rows()[I];
  std::vector<text::Arg> args;
  args.reserve(static_cast<size_t>(n));
  bool lists = std::string(row.name) == "list->string";
  for (int k = 0; k < n; ++k) args.push_back(argOf(rt, a[k], lists));
  return valueOf(rt, text::apply(row.name, args));
}

template <size_t... I>
constexpr std::array<PrimFn, sizeof...(I)> textPrims(std::index_sequence<I...>) {
  return {textPrim<I>...};
}

const char* const kStringMap =
    "(define (string-map f s . ss)\n"
    "  (%list->string (%apply %map f (%string->list s) (%map %string->list ss))))";
const char* const kStringForEach =
    "(define (string-for-each f s . ss)\n"
    "  (%apply %for-each f (%string->list s) (%map %string->list ss)))";

}  // namespace

void addTextPrims(std::vector<Primitive>& t) {
  static constexpr auto kFns = textPrims(std::make_index_sequence<kTextRows>());
  const auto& rows = text::rows();
  if (rows.size() != kTextRows) throw std::logic_error("prims/Text.cpp: kTextRows is not text::rows().size()");
  for (size_t k = 0; k < rows.size(); ++k) {
    const text::Row& r = rows[k];
    LaneReads reads = std::string(r.name) == "list->string" ? LaneReads::Lists
                      : r.readsNumbers                      ? LaneReads::Arguments
                                                            : LaneReads::Nothing;
    t.push_back({r.name, r.minArgs, r.maxArgs, kFns[k], nullptr, nullptr, PrimFamily::List, r.doc, "", laneUse(reads)});
  }
  t.push_back({"string-map", 2, -1, nullptr, nullptr, kStringMap, PrimFamily::List,
               "(string-map f s ...) the string of f applied to the strings' characters in turn", "",
               laneUse(LaneReads::NoRule)});
  t.push_back({"string-for-each", 2, -1, nullptr, nullptr, kStringForEach, PrimFamily::List,
               "(string-for-each f s ...) applies f to the strings' characters left to right, for effect", "",
               laneUse(LaneReads::NoRule)});
}

}  // namespace dmci
