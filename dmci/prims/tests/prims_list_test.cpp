// Tests of the list primitives, the type predicates and equivalence, and the Scheme prelude rows.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "driver/Program.h"
#include "prims/PrimTable.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

class Lists : public ::testing::Test {
 protected:
  Runtime rt;

  // Calls a primitive through the table, arity checked as the engines do.
  Value call(const std::string& name, std::vector<Value> args) {
    int id = primId(name);
    EXPECT_GE(id, 0) << name;
    const Primitive& p = prim(id);
    checkArity(p, static_cast<int>(args.size()));
    return p.forward(rt, args.data(), static_cast<int>(args.size()));
  }
  bool truth(const std::string& name, std::vector<Value> args) { return !call(name, std::move(args)).isFalse(); }

  // The error the call throws (failing the test if none).
  Error errorOf(const std::string& name, std::vector<Value> args) {
    try {
      call(name, std::move(args));
    } catch (const DmciError& e) {
      return e.error();
    }
    ADD_FAILURE() << name << " did not throw";
    return {};
  }

  // A proper list of numbers (constants), built with rt.cons.
  Value list(const std::vector<double>& xs) {
    Value l = Value::nil();
    for (size_t k = xs.size(); k-- > 0;) l = rt.cons(Value::real(xs[k]), l);
    return l;
  }
  std::string show(const Value& v) { return rt.show(v); }
};

Value num(double x) { return Value::real(x); }
Value sym(const char* s) { return Value::make(Tag::Symbol, internSymbol(s)); }
const Value kFalse = Value::boolean(false);

// --- pairs and c[ad]r ---

TEST_F(Lists, ConsCarCdr) {
  Value p = call("cons", {num(1), num(2)});
  EXPECT_EQ(show(p), "(1 . 2)");
  EXPECT_EQ(call("car", {p}).num, 1.0);
  EXPECT_EQ(call("cdr", {p}).num, 2.0);
}

TEST_F(Lists, AllFourteenCarCdrCompositionsExist) {
  std::vector<std::string> names = {"car",   "cdr",   "caar",  "cadr",  "cdar",  "cddr",  "caaar",
                                    "caadr", "cadar", "caddr", "cdaar", "cdadr", "cddar", "cdddr"};
  for (const auto& n : names) {
    ASSERT_GE(primId(n), 0) << n;
    EXPECT_EQ(prim(primId(n)).minArgs, 1) << n;
    EXPECT_EQ(prim(primId(n)).maxArgs, 1) << n;
  }
  EXPECT_STREQ(prim(primId("cadr")).doc, "(cadr x) = (car (cdr x))");
  EXPECT_STREQ(prim(primId("cdddr")).doc, "(cdddr x) = (cdr (cdr (cdr x)))");
}

TEST_F(Lists, CompositionsApplyTheirLettersRightToLeft) {
  Value l = list({1, 2, 3});
  EXPECT_EQ(call("cadr", {l}).num, 2.0);
  EXPECT_EQ(call("caddr", {l}).num, 3.0);
  EXPECT_EQ(show(call("cddr", {l})), "(3)");
  EXPECT_EQ(call("cdddr", {l}).tag, Tag::Nil);
  Value nested = rt.cons(rt.cons(list({7, 8}), num(9)), Value::nil());  // (((7 8) . 9))
  EXPECT_EQ(call("caaar", {nested}).num, 7.0);
  EXPECT_EQ(call("cdar", {nested}).num, 9.0);
}

TEST_F(Lists, CarOfANonPairIsATypeErrorNamingCar) {
  Error e = errorOf("car", {Value::nil()});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "car: argument 1 must be a pair, got ()");
}

TEST_F(Lists, CompositionErrorsNameTheComposition) {
  Error e = errorOf("cadr", {num(1)});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "cadr: argument 1 must be a pair, got 1");
  e = errorOf("cadr", {list({1})});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "cadr: argument 1 must be a pair whose cdr is a pair, got (1)");
  e = errorOf("caddr", {list({1, 2})});
  EXPECT_EQ(e.message, "caddr: argument 1 must be a pair whose cddr is a pair, got (1 2)");
}

// --- gradients through lists ---

TEST_F(Lists, CarOfAConsReturnsTheValueWithItsTapeSlot) {
  Value x = rt.leaf(3.0);
  Value y = call("car", {call("cons", {x, Value::nil()})});
  EXPECT_EQ(y.i, x.i);
  Value z = prim(primId("sin")).forward(rt, &y, 1);
  EXPECT_DOUBLE_EQ(rt.backward(z)[x.i], std::cos(3.0));
}

