// Tests of the tensor primitives: forward values, errors, and every reverse-mode
// rule against central finite differences (fixed seeds, printed on failure).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "testing/Eval.h"
#include "testing/PrimCheck.h"

namespace dmci {
namespace {

using test::Arg;
using test::expectAdjointMatchesFD;
using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// --- helpers ---

Value call(Runtime& rt, const char* name, std::vector<Value> args) {
  int id = primId(name);
  EXPECT_GE(id, 0) << name;
  checkArity(prim(id), static_cast<int>(args.size()));
  return prim(id).forward(rt, args.data(), static_cast<int>(args.size()));
}

Value num(double x) { return Value::real(x); }

std::vector<double> data(Runtime& rt, const Value& t) {
  EXPECT_EQ(t.tag, Tag::Tensor);
  return std::vector<double>(rt.tdata(t), rt.tdata(t) + rt.tensor(t).size());
}

Value tensorOf(Runtime& rt, const Arg& a) { return test::makeArgs(rt, {a}, false)[0]; }

ErrorKind errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const DmciError& e) {
    return e.error().kind;
  }
  ADD_FAILURE() << "no error thrown";
  return ErrorKind::Usage;
}

std::string messageOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const DmciError& e) {
    return e.error().message;
  }
  ADD_FAILURE() << "no error thrown";
  return "";
}

// A program over numeric arguments; its gradient is that of the sum of its result.
using Program = std::function<Value(Runtime&, const std::vector<Value>&)>;

double programTotal(const Program& f, const std::vector<Arg>& args) {
  Runtime rt;
  auto vals = test::makeArgs(rt, args, false);
  return test::total(rt, f(rt, vals));
}

void expectGradientMatchesFD(const Program& f, const std::vector<Arg>& args, double tol = 1e-6) {
  Runtime rt;
  auto vals = test::makeArgs(rt, args, true);
  std::vector<double> adj = rt.backward(f(rt, vals));
  int slot = 0;
  for (size_t a = 0; a < args.size(); ++a) {
    for (size_t k = 0; k < args[a].data.size(); ++k, ++slot) {
      double x = args[a].data[k], h = 1e-6 * std::max(1.0, std::fabs(x));
      auto plus = args, minus = args;
      plus[a].data[k] = x + h;
      minus[a].data[k] = x - h;
      double fd = (programTotal(f, plus) - programTotal(f, minus)) / (2 * h);
      EXPECT_NEAR(adj[slot], fd, tol * std::max(1.0, std::fabs(fd))) << "argument " << a << " element " << k;
    }
  }
}

// Random arguments from a fixed seed.
struct Gen {
  std::mt19937 rng;
  explicit Gen(unsigned seed) : rng(seed) {}
  double u() { return std::uniform_real_distribution<double>(-1.0, 1.0)(rng); }
  Mat random(int r, int c) {
    Mat m(r, c);
    for (int k = 0; k < r * c; ++k) m.data()[k] = u();
    return m;
  }
  static Arg arg(const Mat& m) { return Arg::mat(int(m.rows()), int(m.cols()), {m.data(), m.data() + m.size()}); }
  Arg vec(int n) {
    Mat m = random(n, 1);
    return Arg::vec({m.data(), m.data() + n});
  }
  Arg mat(int r, int c) { return arg(random(r, c)); }
  // Diagonally dominant, hence well conditioned (and det > 0 for these sizes).
  Arg wellConditioned(int n) { return arg(Mat(2.0 * Mat::Identity(n, n) + 0.4 * random(n, n))); }
  Arg spd(int n) {
    Mat b = random(n, n);
    return arg(Mat(b * b.transpose() + n * Mat::Identity(n, n)));
  }
};

const unsigned kSeeds[] = {1u, 2u, 3u};

