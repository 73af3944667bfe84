// Tests of the expander (Datum -> core AST) and of the core AST printer.
#include "expand/Expand.h"

#include <gtest/gtest.h>

#include "syntax/Reader.h"

namespace dmci {
namespace {

std::vector<DatumPtr> read(const std::string& src) {
  auto r = readAll(src, "t.scm");
  if (!r.ok()) ADD_FAILURE() << "reader: " << r.error().str();
  return r.ok() ? r.value() : std::vector<DatumPtr>{};
}

Result<ExprPtr> expand(const std::string& src, ExpandOptions opts = {}) { return expandProgram(read(src), opts); }

// The printed core form of a program, or the error text.
std::string core(const std::string& src, ExpandOptions opts = {}) {
  auto r = expand(src, opts);
  return r.ok() ? print(*r.value()) : "ERROR " + r.error().str();
}

std::string internal(const std::string& src) { return core(src, ExpandOptions{true, ""}); }

// ---------------------------------------------------------------------------
// The printer and the constructors

TEST(CoreExprPrint, EveryFormHasItsSExpression) {
  SrcPos p{0, 1, 1};
  auto x = CoreExpr::ref("x", p);
  auto one = CoreExpr::constant(Datum::num(1, p), p);
  EXPECT_EQ(print(*one), "(quote 1)");
  EXPECT_EQ(print(*CoreExpr::if_(x, one, x, p)), "(if x (quote 1) x)");
  EXPECT_EQ(print(*CoreExpr::lambda({"a", "b"}, false, x, p)), "(lambda (a b) x)");
  EXPECT_EQ(print(*CoreExpr::lambda({"a", "r"}, true, x, p)), "(lambda (a . r) x)");
  EXPECT_EQ(print(*CoreExpr::lambda({"args"}, true, x, p)), "(lambda args x)");
  EXPECT_EQ(print(*CoreExpr::lambda({}, false, x, p)), "(lambda () x)");
  EXPECT_EQ(print(*CoreExpr::app({x, one}, p)), "(x (quote 1))");
  EXPECT_EQ(print(*CoreExpr::begin({x, one}, p)), "(begin x (quote 1))");
  EXPECT_EQ(print(*CoreExpr::let({{"x", one}}, x, p)), "(let ((x (quote 1))) x)");
  EXPECT_EQ(print(*CoreExpr::letrec({{"x", one}}, x, p)), "(letrec* ((x (quote 1))) x)");
}

TEST(CoreExprPrint, ToDatumKeepsEachNodesPosition) {
  auto r = expand("(if a\n    (f 1)\n    2)");
  ASSERT_TRUE(r.ok());
  DatumPtr d = toDatum(*r.value());
  EXPECT_EQ(d->pos.line, 1u);
  EXPECT_EQ(d->items[1]->pos.col, 5u);            // a
  EXPECT_EQ(d->items[2]->pos.line, 2u);           // (f 1)
  EXPECT_EQ(d->items[2]->items[1]->pos.col, 8u);  // (quote 1) at the literal
  EXPECT_EQ(d->items[3]->pos.line, 3u);
}

TEST(CoreExprPrint, ConstKeepsTheLiteralsDatum) {
  auto r = expand("\n  2.5");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()->kind, CoreKind::Const);
  EXPECT_EQ(r.value()->datum->number, 2.5);
  EXPECT_EQ(r.value()->pos.line, 2u);
  EXPECT_EQ(r.value()->pos.col, 3u);
}

// ---------------------------------------------------------------------------
// Core forms

TEST(Expand, SelfEvaluatingDatumsAreConstants) {
  EXPECT_EQ(core("1"), "(quote 1)");
  EXPECT_EQ(core("#t"), "(quote #t)");
  EXPECT_EQ(core("\"s\""), "(quote \"s\")");
  EXPECT_EQ(core("#\\a"), "(quote #\\a)");
}

TEST(Expand, QuoteGivesItsDatum) {
  EXPECT_EQ(core("'(a . b)"), "(quote (a . b))");
  EXPECT_EQ(core("'()"), "(quote ())");
  EXPECT_EQ(core("(quote %internal)"), "(quote %internal)");
}

TEST(Expand, TwoArmedIfGetsTheUnspecifiedElse) {
  EXPECT_EQ(core("(if a 1)"), "(if a (quote 1) (quote ()))");
  EXPECT_EQ(core("(if a 1 2)"), "(if a (quote 1) (quote 2))");
}

TEST(Expand, LambdaParameterShapes) {
  EXPECT_EQ(core("(lambda (a b) a)"), "(lambda (a b) a)");
  EXPECT_EQ(core("(lambda args args)"), "(lambda args args)");
  EXPECT_EQ(core("(lambda (a . rest) rest)"), "(lambda (a . rest) rest)");
  EXPECT_EQ(core("(lambda () 1 2)"), "(lambda () (begin (quote 1) (quote 2)))");
}

TEST(Expand, DottedLambdaHoldsTheRestNameLast) {
  auto r = expand("(lambda (a b . rest) a)");
  ASSERT_TRUE(r.ok());
  const CoreExpr& e = *r.value();
  EXPECT_EQ(e.kind, CoreKind::Lambda);
  EXPECT_TRUE(e.variadic);
  EXPECT_EQ(e.params, (std::vector<std::string>{"a", "b", "rest"}));
  EXPECT_EQ(e.name, "");
}

TEST(Expand, ApplicationAndBegin) {
  EXPECT_EQ(core("(f 1 x)"), "(f (quote 1) x)");
  EXPECT_EQ(core("((lambda (x) x) 1)"), "((lambda (x) x) (quote 1))");
  EXPECT_EQ(core("(begin 1 2)"), "(begin (quote 1) (quote 2))");
  EXPECT_EQ(core("(begin 1)"), "(quote 1)");
}

// ---------------------------------------------------------------------------
// Bodies and definitions

TEST(Expand, ProgramValueIsItsLastExpression) {
  EXPECT_EQ(core("1 2"), "(begin (quote 1) (quote 2))");
  EXPECT_EQ(core("(define x 1) x"), "(letrec* ((x (quote 1))) x)");
}

TEST(Expand, DefineProcedureNamesItsLambda) {
  auto r = expand("(define (f x . r) x) (f 1)");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(print(*r.value()), "(letrec* ((f (lambda (x . r) x))) (f (quote 1)))");
  EXPECT_EQ(r.value()->bindings[0].second->name, "f");
}

TEST(Expand, InternalDefinesBecomeLetrecStar) {
  EXPECT_EQ(core("(lambda () (define x 1) (define (g y) y) (g x))"),
            "(lambda () (letrec* ((x (quote 1)) (g (lambda (y) y))) (g x)))");
}

TEST(Expand, ExpressionsBeforeADefineKeepTheirPlace) {
  EXPECT_EQ(core("(lambda () (display 1) (define x 2) (display x) (define y 3) x y)"),
            "(lambda () (letrec* ((%seq1 (display (quote 1))) (x (quote 2)) "
            "(%seq2 (display x)) (y (quote 3))) (begin x y)))");
}

TEST(Expand, CurriedDefine) {
  auto r = expand("(define ((adder a) b) (+ a b)) ((adder 1) 2)");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(print(*r.value()), "(letrec* ((adder (lambda (a) (lambda (b) (+ a b))))) ((adder (quote 1)) (quote 2)))");
  const CoreExpr& outer = *r.value()->bindings[0].second;
  EXPECT_EQ(outer.name, "adder");
  EXPECT_EQ(outer.body->name, "");
}

TEST(Expand, BeginWithDefinesIsSplicedIntoTheBody) {
  EXPECT_EQ(core("(lambda () (begin (define x 1) (define y 2)) (+ x y))"),
            "(lambda () (letrec* ((x (quote 1)) (y (quote 2))) (+ x y)))");
  EXPECT_EQ(core("(begin (define x 1)) x"), "(letrec* ((x (quote 1))) x)");
}

TEST(Expand, BeginWithoutDefinesStaysAnExpression) {
  EXPECT_EQ(core("(begin 1 2) 3"), "(begin (begin (quote 1) (quote 2)) (quote 3))");
}

TEST(Expand, ExpandExprRejectsDefine) {
  auto r = expandExpr(read("(define x 1)")[0]);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Form);
  EXPECT_EQ(print(*expandExpr(read("(f 1)")[0]).value()), "(f (quote 1))");
}