TEST_F(Lists, GradientFlowsThroughListRefAppendAndReverse) {
  Value x = rt.leaf(2.0);
  Value l = call("append", {list({1}), call("reverse", {call("list", {x, num(5)})})});  // (1 5 x)
  Value y = call("list-ref", {l, num(2)});
  EXPECT_EQ(y.i, x.i);
  Value args[2] = {y, y};
  Value z = prim(primId("*")).forward(rt, args, 2);
  EXPECT_DOUBLE_EQ(rt.backward(z)[x.i], 4.0);
}

// --- whole lists ---

TEST_F(Lists, ListAndLength) {
  EXPECT_EQ(show(call("list", {num(1), sym("a"), num(3)})), "(1 a 3)");
  EXPECT_EQ(call("list", {}).tag, Tag::Nil);
  EXPECT_EQ(call("length", {list({4, 5, 6})}).num, 3.0);
  EXPECT_EQ(call("length", {Value::nil()}).num, 0.0);
}

TEST_F(Lists, LengthOfAnImproperListIsATypeError) {
  Error e = errorOf("length", {rt.cons(num(1), num(2))});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message, "length: argument 1 must be a proper list, got (1 . 2)");
}

TEST_F(Lists, AppendCopiesAllButTheLastArgument) {
  EXPECT_EQ(show(call("append", {list({1, 2}), list({3}), list({4, 5})})), "(1 2 3 4 5)");
  EXPECT_EQ(show(call("append", {list({1, 2}), list({3}), num(4)})), "(1 2 3 . 4)");
  EXPECT_EQ(call("append", {}).tag, Tag::Nil);
  EXPECT_EQ(call("append", {Value::nil(), num(5)}).num, 5.0);
  Value tail = list({9});
  EXPECT_EQ(call("cdr", {call("append", {list({1}), tail})}).i, tail.i);  // the last list is shared
}

TEST_F(Lists, AppendOfAnImproperListBeforeTheLastIsATypeError) {
  Error e = errorOf("append", {rt.cons(num(1), num(2)), list({3})});
  EXPECT_EQ(e.kind, ErrorKind::Type);
  EXPECT_EQ(e.message.rfind("append: argument 1", 0), 0u) << e.message;
}

TEST_F(Lists, ReverseMakesANewList) {
  EXPECT_EQ(show(call("reverse", {list({1, 2, 3})})), "(3 2 1)");
  EXPECT_EQ(call("reverse", {Value::nil()}).tag, Tag::Nil);
  EXPECT_EQ(errorOf("reverse", {num(1)}).kind, ErrorKind::Type);
}

TEST_F(Lists, ListRefAndListTail) {
  Value l = list({10, 11, 12});
  EXPECT_EQ(call("list-ref", {l, num(0)}).num, 10.0);
  EXPECT_EQ(call("list-ref", {l, num(2)}).num, 12.0);
  EXPECT_EQ(show(call("list-tail", {l, num(1)})), "(11 12)");
  EXPECT_EQ(call("list-tail", {l, num(3)}).tag, Tag::Nil);
}

TEST_F(Lists, IndexPastTheEndIsADomainError) {
  Error e = errorOf("list-ref", {list({10, 11, 12}), num(3)});
  EXPECT_EQ(e.kind, ErrorKind::Domain);
  EXPECT_EQ(e.message, "list-ref: index 3 is past the end of a list of length 3");
  e = errorOf("list-tail", {list({10}), num(2)});
  EXPECT_EQ(e.kind, ErrorKind::Domain);
  EXPECT_EQ(e.message.rfind("list-tail:", 0), 0u);
}

TEST_F(Lists, IndexMustBeANonNegativeInteger) {
  for (Value bad : {num(-1), num(1.5), sym("a"), num(INFINITY)}) {
    Error e = errorOf("list-ref", {list({1, 2}), bad});
    EXPECT_EQ(e.kind, ErrorKind::Type) << show(bad);
    EXPECT_NE(e.message.find("list-ref: argument 2 must be a non-negative integer"), std::string::npos) << e.message;
  }
  EXPECT_EQ(errorOf("list-tail", {num(5), num(0)}).kind, ErrorKind::Type);
}

// --- searches ---

