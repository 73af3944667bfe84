// The text primitives (characters, strings, symbols and number conversions) for the oracle's values, by the same
// rules as the native rows (prims/TextRules.h); errors get the call's position here.
#include <optional>
#include <string>
#include <vector>

#include "oracle/Interpreter.h"
#include "oracle/Oracle.h"
#include "prims/ExactIntegerSqrt.h"
#include "prims/TextRules.h"

namespace dmci::oracle {
namespace {

template <class Num>
text::Arg argOf(const Value<Num>& v, bool deep) {
  using K = text::Arg::Kind;
  text::Arg a;
  switch (v.kind) {
    case Kind::Char:
      a.kind = K::Char;
      a.ch = static_cast<char32_t>(v.bits);
      break;
    case Kind::String:
      a.kind = K::String;
      a.str = v.text();
      break;
    case Kind::Symbol:
      a.kind = K::Symbol;
      a.str = v.text();
      break;
    case Kind::Number:
      a.kind = K::Number;
      a.num = static_cast<double>(v.num);
      break;
    case Kind::Bool:
      a.kind = K::Bool;
      a.b = v.bits != 0;
      break;
    case Kind::Pair:
    case Kind::Nil:
      if (deep) {
        Value<Num> l = v;
        while (l.kind == Kind::Pair) {
          a.items.push_back(argOf(l.pair().car, false));
          l = l.pair().cdr;
        }
        if (l.kind == Kind::Nil) a.kind = K::List;
      }
      break;
    default:
      break;
  }
  a.shown = show(v);
  return a;
}

template <class Num>
Value<Num> valueOf(const PrimCall<Num>& c, const text::Out& o) {
  using K = text::Out::Kind;
  switch (o.kind) {
    case K::Char:
      return Value<Num>::tagged(Kind::Char, static_cast<int64_t>(o.ch));
    case K::String:
      return c.heap().text(Kind::String, o.str);
    case K::Symbol:
      return c.heap().text(Kind::Symbol, o.str);
    case K::Number:
      return keepExact(Value<Num>::number(Num(o.num)), o.exact);
    case K::Bool:
      return Value<Num>::boolean(o.b);
    case K::CharList: {
      Value<Num> acc = Value<Num>::nil();
      for (size_t k = o.chars.size(); k-- > 0;)
        acc = c.heap().cons(Value<Num>::tagged(Kind::Char, static_cast<int64_t>(o.chars[k])), acc);
      return acc;
    }
  }
  return Value<Num>::nil();
}

// A text primitive reads a number discretely (an index, a count, a code point, a radix): the finite
// difference keeps the value the recorded path read, as list-ref does with its index.
template <class Num>
Value<Num> textPrim(const PrimCall<Num>& c) {
  std::vector<text::Arg> args;
  bool lists = std::string(c.name) == "list->string";
  for (int k = 0; k < c.argc(); ++k) {
    args.push_back(argOf(c[k], lists));
    if (c[k].isNumber()) {
      const Num& x = c[k].num;
      args.back().num = static_cast<double>(
          c.decide(DecisionKind::Discrete, std::optional<Num>(x), Closeness<Num>::between(x, x), x));
    }
  }
  try {
    return valueOf(c, text::apply(c.name, args));
  } catch (const DmciError& e) {
    Error err = e.error();
    if (!err.pos.known()) err.pos = c.site->pos;
    throw DmciError(err);
  }
}

}  // namespace

// exact-integer-sqrt's native part (prims/Numbers.cpp): its argument read discretely too.
template <class Num>
Value<Num> exactIntegerSqrtList(const PrimCall<Num>& c) {
  const Num& x = c.number(0);
  Num n = c.decide(DecisionKind::Discrete, std::optional<Num>(x), Closeness<Num>::between(x, x), x);
  try {
    auto [s, r] = exactIntegerSqrt(static_cast<double>(n));
    const bool exact = c[0].isExact();
    return c.heap().cons(keepExact(Value<Num>::number(Num(s)), exact),
                         c.heap().cons(keepExact(Value<Num>::number(Num(r)), exact), Value<Num>::nil()));
  } catch (const DmciError& e) {
    throw DmciError(e.error().kind, e.error().message, c.site->pos);
  }
}

template <class Num>
void addTextPrims(PrimRegistry<Num>& r) {
  for (const text::Row& row : text::rows()) r.add(row.name, textPrim<Num>);
  r.add("%exact-integer-sqrt-list", exactIntegerSqrtList<Num>);
}

template void addTextPrims<Wide>(PrimRegistry<Wide>&);

}  // namespace dmci::oracle
