// Tests of the vector primitives (prims/Vectors.cpp) and the vector library procedures of the prelude: their
// values, their errors, gradients entry by entry, and the same results on every route.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "driver/Program.h"
#include "prims/PrimTable.h"
#include "testing/Eval.h"

namespace dmci {
namespace {

class Vectors : public ::testing::Test {
 protected:
  Runtime rt;

  Value call(const std::string& name, std::vector<Value> args) {
    int id = primId(name);
    EXPECT_GE(id, 0) << name;
    const Primitive& p = prim(id);
    checkArity(p, static_cast<int>(args.size()));
    return p.forward(rt, args.data(), static_cast<int>(args.size()));
  }
  Error errorOf(const std::string& name, std::vector<Value> args) {
    try {
      call(name, std::move(args));
    } catch (const DmciError& e) {
      return e.error();
    }
    ADD_FAILURE() << name << " did not throw";
    return {};
  }
  std::string show(const Value& v) { return rt.show(v); }
};

Value num(double x) { return Value::real(x); }

TEST_F(Vectors, VectorHoldsItsArgumentsInConsecutiveCells) {
  Value v = call("vector", {num(1), num(2), num(3)});
  EXPECT_EQ(v.tag, Tag::Vector);
  EXPECT_EQ(show(v), "#(1 2 3)");
  EXPECT_EQ(call("vector-length", {v}).num, 3.0);
  EXPECT_EQ(call("vector-ref", {v, num(2)}).num, 3.0);
  EXPECT_EQ(show(call("vector", {})), "#()");
}

TEST_F(Vectors, VectorPredicateTellsVectorsFromListsAndTensors) {
  EXPECT_FALSE(call("vector?", {call("vector", {num(1)})}).isFalse());
  EXPECT_TRUE(call("vector?", {call("list", {num(1)})}).isFalse());
  EXPECT_TRUE(call("vector?", {call("vec", {num(1)})}).isFalse());
  EXPECT_TRUE(call("pair?", {call("vector", {num(1)})}).isFalse());
}

TEST_F(Vectors, ListConversionsKeepTheOrderAndTheRange) {
  Value v = call("list->vector", {call("list", {num(4), num(5), num(6)})});
  EXPECT_EQ(show(v), "#(4 5 6)");
  EXPECT_EQ(show(call("vector->list", {v})), "(4 5 6)");
  EXPECT_EQ(show(call("vector->list", {v, num(1)})), "(5 6)");
  EXPECT_EQ(show(call("vector->list", {v, num(1), num(2)})), "(5)");
  EXPECT_EQ(show(call("vector-copy", {v, num(0), num(2)})), "#(4 5)");
  EXPECT_EQ(show(call("vector-append", {v, call("vector", {num(7)})})), "#(4 5 6 7)");
}

TEST_F(Vectors, AnIndexOutOfRangeIsADomainErrorSayingTheLength) {
  Value v = call("vector", {num(1), num(2)});
  Error e = errorOf("vector-ref", {v, num(2)});
  EXPECT_EQ(e.kind, ErrorKind::Domain);
  EXPECT_EQ(e.message, "vector-ref: index 2 is out of range for a vector of length 2");
  EXPECT_EQ(errorOf("vector-copy", {v, num(2), num(1)}).kind, ErrorKind::Domain);
  EXPECT_EQ(errorOf("vector->list", {v, num(0), num(3)}).kind, ErrorKind::Domain);
}

TEST_F(Vectors, ANonVectorOrABadIndexIsATypeErrorNamingTheArgument) {
  Value v = call("vector", {num(1)});
  EXPECT_EQ(errorOf("vector-ref", {call("list", {num(1)}), num(0)}).message,
            "vector-ref: argument 1 must be a vector, got (1)");
  EXPECT_EQ(errorOf("vector-ref", {v, num(-1)}).message,
            "vector-ref: argument 2 must be a non-negative integer, got -1");
  EXPECT_EQ(errorOf("vector-ref", {v, num(0.5)}).kind, ErrorKind::Type);
  EXPECT_EQ(errorOf("vector-ref", {v, Value::boolean(true)}).kind, ErrorKind::Type);
  EXPECT_EQ(errorOf("list->vector", {num(3)}).message, "list->vector: argument 1 must be a proper list, got 3");
}

TEST_F(Vectors, ElementsKeepTheirTapeSlotsSoGradientsFlowEntryByEntry) {
  Value x = rt.leaf(2.0), y = rt.leaf(5.0);
  Value v = call("vector-copy", {call("list->vector", {call("vector->list", {call("vector", {x, y})})})});
  Value a = call("vector-ref", {v, num(0)});
  Value b = call("vector-ref", {v, num(1)});
  EXPECT_EQ(a.i, x.i);
  EXPECT_EQ(b.i, y.i);
  Value args[2] = {a, b};
  Value z = prim(primId("*")).forward(rt, args, 2);
  std::vector<double> adj = rt.backward(z);
  EXPECT_DOUBLE_EQ(adj[static_cast<size_t>(x.i)], 5.0);
  EXPECT_DOUBLE_EQ(adj[static_cast<size_t>(y.i)], 2.0);
}

TEST_F(Vectors, EqualComparesVectorsElementByElementAndEqvByIdentity) {
  Value a = call("vector", {num(1), call("list", {num(2)})});
  Value b = call("vector", {num(1), call("list", {num(2)})});
  EXPECT_FALSE(call("equal?", {a, b}).isFalse());
  EXPECT_TRUE(call("eqv?", {a, b}).isFalse());
  EXPECT_FALSE(call("eqv?", {a, a}).isFalse());
  EXPECT_TRUE(call("equal?", {a, call("vector", {num(1)})}).isFalse());
  EXPECT_TRUE(call("equal?", {call("vector", {num(1)}), call("list", {num(1)})}).isFalse());
}

TEST(VectorRows, AreInTheVectorFamilyAndTheLibraryOnesAreScheme) {
  for (const char* name : {"vector", "vector?", "vector-length", "vector-ref", "vector->list", "list->vector",
                           "vector-copy", "vector-append"}) {
    ASSERT_GE(primId(name), 0) << name;
    EXPECT_EQ(prim(primId(name)).family, PrimFamily::Vector) << name;
    EXPECT_NE(prim(primId(name)).forward, nullptr) << name;
  }
  for (const char* name : {"make-vector", "vector-fill", "vector-map", "vector-for-each"}) {
    ASSERT_GE(primId(name), 0) << name;
    EXPECT_EQ(prim(primId(name)).forward, nullptr) << name;
    EXPECT_NE(prim(primId(name)).prelude, nullptr) << name;
  }
}

TEST(VectorPrograms, GiveTheirValueAndGradientOnEveryRoute) {
  struct Case {
    const char* src;
    double value, grad;  // at a = 3
  };
  const std::vector<Case> cases = {
      {"(vector-ref (vector 1 a 2) 1)", 3, 1},
      {"(vector-ref #(1 2 3) 2)", 3, 0},
      {"(let ((v (make-vector 3 a))) (* (vector-ref v 0) (vector-ref v 2)))", 9, 6},
      {"(vector-length (make-vector 4))", 4, 0},
      {"(vector-ref (make-vector 2) 1)", 0, 0},
      {"(apply + (vector->list (vector-map * (vector a 2) (vector a 5 7))))", 19, 6},
      {"(vector-ref (vector-map (lambda (x) (* x x)) (list->vector (list 1 a))) 1)", 9, 6},
      {"(if (vector-for-each (lambda (x y) x) (vector a) (vector 1)) a 0)", 3, 1},
      {"(apply + (vector->list (vector-fill (vector 1 2 3 4) a 1 3)))", 11, 2},
      {"(apply + (vector->list (vector-fill (vector 1 2) a)))", 6, 2},
      {"(vector-ref (vector-append #() (vector a) #(4)) 1)", 4, 0},
      {"(vector-ref (vector-ref '#(1 #(2 5)) 1) 1)", 5, 0},
      {"(vector-ref `#(1 ,a ,(* 2 a)) 2)", 6, 2},
      {"(if (equal? (vector a '(1)) (vector 3 (list 1))) a 0)", 3, 1},
      {"(define (f v) (if (vector? v) (vector-length v) -1)) (+ (f #(1 2)) (f '(1 2)))", 1, 0},
  };
  for (Route r : {Route::Direct, Route::Dmci, Route::Dmci2})
    for (const auto& c : cases) {
      auto [value, grad] = test::valueAndDa(c.src, r, 3.0);
      EXPECT_EQ(value, c.value) << routeName(r) << " " << c.src;
      EXPECT_EQ(grad, c.grad) << routeName(r) << " " << c.src;
    }
}

}  // namespace
}  // namespace dmci