// assoc and member are library procedures (below); %assoc-equal and %member-equal are their 2-argument forms.
TEST_F(Lists, AssqAssvAssocFindTheFirstMatchingEntry) {
  Value alist = call("list", {rt.cons(sym("a"), num(1)), rt.cons(num(2), num(20)), rt.cons(list({3}), num(30))});
  EXPECT_EQ(show(call("assq", {sym("a"), alist})), "(a . 1)");
  EXPECT_EQ(show(call("assv", {num(2), alist})), "(2 . 20)");
  EXPECT_TRUE(call("assv", {list({3}), alist}).isFalse());  // a fresh list is not eqv?
  EXPECT_EQ(show(call("%assoc-equal", {list({3}), alist})), "((3) . 30)");
  EXPECT_TRUE(call("assq", {sym("z"), alist}).isFalse());
  EXPECT_EQ(errorOf("assq", {sym("a"), list({1})}).kind, ErrorKind::Type);
}

TEST_F(Lists, MemqMemberReturnTheSublist) {
  Value l = call("list", {sym("a"), list({1}), num(2)});
  EXPECT_EQ(show(call("memq", {sym("a"), l})), "(a (1) 2)");
  EXPECT_EQ(show(call("memv", {num(2), l})), "(2)");
  EXPECT_EQ(show(call("%member-equal", {list({1}), l})), "((1) 2)");
  EXPECT_TRUE(call("memq", {list({1}), l}).isFalse());
  EXPECT_TRUE(call("%member-equal", {num(7), l}).isFalse());
}

// --- type predicates ---

TEST_F(Lists, ListPredicatesDistinguishProperListsPairsAndNil) {
  EXPECT_TRUE(truth("list?", {list({1, 2})}));
  EXPECT_TRUE(truth("list?", {Value::nil()}));
  EXPECT_FALSE(truth("list?", {rt.cons(num(1), num(2))}));
  EXPECT_TRUE(truth("pair?", {rt.cons(num(1), num(2))}));
  EXPECT_FALSE(truth("pair?", {Value::nil()}));
  EXPECT_TRUE(truth("null?", {Value::nil()}));
  EXPECT_FALSE(truth("null?", {num(0)}));
}

TEST_F(Lists, OnlyFalseIsFalse) {
  EXPECT_TRUE(truth("not", {kFalse}));
  EXPECT_FALSE(truth("not", {num(0)}));
  EXPECT_FALSE(truth("not", {Value::nil()}));
  EXPECT_TRUE(truth("boolean?", {kFalse}));
  EXPECT_FALSE(truth("boolean?", {Value::nil()}));
}

TEST_F(Lists, OtherTypePredicates) {
  EXPECT_TRUE(truth("symbol?", {sym("a")}));
  EXPECT_FALSE(truth("symbol?", {rt.string("a")}));
  EXPECT_TRUE(truth("string?", {rt.string("a")}));
  EXPECT_TRUE(truth("procedure?", {Value::make(Tag::Prim, primId("car"))}));
  EXPECT_TRUE(truth("procedure?", {Value::make(Tag::Closure, 0, 3)}));
  EXPECT_FALSE(truth("procedure?", {sym("car")}));
}

// --- equivalence ---

TEST_F(Lists, EqComparesNumbersByValueAndPairsByIdentity) {
  EXPECT_TRUE(truth("eq?", {num(2), num(2)}));
  EXPECT_TRUE(truth("eqv?", {rt.leaf(2), num(2)}));  // the tape slot is not part of the value
  EXPECT_TRUE(truth("eqv?", {num(0), num(-0.0)}));
  EXPECT_TRUE(truth("eqv?", {num(NAN), num(NAN)}));
  EXPECT_FALSE(truth("eq?", {num(2), sym("a")}));
  EXPECT_TRUE(truth("eq?", {sym("a"), sym("a")}));
  EXPECT_TRUE(truth("eq?", {Value::nil(), Value::nil()}));
  Value p = list({1});
  EXPECT_TRUE(truth("eq?", {p, p}));
  EXPECT_FALSE(truth("eq?", {p, list({1})}));
  EXPECT_FALSE(truth("eqv?", {Value::make(Tag::Closure, 4, 1), Value::make(Tag::Closure, 4, 2)}));
}

TEST_F(Lists, EqualComparesStructure) {
  EXPECT_TRUE(truth("equal?", {list({1, 2, 3}), list({1, 2, 3})}));
  EXPECT_FALSE(truth("equal?", {list({1, 2, 3}), list({1, 2})}));
  EXPECT_FALSE(truth("equal?", {list({1, 2}), rt.cons(num(1), num(2))}));
  Value nested1 = call("list", {list({1}), sym("x")});
  Value nested2 = call("list", {list({1}), sym("x")});
  EXPECT_TRUE(truth("equal?", {nested1, nested2}));
}

TEST_F(Lists, EqualComparesStringsByContent) {
  Value a = rt.string("ab"), b = rt.string("ab");
  EXPECT_TRUE(truth("equal?", {a, b}));
  EXPECT_FALSE(truth("eqv?", {a, b}));
  EXPECT_FALSE(truth("equal?", {a, rt.string("abc")}));
}