// ---------------------------------------------------------------------------
// let and friends

TEST(Expand, LetIsParallel) {
  EXPECT_EQ(core("(let ((x 1) (y x)) y)"), "(let ((x (quote 1)) (y x)) y)");
  EXPECT_EQ(core("(let () 1)"), "(let () (quote 1))");
}

TEST(Expand, NamedLetIsAnApplicationOfALetrec) {
  auto r = expand("(let lp ((i 0) (acc 1)) (lp i acc))");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(print(*r.value()), "((letrec* ((lp (lambda (i acc) (lp i acc)))) lp) (quote 0) (quote 1))");
  EXPECT_EQ(r.value()->kids[0]->bindings[0].second->name, "lp");
}

TEST(Expand, NamedLetInitsAreOutsideTheLoopsScope) {
  // `if` is bound by the loop only inside its body: the init is still a conditional.
  EXPECT_EQ(core("(let if ((x (if a 1 2))) x)"), "((letrec* ((if (lambda (x) x))) if) (if a (quote 1) (quote 2)))");
}

TEST(Expand, LetStarNests) {
  EXPECT_EQ(core("(let* ((x 1) (y x)) y)"), "(let ((x (quote 1))) (let ((y x)) y))");
  EXPECT_EQ(core("(let* () 1)"), "(let () (quote 1))");
  EXPECT_EQ(core("(let* ((x 1) (x x)) x)"), "(let ((x (quote 1))) (let ((x x)) x))");
}