// sum(W ∘ out) for a fixed random W: a stronger check than the plain sum.
Value weighted(Runtime& rt, const Value& out, unsigned seed) {
  if (out.tag != Tag::Tensor) return out;
  Gen g(seed + 100);
  const TensorRec r = rt.tensor(out);
  Mat w = g.random(r.rows, r.cols);
  Arg wa = r.rank == 1 ? Arg::vec({w.data(), w.data() + w.size()}) : Gen::arg(w);
  return call(rt, "vsum", {tensorElementwise(rt, '*', tensorOf(rt, wa), out)});
}

// Checks a primitive both as the plain sum (PrimCheck) and weighted.
void expectRuleMatchesFD(const char* name, const std::vector<Arg>& args, unsigned seed, double tol = 1e-6) {
  SCOPED_TRACE(std::string(name) + " seed=" + std::to_string(seed));
  expectAdjointMatchesFD(name, args, tol);
  expectGradientMatchesFD(
      [&](Runtime& rt, const std::vector<Value>& v) { return weighted(rt, call(rt, name, v), seed); }, args, tol);
}

// --- construction and indexing ---

TEST(TensorConstruct, VecHoldsItsNumbers) {
  Runtime rt;
  Value v = call(rt, "vec", {num(1), num(-2), num(3.5)});
  EXPECT_EQ(rt.tensor(v).rank, 1);
  EXPECT_EQ(data(rt, v), (std::vector<double>{1, -2, 3.5}));
}

TEST(TensorConstruct, MatTakesListAndVectorRows) {
  Runtime rt;
  Value row0 = rt.cons(num(1), rt.cons(num(2), Value::nil()));
  Value row1 = call(rt, "vec", {num(3), num(4)});
  Value m = call(rt, "mat", {row0, row1});
  EXPECT_EQ(rt.tensor(m).rank, 2);
  EXPECT_EQ(rt.tensor(m).rows, 2);
  EXPECT_EQ(data(rt, m), (std::vector<double>{1, 2, 3, 4}));
}

TEST(TensorConstruct, ZerosOnesEye) {
  Runtime rt;
  Value z = call(rt, "zeros", {num(3)});
  EXPECT_EQ(rt.tensor(z).rank, 1);
  EXPECT_EQ(data(rt, z), (std::vector<double>{0, 0, 0}));
  Value o = call(rt, "ones", {num(2), num(3)});
  EXPECT_EQ(rt.tensor(o).rank, 2);
  EXPECT_EQ(data(rt, o), (std::vector<double>(6, 1.0)));
  EXPECT_EQ(data(rt, call(rt, "eye", {num(2)})), (std::vector<double>{1, 0, 0, 1}));
}

TEST(TensorConstruct, ShapeIsTheSizesWhateverTheEntries) {
  Runtime rt;
  const double inf = std::numeric_limits<double>::infinity();
  Value v = call(rt, "shape", {call(rt, "vec", {num(1), num(inf), num(std::nan(""))})});
  ASSERT_EQ(v.tag, Tag::Pair);
  EXPECT_EQ(rt.car(v).num, 3);
  EXPECT_EQ(rt.cdr(v).tag, Tag::Nil);
  Value m = call(rt, "shape", {call(rt, "ones", {num(2), num(5)})});
  EXPECT_EQ(rt.car(m).num, 2);
  EXPECT_EQ(rt.car(rt.cdr(m)).num, 5);
  EXPECT_EQ(rt.cdr(rt.cdr(m)).tag, Tag::Nil);
  EXPECT_EQ(errorOf([&] { call(rt, "shape", {num(2)}); }), ErrorKind::Type);
}