TEST_F(Lists, EqualComparesTensorsByShapeAndData) {
  auto tensor = [&](int rank, int rows, int cols, std::vector<double> d) {
    Value t = rt.newTensor(rank, rows, cols);
    std::copy(d.begin(), d.end(), rt.tdata(t));
    return t;
  };
  Value v = tensor(1, 2, 1, {1, 2});
  EXPECT_TRUE(truth("equal?", {v, tensor(1, 2, 1, {1, 2})}));
  EXPECT_FALSE(truth("eqv?", {v, tensor(1, 2, 1, {1, 2})}));
  EXPECT_TRUE(truth("eqv?", {v, v}));
  EXPECT_FALSE(truth("equal?", {v, tensor(1, 2, 1, {1, 3})}));
  EXPECT_FALSE(truth("equal?", {v, tensor(2, 2, 1, {1, 2})}));
  EXPECT_FALSE(truth("equal?", {tensor(2, 1, 2, {1, 2}), tensor(2, 2, 1, {1, 2})}));
}

TEST_F(Lists, EqualOnAHundredThousandLongListDoesNotOverflowTheStack) {
  std::vector<double> xs(100000);
  for (size_t k = 0; k < xs.size(); ++k) xs[k] = static_cast<double>(k);
  EXPECT_TRUE(truth("equal?", {list(xs), list(xs)}));
  std::vector<double> ys = xs;
  ys.back() = -1;
  EXPECT_FALSE(truth("equal?", {list(xs), list(ys)}));
}

TEST_F(Lists, EqualOnAHundredThousandDeepCarNestingDoesNotOverflowTheStack) {
  Value a = Value::nil(), b = Value::nil();
  for (int k = 0; k < 100000; ++k) {
    a = rt.cons(a, Value::nil());
    b = rt.cons(b, Value::nil());
  }
  EXPECT_TRUE(truth("equal?", {a, b}));
}

// --- the library procedures written in Scheme ---