TEST(Expand, LetrecAndLetrecStarBothBecomeLetrec) {
  EXPECT_EQ(core("(letrec ((f (lambda () (g))) (g (lambda () 1))) (f))"),
            "(letrec* ((f (lambda () (g))) (g (lambda () (quote 1)))) (f))");
  EXPECT_EQ(core("(letrec* ((a 1) (b a)) b)"), "(letrec* ((a (quote 1)) (b a)) b)");
}

TEST(Expand, LetBodyMayHoldDefines) {
  EXPECT_EQ(core("(let ((x 1)) (define y x) y)"), "(let ((x (quote 1))) (letrec* ((y x)) y))");
}

// ---------------------------------------------------------------------------
// Conditionals

TEST(Expand, CondWithElse) {
  EXPECT_EQ(core("(cond (a 1) (b 2 3) (else 4))"), "(if a (quote 1) (if b (begin (quote 2) (quote 3)) (quote 4)))");
}

TEST(Expand, CondWithoutElseIsUnspecified) { EXPECT_EQ(core("(cond (a 1))"), "(if a (quote 1) (quote ()))"); }

TEST(Expand, CondArrowAndTestOnlyClausesEvaluateTheTestOnce) {
  EXPECT_EQ(core("(cond ((f) => g) (else 0))"), "(let ((%t1 (f))) (if %t1 (g %t1) (quote 0)))");
  EXPECT_EQ(core("(cond ((f)) (b 1))"), "(let ((%t1 (f))) (if %t1 %t1 (if b (quote 1) (quote ()))))");
}

TEST(Expand, CaseUsesEqvAndMemvThroughInternalNames) {
  EXPECT_EQ(core("(case k ((1) 'one) ((2 3) 'few) (else 'many))"),
            "(let ((%t1 k)) (if (%eqv? %t1 (quote 1)) (quote one) "
            "(if (%memv %t1 (quote (2 3))) (quote few) (quote many))))");
}

TEST(Expand, CaseArrowPassesTheKey) {
  EXPECT_EQ(core("(case k ((a) => f) (else => g))"), "(let ((%t1 k)) (if (%eqv? %t1 (quote a)) (f %t1) (g %t1)))");
}

TEST(Expand, CaseWithoutElseIsUnspecified) {
  EXPECT_EQ(core("(case k ((1) 2))"), "(let ((%t1 k)) (if (%eqv? %t1 (quote 1)) (quote 2) (quote ())))");
}

TEST(Expand, AndShortCircuits) {
  EXPECT_EQ(core("(and)"), "(quote #t)");
  EXPECT_EQ(core("(and a)"), "a");
  EXPECT_EQ(core("(and a b c)"), "(if a (if b c (quote #f)) (quote #f))");
}

TEST(Expand, OrEvaluatesEachTestOnce) {
  EXPECT_EQ(core("(or)"), "(quote #f)");
  EXPECT_EQ(core("(or a)"), "a");
  EXPECT_EQ(core("(or a b c)"), "(let ((%t1 a)) (if %t1 %t1 (let ((%t2 b)) (if %t2 %t2 c))))");
}

TEST(Expand, WhenAndUnless) {
  EXPECT_EQ(core("(when a 1 2)"), "(if a (begin (quote 1) (quote 2)) (quote ()))");
  EXPECT_EQ(core("(unless a 1)"), "(if a (quote ()) (quote 1))");
}

