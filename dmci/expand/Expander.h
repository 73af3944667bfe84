// The Expander class behind expandProgram and expandExpr; internal to the expander, included only by expand/*.cpp.
#pragma once
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "expand/Expand.h"
#include "syntax/NameTable.h"

namespace dmci {

// The reader nests at most 1000 deep; the expander recurses once per nesting level.
inline constexpr int kMaxExpandDepth = 1100;

[[noreturn]] inline void fail(const Datum& d, const std::string& msg) { throw DmciError(ErrorKind::Form, msg, d.pos); }

// The marker (%set-variable! 'x e) the expander makes of (set! x e); convertAssignments (Assign.cpp) replaces
// each by a write to x's box.
inline constexpr const char* kSetVariable = "%set-variable!";
ExprPtr convertAssignments(const ExprPtr& e);

inline ExprPtr unspecified(SrcPos p) { return CoreExpr::constant(Datum::nil(p), p); }
inline ExprPtr prim(const char* name, SrcPos p) { return CoreExpr::ref(std::string("%") + name, p); }
inline ExprPtr sequence(std::vector<ExprPtr> es, SrcPos p) {
  return es.size() == 1 ? es[0] : CoreExpr::begin(std::move(es), p);
}

// A parsed parameter list.
struct Formals {
  std::vector<std::string> names;
  bool variadic = false;
};

// A parsed (name init) binding; `step` is used by do only.
struct BindingForm {
  DatumPtr name;
  DatumPtr init;
  DatumPtr step;
};

// One form of a body after begin-splicing; `name` is set for a definition. A define-values gives one form for
// the list of its values (`part` = kValuesList, `name` a temporary) and one per name (`part` = its index in
// that list, `list` the temporary).
struct BodyForm {
  static constexpr int kPlain = -1;
  static constexpr int kValuesList = -2;
  DatumPtr form;
  std::string name;
  int part = kPlain;
  std::string list;
};

class Expander {
 public:
  explicit Expander(const ExpandOptions& opts) : opts_(opts) {}
  ExprPtr program(const std::vector<DatumPtr>& forms);
  ExprPtr expr(const DatumPtr& d);
  // The expression or program with its assigned variables boxed (Assign.cpp), when any set! was seen.
  ExprPtr finish(ExprPtr e) { return sawSet_ ? convertAssignments(e) : e; }

 private:
  using Handler = ExprPtr (Expander::*)(const DatumPtr&);
  static const std::unordered_map<std::string, Handler>& keywords();

  // Lexical scope: names bound here shadow keywords.
  class Scope {
   public:
    explicit Scope(Expander& x) : x_(x) {}
    ~Scope() {
      for (std::string_view n : added_) --x_.bound_.find(n)->scopes;  // a count of 0 stays: rebinding allocates nothing
    }
    // Binds n here; returns the table's own copy of the name.
    std::string_view add(const std::string& n) { return added_.emplace_back(x_.bind(n)); }
    void add(const std::vector<std::string>& ns) {
      for (const auto& n : ns) add(n);
    }

   private:
    Expander& x_;
    std::vector<std::string_view> added_;  // keys of x_.bound_
  };

  // Counts nesting so that no input exhausts the C++ stack.
  class DepthGuard {
   public:
    DepthGuard(Expander& x, const Datum& d) : x_(x) {
      if (x_.depth_ >= kMaxExpandDepth) fail(d, "expression nested too deeply");
      ++x_.depth_;
    }
    ~DepthGuard() { --x_.depth_; }

   private:
    Expander& x_;
  };

  bool isBound(std::string_view n) const {
    const BoundName* b = bound_.find(n);
    return b && b->scopes > 0;
  }
  // Counts one more scope binding n; returns the table's own copy of the name.
  std::string_view bind(const std::string& n) {
    if (auto [key, b] = bound_.entry(n); b) {
      ++b->scopes;
      return key;
    }
    boundNames_.push_back(n);
    bound_.tryEmplace(boundNames_.back(), BoundName{1, 0});
    return boundNames_.back();
  }
  bool isKeyword(const Datum& d, const char* kw) const { return d.isSymbol(kw) && !isBound(kw); }
  // A temporary name; %-names cannot clash with user names, and with allowInternal
  // a name already bound here is skipped.
  std::string fresh(const std::string& prefix) {
    std::string name;
    do name = "%" + prefix + std::to_string(++counters_[prefix]);
    while (isBound(name));
    return name;
  }

  // Names and parameter lists.
  const std::string& bindableName(const Datum& d, const std::string& what);
  void checkDistinct(const std::vector<const Datum*>& names, const std::string& what);
  void checkDistinct(const std::vector<BindingForm>& bs, const std::string& what);
  Formals formals(const Datum& d, const std::string& what);
  Formals paramsFrom(const Datum& list, size_t from, const std::string& what);
  std::vector<BindingForm> bindingForms(const Datum& d, const std::string& what);

