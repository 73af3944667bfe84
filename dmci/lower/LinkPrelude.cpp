// Links library procedures from the primitive table's Scheme sources into a program.
#include "lower/LinkPrelude.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>

#include "expand/Expand.h"
#include "lower/FreeVars.h"
#include "prims/PrimTable.h"
#include "syntax/Arena.h"
#include "syntax/Reader.h"

namespace dmci {
namespace {

// The library procedure a free name refers to ("map" or "%map" -> "map"), or "".
std::string preludeName(const std::string& name) {
  std::string base = (!name.empty() && name[0] == '%') ? name.substr(1) : name;
  int id = primId(base);
  return (id >= 0 && prim(id).prelude) ? base : "";
}

// The expanded lambda of one library procedure, cached.
ExprPtr preludeLambda(const std::string& name) {
  static std::mutex mu;
  static std::map<std::string, ExprPtr> cache;
  std::lock_guard<std::mutex> g(mu);
  auto it = cache.find(name);
  if (it != cache.end()) return it->second;
  auto forms = readAll(prim(primId(name)).prelude, "<prelude:" + name + ">");
  if (!forms) throw DmciError(forms.error());
  forms->push_back(Datum::symbol(name));
  auto core = expandProgram(*forms, ExpandOptions{true, ""});
  if (!core) throw DmciError(core.error());
  const CoreExpr& letrec = **core;
  if (letrec.kind != CoreKind::Letrec || letrec.bindings.size() != 1)
    throw DmciError(ErrorKind::Form, "prelude source of " + name + " must be one define");
  ExprPtr lambda = letrec.bindings[0].second;
  cache.emplace(name, lambda);
  return lambda;
}

}  // namespace

ExprPtr linkPrelude(const ExprPtr& program, const std::vector<std::string>& params) {
  ArenaScope arena;  // the renamed spine and the linked group side by side (syntax/Arena.h)
  std::vector<std::string> needed, work;
  std::deque<std::string> internal;  // "%map" for a free "map"
  // One walk over the program finds the library procedures it uses and renames its free references to them.
  ExprPtr body = renameFree(program, [&](const std::string& n) -> const std::string* {
    if (std::find(params.begin(), params.end(), n) != params.end()) return nullptr;
    std::string p = preludeName(n);
    if (p.empty()) return nullptr;
    work.push_back(p);
    if (n[0] == '%') return nullptr;
    internal.push_back("%" + p);
    return &internal.back();
  });
  while (!work.empty()) {
    std::string p = work.back();
    work.pop_back();
    if (std::find(needed.begin(), needed.end(), p) != needed.end()) continue;
    needed.push_back(p);
    for (const auto& n : freeVars(*preludeLambda(p))) {
      std::string q = preludeName(n);
      if (!q.empty()) work.push_back(q);
    }
  }
  if (needed.empty()) return program;
  std::sort(needed.begin(), needed.end());
  std::vector<Binding> defs;
  for (const auto& p : needed) defs.emplace_back("%" + p, preludeLambda(p));
  return CoreExpr::letrec(std::move(defs), body, program->pos);
}

}  // namespace dmci
