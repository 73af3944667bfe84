// Free-variable analysis and capture-avoiding renaming of free references.
//
// Both walk the tree with an explicit stack (a let* of 100,000 bindings nests that deep) and keep the
// names in scope in a hash table, so that a reference costs O(1) however many names enclose it.
#include "lower/FreeVars.h"

#include <algorithm>
#include <string_view>
#include <unordered_set>

#include "expand/CoreFold.h"
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
    if (it.let)
      for (const auto& b : it.let->bindings) bound.push(b.first);
    const CoreExpr& e = *it.e;
    if (e.kind == CoreKind::Ref) onRef(e, !bound.has(e.name));
    if (e.kind == CoreKind::Lambda)
      for (const auto& p : e.params) bound.push(p);
    if (e.kind == CoreKind::Letrec)
      for (const auto& b : e.bindings) bound.push(b.first);
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
  NameTable<const std::string*> answers;                    // rename's answer for each free name
  std::vector<std::pair<size_t, const std::string*>> hits;  // a reference's place in walk order, its new name
  size_t refs = 0;
  forEachRef(*e, [&](const CoreExpr& ref, bool free) {
    size_t at = refs++;
    if (!free) return;
    auto [answer, fresh] = answers.tryEmplace(ref.name, nullptr);
    if (fresh) *answer = rename(ref.name);
    if (*answer) hits.emplace_back(at, *answer);
  });
  if (hits.empty()) return e;
  // Rebuilds only the spine above a renamed reference (foldCore meets the references in walk order too);
  // untouched subtrees are shared.
  size_t next = 0;
  refs = 0;
  return foldCore<ExprPtr>(*e, [&](const CoreExpr& node, std::span<ExprPtr> kids) -> ExprPtr {
    if (node.kind != CoreKind::Ref) return withKids(node, kids);
    if (next == hits.size() || hits[next].first != refs++) return nullptr;
    return CoreExpr::ref(*hits[next++].second, node.pos);
  });
}

}  // namespace dmci
