// mce.scm's source and compilation, programs as data, and the evaluator's arguments.
#include "mce/Mce.h"

#include <unordered_map>

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

// Builds the data, writing on each reference to a variable the program binds its lexical address, as
// mce.scm's frames lay the variables out: the seed's names outermost, then one frame per lambda (its
// parameters, a rest list last), let (its names) and letrec* (its names, each a box). A reference to a name
// bound nowhere is (%ref . name): a primitive, or an unbound-variable error when evaluated.
struct DataBuilder {
  struct Frame {
    std::unordered_map<std::string, int> index;  // the first binding of a name, as mce.scm would find it
    bool boxed;
    bool vector;  // mce.scm's rule: a frame of more than kListSlots slots is a vector, a shorter one a list
  };
  static constexpr size_t kListSlots = 4;
  std::vector<Frame> frames;  // innermost last
  int depth = 0;

  void push(const std::vector<std::string>& names, bool boxed) {
    Frame f{{}, boxed, names.size() > kListSlots};
    f.index.reserve(names.size());
    for (size_t k = 0; k < names.size(); ++k) f.index.emplace(names[k], static_cast<int>(k));
    frames.push_back(std::move(f));
  }
  static std::vector<std::string> bindingNames(const std::vector<Binding>& bs) {
    std::vector<std::string> out;
    for (const auto& b : bs) out.push_back(b.first);
    return out;
  }
  // (%local name . |depth index boxed vector|), or (%ref . name) for a free name.
  DatumPtr reference(const std::string& name, SrcPos p) {
    for (size_t d = 0; d < frames.size(); ++d) {
      const Frame& f = frames[frames.size() - 1 - d];
      auto it = f.index.find(name);
      if (it == f.index.end()) continue;
      std::string address =
          std::to_string(d) + " " + std::to_string(it->second) + (f.boxed ? " 1" : " 0") + (f.vector ? " 1" : " 0");
      return Datum::list({sym("%local", p), Datum::symbol(name, p)}, p, Datum::symbol(address, p));
    }
    return Datum::list({sym("%ref", p)}, p, Datum::symbol(name, p));
  }
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
        return reference(e.name, p);
      case CoreKind::If:
        return Datum::list({sym("%if", p), build(*e.kids[0]), build(*e.kids[1]), build(*e.kids[2])}, p);
      case CoreKind::Lambda: {
        std::vector<DatumPtr> ps;
        for (const auto& n : e.params) ps.push_back(Datum::symbol(n, p));
        std::string name = !e.name.empty() ? e.name : !bindingName.empty() ? bindingName : "lambda";
        push(e.params, false);
        DatumPtr body = build(*e.body);
        frames.pop_back();
        std::vector<DatumPtr> node{sym("%lambda", p), Datum::list(std::move(ps), p), Datum::boolean_(e.variadic, p),
                                   body, Datum::symbol(name, p)};
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
        if (rec) push(bindingNames(e.bindings), true);
        DatumPtr values = inits(e.bindings, p, rec);
        if (!rec) push(bindingNames(e.bindings), false);
        DatumPtr body = build(*e.body);
        frames.pop_back();
        return Datum::list({sym(rec ? "%letrec" : "%let", p), names(e.bindings, p), values, body}, p);
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

DatumPtr programData(const CoreExpr& linked, const std::vector<std::string>& params) {
  DataBuilder b;
  b.push(params, false);
  return b.build(linked);
}

// The mce.scm program as data for the outer evaluator of the tower (built once).
static const DatumPtr& mceAsData() {
  static const DatumPtr d = [] {
    auto forms = readAll(mceSource(), "mce.scm");
    auto core = expandProgram(*forms, ExpandOptions{true, ""});
    return programData(*linkPrelude(*core, mceParams()), mceParams());
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
