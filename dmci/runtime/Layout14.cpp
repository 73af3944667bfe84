// Conversion between the native engine's compact Value and the 14-number layout.
#include "runtime/Layout14.h"

#include <cmath>

namespace dmci {
namespace {

Layout14 tagged(Layout14Tag t, double p0 = 0, double p1 = 0, double p2 = 0, double p3 = 0) {
  Layout14 l{};
  l[static_cast<size_t>(t)] = 1.0;
  l[10] = p0, l[11] = p1, l[12] = p2, l[13] = p3;
  return l;
}

[[noreturn]] void malformed(const std::string& why) { throw DmciError(ErrorKind::Graph, "14-number value: " + why); }

int32_t asIndex(double x, const char* what) {
  if (!(x == std::floor(x)) || std::fabs(x) > 2e9) malformed(std::string(what) + " is not an integer");
  return static_cast<int32_t>(x);
}

}  // namespace

Layout14 toLayout14(const Runtime& rt, const Value& v) {
  switch (v.tag) {
    case Tag::Nil:
      return tagged(Layout14Tag::Nil);
    case Tag::Bool:
      return tagged(Layout14Tag::Boolean, v.i);
    case Tag::Int:
      return tagged(Layout14Tag::Integer, v.num);
    case Tag::Real:
      return tagged(Layout14Tag::Real, v.num);
    case Tag::Char:
      return tagged(Layout14Tag::Char, v.i);
    case Tag::Symbol:
      return tagged(Layout14Tag::Symbol, v.i);
    case Tag::Pair:
      return tagged(Layout14Tag::Pair, v.i, v.i + 1);
    case Tag::Vector:
      return tagged(Layout14Tag::Pair, v.i, -1, static_cast<double>(static_cast<int32_t>(v.code)));
    case Tag::String:
      return tagged(Layout14Tag::String, v.i);
    case Tag::Closure:
      return tagged(Layout14Tag::Closure, static_cast<double>(v.code), v.i);
    case Tag::Prim:
      return tagged(Layout14Tag::Closure, -1.0 - v.i, -1);
    case Tag::Tensor: {
      const TensorRec& r = rt.tensors[static_cast<size_t>(v.i)];
      return tagged(Layout14Tag::Tensor, v.i, r.rank, r.rows, r.cols);
    }
    case Tag::Box:
    case Tag::Unset:
      break;
  }
  throw DmciError(ErrorKind::Graph, "an internal letrec* box has no 14-number form");
}

Value fromLayout14(const Runtime& rt, const Layout14& l) {
  int tag = -1;
  for (int k = 0; k < kLayoutTags; ++k) {
    if (l[k] == 1.0 && tag < 0)
      tag = k;
    else if (l[k] != 0.0)
      malformed("the tag is not one-hot");
  }
  if (tag < 0) malformed("no tag is set");
  double p0 = l[10];
  switch (static_cast<Layout14Tag>(tag)) {
    case Layout14Tag::Nil:
      return Value::nil();
    case Layout14Tag::Boolean:
      return Value::boolean(p0 != 0.0);
    case Layout14Tag::Integer:
    case Layout14Tag::Real:
      return Value::real(p0);
    case Layout14Tag::Char:
      return Value::make(Tag::Char, asIndex(p0, "a char"));
    case Layout14Tag::Symbol:
      return Value::make(Tag::Symbol, asIndex(p0, "a symbol id"));
    case Layout14Tag::Pair: {
      if (l[11] == -1) {  // a vector: first element, length
        int32_t first = asIndex(p0, "a vector's address");
        int32_t n = asIndex(l[12], "a vector's length");
        if (first < 0 || n < 0 || static_cast<size_t>(first) + static_cast<size_t>(n) > rt.heap.size())
          malformed("not a heap vector");
        return Value::make(Tag::Vector, first, n);
      }
      int32_t car = asIndex(p0, "a car address");
      if (l[11] != car + 1 || car < 0 || static_cast<size_t>(car) + 1 >= rt.heap.size()) malformed("not a heap pair");
      return Value::make(Tag::Pair, car);
    }
    case Layout14Tag::String:
      return Value::make(Tag::String, asIndex(p0, "a string id"));
    case Layout14Tag::Closure: {
      int32_t code = asIndex(p0, "a code id");
      if (code < 0) return Value::make(Tag::Prim, -1 - code);
      return Value::make(Tag::Closure, asIndex(l[11], "an environment address"), code);
    }
    case Layout14Tag::Tensor: {
      int32_t id = asIndex(p0, "a tensor id");
      if (id < 0 || static_cast<size_t>(id) >= rt.tensors.size()) malformed("no such tensor");
      const TensorRec& r = rt.tensors[static_cast<size_t>(id)];
      if (l[11] != r.rank || l[12] != r.rows || l[13] != r.cols) malformed("the shape does not match the tensor");
      return Value::make(Tag::Tensor, id);
    }
  }
  malformed("unknown tag");
}

}  // namespace dmci
