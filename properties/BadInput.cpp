// Generators of bad input (random text, token soup, ill-typed programs) and of datums for print -> read.
#include <cmath>

#include "properties/Generators.h"

namespace dmci::props {
namespace gen = rc::gen;
using rc::Gen;

namespace {

const std::vector<std::string> kTokens = {"(",      "(",
                                          "(",      ")",
                                          ")",      ")",
                                          "'",      "`",
                                          ",",      ",@",
                                          ".",      "#t",
                                          "#f",     "#\\a",
                                          "\"s\"",  "#|",
                                          "|#",     "#;",
                                          ";",      "\n",
                                          "1",      "-2.5",
                                          "1e308",  "1e-3",
                                          ".5",     "+",
                                          "-",      "*",
                                          "/",      "car",
                                          "cdr",    "cons",
                                          "list",   "lambda",
                                          "define", "let",
                                          "let*",   "letrec",
                                          "if",     "cond",
                                          "else",   "=>",
                                          "case",   "and",
                                          "or",     "when",
                                          "unless", "do",
                                          "loop",   "recur",
                                          "quote",  "quasiquote",
                                          "set!",   "begin",
                                          "x",      "y",
                                          "f",      "apply",
                                          "map",    "fold-left",
                                          "vec",    "mat",
                                          "dot",    "sqrt",
                                          "log",    "error",
                                          "%cons",  "#x",
                                          "1/2",    "|a b|",
                                          "nan",    "+inf.0",
                                          "-0",     "9999999999999999999999"};

// Ill-typed or erroneous expressions that must stop a run with a clean error.
const std::vector<std::string> kBad = {"(car 1)",
                                       "(+ 'a 1)",
                                       "(cdr '())",
                                       "(1 2)",
                                       "(vector-ref x 0)",
                                       "(list-ref (list 1 2) 5)",
                                       "(vector-set! (vector 1 2) 2 0)",
                                       "(vector-set! #(1 2) 0 x)",
                                       "(vector-fill! (vector 1) 0 0 2)",
                                       "(raise (list x))",
                                       "(guard (e ((string? e) 1)) (error \"boom\" x))",
                                       "(error \"boom\" 1)",
                                       "((lambda (a) a))",
                                       "((lambda (a) a) 1 2)",
                                       "(sqrt \"s\")",
                                       "(dot (vec 1 2) (vec 1 2 3))",
                                       "(ref (vec 1) 3)",
                                       "(+ #t 1)",
                                       "(unbound-name 1)",
                                       "(vsum 3)",
                                       "(matvec (mat (list 1 2)) (vec 1))",
                                       "(apply + 1)",
                                       "(letrec ((r (lambda (n) (r n)))) (r 1))",
                                       "(let loop ((n 0)) (+ 1 (loop n)))"};

}  // namespace

Gen<std::string> genRandomText() {
  return gen::container<std::string>(gen::oneOf(gen::inRange<char>(32, 127), gen::element('(', ')', ' ', '\n', '#')));
}

Gen<std::string> genTokenSoup() {
  return gen::map(gen::container<std::vector<std::string>>(gen::elementOf(kTokens)), [](const auto& toks) {
    std::string out;
    for (const auto& t : toks) out += t + " ";
    return out;
  });
}

// A generated program whose first occurrence of a parameter or literal leaf is replaced by an erroneous expression.
Gen<std::string> genIllTyped() {
  return gen::apply(
      [](const Case& c, const std::string& bad, int pick) {
        std::string text = c.text;
        std::vector<size_t> spots;  // starts of atoms after a space
        for (size_t i = 1; i < text.size(); ++i)
          if (text[i - 1] == ' ' && text[i] != '(' && text[i] != ')' && text[i] != '\'') spots.push_back(i);
        if (spots.empty()) return bad + "\n";
        size_t at = spots[static_cast<size_t>(pick) % spots.size()];
        size_t end = text.find_first_of(" ()\n", at);
        return text.substr(0, at) + bad + text.substr(end);
      },
      genCase(3), gen::elementOf(kBad), pick(0, 1000));
}

namespace {

Gen<DatumPtr> atom() {
  return gen::mapcat(pick(0, 7), [](int k) -> Gen<DatumPtr> {
    switch (k) {
      case 0:
        return gen::map(gen::arbitrary<double>(), [](double v) { return Datum::num(std::isfinite(v) ? v : 1.5); });
      case 1:
        return gen::map(pick(-1000, 1000), [](int v) { return Datum::num(v / 8.0); });
      case 2:
        return gen::map(gen::arbitrary<bool>(), [](bool b) { return Datum::boolean_(b); });
      case 3:
        return gen::map(gen::container<std::string>(gen::inRange<char>(32, 127)),
                        [](std::string s) { return Datum::string(s); });
      case 4:
        return gen::map(gen::inRange<char>(33, 127), [](char c) { return Datum::character(uint32_t(c)); });
      case 5:
        return gen::map(gen::element<std::string>("x", "lambda", "+", "a.b", "->", "...", "x1"),
                        [](std::string s) { return Datum::symbol(s); });
      default:
        return gen::map(gen::nonEmpty(gen::container<std::string>(gen::inRange<char>(32, 127))),
                        [](std::string s) { return Datum::symbol(s); });
    }
  });
}

Gen<DatumPtr> datum(int d) {
  if (d <= 0) return atom();
  return gen::mapcat(pick(0, 4), [d](int k) -> Gen<DatumPtr> {
    if (k == 0) return atom();
    auto items = gen::container<std::vector<DatumPtr>>(gen::lazy([d] { return datum(d - 1); }));
    if (k == 1) return gen::map(items, [](std::vector<DatumPtr> v) { return Datum::list(std::move(v)); });
    if (k == 2)
      return gen::apply(
          [](std::vector<DatumPtr> v, DatumPtr tail) {
            v.push_back(Datum::num(1));
            return Datum::list(std::move(v), {}, tail);
          },
          items, atom());
    return gen::map(gen::lazy([d] { return datum(d - 1); }), [](DatumPtr x) {
      return Datum::list({Datum::symbol("quote"), x});
    });
  });
}

}  // namespace

Gen<DatumPtr> genDatum() {
  return gen::withSize([](int size) { return datum(std::min(size, 100) / 25); });
}

}  // namespace dmci::props
