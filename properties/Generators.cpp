// The program generators: a numeric expression grammar over a depth budget, with family tags.
#include "properties/Generators.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <sstream>

#include "support/Regex.h"

namespace dmci::props {
namespace gen = rc::gen;
using rc::Gen;

namespace {

using Env = std::vector<std::string>;  // numeric variables in scope, innermost last

// A generated expression: its text, what it exercises and its height.
struct G {
  std::string text;
  unsigned tags = 0;
  int depth = 0;
  std::string family;
  std::vector<G> closed;  // children that mention none of this node's binders: valid in its place
};

// Whether `text` mentions `name` as a whole token.
bool hasToken(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool left = at == 0 || std::string_view(" ()'").find(text[at - 1]) != std::string_view::npos;
    size_t end = at + name.size();
    bool right = end == text.size() || std::string_view(" ()").find(text[end]) != std::string_view::npos;
    if (left && right) return true;
  }
  return false;
}

// Replaces $0..$9 in `tpl` by `args`.
std::string fill(const std::string& tpl, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < tpl.size(); ++i) {
    if (tpl[i] == '$' && i + 1 < tpl.size() && tpl[i + 1] >= '0' && tpl[i + 1] <= '9') {
      out += args.at(static_cast<size_t>(tpl[++i] - '0'));
    } else {
      out += tpl[i];
    }
  }
  return out;
}

// A node of family `fam`: text from `tpl` over `names` then the children's texts.
G node(const std::string& fam, unsigned tag, const std::string& tpl, const std::vector<std::string>& names,
       const std::vector<G>& kids) {
  G g{"", tag, 1, fam, {}};
  std::vector<std::string> args = names;
  for (const auto& k : kids) {
    args.push_back(k.text);
    g.tags |= k.tags;
    g.depth = std::max(g.depth, k.depth + 1);
    auto binds = [&](const std::string& n) {
      return std::isalpha(static_cast<unsigned char>(n[0])) && hasToken(k.text, n);
    };
    if (std::none_of(names.begin(), names.end(), binds)) g.closed.push_back(G{k.text, k.tags, k.depth, k.family, {}});
  }
  g.text = fill(tpl, args);
  return g;
}

std::string fresh(const Env& env, const char* stem) { return std::string(stem).append(std::to_string(env.size())); }
Env with(Env env, std::initializer_list<std::string> more) {
  env.insert(env.end(), more);
  return env;
}

Gen<G> num(const Env& env, int d);
// After the usual shrinks, a node may shrink to one of its closed children: programs then shrink by whole forms.
Gen<G> toChildren(Gen<G> g) {
  return gen::shrink(std::move(g), [](const G& x) { return rc::seq::fromContainer(x.closed); });
}
Gen<G> sub(const Env& env, int d) {
  return toChildren(gen::lazy([env, d] { return num(env, std::max(d, 0)); }));
}
Gen<G> build(std::string fam, unsigned tag, std::string tpl, std::vector<std::string> names, Gen<G> a);
// A bounded expression (|value| <= pi/2 or 1), for the factors of products: it shrinks to its argument.
Gen<G> bounded(const Env& env, int d) {
  return toChildren(gen::mapcat(gen::element<std::string>("(tanh $0)", "(sin $0)", "(atan $0)", "(cos $0)"),
                                [env, d](const std::string& t) { return build("arithmetic", 0, t, {}, sub(env, d)); }));
}

// Builds from 1..4 child generators and a template over `names` then the children.
Gen<G> build(std::string fam, unsigned tag, std::string tpl, std::vector<std::string> names, Gen<G> a) {
  return gen::map(a, [=](const G& x) { return node(fam, tag, tpl, names, {x}); });
}
Gen<G> build(std::string fam, unsigned tag, std::string tpl, std::vector<std::string> names, Gen<G> a, Gen<G> b) {
  return gen::apply([=](const G& x, const G& y) { return node(fam, tag, tpl, names, {x, y}); }, a, b);
}
Gen<G> build(std::string fam, unsigned tag, std::string tpl, std::vector<std::string> names, Gen<G> a, Gen<G> b,
             Gen<G> c) {
  return gen::apply([=](const G& x, const G& y, const G& z) { return node(fam, tag, tpl, names, {x, y, z}); }, a, b, c);
}
Gen<G> build(std::string fam, unsigned tag, std::string tpl, std::vector<std::string> names, Gen<G> a, Gen<G> b,
             Gen<G> c, Gen<G> e) {
  return gen::apply(
      [=](const G& x, const G& y, const G& z, const G& w) {
        return node(fam, tag, tpl, names, {x, y, z, w});
      },
      a, b, c, e);
}