// Splits Scheme text into parentheses and atoms, a string being one atom (enough for the prelude,
// whose strings have no escapes).
std::vector<std::string> tokens(const std::string& src) {
  std::vector<std::string> out;
  std::string cur;
  bool inString = false;
  for (char c : src) {
    if (c == '"') inString = !inString;
    bool delim = !inString && (c == '(' || c == ')' || c == '\'' || std::isspace(static_cast<unsigned char>(c)));
    if (delim && !cur.empty()) out.push_back(cur), cur.clear();
    if (c == '(' || c == ')') out.emplace_back(1, c);
    if (!delim) cur += c;
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

TEST(Prelude, LibraryProceduresAreSchemeDefinitionsWithTheirArities) {
  struct Want {
    const char* name;
    int minArgs, maxArgs;
  };
  const std::vector<Want> wants = {{"map", 2, -1},       {"for-each", 2, -1}, {"filter", 2, 2}, {"fold-left", 3, 3},
                                   {"fold-right", 3, 3}, {"reduce", 3, 3},    {"assoc", 2, 3},  {"member", 2, 3}};
  for (auto [name, lo, hi] : wants) {
    ASSERT_GE(primId(name), 0) << name;
    const Primitive& p = prim(primId(name));
    EXPECT_EQ(p.forward, nullptr) << name;
    ASSERT_NE(p.prelude, nullptr) << name;
    EXPECT_EQ(p.minArgs, lo) << name;
    EXPECT_EQ(p.maxArgs, hi) << name;
    std::vector<std::string> t = tokens(p.prelude);
    ASSERT_GE(t.size(), 4u);
    EXPECT_EQ(t[0] + t[1] + t[2] + t[3], std::string("(define(") + name) << name;
  }
}

TEST(Prelude, DefinitionsAreOneBalancedFormReferringToPrimitivesOnlyByPercentNames) {
  const std::set<std::string> forms = {"define", "if", "let", "begin", "lambda", "quote", "#t", "#f"};
  for (const Primitive& p : primitives()) {
    if (!p.prelude) continue;
    std::vector<std::string> t = tokens(p.prelude);
    int depth = 0;
    for (size_t k = 0; k < t.size(); ++k) {
      if (t[k] == "(") ++depth;
      if (t[k] == ")") --depth;
      ASSERT_TRUE(depth > 0 || k + 1 == t.size()) << p.name << ": the form closes early, at token " << k;
      if (t[k] == "(" || t[k] == ")" || forms.count(t[k]) || k == 3) continue;
      if (t[k][0] == '%') {
        EXPECT_GE(primId(t[k]), 0) << p.name << " refers to unknown " << t[k];
      } else {
        EXPECT_LT(primId(t[k]), 0) << p.name << " refers to " << t[k] << " without its %-name";
      }
    }
    EXPECT_EQ(depth, 0) << p.name;
  }
}

// A number in a library procedure would be a differentiable leaf named by a <prelude:...> position among the
// program's literals.
TEST(Prelude, DefinitionsHaveNoNumericLiterals) {
  for (const Primitive& p : primitives()) {
    if (!p.prelude) continue;
    for (const std::string& t : tokens(p.prelude)) {
      char* end = nullptr;
      std::strtod(t.c_str(), &end);
      EXPECT_FALSE(end != t.c_str() && *end == '\0') << p.name << " has the literal " << t;
    }
  }
}

TEST(Prelude, LibraryProceduresComputeTheirDefinitionsOnBothRoutes) {
  struct Case {
    const char* src;
    double value;
  };
  const std::vector<Case> cases = {
      {"(+ a (fold-left - 0 (list 1 2 3 4)))", -10},            // (((0 - 1) - 2) - 3) - 4
      {"(+ a (fold-right - 0 (list 1 2 3 4)))", -2},            // 1 - (2 - (3 - (4 - 0)))
      {"(+ a (reduce - 0 (list 1 2 3 4)))", 2},                 // (- 4 (- 3 (- 2 1)))
      {"(+ a (reduce + 7 '()))", 7},                            // ridentity for the empty list
      {"(+ a (apply + (map * (list 1 2 3) (list 4 5))))", 14},  // stops at the shortest list
      {"(+ a (apply + (filter odd? (list 1 2 3 4 5))))", 9},
      {"(+ a (length (map (lambda (x) x) '())))", 0},
      {"(+ a (if (for-each (lambda (x y) x) (list 1) (list 2)) 1 0))", 1},
  };
  for (Route r : {Route::Direct, Route::Dmci})
    for (const auto& c : cases) EXPECT_EQ(test::valueAndDa(c.src, r).first, c.value) << routeName(r) << " " << c.src;
}

TEST(Prelude, ForEachAndMapApplyTheirProcedureLeftToRight) {
  // Without mutation the order shows in which call fails first: the first element's, a Type error.
  for (const char* f : {"for-each", "map"}) {
    std::string src =
        std::string("(begin (") + f + " (lambda (x) (if (= x 1) (car x) (error \"later\"))) (list 1 2)) 0)";
    auto p = Program::fromText(src, "prog.scm");
    ASSERT_TRUE(p) << p.error().str();
    auto ev = p->evaluate({}, EvalOptions{});
    ASSERT_FALSE(ev) << src;
    EXPECT_EQ(ev.error().kind, ErrorKind::Type) << f << ": " << ev.error().str();
  }
}

TEST(Prelude, GradientsFlowThroughTheProcedureArgument) {
  const char* src = "(fold-left + 0 (map (lambda (x y) (* a x y)) (list a 2) (list 3 4)))";  // 3a^2 + 8a
  for (Route r : {Route::Direct, Route::Dmci}) {
    auto [v, g] = test::valueAndDa(src, r, 1.5);
    EXPECT_DOUBLE_EQ(v, 3 * 1.5 * 1.5 + 8 * 1.5) << routeName(r);
    EXPECT_DOUBLE_EQ(g, 6 * 1.5 + 8) << routeName(r);
  }
}

TEST(Prelude, RebindingPrimitiveNamesDoesNotChangeTheLibrary) {
  const char* src =
      "(let ((car cdr) (cdr car) (cons list) (reverse car) (null? pair?) (apply 0))"
      "  (+ a (fold-right - 0 (map (lambda (x) (* 2 x)) (filter (lambda (x) #t) (list 1 2 3))))))";
  for (Route r : {Route::Direct, Route::Dmci}) EXPECT_EQ(test::valueAndDa(src, r).first, 4) << routeName(r);
}

TEST(Prelude, LongListsRunInConstantStack) {
  const char* src =
      "(define (iota n) (let next ((k n) (acc '())) (if (= k 0) acc (next (- k 1) (cons k acc)))))"
      "(define l (iota 100000))"
      "(+ a (length (map (lambda (x) x) l)) (fold-left + 0 l) (fold-right + 0 l) (reduce + 0 l)"
      "   (length (filter even? l)) (if (for-each (lambda (x) x) l) 0 1))";
  EXPECT_EQ(test::valueAndDa(src, Route::Direct).first, 100000 + 3 * 5000050000.0 + 50000);
}

}  // namespace
}  // namespace dmci
