// Free-variable analysis and capture-avoiding renaming of free references.
//
// Both walk the tree with an explicit stack (a let* of 100,000 bindings nests that deep) and keep the
// names in scope in a hash table, so that a reference costs O(1) however many names enclose it.
#include "lower/FreeVars.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "expand/CoreFold.h"
#include "syntax/Arena.h"
#include "syntax/NameTable.h"

namespace dmci {
namespace {

// The names bound around the node being visited, innermost last; views into the tree being walked.
class Bound {
 public:
  size_t size() const { return names_.size(); }
  bool has(std::string_view n) const {
    const int* c = count_.find(n);
    return c && *c > 0;
  }
  // Room for `more` names beyond those seen so far (a letrec of 100,000 defines grows the table once).
  void reserve(size_t more) { count_.reserve(count_.size() + more); }
  void push(std::string_view n) {
    ++count_[n];
    names_.push_back(n);
  }
  void popTo(size_t mark) {
    for (; names_.size() > mark; names_.pop_back()) --*count_.find(names_.back());
  }

 private:
  std::vector<std::string_view> names_;
  NameTable<int> count_;  // how many of names_ are each name
};

// Calls onRef(ref, free) for each Ref, in the order of a left-to-right recursive walk (foldCore's order too);
// `free`: not bound inside root.
template <class OnRef>
void forEachRef(const CoreExpr& root, OnRef&& onRef) {
  struct Item {
    const CoreExpr* e;
    size_t mark;                    // how many names were bound when it was scheduled
    const CoreExpr* let = nullptr;  // a Let whose names come into scope first: e is its body
  };
  Bound bound;
  std::vector<Item> work{{&root, 0}};
  while (!work.empty()) {
    Item it = work.back();
    work.pop_back();
    bound.popTo(it.mark);
    if (it.let) {
      bound.reserve(it.let->bindings.size());
      for (const auto& b : it.let->bindings) bound.push(b.first);
    }
    const CoreExpr& e = *it.e;
    prefetchAfter(&e);
    if (e.kind == CoreKind::Ref) onRef(e, !bound.has(e.name));
    if (e.kind == CoreKind::Lambda)
      for (const auto& p : e.params) bound.push(p);
    if (e.kind == CoreKind::Letrec) {
      bound.reserve(e.bindings.size());
      for (const auto& b : e.bindings) bound.push(b.first);
    }
    // Children in reverse, so the first is visited first; a Let's body alone sees its names.
    size_t n = childCount(e);
    for (size_t k = n; k-- > 0;) {
      bool letBody = e.kind == CoreKind::Let && k == n - 1;
      work.push_back({child(e, k).get(), bound.size(), letBody ? &e : nullptr});
    }
  }
}

// The node e with its children replaced by `kids` (foldCore order), or null when nothing changed.
ExprPtr withKids(const CoreExpr& e, std::span<ExprPtr> kids) {
  if (std::all_of(kids.begin(), kids.end(), [](const ExprPtr& k) { return !k; })) return nullptr;
  for (size_t k = 0; k < kids.size(); ++k)
    if (!kids[k]) kids[k] = child(e, k);
  switch (e.kind) {
    case CoreKind::If:
      return CoreExpr::if_(kids[0], kids[1], kids[2], e.pos);
    case CoreKind::App:
      return CoreExpr::app({kids.begin(), kids.end()}, e.pos);
    case CoreKind::Begin:
      return CoreExpr::begin({kids.begin(), kids.end()}, e.pos);
    case CoreKind::Lambda:
      return CoreExpr::lambda(e.params, e.variadic, kids[0], e.pos, e.name, e.hidden);
    case CoreKind::Let:
    case CoreKind::Letrec: {
      std::vector<Binding> bs;
      for (size_t k = 0; k < e.bindings.size(); ++k) bs.emplace_back(e.bindings[k].first, kids[k]);
      if (e.kind == CoreKind::Let) return CoreExpr::let(std::move(bs), kids.back(), e.pos);
      return CoreExpr::letrec(std::move(bs), kids.back(), e.pos);
    }
    default:
      return nullptr;  // Const and Ref have no children
  }
}

}  // namespace

std::vector<std::string> freeVars(const CoreExpr& e) {
  std::vector<std::string> out;
  std::unordered_set<std::string_view> seen;
  forEachRef(e, [&](const CoreExpr& ref, bool free) {
    if (free && seen.insert(ref.name).second) out.push_back(ref.name);
  });
  return out;
}

ExprPtr renameFree(const ExprPtr& e, const Renaming& rename) {
  // One post-order walk (foldCore's order, so the references come in the order forEachRef gives them) both
  // tracks the names in scope and rebuilds the spine above each renamed reference; untouched subtrees are
  // shared (their result is null). A second walk over a long program would read its whole tree again.
  NameTable<const std::string*> answers;  // rename's answer for each free name
  Bound bound;
  struct Frame {
    const CoreExpr* e;
    size_t next;  // the next child to fold
    size_t mark;  // how many names were bound when it was entered
  };
  // Enters a node: a Lambda's parameters and a Letrec's names are in scope for all its children.
  auto enter = [&](const CoreExpr* n) -> Frame {
    prefetchAfter(n);
    Frame f{n, 0, bound.size()};
    if (n->kind == CoreKind::Lambda)
      for (const auto& p : n->params) bound.push(p);
    if (n->kind == CoreKind::Letrec) {
      bound.reserve(n->bindings.size());
      for (const auto& b : n->bindings) bound.push(b.first);
    }
    return f;
  };
  std::vector<Frame> stack{enter(e.get())};
  std::vector<ExprPtr> results;  // the finished children of every open frame, innermost last
  bool renamed = false;
  while (!stack.empty()) {
    Frame& f = stack.back();
    const CoreExpr& node = *f.e;
    size_t n = childCount(node);
    if (f.next < n) {
      size_t k = f.next++;
      if (node.kind == CoreKind::Let && k == n - 1) {  // a Let's body alone sees its names
        bound.reserve(node.bindings.size());
        for (const auto& b : node.bindings) bound.push(b.first);
      }
      stack.push_back(enter(child(node, k).get()));
      continue;
    }
    ExprPtr r;
    if (node.kind == CoreKind::Ref) {
      if (!bound.has(node.name)) {
        auto [answer, fresh] = answers.tryEmplace(node.name, nullptr);
        if (fresh) *answer = rename(node.name);
        if (*answer) r = CoreExpr::ref(**answer, node.pos);
      }
    } else if (renamed) {
      size_t first = results.size() - n;
      r = withKids(node, std::span<ExprPtr>(results.data() + first, n));
      results.resize(first);
    } else {
      results.resize(results.size() - n);  // all null: nothing below was renamed yet
    }
    renamed = renamed || r;
    bound.popTo(f.mark);
    stack.pop_back();
    results.push_back(std::move(r));
  }
  return results.back() ? std::move(results.back()) : e;
}

}  // namespace dmci