// A small literal: k/4 for k in [-12, 12] (shrinking towards 1), so values stay away from domain edges and print
// exactly.
Gen<G> literal() {
  return gen::map(pick(0, 25), [](int k) {
    return G{formatNumber(((k + 16) % 25 - 12) / 4.0), 0, 0, "arithmetic", {}};
  });
}

Gen<G> leaf(const Env& env) {
  return gen::mapcat(pick(0, 3), [env](int k) -> Gen<G> {
    if (k == 0 || env.empty()) return literal();
    return gen::map(gen::elementOf(env), [](const std::string& v) { return G{v, 0, 0, "arithmetic", {}}; });
  });
}

// One-argument shapes that are defined and smooth for every real argument. Nothing grows faster than
// linearly (products take a bounded factor), so values stay moderate and sin / cos stay well conditioned.
const std::vector<std::string> kUnary = {"(sin $0)",
                                         "(cos $0)",
                                         "(tanh $0)",
                                         "(atan $0)",
                                         "(sigmoid $0)",
                                         "(softplus $0)",
                                         "(exp (sin $0))",
                                         "(log (+ 1 (square $0)))",
                                         "(sqrt (+ 1 (square $0)))",
                                         "(square (atan $0))",
                                         "(- $0)",
                                         "(/ 1 (+ 2 (square $0)))",
                                         "(expt (+ 1 (square (sin $0))) 1.5)",
                                         "(asin (* 0.5 (tanh $0)))",
                                         "(acos (* 0.5 (sin $0)))",
                                         "(log 2 (+ 3 (cos $0)))",
                                         "(* $0 0.5)"};
const std::vector<std::string> kBinary = {"(+ $0 $1)", "(- $0 $1)", "(/ $0 (+ 2 (square $1)))",
                                          "(atan $0 (+ 2 (square $1)))", "(+ $0 (* 0.5 $1))"};
const std::vector<std::string> kKinked = {"(abs $0)", "(max $0 $1)", "(min $0 $1)"};

Gen<G> arithmetic(const Env& env, int d) {
  return gen::mapcat(pick(0, 5), [env, d](int k) -> Gen<G> {
    if (k == 0)
      return gen::mapcat(gen::elementOf(kUnary),
                         [env, d](const std::string& t) { return build("arithmetic", 0, t, {}, sub(env, d)); });
    if (k == 1)
      return gen::mapcat(gen::elementOf(kBinary), [env, d](const std::string& t) {
        return build("arithmetic", 0, t, {}, sub(env, d), sub(env, d));
      });
    if (k == 2)
      return build("arithmetic", 0, "(+ (* 0.5 $0) (* 0.25 $1) (* 0.25 $2))", {}, sub(env, d), sub(env, d),
                   sub(env, d));
    if (k == 3) return build("arithmetic", 0, "(* $0 $1)", {}, sub(env, d), bounded(env, d));
    return gen::mapcat(gen::elementOf(kKinked), [env, d](const std::string& t) {
      return build("arithmetic", kKink, t, {}, sub(env, d), sub(env, d));
    });
  });
}

Gen<G> binding(const Env& env, int d) {
  std::string v = fresh(env, "v"), w = fresh(env, "w"), f = fresh(env, "f");
  return gen::mapcat(pick(0, 4), [=](int k) -> Gen<G> {
    if (k == 0) return build("let", kBinding, "(let (($0 $1)) $2)", {v}, sub(env, d), sub(with(env, {v}), d));
    if (k == 1)
      return build("let", kBinding, "(let* (($0 $2) ($1 $3)) $4)", {v, w}, sub(env, d), sub(with(env, {v}), d),
                   sub(with(env, {v, w}), d));
    if (k == 2)
      return build("let", kBinding, "(letrec (($0 (lambda ($1) $2))) ($0 ($0 $3)))", {f, v}, sub(with(env, {v}), d),
                   sub(env, d));
    return build("let", kBranch, "(if (< $0 $1) $2 $3)", {}, sub(env, d), sub(env, d), sub(env, d), sub(env, d));
  });
}

