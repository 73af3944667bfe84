// The native Value agrees with DESIGN.md's 14-number layout: every kind converts there and back.
#include "runtime/Layout14.h"

#include <gtest/gtest.h>

#include "prims/PrimTable.h"

namespace dmci {
namespace {

int hotTag(const Layout14& l) {
  int hot = -1, ones = 0;
  for (int k = 0; k < kLayoutTags; ++k)
    if (l[k] == 1.0) hot = k, ++ones;
  return ones == 1 ? hot : -1;
}

void expectRoundTrip(const Runtime& rt, const Value& v, Layout14Tag tag) {
  Layout14 l = toLayout14(rt, v);
  EXPECT_EQ(hotTag(l), static_cast<int>(tag)) << rt.show(v);
  Value back = fromLayout14(rt, l);
  EXPECT_EQ(back.tag, v.tag) << rt.show(v);
  EXPECT_EQ(back.i, v.i) << rt.show(v);
  if (v.tag == Tag::Real) {
    EXPECT_EQ(back.num, v.num);
  }
  if (v.tag == Tag::Closure || v.tag == Tag::Vector) {
    EXPECT_EQ(back.code, v.code);
  }
  EXPECT_EQ(toLayout14(rt, back), l) << rt.show(v);
}

TEST(Layout14, EveryKindOfValueRoundTrips) {
  Runtime rt;
  expectRoundTrip(rt, Value::nil(), Layout14Tag::Nil);
  expectRoundTrip(rt, Value::boolean(true), Layout14Tag::Boolean);
  expectRoundTrip(rt, Value::boolean(false), Layout14Tag::Boolean);
  expectRoundTrip(rt, Value::real(-2.75), Layout14Tag::Real);
  expectRoundTrip(rt, Value::make(Tag::Char, 'a'), Layout14Tag::Char);
  expectRoundTrip(rt, Value::make(Tag::Symbol, internSymbol("alpha")), Layout14Tag::Symbol);
  expectRoundTrip(rt, rt.cons(Value::real(1), Value::nil()), Layout14Tag::Pair);
  expectRoundTrip(rt, rt.string("hi"), Layout14Tag::String);
  expectRoundTrip(rt, Value::make(Tag::Closure, rt.alloc(2), 7), Layout14Tag::Closure);
  expectRoundTrip(rt, Value::make(Tag::Closure, -1, 3), Layout14Tag::Closure);
  expectRoundTrip(rt, Value::make(Tag::Prim, primId("car")), Layout14Tag::Closure);
  expectRoundTrip(rt, rt.newTensor(2, 3, 4), Layout14Tag::Tensor);
}

TEST(Layout14, AVectorTakesThePairTagWithNoCdrAndItsLength) {
  Runtime rt;
  Value xs[3] = {Value::real(1), Value::real(2), Value::real(3)};
  Value v = rt.vector(xs, 3);
  expectRoundTrip(rt, v, Layout14Tag::Pair);
  expectRoundTrip(rt, rt.vector(xs, 0), Layout14Tag::Pair);
  Layout14 l = toLayout14(rt, v);
  EXPECT_EQ(l[10], v.i);
  EXPECT_EQ(l[11], -1);
  EXPECT_EQ(l[12], 3);
  l[12] = 1e6;  // past the heap
  EXPECT_THROW(fromLayout14(rt, l), DmciError);
}

TEST(Layout14, PayloadSlotsHoldWhatDesignSays) {
  Runtime rt;
  Value p = rt.cons(Value::real(1), Value::real(2));
  Layout14 l = toLayout14(rt, p);
  EXPECT_EQ(l[10], p.i);      // car address
  EXPECT_EQ(l[11], p.i + 1);  // cdr address
  Value t = rt.newTensor(2, 3, 4);
  l = toLayout14(rt, t);
  EXPECT_EQ(l[11], 2);  // rank
  EXPECT_EQ(l[12], 3);  // rows
  EXPECT_EQ(l[13], 4);  // columns
  EXPECT_EQ(toLayout14(rt, Value::real(0.5))[10], 0.5);
}

TEST(Layout14, MalformedFormsAreErrors) {
  Runtime rt;
  Layout14 none{};
  EXPECT_THROW(fromLayout14(rt, none), DmciError);
  Layout14 two{};
  two[0] = two[3] = 1.0;
  EXPECT_THROW(fromLayout14(rt, two), DmciError);
  Layout14 pair{};
  pair[6] = 1.0;
  pair[10] = 100, pair[11] = 101;  // no such heap cells
  EXPECT_THROW(fromLayout14(rt, pair), DmciError);
}

TEST(Layout14, InternalBoxesHaveNoForm) {
  Runtime rt;
  EXPECT_THROW(toLayout14(rt, Value::make(Tag::Box, rt.alloc(1))), DmciError);
}

}  // namespace
}  // namespace dmci