  // Bodies and definitions.
  bool isDefine(const Datum& d) const;
  bool isDefineValues(const Datum& d) const;
  void collectDefineValues(const DatumPtr& f, std::vector<BodyForm>& out, int body, Scope& scope);
  void defineInBody(const Datum& f, const std::string& name, int body, Scope& scope);
  bool isSplicedBegin(const Datum& d, int depth = 0) const;
  void collectBody(const std::vector<DatumPtr>& forms, size_t from, std::vector<BodyForm>& out, int body, Scope& scope);
  ExprPtr body(const DatumPtr& where, size_t from, const std::string& what);
  ExprPtr bodyOf(const std::vector<DatumPtr>& forms, size_t from, const Datum& where, const std::string& what);
  ExprPtr letrecBody(const std::vector<BodyForm>& forms, size_t lastDefine, const Datum& where);
  const std::string& defineName(const Datum& d);
  ExprPtr defineValue(const DatumPtr& d);
  ExprPtr curriedLambda(const std::vector<const Datum*>& targets, size_t k, const DatumPtr& form);
  std::vector<ExprPtr> exprsFrom(const DatumPtr& d, size_t from);

  // Expressions.
  ExprPtr variable(const DatumPtr& d);
  ExprPtr application(const DatumPtr& d);
  ExprPtr quote(const DatumPtr& d);
  ExprPtr if_(const DatumPtr& d);
  ExprPtr lambda(const DatumPtr& d);
  ExprPtr defineInExpr(const DatumPtr& d);
  ExprPtr begin(const DatumPtr& d);
  ExprPtr let(const DatumPtr& d);
  ExprPtr namedLet(const DatumPtr& d, const std::string& name, const Datum& bindings, size_t bodyFrom,
                   const std::string& what);
  ExprPtr letStar(const DatumPtr& d);
  ExprPtr letrec(const DatumPtr& d);
  ExprPtr cond(const DatumPtr& d);
  ExprPtr clauseResult(const DatumPtr& clause, const std::string& arg, const std::string& what);
  ExprPtr case_(const DatumPtr& d);
  ExprPtr caseTest(const DatumPtr& clause, const std::string& key);
  ExprPtr and_(const DatumPtr& d);
  ExprPtr or_(const DatumPtr& d);
  ExprPtr when(const DatumPtr& d);
  ExprPtr unless(const DatumPtr& d);
  ExprPtr do_(const DatumPtr& d);
  ExprPtr loop(const DatumPtr& d);
  ExprPtr mutation(const DatumPtr& d);
  ExprPtr reset(const DatumPtr& d);
  ExprPtr shift(const DatumPtr& d);
  ExprPtr strayUnquote(const DatumPtr& d);
  ExprPtr unsupported(const DatumPtr& d);

  // Exceptions (ExpandExceptions.cpp).
  ExprPtr guard(const DatumPtr& d);
  ExprPtr withLastHandler(ExprPtr program, const Datum& first, SrcPos at);

  // Multiple values and case-lambda (ExpandValues.cpp).
  ExprPtr thunk(const DatumPtr& e);
  ExprPtr receiveInto(const DatumPtr& producer, const Datum& formalsDatum, const DatumPtr& form, size_t bodyFrom,
                      const std::string& what);
  ExprPtr caseLambda(const DatumPtr& d);
  ExprPtr receive(const DatumPtr& d);
  std::vector<std::pair<DatumPtr, DatumPtr>> valuesBindings(const Datum& d, const std::string& what);
  ExprPtr letStarValues(const DatumPtr& d);
  ExprPtr letStarValuesFrom(const DatumPtr& d, const std::vector<std::pair<DatumPtr, DatumPtr>>& bs, size_t k);
  ExprPtr letValues(const DatumPtr& d);
  ExprPtr defineValuesList(const DatumPtr& d);
  ExprPtr nthOf(const std::string& list, size_t k, SrcPos p);
  ExprPtr defineValuesInExpr(const DatumPtr& d);

  // Quasiquote.
  ExprPtr quasiquote(const DatumPtr& d);
  ExprPtr quasi(const DatumPtr& t, int level);
  ExprPtr quasiForm(const DatumPtr& t, int level);
  ExprPtr quasiList(const DatumPtr& t, int level);

  ExpandOptions opts_;
  // What the expander knows of each name ever bound: how many enclosing scopes bind it now (0: none), and
  // the last body that defined it (bodies are numbered as they are collected; 0: none), which finds a name
  // defined twice in one body without a table of each body's own.
  struct BoundName {
    int scopes = 0;
    int body = 0;
  };
  NameTable<BoundName> bound_;
  int bodies_ = 0;                      // bodies collected so far
  std::deque<std::string> boundNames_;  // the text of bound_'s keys, one copy of each name ever bound
  std::map<std::string, int> counters_;
  int depth_ = 0;
  // A user's program may use call/cc (an escape built on reset and shift, prims/Continuations.cpp) or reset and
  // shift, not both: where each was first seen.
  const Datum* firstControl_ = nullptr;
  const Datum* firstCallCc_ = nullptr;
  // The first guard, raise, raise-continuable or with-exception-handler (prims/Exceptions.cpp): the program then
  // runs under a last handler, and its `error` raises an error object.
  const Datum* firstException_ = nullptr;
  bool sawSet_ = false;  // a set! was expanded: the result needs assignment conversion
};

}  // namespace dmci