// Procedures as values: twice, compose, currying, map / fold with generated lambdas, primitives passed.
Gen<G> higherOrder(const Env& env, int d) {
  std::string v = fresh(env, "v"), w = fresh(env, "w");
  const unsigned ho = kHigherOrder, hl = kHigherOrder | kList;
  return gen::mapcat(pick(0, 8), [=](int k) -> Gen<G> {
    switch (k) {
      case 0:
        return build("higher-order/twice", ho, "(((lambda (f) (lambda (z) (f (f z)))) (lambda ($0) $1)) $2)", {v},
                     sub(with(env, {v}), d), sub(env, d));
      case 1:
        return gen::mapcat(gen::element<std::string>("sin", "tanh", "atan", "square", "cos"), [=](std::string p) {
          return build("higher-order/compose", ho, "(((lambda (f g) (lambda (z) (f (g z)))) $1 (lambda ($0) $2)) $3)",
                       {v, p}, sub(with(env, {v}), d), sub(env, d));
        });
      case 2:
        return build("higher-order/curry", ho, "(((lambda ($0) (lambda ($1) $2)) $3) $4)", {v, w},
                     sub(with(env, {v, w}), d), sub(env, d), sub(env, d));
      case 3:
        return build("higher-order/fold-left", hl, "(fold-left (lambda ($0 $1) $2) $3 (list $4 $5))", {v, w},
                     sub(with(env, {v, w}), d), sub(env, d), sub(env, d - 1), sub(env, d - 1));
      case 4:
        return build("higher-order/fold-right", hl, "(fold-right (lambda ($0 $1) $2) $3 (list $4 $5))", {v, w},
                     sub(with(env, {v, w}), d), sub(env, d), sub(env, d - 1), sub(env, d - 1));
      case 5:
        return build("higher-order/map", hl, "(apply + (map (lambda ($0) $1) (list $2 $3)))", {v},
                     sub(with(env, {v}), d), sub(env, d - 1), sub(env, d - 1));
      case 6:
        return gen::mapcat(gen::element<std::string>("sin", "atan", "tanh", "square", "sigmoid"), [=](std::string p) {
          return build("higher-order/primitive", ho, "((lambda (f) (f $1)) $0)", {p}, sub(env, d));
        });
      default:
        return build("higher-order/closure", ho, "(let ((f (lambda ($0) $1))) (+ (f $2) (f $3)))", {v},
                     sub(with(env, {v}), d), sub(env, d - 1), sub(env, d - 1));
    }
  });
}

// Recursion on a decreasing integer counter n in [0, 6]; the step expressions see the counter and accumulator.
Gen<G> recursion(const Env& env, int d) {
  std::string k = fresh(env, "k"), a = fresh(env, "a"), f = fresh(env, "f");
  const unsigned r = kRecursive;
  return gen::mapcat(gen::pair(pick(0, 5), pick(0, 7)), [=](std::pair<int, int> choice) -> Gen<G> {
    std::string n = std::to_string(choice.second);
    Env inner = with(env, {k, a});
    switch (choice.first) {
      case 0:  // non-tail
        return build("recursion/non-tail", r,
                     "(letrec (($0 (lambda ($1) (if (<= $1 0) $4 (+ (* 0.5 ($0 (- $1 1))) $5))))) ($0 $3))",
                     {f, k, a, n}, sub(env, d), sub(with(env, {k}), d));
      case 1:  // tail, named let
        return build("recursion/tail", r, "(let $0 (($1 $3) ($2 $4)) (if (<= $1 0) $2 ($0 (- $1 1) $5)))", {f, k, a, n},
                     sub(env, d), sub(inner, d));
      case 2:  // do loop
        return build("recursion/do", r, "(do (($0 $2 (- $0 1)) ($1 $3 $4)) ((<= $0 0) $1))", {k, a, n}, sub(env, d),
                     sub(inner, d));
      case 3:  // mutual recursion through internal defines
        return build("recursion/mutual", r,
                     "(let () (define (ev $0 $1) (if (<= $0 0) $1 (od (- $0 1) $3))) "
                     "(define (od $0 $1) (if (<= $0 0) $1 (ev (- $0 1) $4))) (ev $2 $5))",
                     {k, a, n}, sub(inner, d), sub(inner, d), sub(env, d));
      default:  // a list built by recursion, consumed by a fold
        return build("recursion/list", r | kList | kHigherOrder,
                     "(letrec (($0 (lambda ($1) (if (<= $1 0) '() (cons $3 ($0 (- $1 1))))))) (fold-left + 0 ($0 $2)))",
                     {f, k, n}, sub(with(env, {k}), d));
    }
  });
}

Gen<G> lists(const Env& env, int d) {
  const unsigned l = kList;
  return gen::mapcat(pick(0, 4), [=](int k) -> Gen<G> {
    if (k == 0) return build("list", l, "(car (cdr (list $0 $1 $2)))", {}, sub(env, d), sub(env, d), sub(env, d));
    if (k == 1) return build("list", l, "(list-ref (list $0 $1 $2) 2)", {}, sub(env, d), sub(env, d), sub(env, d));
    if (k == 2)
      return build("list", l, "(* (length (append (list $0) (list $1))) (car (reverse (list $0 $1))))", {}, sub(env, d),
                   bounded(env, d));
    return build("list", l | kHigherOrder, "(fold-left * 1 (cons $0 (list $1)))", {}, sub(env, d), bounded(env, d));
  });
}

