// A post-order fold over the core AST with an explicit stack instead of C++ recursion.
//
// Expansion turns a let* of n bindings into n nested Lets, and a long cond
// into a ladder of Ifs as deep as it is long; generated programs reach depths
// of 100,000, well past what the C++ stack holds. Passes that rebuild the
// tree (the printer, renaming) fold over it with this instead of recursing.
#pragma once
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "expand/CoreExpr.h"

namespace dmci {

// A node's children in the order passes visit them: kids, then binding inits, then body.
inline size_t childCount(const CoreExpr& e) { return e.kids.size() + e.bindings.size() + (e.body ? 1 : 0); }
inline const ExprPtr& child(const CoreExpr& e, size_t i) {
  if (i < e.kids.size()) return e.kids[i];
  i -= e.kids.size();
  return i < e.bindings.size() ? e.bindings[i].second : e.body;
}

// combine(node, results) gives a node's result from its children's, in childCount/child order.
template <class R, class Combine>
R foldCore(const CoreExpr& root, Combine&& combine) {
  struct Frame {
    const CoreExpr* e;
    size_t next;  // the next child to fold
  };
  std::vector<Frame> stack{{&root, 0}};
  std::vector<R> results;  // the finished children of every open frame, innermost last
  while (!stack.empty()) {
    Frame& f = stack.back();
    size_t n = childCount(*f.e);
    if (f.next < n) {
      const CoreExpr* c = child(*f.e, f.next++).get();
      stack.push_back({c, 0});
      continue;
    }
    size_t first = results.size() - n;
    R r = combine(*f.e, std::span<R>(results.data() + first, n));
    results.resize(first);
    results.push_back(std::move(r));
    stack.pop_back();
  }
  return std::move(results.back());
}

}  // namespace dmci