// ---------------------------------------------------------------------------
// Loops

TEST(Expand, DoIsALetrecLoop) {
  EXPECT_EQ(core("(do ((i 0 (+ i 1)) (acc 1)) ((= i 3) acc) (f i))"),
            "((letrec* ((%do1 (lambda (i acc) (if (= i (quote 3)) acc "
            "(begin (f i) (%do1 (+ i (quote 1)) acc)))))) %do1) (quote 0) (quote 1))");
  EXPECT_EQ(core("(do ((i 0 (+ i 1))) ((= i 3)))"),
            "((letrec* ((%do1 (lambda (i) (if (= i (quote 3)) (quote ()) "
            "(%do1 (+ i (quote 1))))))) %do1) (quote 0))");
}

TEST(Expand, LoopIsANamedLetCalledRecur) {
  EXPECT_EQ(core("(loop ((i 0)) (if (< i 3) (recur (+ i 1)) i))"),
            core("(let recur ((i 0)) (if (< i 3) (recur (+ i 1)) i))"));
  EXPECT_EQ(core("(loop ((i 0)) i)"), "((letrec* ((recur (lambda (i) i))) recur) (quote 0))");
}

TEST(Expand, LoopAsAVariableIsAnApplication) {
  EXPECT_EQ(core("(let loop ((i 0)) (loop i))"), "((letrec* ((loop (lambda (i) (loop i)))) loop) (quote 0))");
}

// ---------------------------------------------------------------------------
// Quasiquote

TEST(Expand, QuasiquoteWithoutUnquoteIsAConstant) {
  EXPECT_EQ(core("`(a (b c) . d)"), "(quote (a (b c) . d))");
  EXPECT_EQ(core("`x"), "(quote x)");
}

TEST(Expand, QuasiquoteUnquote) {
  EXPECT_EQ(core("`(1 ,x 3 4)"), "(%cons (quote 1) (%cons x (quote (3 4))))");
  EXPECT_EQ(core("`,x"), "x");
  EXPECT_EQ(core("`(a . ,b)"), "(%cons (quote a) b)");
}

TEST(Expand, QuasiquoteSplicing) {
  EXPECT_EQ(core("`(1 ,@xs 2)"), "(%cons (quote 1) (%append xs (quote (2))))");
  EXPECT_EQ(core("`(,@xs)"), "(%append xs (quote ()))");
}

TEST(Expand, NestedQuasiquoteKeepsInnerUnquotesAsData) {
  EXPECT_EQ(core("`(a `(b ,(c ,x)))"),
            "(%cons (quote a) (%cons (%list (quote quasiquote) (%cons (quote b) (%cons "
            "(%list (quote unquote) (%cons (quote c) (%cons x (quote ())))) (quote ())))) "
            "(quote ())))");
  EXPECT_EQ(core("`(a `(b ,c))"), "(quote (a (quasiquote (b (unquote c)))))");
}

// ---------------------------------------------------------------------------
// Hygiene and scope

TEST(Hygiene, BoundKeywordsAreVariables) {
  EXPECT_EQ(core("(let ((if list)) (if 1 2 3))"), "(let ((if list)) (if (quote 1) (quote 2) (quote 3)))");
  auto r = expand("(lambda (if) (if 1))");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()->body->kind, CoreKind::App);
}

TEST(Hygiene, ADefinedKeywordIsAVariableInTheWholeBody) {
  auto r = expand("(define (when x) x) (when 1)");
  ASSERT_TRUE(r.ok()) << r.error().str();
  EXPECT_EQ(r.value()->body->kind, CoreKind::App);
}

TEST(Hygiene, RebindingAPrimitiveDoesNotChangeDerivedForms) {
  EXPECT_EQ(core("(let ((eqv? 0) (cons 0)) (case 1 ((1) `(,eqv?))))"),
            "(let ((eqv? (quote 0)) (cons (quote 0))) (let ((%t1 (quote 1))) "
            "(if (%eqv? %t1 (quote 1)) (%cons eqv? (quote ())) (quote ()))))");
}

TEST(Hygiene, ScopeEndsWithItsForm) {
  auto r = expand("((lambda (if) if) 1) (if 1 2 3)");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value()->kids[1]->kind, CoreKind::If);
}

