// A table of bad programs: each gives one error kind at one source position, with one message, by both routes.
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <tuple>

#include "testing/Eval.h"

namespace dmci {
namespace {

using test::evalErr;
using test::where;

// One bad input: its text, and the error it must give (kind, "line:col", a fragment of the message).
struct BadInput {
  const char* label;
  const char* src;
  ErrorKind kind;
  const char* at;       // "line:col" in prog.scm, or "<unknown>"
  const char* message;  // a fragment the message must contain
  Budget budget = {};
};

void PrintTo(const BadInput& b, std::ostream* os) {
  *os << b.label << ": `" << b.src << "` -> " << errorKindName(b.kind) << " at " << b.at << " (\"" << b.message
      << "\")";
}

constexpr Budget kFewSteps{10'000, Budget{}.heapCells, Budget{}.seconds};
constexpr Budget kSmallHeap{Budget{}.steps, 10'000, Budget{}.seconds};

const BadInput kBadInputs[] = {
    // --- reader ---
    {"unclosed_paren", "(+ 1 2", ErrorKind::Syntax, "1:1", "unclosed '('"},
    {"unclosed_paren_line2", "(define x 1)\n(+ x", ErrorKind::Syntax, "2:1", "unclosed '('"},
    {"stray_close", "(+ 1 2))", ErrorKind::Syntax, "1:8", "unexpected ')'"},
    {"bad_number", "(+ 1.2.3 1)", ErrorKind::Syntax, "1:4", "bad number '1.2.3'"},
    {"bad_hash", "(+ #q 1)", ErrorKind::Syntax, "1:4", "bad '#' syntax"},
    {"unterminated_string", "(error \"abc)", ErrorKind::Syntax, "1:8", "unterminated string"},
    // --- expander ---
    {"if_empty", "(if)", ErrorKind::Form, "1:1", "if:"},
    {"lambda_empty", "(lambda)", ErrorKind::Form, "1:1", "lambda:"},
    {"let_binding_no_value", "(let ((x)) x)", ErrorKind::Form, "1:7", "binding must be (name expr)"},
    {"set_bang_unbound", "(set! x 1)", ErrorKind::Form, "1:7", "set!: 'x' is not bound"},
    {"define_empty", "(define)", ErrorKind::Form, "1:1", "define:"},
    {"cond_else_empty", "(cond (else))", ErrorKind::Form, "1:7", "else clause"},
    {"lambda_duplicate_param", "(lambda (x x) x)", ErrorKind::Form, "1:12", "'x' is bound twice"},
    {"quote_empty", "(quote)", ErrorKind::Form, "1:1", "quote:"},
    {"empty_program", "", ErrorKind::Form, "1:1", "no expression"},
    {"comment_only_program", "; nothing\n", ErrorKind::Form, "1:1", "no expression"},
    {"reserved_name", "(define %foo 1) 2", ErrorKind::Form, "1:9", "reserved"},
    // --- run time: names ---
    {"unbound", "y", ErrorKind::Unbound, "1:1", "unbound variable: y"},
    {"unbound_in_let_init", "(let ((x 1) (y x)) y)", ErrorKind::Unbound, "1:16", "unbound variable: x"},
    {"unbound_unknown_prim", "(hash-table-ref 1 2)", ErrorKind::Unbound, "1:2", "hash-table-ref"},
    {"letrec_use_before_definition", "(define a b) (define b 1) a", ErrorKind::Unbound, "1:11",
     "used before its definition"},
    {"unbound_in_body_line3", "(define (f x)\n  (+ x\n     z))\n(f 1)", ErrorKind::Unbound, "3:6",
     "unbound variable: z"},
    // --- run time: arity ---
    {"lambda_too_few", "((lambda (a b) a) 1)", ErrorKind::Arity, "1:1", "expects 2 arguments, got 1"},
    {"lambda_too_many", "((lambda (a) a) 1 2)", ErrorKind::Arity, "1:1", "expects 1 argument, got 2"},
    {"variadic_too_few", "((lambda (a b . c) a) 1)", ErrorKind::Arity, "1:1", "at least 2 arguments, got 1"},
    {"define_too_few", "(define (f a b) a)\n(f 1)", ErrorKind::Arity, "2:1", "expects 2 arguments, got 1"},
    {"prim_too_many", "(car 1 2)", ErrorKind::Arity, "1:1", "car: expects 1 argument, got 2"},
    // --- run time: types ---
    {"car_of_number", "(car 1)", ErrorKind::Type, "1:1", "car: argument 1 must be a pair, got 1"},
    {"cdr_of_nil", "(cdr '())", ErrorKind::Type, "1:1", "cdr: argument 1 must be a pair"},
    {"plus_symbol", "(+ 'a 1)", ErrorKind::Type, "1:1", "+: argument 1 must be a number, got a"},
    {"less_symbol", "(< 1 'b)", ErrorKind::Type, "1:1", "<: argument 2 must be a number, got b"},
    {"times_in_body", "(define (f x) (* x 'a))\n(f 2)", ErrorKind::Type, "1:15", "*: argument 2"},
    {"length_of_number", "(length 5)", ErrorKind::Type, "1:1", "length"},
    {"apply_non_list", "(apply + 1)", ErrorKind::Type, "1:1", "apply"},
    {"apply_without_list", "(apply +)", ErrorKind::Arity, "1:1", "apply: expects at least 2 arguments, got 1"},
    {"apply_without_list_in_body", "(define (f g)\n  (apply g))\n(f +)", ErrorKind::Arity, "2:3",
     "apply: expects at least 2 arguments, got 1"},
    {"program_value_list", "(list 1 2)", ErrorKind::Type, "1:1", "must be a number or a tensor"},
    // --- run time: errors raised inside a library procedure point at the user's call of it ---
    {"map_car_of_number", "(apply + (map car '(1 2)))", ErrorKind::Type, "1:10", "car: argument 1 must be a pair"},
    {"fold_left_wrong_arity", "(fold-left (lambda (a) a) 0 '(1 2))", ErrorKind::Arity, "1:1",
     "expects 1 argument, got 2"},
    // --- run time: assoc and member, whose comparison form is a library procedure ---
    {"assoc_not_alist", "(assoc 3 '((1 . 2) 5))", ErrorKind::Type, "1:1",
     "assoc: argument 2 must be a list of pairs, got ((1 . 2) 5)"},
    {"assoc_compare_not_alist", "(assoc 3 '((1 . 2) 5) =)", ErrorKind::Type, "1:1",
     "assoc: argument 2 must be a list of pairs, got (5)"},
    {"member_compare_improper", "(member 3 '(1 . 2) =)", ErrorKind::Type, "1:1",
     "member: argument 2 must be a proper list, got 2"},
    {"member_compare_not_procedure", "(member 1 '(2) 5)", ErrorKind::NotProcedure, "1:1", "non-procedure: 5"},
    {"assoc_too_few", "(assoc 1)", ErrorKind::Arity, "1:1", "assoc: expects at least 2 arguments, got 1"},
    {"member_too_many", "(define l '(1))\n(member 1 l = 4)", ErrorKind::User, "2:1",
     "member: expects 2 to 3 arguments, got 4"},
    // --- run time: application, domain, user errors ---
    {"apply_number", "(5 3)", ErrorKind::NotProcedure, "1:1", "non-procedure: 5"},
    {"apply_string", "(\"f\" 3)", ErrorKind::NotProcedure, "1:1", "non-procedure: \"f\""},
    {"list_ref_past_end", "(list-ref '(1 2) 5)", ErrorKind::Domain, "1:1", "past the end"},
    // --- run time: vectors ---
    {"vector_ref_out_of_range", "(vector-ref (vector 1 2) 5)", ErrorKind::Domain, "1:1",
     "vector-ref: index 5 is out of range for a vector of length 2"},
    {"vector_ref_of_list", "(define l '(1 2))\n(vector-ref l 0)", ErrorKind::Type, "2:1",
     "vector-ref: argument 1 must be a vector, got (1 2)"},
    {"vector_ref_fractional", "(vector-ref #(1 2) 0.5)", ErrorKind::Type, "1:1",
     "vector-ref: argument 2 must be a non-negative integer, got 0.5"},
    {"vector_length_of_number", "(vector-length 3)", ErrorKind::Type, "1:1",
     "vector-length: argument 1 must be a vector, got 3"},
    {"vector_copy_end_past", "(vector-ref (vector-copy #(1 2) 0 3) 0)", ErrorKind::Domain, "1:13",
     "vector-copy: end 3 is out of range for a vector of length 2"},
    {"make_vector_negative", "(vector-length (make-vector -1 0))", ErrorKind::User, "1:16",
     "make-vector: argument 1 must be a non-negative integer, got -1"},
    {"vector_map_of_list", "(vector-length (vector-map car '(1)))", ErrorKind::Type, "1:16",
     "vector->list: argument 1 must be a vector, got (1)"},
    {"vector_set_out_of_range", "(define v (vector 1 2))\n(vector-set! v 2 0)", ErrorKind::Domain, "2:1",
     "vector-set!: index 2 is out of range for a vector of length 2"},
    {"vector_set_of_literal", "(define v #(1 2))\n(vector-set! v 0 5)", ErrorKind::Domain, "2:1",
     "vector-set!: the vector is a literal constant, which cannot be changed"},
    {"vector_set_of_list", "(vector-set! (list 1) 0 2)", ErrorKind::Type, "1:1",
     "vector-set!: argument 1 must be a vector, got (1)"},
    {"vector_fill_bang_of_literal", "(define v '#(1 2))\n(vector-fill! v 0)", ErrorKind::Domain, "2:1",
     "vector-set!: the vector is a literal constant"},
    {"set_car_is_mutation", "(define p (list 1))\n(set-car! p 2)", ErrorKind::Form, "2:2",
     "set-car!: mutation is not supported"},
    {"user_error", "(error \"boom\" 1 2)", ErrorKind::User, "1:1", "boom 1 2"},
    {"user_error_line2", "(define (f x)\n  (if (< x 0) (error \"negative\" x) x))\n(f -1)", ErrorKind::User, "2:15",
     "negative -1"},
    // --- budgets ---
    {"tail_loop_steps", "(define (f n) (f n)) (f 1)", ErrorKind::Budget, "1:15", "step budget", kFewSteps},
    {"deep_recursion_heap", "(define (f n) (+ 1 (f n))) (f 1)", ErrorKind::Budget, "1:20", "heap budget", kSmallHeap},
};

class BadInputByRoute : public ::testing::TestWithParam<std::tuple<BadInput, Route>> {};

TEST_P(BadInputByRoute, GivesItsKindPositionAndMessage) {
  const auto& [b, route] = GetParam();
  Error e = evalErr(b.src, route, {}, b.budget);
  EXPECT_EQ(errorKindName(e.kind), std::string(errorKindName(b.kind))) << e.str();
  EXPECT_EQ(where(e.pos), b.at) << e.str();
  EXPECT_NE(e.message.find(b.message), std::string::npos) << e.str();
}

std::string rowName(const ::testing::TestParamInfo<std::tuple<BadInput, Route>>& info) {
  return std::string(std::get<0>(info.param).label) + "_" + routeName(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Table, BadInputByRoute,
                         ::testing::Combine(::testing::ValuesIn(kBadInputs),
                                            ::testing::Values(Route::Direct, Route::Dmci)),
                         rowName);

class BadInputRoutes : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputRoutes, DmciReportsExactlyWhatDirectReports) {
  const BadInput& b = GetParam();
  Error direct = evalErr(b.src, Route::Direct, {}, b.budget);
  Error dmci = evalErr(b.src, Route::Dmci, {}, b.budget);
  EXPECT_EQ(direct.str(), dmci.str());
}

INSTANTIATE_TEST_SUITE_P(Table, BadInputRoutes, ::testing::ValuesIn(kBadInputs),
                         [](const auto& info) { return std::string(info.param.label); });

TEST(BadInputTable, HasAtLeast35Rows) { EXPECT_GE(std::size(kBadInputs), 35u); }

// The tower reports a user program's error at the user's position too.
TEST(BadInputTower, Dmci2ReportsTheUsersPosition) {
  Error e = evalErr("(define (f x) (car x))\n(f 5)", Route::Dmci2);
  EXPECT_EQ(e.kind, ErrorKind::Type) << e.str();
  EXPECT_EQ(where(e.pos), "1:15") << e.str();
}

TEST(BadInputTower, Dmci2ReportsAnAssocComparisonErrorAtItsCall) {
  Error e = evalErr("(+ 1\n   (cdr (assoc 1 '((2 . 3) 4) =)))", Route::Dmci2);
  EXPECT_EQ(e.kind, ErrorKind::Type) << e.str();
  EXPECT_EQ(where(e.pos), "2:9") << e.str();
}

TEST(BadInputTower, Dmci2ReportsApplyWithoutAListAtItsCall) {
  Error e = evalErr("(+ 1\n   (apply +))", Route::Dmci2);
  EXPECT_EQ(e.kind, ErrorKind::Arity) << e.str();
  EXPECT_EQ(where(e.pos), "2:4") << e.str();
}

}  // namespace
}  // namespace dmci
