// mce.scm's source and compilation, programs as data, and the evaluator's arguments.
#include "mce/Mce.h"

#include "expand/Expand.h"
#include "lower/LinkPrelude.h"
#include "lower/Lower.h"
#include "syntax/Reader.h"

namespace dmci {
namespace {
#include "mce_scm.inc"  // kMceSource: the text of dmci/mce/mce.scm

DatumPtr sym(const char* s, SrcPos p) { return Datum::symbol(s, p); }

// Deeper programs are refused with an error, not a stack overflow: the dmci route builds the program as data
// by recursion (and mce.scm analyses it by recursion on its heap), so a 100,000-binding let* is for the direct
// route, which follows such chains in a loop.
constexpr int kMaxDataDepth = 10000;

struct DataBuilder {
  int depth = 0;
  DatumPtr names(const std::vector<Binding>& bs, SrcPos p) {
    std::vector<DatumPtr> out;
    for (const auto& b : bs) out.push_back(Datum::symbol(b.first, p));
    return Datum::list(std::move(out), p);
  }
  DatumPtr inits(const std::vector<Binding>& bs, SrcPos p, bool rec) {
    std::vector<DatumPtr> out;
    for (const auto& b : bs) out.push_back(build(*b.second, rec ? b.first : ""));
    return Datum::list(std::move(out), p);
  }
  // `bindingName` names a lambda bound by letrec*, as the lowering names its block.
  DatumPtr build(const CoreExpr& e, const std::string& bindingName = "") {
    if (depth >= kMaxDataDepth)
      throw DmciError(ErrorKind::Form,
                      "program nested too deeply for the dmci route (more than " + std::to_string(kMaxDataDepth) +
                          " levels; the direct route takes it)",
                      e.pos);
    ++depth;
    DatumPtr out = buildNode(e, bindingName);
    --depth;
    return out;
  }
  DatumPtr buildNode(const CoreExpr& e, const std::string& bindingName) {
    SrcPos p = e.pos;
    switch (e.kind) {
      case CoreKind::Const:
        if (e.datum->kind == DatumKind::Number) return e.datum;
        return Datum::list({sym("%quote", p)}, p, e.datum);
      case CoreKind::Ref:
        return Datum::list({sym("%ref", p)}, p, Datum::symbol(e.name, p));
      case CoreKind::If:
        return Datum::list({sym("%if", p), build(*e.kids[0]), build(*e.kids[1]), build(*e.kids[2])}, p);
      case CoreKind::Lambda: {
        std::vector<DatumPtr> ps;
        for (const auto& n : e.params) ps.push_back(Datum::symbol(n, p));
        std::string name = !e.name.empty() ? e.name : !bindingName.empty() ? bindingName : "lambda";
        std::vector<DatumPtr> node{sym("%lambda", p), Datum::list(std::move(ps), p), Datum::boolean_(e.variadic, p),
                                   build(*e.body), Datum::symbol(name, p)};
        // The count of hidden parameters, for %check-arity: a symbol, since a number here would be a literal.
        if (e.hidden) node.push_back(Datum::symbol(std::to_string(e.hidden), p));
        return Datum::list(std::move(node), p);
      }
      case CoreKind::App:
      case CoreKind::Begin: {
        std::vector<DatumPtr> items{sym(e.kind == CoreKind::App ? "%app" : "%begin", p)};
        for (const auto& k : e.kids) items.push_back(build(*k));
        return Datum::list(std::move(items), p);
      }
      case CoreKind::Let:
      case CoreKind::Letrec: {
        bool rec = e.kind == CoreKind::Letrec;
        return Datum::list(
            {sym(rec ? "%letrec" : "%let", p), names(e.bindings, p), inits(e.bindings, p, rec), build(*e.body)}, p);
      }
    }
    return Datum::nil(p);
  }
};

Value symbolList(Runtime& rt, const std::vector<std::string>& names) {
  std::vector<Value> vs;
  for (const auto& n : names) vs.push_back(Value::make(Tag::Symbol, internSymbol(n)));
  return heapList(rt, vs);
}

}  // namespace

const std::string& mceSource() {
  static const std::string s = kMceSource;
  return s;
}

const std::vector<std::string>& mceParams() {
  static const std::vector<std::string> p{"program", "param-names"};
  return p;
}

Result<ComputeGraph> compileMce() {
  auto forms = readAll(mceSource(), "mce.scm");
  if (!forms) return forms.error();
  auto core = expandProgram(*forms, ExpandOptions{true, ""});
  if (!core) return core.error();
  auto linked = catchErrors([&] { return linkPrelude(*core, mceParams()); });
  if (!linked) return linked.error();
  return lower(*linked, LowerOptions{mceParams()});
}

DatumPtr programData(const CoreExpr& linked) { return DataBuilder().build(linked); }

// The mce.scm program as data for the outer evaluator of the tower (built once).
static const DatumPtr& mceAsData() {
  static const DatumPtr d = [] {
    auto forms = readAll(mceSource(), "mce.scm");
    auto core = expandProgram(*forms, ExpandOptions{true, ""});
    return programData(*linkPrelude(*core, mceParams()));
  }();
  return d;
}

MceArguments mceArguments(Runtime& rt, const Datum& program, const std::vector<std::string>& names,
                          std::vector<Literal>* literals, bool tower) {
  Value evaluator = tower ? materialise(rt, *mceAsData(), nullptr) : Value::nil();
  rt.userLo = static_cast<int32_t>(rt.heap.size());
  Value data = materialise(rt, program, literals, &rt.cellPos);
  rt.userHi = static_cast<int32_t>(rt.heap.size());
  rt.userCell.assign(static_cast<size_t>(rt.userHi - rt.userLo), 0);
  for (const auto& [addr, pos] : rt.cellPos)
    if (addr >= rt.userLo && addr < rt.userHi && !pos.inLibrary())
      rt.userCell[static_cast<size_t>(addr - rt.userLo)] = 1;
  Value seedNames = symbolList(rt, names);
  if (!tower) return {{data, seedNames}, Value::nil()};
  return {{evaluator, symbolList(rt, mceParams())}, heapList(rt, {data, seedNames})};
}

}  // namespace dmci