TEST(Hygiene, InternalNamesNeedAllowInternal) {
  EXPECT_FALSE(expand("(%cons 1 2)").ok());
  EXPECT_EQ(internal("(%cons 1 2)"), "(%cons (quote 1) (quote 2))");
  EXPECT_EQ(internal("(define (%f x) x) (%f 1)"), "(letrec* ((%f (lambda (x) x))) (%f (quote 1)))");
}

TEST(Hygiene, FreshNamesAreDistinct) {
  EXPECT_EQ(core("(list (or a b) (or c d))"), "(list (let ((%t1 a)) (if %t1 %t1 b)) (let ((%t2 c)) (if %t2 %t2 d)))");
}

TEST(Hygiene, FreshNamesSkipInternalNamesBoundByTheProgram) {
  EXPECT_EQ(internal("(let ((%t1 0)) (or a %t1))"), "(let ((%t1 (quote 0))) (let ((%t2 a)) (if %t2 %t2 %t1)))");
}

TEST(Hygiene, UnboundVariablesAreLeftToTheLowering) {
  EXPECT_EQ(core("(undefined-thing 1)"), "(undefined-thing (quote 1))");
}

// ---------------------------------------------------------------------------
// Errors

// Assignment conversion (Assign.cpp): only an assigned binder gets a box; references read it, set! writes it.
TEST(Expand, SetBoxesOnlyTheAssignedVariable) {
  EXPECT_EQ(
      core("(let ((x 1) (y 2)) (set! x y) x)"),
      "(let ((x (let ((%set-value (quote 1))) (let ((%set-box (%box-new))) (begin (%box-set! %set-box "
      "%set-value) %set-box)))) (y (quote 2))) (begin (begin (%box-set! x y) (quote ())) (%box-ref x (quote x))))");
  EXPECT_EQ(core("(lambda (a b) (set! b a) b)"),
            "(lambda (a b) (let ((b (let ((%set-value b)) (let ((%set-box (%box-new))) (begin (%box-set! %set-box "
            "%set-value) %set-box))))) (begin (begin (%box-set! b a) (quote ())) (%box-ref b (quote b)))))");
  EXPECT_EQ(core("(let ((x 1)) (let ((x 2)) (set! x 3)) x)").find("(%box-ref x"), std::string::npos);
}

TEST(Expand, AProgramWithoutSetIsUntouched) { EXPECT_EQ(core("(let ((x 1)) x)"), "(let ((x (quote 1))) x)"); }

TEST(ExpandErrors, MutationSaysWhy) {
  auto m = expand("(set-cdr! p 1)");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("single-assignment"), std::string::npos) << m.error().message;
}

TEST(ExpandErrors, ErrorsNameTheFile) {
  auto r = expand("(if)");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().str().rfind("t.scm:1:1: bad-form: if:", 0), 0u) << r.error().str();
}

TEST(ExpandErrors, DeepNestingIsAnErrorNotACrash) {
  DatumPtr d = Datum::num(1, {0, 1, 1});
  for (int i = 0; i < 5000; ++i) d = Datum::list({Datum::symbol("f", {0, 1, 1}), d}, {0, 1, 1});
  auto r = expandExpr(d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::Form);
  auto q = expandExpr(Datum::list({Datum::symbol("quasiquote", {0, 1, 1}), d}, {0, 1, 1}));
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().message.find("nested too deeply"), std::string::npos) << q.error().str();
}

TEST(ExpandErrors, LongClauseListsDoNotRecurseDeeply) {
  std::string src = "(cond";
  for (int i = 0; i < 20000; ++i) src += " ((= x " + std::to_string(i) + ") " + std::to_string(i) + ")";
  src += ")";
  EXPECT_TRUE(expand(src).ok());
  std::string qq = "`(";
  for (int i = 0; i < 20000; ++i) qq += ",x ";
  EXPECT_TRUE(expand(qq + ")").ok());
}

struct BadForm {
  const char* src;
  uint32_t line;
  uint32_t col;
  const char* says;  // a piece of the message
};

class MalformedForm : public ::testing::TestWithParam<BadForm> {};

TEST_P(MalformedForm, IsAFormErrorAtTheOffendingDatum) {
  const BadForm& b = GetParam();
  auto r = expand(b.src);
  ASSERT_FALSE(r.ok()) << b.src << " expanded to " << print(*r.value());
  EXPECT_EQ(r.error().kind, ErrorKind::Form) << r.error().str();
  EXPECT_EQ(r.error().pos.line, b.line) << r.error().str();
  EXPECT_EQ(r.error().pos.col, b.col) << r.error().str();
  EXPECT_NE(r.error().message.find(b.says), std::string::npos) << r.error().str();
}

