// Test support: runs one primitive on numeric arguments and checks its
// reverse-mode rule against a central finite difference of its forward rule.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "prims/PrimTable.h"

namespace dmci::test {

// A numeric argument: a scalar (rows == 0) or a tensor of the given shape.
struct Arg {
  std::vector<double> data;
  int rank = 0;
  int rows = 0;
  int cols = 0;
  static Arg scalar(double x) { return {{x}, 0, 0, 0}; }
  static Arg vec(std::vector<double> v) {
    int n = static_cast<int>(v.size());
    return {std::move(v), 1, n, 1};
  }
  static Arg mat(int r, int c, std::vector<double> v) { return {std::move(v), 2, r, c}; }
};

// Makes the argument values; when `active`, every number is a fresh tape leaf.
inline std::vector<Value> makeArgs(Runtime& rt, const std::vector<Arg>& args, bool active) {
  std::vector<Value> out;
  for (const Arg& a : args) {
    if (a.rank == 0) {
      out.push_back(active ? rt.leaf(a.data[0]) : Value::real(a.data[0]));
    } else {
      Value t = rt.newTensor(a.rank, a.rows, a.cols);
      std::copy(a.data.begin(), a.data.end(), rt.tdata(t));
      if (active) rt.tensor(t).slot = rt.newSlots(rt.tensor(t).size());
      out.push_back(t);
    }
  }
  return out;
}

// Sum of all entries of a numeric result (the scalar a gradient is taken of).
inline double total(Runtime& rt, const Value& v) {
  if (v.tag == Tag::Real) return v.num;
  if (v.tag != Tag::Tensor) return std::nan("");
  double s = 0;
  for (int32_t k = 0; k < rt.tensor(v).size(); ++k) s += rt.tdata(v)[k];
  return s;
}

inline double forwardTotal(int id, const std::vector<Arg>& args) {
  Runtime rt;
  auto vals = makeArgs(rt, args, false);
  return total(rt, prim(id).forward(rt, vals.data(), static_cast<int>(vals.size())));
}

// Checks d(sum of result)/d(every input number) against central differences.
inline void expectAdjointMatchesFD(const std::string& name, const std::vector<Arg>& args, double tol = 1e-6) {
  int id = primId(name);
  ASSERT_GE(id, 0) << name;
  Runtime rt;
  auto vals = makeArgs(rt, args, true);
  Value out = prim(id).forward(rt, vals.data(), static_cast<int>(vals.size()));
  std::vector<double> adj = rt.backward(out);
  int slot = 0;
  for (size_t a = 0; a < args.size(); ++a) {
    for (size_t k = 0; k < args[a].data.size(); ++k, ++slot) {
      double x = args[a].data[k];
      double h = 1e-6 * std::max(1.0, std::fabs(x));
      auto plus = args, minus = args;
      plus[a].data[k] = x + h;
      minus[a].data[k] = x - h;
      double fd = (forwardTotal(id, plus) - forwardTotal(id, minus)) / (2 * h);
      double ad = slot < static_cast<int>(adj.size()) ? adj[slot] : 0.0;
      EXPECT_NEAR(ad, fd, tol * std::max(1.0, std::fabs(fd)))
          << name << " argument " << a << " element " << k << " at x=" << x;
    }
  }
}

}  // namespace dmci::test