// By every route of the native engine (the oracle and the tensor engine: oracle_test, tensor_engine_test).
TEST(TensorConstruct, ShapeByEveryRoute) {
  const std::string src =
      "(let ((s (shape (mat (list x (/ 1 0)) (list (- (/ 1 0) (/ 1 0)) 2) '(1 1)))))"
      " (+ (* 10 (car s)) (cadr s) (car (shape (vec x x))) (* x (length (shape (scale x (vec 1 x)))))))";
  for (Route r : {Route::Direct, Route::Dmci, Route::Dmci2}) {
    Evaluation ev = test::evalOk(src, r, {{"x", 1.5}}, {"x"});
    EXPECT_EQ(ev.value, 10 * 3 + 2 + 2 + 1.5 * 1) << routeName(r);
    EXPECT_EQ(test::gradientOf(ev, "x"), 1) << routeName(r);
  }
}

TEST(TensorConstruct, RefReadsEntries) {
  Runtime rt;
  Value m = tensorOf(rt, Arg::mat(2, 3, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(call(rt, "ref", {m, num(1), num(2)}).num, 6.0);
  EXPECT_EQ(call(rt, "ref", {m, num(0), num(1)}).num, 2.0);
  EXPECT_EQ(call(rt, "ref", {tensorOf(rt, Arg::vec({7, 8})), num(1)}).num, 8.0);
}

TEST(TensorConstruct, Errors) {
  Runtime rt;
  Value v = tensorOf(rt, Arg::vec({1, 2}));
  Value m = tensorOf(rt, Arg::mat(2, 2, {1, 2, 3, 4}));
  EXPECT_EQ(errorOf([&] { call(rt, "vec", {num(1), Value::boolean(true)}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "vec", {}); }), ErrorKind::Arity);
  Value shortRow = rt.cons(num(1), Value::nil());
  EXPECT_EQ(errorOf([&] { call(rt, "mat", {v, shortRow}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "mat", {Value::nil()}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "mat", {rt.cons(num(1), num(2))}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "mat", {m}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "zeros", {num(2.5)}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "zeros", {num(0)}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "eye", {Value::boolean(false)}); }), ErrorKind::Type);
}

TEST(TensorConstruct, RefErrors) {
  Runtime rt;
  Value v = tensorOf(rt, Arg::vec({1, 2}));
  Value m = tensorOf(rt, Arg::mat(2, 2, {1, 2, 3, 4}));
  EXPECT_EQ(errorOf([&] { call(rt, "ref", {v, num(2)}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "ref", {v, num(-1)}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "ref", {v, num(0.5)}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "ref", {m, num(0), num(2)}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "ref", {m, num(0)}); }), ErrorKind::Arity);
  EXPECT_EQ(errorOf([&] { call(rt, "ref", {num(1), num(0)}); }), ErrorKind::Type);
}

TEST(TensorConstruct, VecGradientFlowsToEachScalar) {
  // d/dx_k of w·vec(x_1, x_2, x_3) is w_k.
  expectGradientMatchesFD(
      [](Runtime& rt, const std::vector<Value>& a) {
        Value w = tensorOf(rt, Arg::vec({0.5, -2, 3}));
        return call(rt, "dot", {w, call(rt, "vec", {a[0], a[1], a[2]})});
      },
      {Arg::scalar(1), Arg::scalar(2), Arg::scalar(-1)});
}

TEST(TensorConstruct, VecGradientSkipsConstantsAndRepeats) {
  Runtime rt;
  Value x = rt.leaf(2.0);
  Value v = call(rt, "vec", {x, num(5), x});
  Value w = tensorOf(rt, Arg::vec({1, 10, 100}));
  auto adj = rt.backward(call(rt, "dot", {w, v}));
  EXPECT_DOUBLE_EQ(adj[x.i], 101.0);
}

TEST(TensorConstruct, MatGradientFlowsToListScalarsAndVectorRows) {
  expectGradientMatchesFD(
      [](Runtime& rt, const std::vector<Value>& a) {
        Value row0 = rt.cons(a[0], rt.cons(num(3), rt.cons(a[1], Value::nil())));
        Value m = call(rt, "mat", {row0, a[2]});
        return weighted(rt, m, 7);
      },
      {Arg::scalar(1.5), Arg::scalar(-0.5), Arg::vec({2, 4, 6})});
}

TEST(TensorConstruct, RefGradientGoesToThatEntryOnly) {
  Runtime rt;
  auto args = test::makeArgs(rt, {Arg::mat(2, 3, {1, 2, 3, 4, 5, 6})}, true);
  Value y = call(rt, "ref", {args[0], num(1), num(0)});
  EXPECT_EQ(y.num, 4.0);
  auto adj = rt.backward(y);
  int32_t s = rt.tensor(args[0]).slot;
  for (int k = 0; k < 6; ++k) EXPECT_EQ(adj[s + k], k == 3 ? 1.0 : 0.0) << k;
}

TEST(TensorConstruct, ConstantInputsRecordNothing) {
  Runtime rt;
  Value m = tensorOf(rt, Arg::mat(2, 2, {2, 1, 1, 3}));
  Value y = call(rt, "inv", {call(rt, "matmul", {m, call(rt, "transpose", {m})})});
  EXPECT_EQ(rt.tensor(y).slot, -1);
  EXPECT_TRUE(rt.tape.empty());
}

// --- forward values of the algebra ---

TEST(TensorAlgebra, ForwardValues) {
  Runtime rt;
  Value a = tensorOf(rt, Arg::vec({1, 2, 3}));
  Value b = tensorOf(rt, Arg::vec({4, -5, 6}));
  Value A = tensorOf(rt, Arg::mat(2, 3, {1, 2, 3, 4, 5, 6}));
  Value B = tensorOf(rt, Arg::mat(3, 2, {1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(call(rt, "dot", {a, b}).num, 12.0);
  EXPECT_EQ(data(rt, call(rt, "matvec", {A, b})), (std::vector<double>{12, 27}));
  EXPECT_EQ(data(rt, call(rt, "matmul", {A, B})), (std::vector<double>{4, 5, 10, 11}));
  Value At = call(rt, "transpose", {A});
  EXPECT_EQ(rt.tensor(At).rows, 3);
  EXPECT_EQ(data(rt, At), (std::vector<double>{1, 4, 2, 5, 3, 6}));
  EXPECT_EQ(call(rt, "transpose", {a}).i, a.i);  // a vector passes through unchanged
  Value o = call(rt, "outer", {tensorOf(rt, Arg::vec({1, 2})), b});
  EXPECT_EQ(data(rt, o), (std::vector<double>{4, -5, 6, 8, -10, 12}));
  EXPECT_EQ(call(rt, "vsum", {A}).num, 21.0);
  EXPECT_EQ(call(rt, "norm", {tensorOf(rt, Arg::vec({3, 4}))}).num, 5.0);
  EXPECT_EQ(data(rt, call(rt, "scale", {num(2), a})), (std::vector<double>{2, 4, 6}));
}

TEST(TensorAlgebra, LinalgForwardValues) {
  Runtime rt;
  Value S = tensorOf(rt, Arg::mat(2, 2, {4, 2, 2, 3}));
  EXPECT_EQ(call(rt, "trace", {S}).num, 7.0);
  EXPECT_NEAR(call(rt, "det", {S}).num, 8.0, 1e-14);
  EXPECT_NEAR(call(rt, "logdet", {S}).num, std::log(8.0), 1e-14);
  auto inv = data(rt, call(rt, "inv", {S}));
  std::vector<double> want{3.0 / 8, -2.0 / 8, -2.0 / 8, 4.0 / 8};
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(inv[k], want[k], 1e-15);
  auto x = data(rt, call(rt, "solve", {S, tensorOf(rt, Arg::vec({6, 5}))}));
  EXPECT_NEAR(x[0], 1.0, 1e-15);
  EXPECT_NEAR(x[1], 1.0, 1e-15);
  auto X = call(rt, "solve", {S, tensorOf(rt, Arg::mat(2, 1, {6, 5}))});
  EXPECT_EQ(rt.tensor(X).rank, 2);
  auto L = data(rt, call(rt, "cholesky", {S}));
  std::vector<double> wantL{2, 0, 1, std::sqrt(2.0)};
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(L[k], wantL[k], 1e-15);
  EXPECT_NEAR(call(rt, "det", {tensorOf(rt, Arg::mat(2, 2, {0, 1, 1, 0}))}).num, -1.0, 1e-15);
}

TEST(TensorAlgebra, LogdetOfLargeDeterminantDoesNotOverflow) {
  Runtime rt;
  Value big = call(rt, "scale", {num(1e40), call(rt, "eye", {num(10)})});
  EXPECT_NEAR(call(rt, "logdet", {big}).num, 400 * std::log(10.0), 1e-9);
}

TEST(TensorAlgebra, SingularToWorkingPrecisionIsAnError) {
  Runtime rt;
  // det = 8.9e-16 exactly in double, but the smallest singular value (1.8e-16) is below 2·ε of the largest (5).
  Value nearly = tensorOf(rt, Arg::mat(2, 2, {1, 2, 2, 4.000000000000001}));
  Value fine = tensorOf(rt, Arg::mat(2, 2, {1, 2, 2, 4.001}));
  Value b = tensorOf(rt, Arg::vec({1, 1}));
  EXPECT_EQ(errorOf([&] { call(rt, "inv", {nearly}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "solve", {nearly, b}); }), ErrorKind::Domain);
  EXPECT_NEAR(rt.tdata(call(rt, "inv", {fine}))[0], 4001.0, 1e-6);  // ill-conditioned but invertible
}

TEST(TensorAlgebra, ShapeAndTypeErrors) {
  Runtime rt;
  Value v2 = tensorOf(rt, Arg::vec({1, 2}));
  Value v3 = tensorOf(rt, Arg::vec({1, 2, 3}));
  Value m23 = tensorOf(rt, Arg::mat(2, 3, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(errorOf([&] { call(rt, "dot", {v2, v3}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "dot", {v2, num(1)}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "matvec", {m23, v2}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "matvec", {v2, v2}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "matmul", {m23, m23}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "outer", {m23, v2}); }), ErrorKind::Type);
  for (const char* p : {"trace", "det", "logdet", "inv", "cholesky"})
    EXPECT_EQ(errorOf([&] { call(rt, p, {m23}); }), ErrorKind::Type) << p;
  EXPECT_EQ(errorOf([&] { call(rt, "solve", {tensorOf(rt, Arg::mat(2, 2, {1, 0, 0, 1})), v3}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "scale", {v2, v2}); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { call(rt, "vsum", {rt.cons(num(1), Value::nil())}); }), ErrorKind::Type);
  EXPECT_NE(messageOf([&] { call(rt, "matmul", {m23, m23}); }).find("2x3 matrix and 2x3 matrix"), std::string::npos);
}

TEST(TensorAlgebra, SingularAndIndefiniteAreDomainErrors) {
  Runtime rt;
  Value sing = tensorOf(rt, Arg::mat(2, 2, {1, 2, 2, 4}));
  Value neg = tensorOf(rt, Arg::mat(2, 2, {0, 1, 1, 0}));  // det -1, indefinite
  EXPECT_EQ(errorOf([&] { call(rt, "inv", {sing}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "solve", {sing, tensorOf(rt, Arg::vec({1, 1}))}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "logdet", {sing}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "logdet", {neg}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "cholesky", {neg}); }), ErrorKind::Domain);
  EXPECT_EQ(errorOf([&] { call(rt, "cholesky", {sing}); }), ErrorKind::Domain);
}

// --- every adjoint against finite differences ---

TEST(TensorAdjoint, VectorProducts) {
  for (unsigned seed : kSeeds) {
    Gen g(seed);
    expectRuleMatchesFD("dot", {g.vec(4), g.vec(4)}, seed);
    expectRuleMatchesFD("outer", {g.vec(3), g.vec(2)}, seed);
    expectRuleMatchesFD("norm", {g.vec(4)}, seed);
    expectRuleMatchesFD("norm", {g.mat(2, 3)}, seed);
    expectRuleMatchesFD("vsum", {g.mat(3, 2)}, seed);
    expectRuleMatchesFD("scale", {Arg::scalar(g.u()), g.vec(3)}, seed);
    expectRuleMatchesFD("scale", {Arg::scalar(g.u()), g.mat(2, 2)}, seed);
  }
}

TEST(TensorAdjoint, MatrixProducts) {
  for (unsigned seed : kSeeds) {
    Gen g(seed);
    expectRuleMatchesFD("matvec", {g.mat(2, 3), g.vec(3)}, seed);
    expectRuleMatchesFD("matmul", {g.mat(2, 3), g.mat(3, 4)}, seed);
    expectRuleMatchesFD("transpose", {g.mat(2, 3)}, seed);
    expectRuleMatchesFD("trace", {g.mat(3, 3)}, seed);
  }
}

TEST(TensorAdjoint, Determinants) {
  for (unsigned seed : kSeeds) {
    Gen g(seed);
    expectRuleMatchesFD("det", {g.wellConditioned(3)}, seed);
    expectRuleMatchesFD("det", {g.mat(4, 4)}, seed, 1e-5);
    expectRuleMatchesFD("logdet", {g.spd(3)}, seed);
    expectRuleMatchesFD("logdet", {g.wellConditioned(4)}, seed);
  }
}

TEST(TensorAdjoint, DetAtASingularMatrixIsTheAdjugate) {
  expectAdjointMatchesFD("det", {Arg::mat(2, 2, {1, 2, 2, 4})});
  expectAdjointMatchesFD("det", {Arg::mat(3, 3, {1, 2, 3, 2, 4, 6, 0, 1, 1})});
  expectAdjointMatchesFD("det", {Arg::mat(1, 1, {0})});
}

TEST(TensorAdjoint, InverseAndSolve) {
  for (unsigned seed : kSeeds) {
    Gen g(seed);
    expectRuleMatchesFD("inv", {g.wellConditioned(3)}, seed);
    expectRuleMatchesFD("solve", {g.wellConditioned(3), g.vec(3)}, seed);
    expectRuleMatchesFD("solve", {g.wellConditioned(3), g.mat(3, 2)}, seed);
  }
}

TEST(TensorAdjoint, Cholesky) {
  for (unsigned seed : kSeeds) {
    Gen g(seed);
    expectRuleMatchesFD("cholesky", {g.spd(1)}, seed);
    expectRuleMatchesFD("cholesky", {g.spd(3)}, seed);
    expectRuleMatchesFD("cholesky", {g.spd(4)}, seed);
  }
}

TEST(TensorAdjoint, TransposeOfAVectorPassesGradientThrough) {
  expectGradientMatchesFD(
      [](Runtime& rt, const std::vector<Value>& a) { return weighted(rt, call(rt, "transpose", {a[0]}), 3); },
      {Arg::vec({1, 2, 3})});
}

// --- elementwise arithmetic ---

TEST(TensorElementwise, ForwardValuesAndBroadcasting) {
  Runtime rt;
  Value a = tensorOf(rt, Arg::vec({1, 2, 3}));
  Value b = tensorOf(rt, Arg::vec({4, 5, 6}));
  EXPECT_EQ(data(rt, tensorElementwise(rt, '+', a, b)), (std::vector<double>{5, 7, 9}));
  EXPECT_EQ(data(rt, tensorElementwise(rt, '-', a, b)), (std::vector<double>{-3, -3, -3}));
  EXPECT_EQ(data(rt, tensorElementwise(rt, '*', a, b)), (std::vector<double>{4, 10, 18}));
  EXPECT_EQ(data(rt, tensorElementwise(rt, '/', b, a)), (std::vector<double>{4, 2.5, 2}));
  EXPECT_EQ(data(rt, tensorElementwise(rt, '-', num(10), a)), (std::vector<double>{9, 8, 7}));
  EXPECT_EQ(data(rt, tensorElementwise(rt, '/', a, num(2))), (std::vector<double>{0.5, 1, 1.5}));
  Value m = tensorOf(rt, Arg::mat(1, 2, {1, 2}));
  EXPECT_EQ(rt.tensor(tensorElementwise(rt, '*', num(3), m)).rank, 2);
}

TEST(TensorElementwise, Adjoints) {
  for (unsigned seed : kSeeds) {
    Gen g(seed);
    Arg pos = Gen::arg(Mat(g.random(2, 3).array() + 2.0));  // divisor away from 0
    for (const char* op : {"%tensor+", "%tensor-", "%tensor*", "%tensor/"}) {
      expectRuleMatchesFD(op, {g.mat(2, 3), pos}, seed);
      expectRuleMatchesFD(op, {Arg::scalar(g.u() + 2.0), pos}, seed);
      expectRuleMatchesFD(op, {g.mat(2, 3), Arg::scalar(g.u() + 2.0)}, seed);
      expectRuleMatchesFD(op, {g.vec(3), Arg::vec({2.5, -3, 1.5})}, seed);
    }
  }
}

TEST(TensorElementwise, DivisionByZeroIsIEEELikeScalarDivision) {
  Runtime rt;
  auto q = data(rt, tensorElementwise(rt, '/', tensorOf(rt, Arg::vec({1, -1})), num(0)));
  EXPECT_EQ(q[0], INFINITY);
  EXPECT_EQ(q[1], -INFINITY);
}

TEST(TensorElementwise, SameTensorOnBothSides) {
  expectGradientMatchesFD(
      [](Runtime& rt, const std::vector<Value>& a) { return tensorElementwise(rt, '*', a[0], a[0]); },
      {Arg::vec({1, -2, 3})});
}

TEST(TensorElementwise, Errors) {
  Runtime rt;
  Value v3 = tensorOf(rt, Arg::vec({1, 2, 3}));
  Value m31 = tensorOf(rt, Arg::mat(3, 1, {1, 2, 3}));
  std::string msg = messageOf([&] { tensorElementwise(rt, '+', v3, m31); });
  EXPECT_NE(msg.find("vector of length 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3x1 matrix"), std::string::npos) << msg;
  EXPECT_EQ(errorOf([&] { tensorElementwise(rt, '*', v3, tensorOf(rt, Arg::vec({1, 2}))); }), ErrorKind::Type);
  EXPECT_EQ(errorOf([&] { tensorElementwise(rt, '-', v3, Value::boolean(true)); }), ErrorKind::Type);
}

TEST(TensorElementwise, InternalRowsAreFoundByExactName) {
  for (const char* op : {"%tensor+", "%tensor-", "%tensor*", "%tensor/"}) {
    int id = primId(op);
    ASSERT_GE(id, 0) << op;
    EXPECT_EQ(prim(id).family, PrimFamily::Internal) << op;
    EXPECT_EQ(std::string(prim(id).name), op);
  }
}

// --- the table ---

TEST(TensorTable, EveryRowIsDocumentedAndEveryTensorOpHasARule) {
  for (const char* name :
       {"vec",   "mat",   "zeros", "ones",   "eye", "ref",   "dot",      "matvec", "matmul", "transpose",
        "outer", "trace", "det",   "logdet", "inv", "solve", "cholesky", "norm",   "vsum",   "scale"}) {
    int id = primId(name);
    ASSERT_GE(id, 0) << name;
    EXPECT_EQ(prim(id).family, PrimFamily::Tensor) << name;
    EXPECT_NE(std::string(prim(id).doc), "") << name;
    EXPECT_NE(prim(id).partials, nullptr) << name;
  }
  for (const char* name : {"dot", "matvec", "matmul", "transpose", "outer", "trace", "det", "logdet", "inv", "solve",
                           "cholesky", "norm", "vsum", "scale"}) {
    EXPECT_NE(prim(primId(name)).adjoint, nullptr) << name;
    EXPECT_NE(std::string(prim(primId(name)).partials), "") << name;
  }
}

// --- one Kalman-filter step built from the primitives ---

// Arguments: x (3), P, F, Q (3x3), H (2x3), R (2x2), z (2). Returns the step's
// log-likelihood plus w·x_new plus trace(P_new): every output of the step.
Value kalmanStep(Runtime& rt, const std::vector<Value>& a) {
  auto T = [&](const char* p, std::vector<Value> v) { return call(rt, p, std::move(v)); };
  const Value &x = a[0], &P = a[1], &F = a[2], &Q = a[3], &H = a[4], &R = a[5], &z = a[6];
  Value xp = T("matvec", {F, x});
  Value Pp = tensorElementwise(rt, '+', T("matmul", {T("matmul", {F, P}), T("transpose", {F})}), Q);
  Value S = tensorElementwise(rt, '+', T("matmul", {T("matmul", {H, Pp}), T("transpose", {H})}), R);
  // K = Pp·Hᵀ·inv(S) = (inv(Sᵀ)·H·Ppᵀ)ᵀ
  Value K = T("transpose", {T("solve", {T("transpose", {S}), T("matmul", {H, T("transpose", {Pp})})})});
  Value innov = tensorElementwise(rt, '-', z, T("matvec", {H, xp}));
  Value xn = tensorElementwise(rt, '+', xp, T("matvec", {K, innov}));
  Value Pn = tensorElementwise(rt, '-', Pp, T("matmul", {T("matmul", {K, H}), Pp}));
  Value quad = T("dot", {innov, T("solve", {S, innov})});
  Value loglik = tensorElementwise(
      rt, '*', num(-0.5),
      tensorElementwise(rt, '+', T("logdet", {S}), tensorElementwise(rt, '+', quad, num(2 * std::log(2 * M_PI)))));
  Value w = tensorOf(rt, Arg::vec({0.3, -1.2, 0.7}));
  return T("vsum", {T("vec", {loglik, T("dot", {w, xn}), T("trace", {Pn})})});
}

std::vector<Arg> kalmanArgs(unsigned seed) {
  Gen g(seed);
  Arg F = Gen::arg(Mat(Mat::Identity(3, 3) + 0.2 * g.random(3, 3)));
  return {g.vec(3), g.spd(3), F, g.spd(3), g.mat(2, 3), g.spd(2), g.vec(2)};
}

TEST(TensorKalman, OneStepMatchesADirectComputation) {
  auto args = kalmanArgs(11);
  auto M = [&](int k) { return Eigen::Map<const Mat>(args[k].data.data(), args[k].rows, args[k].cols); };
  Mat F = M(2), H = M(4);
  Eigen::VectorXd x = M(0), z = M(6);
  Mat Pp = F * M(1) * F.transpose() + M(3);
  Mat S = H * Pp * H.transpose() + M(5);
  Mat K = Pp * H.transpose() * S.inverse();
  Eigen::VectorXd xp = F * x, innov = z - H * xp, xn = xp + K * innov;
  Mat Pn = Pp - K * H * Pp;
  double loglik = -0.5 * (std::log(S.determinant()) + innov.dot(S.inverse() * innov) + 2 * std::log(2 * M_PI));
  double want = loglik + Eigen::Vector3d(0.3, -1.2, 0.7).dot(xn) + Pn.trace();
  EXPECT_NEAR(programTotal(kalmanStep, args), want, 1e-12 * std::max(1.0, std::fabs(want)));
}

TEST(TensorKalman, OneStepGradientMatchesFD) {
  for (unsigned seed : {11u, 12u}) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    expectGradientMatchesFD(kalmanStep, kalmanArgs(seed), 1e-5);
  }
}

}  // namespace
}  // namespace dmci