const BadForm kBadForms[] = {
    {"(if)", 1, 1, "if: expects (if test then [else])"},
    {"(if 1)", 1, 1, "if: expects"},
    {"(if 1 2 3 4)", 1, 1, "if: expects"},
    {"(lambda)", 1, 1, "lambda: expects"},
    {"(lambda (x))", 1, 1, "lambda: body is empty"},
    {"(lambda (x x) x)", 1, 12, "'x' is bound twice"},
    {"(lambda (x 1) x)", 1, 12, "expected a variable name"},
    {"(lambda 5 1)", 1, 9, "parameters must be"},
    {"(let ((x)) x)", 1, 7, "binding must be (name expr)"},
    {"(let ((x 1) (x 2)) x)", 1, 14, "'x' is bound twice"},
    {"(let ((x 1) . y) x)", 1, 6, "bindings must be a list"},
    {"(let loop)", 1, 1, "let: expects"},
    {"(let loop ((i 0)))", 1, 1, "let: body is empty"},
    {"(set! x 1)", 1, 7, "set!: 'x' is not bound"},
    {"(set! (car p) 1)", 1, 7, "the target must be a variable name"},
    {"(set! x)", 1, 1, "set!: expects (set! variable expr)"},
    {"(set! if 1)", 1, 7, "'if' is a syntactic keyword"},
    {"(list (set-car! p 1))", 1, 8, "single-assignment"},
    {"(define)", 1, 1, "define: expects"},
    {"(define x)\n1", 1, 1, "define: expects"},
    {"(define (f))\n1", 1, 1, "define: body is empty"},
    {"(define (f) 1)\n(define (f) 2)\n(f)", 2, 1, "defined twice"},
    {"(define x 1)", 1, 1, "program has no expression to evaluate"},
    {"1\n  (define x 1)", 2, 3, "program has no expression to evaluate"},
    {"", 1, 1, "program has no expression to evaluate"},
    {"(lambda () (define x 1))", 1, 12, "body must end with an expression"},
    {"(if x (define y 1) 2)", 1, 7, "define: only allowed"},
    {"(+ 1 (define y 2))", 1, 6, "define: only allowed"},
    {"(cond)", 1, 1, "cond: expects"},
    {"(cond (else))", 1, 7, "else clause needs"},
    {"(cond (else 1) (#t 2))", 1, 7, "else clause must be the last"},
    {"(cond x)", 1, 7, "cond: clause must be"},
    {"(cond (1 =>))", 1, 7, "=> clause must be"},
    {"(case)", 1, 1, "case: expects"},
    {"(case 1 (1 2))", 1, 10, "list of datums"},
    {"(case 1 (else 1) ((1) 2))", 1, 9, "else clause must be the last"},
    {"(do ((i 0)))", 1, 1, "do: expects"},
    {"(do ((i)) (#t))", 1, 6, "variable clause"},
    {"(do ((i 0)) 5)", 1, 13, "exit clause"},
    {"(quote)", 1, 1, "quote: expects (quote datum)"},
    {"(quote a b)", 1, 1, "quote: expects"},
    {"(quasiquote)", 1, 1, "quasiquote: expects"},
    {"`,@x", 1, 2, "unquote-splicing: only allowed inside a list"},
    {"`(1 (unquote a b))", 1, 5, "unquote: expects exactly one expression"},
    {"(unquote x)", 1, 1, "only allowed inside quasiquote"},
    {"(+ 1 %secret)", 1, 6, "reserved"},
    {"(let ((%t1 1)) 2)", 1, 8, "reserved"},
    {"()", 1, 1, "empty application"},
    {"(f . x)", 1, 1, "proper list"},
    {"(if 1 . 2)", 1, 1, "proper list"},
    {"(map if xs)", 1, 6, "syntactic keyword"},
    {"(when 1)", 1, 1, "when: expects"},
    {"(unless 1)", 1, 1, "unless: expects"},
    {"(loop)", 1, 1, "loop: expects"},
    {"(letrec ((f)) f)", 1, 10, "binding must be"},
    {"(begin)", 1, 1, "begin: expects"},
};

INSTANTIATE_TEST_SUITE_P(Table, MalformedForm, ::testing::ValuesIn(kBadForms));

}  // namespace
}  // namespace dmci