Gen<G> tensors(const Env& env, int d) {
  const unsigned t = kTensor;
  int h = d / 2;  // tensor forms have many operands: keep them shallow
  return gen::mapcat(pick(0, 5), [=](int k) -> Gen<G> {
    if (k == 0)
      return build("tensor", t, "(dot (vec $0 $1) (vec $2 $3))", {}, sub(env, h), sub(env, h), bounded(env, h),
                   bounded(env, h));
    if (k == 1)
      return build("tensor", t, "(vsum (matvec (mat (list $0 $1) (list $2 $3)) (vec $0 $3)))", {}, bounded(env, h),
                   sub(env, h), sub(env, h), bounded(env, h));
    if (k == 2)
      return build("tensor", t, "(vsum (scale $0 (vec $1 $2)))", {}, bounded(env, h), sub(env, h), sub(env, h));
    if (k == 3)
      return build("tensor", t, "(ref (+ (vec $0 $1) (vec $2 $0)) 1)", {}, sub(env, h), sub(env, h), sub(env, h));
    return build("tensor", t, "(vsum (* (vec $0 $1) (vec $2 $3)))", {}, sub(env, h), sub(env, h), bounded(env, h),
                 bounded(env, h));
  });
}

// A numeric expression within depth budget d: a leaf at 0, else one of the families (leaves first, for shrinking).
Gen<G> num(const Env& env, int d) {
  if (d <= 0) return leaf(env);
  return gen::mapcat(pick(0, 14), [env, d](int k) -> Gen<G> {
    if (k < 2) return leaf(env);
    if (k < 5) return arithmetic(env, d - 1);
    if (k < 7) return binding(env, d - 1);
    if (k < 9) return higherOrder(env, d - 1);
    if (k < 11) return recursion(env, d - 1);
    if (k < 12) return lists(env, d - 1);
    return tensors(env, d - 1);
  });
}

// The top form: a family chosen evenly, so that recursion and higher-order calls each make up a good share.
Gen<G> top(int d) {
  Env env{"x", "y"};
  return gen::mapcat(pick(0, 7), [env, d](int k) -> Gen<G> {
    switch (k) {
      case 0:
        return arithmetic(env, d - 1);
      case 1:
        return higherOrder(env, d - 1);
      case 3:
        return binding(env, d - 1);
      case 5:
        return gen::mapcat(pick(0, 3), [env, d](int j) {
          return j == 0 ? lists(env, d - 1) : j == 1 ? tensors(env, d - 1) : higherOrder(env, d - 1);
        });
      default:
        return recursion(env, d - 1);
    }
  });
}

bool mentions(const std::string& text, const std::string& name) {
  std::regex word("(^|[\\s()])" + name + "($|[\\s()])");
  return std::regex_search(text, word);
}

Case makeCase(const G& g, double x, double y, bool literals) {
  Case c;
  c.text = g.text + "\n";
  c.tags = g.tags;
  c.depth = g.depth;
  c.family = g.family;
  for (const auto& [name, value] : {std::pair<std::string, double>{"x", x}, {"y", y}})
    if (mentions(g.text, name)) {
      c.seed.push_back({name, value});
      c.wrt.push_back(name);
    }
  c.wrtLiterals = literals || c.wrt.empty();
  return c;
}

// A seed value in [-2, 2] on a grid of 1/64 offset by 1/128, so never 0 and never a tie with a literal k/4.
Gen<double> seedValue() {
  return gen::map(pick(0, 256), [](int k) { return ((k + 160) % 256 - 128 + 0.5) / 64.0; });
}

}  // namespace

std::vector<std::string> tagNames(unsigned tags) {
  static const char* names[] = {"recursive", "higher-order", "list", "tensor", "binding", "branch", "kink"};
  std::vector<std::string> out;
  for (unsigned i = 0; i < 7; ++i)
    if (tags & (1u << i)) out.push_back(names[i]);
  return out;
}

std::string describe(const Case& c) {
  std::ostringstream out;
  out << c.text << ";; dmci grad prog.scm";
  for (const auto& s : c.seed) out << " --bind " << s.name << "=" << formatNumber(s.value);
  if (!c.wrt.empty()) {
    out << " --wrt ";
    for (size_t i = 0; i < c.wrt.size(); ++i) out << (i ? "," : "") << c.wrt[i];
  }
  if (c.wrtLiterals) out << " (and every literal)";
  return out.str();
}

Gen<Case> genCase(int maxDepth) {
  maxDepth = std::clamp(maxDepth, 1, 6);
  return gen::mapcat(pick(1, maxDepth + 1), [](int d) {
    return gen::apply(makeCase, toChildren(top(d)), seedValue(), seedValue(),
                      gen::map(pick(0, 4), [](int k) { return k == 0; }));
  });
}

Gen<Case> genCase() {
  return gen::withSize([](int size) { return genCase(1 + std::min(size, 100) / 20); });
}

}  // namespace dmci::props
