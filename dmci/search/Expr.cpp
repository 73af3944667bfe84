// Candidates as trees: reading them from text, printing them back, their size and their canonical hash.
#include "search/Expr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

#include "syntax/Datum.h"
#include "syntax/Reader.h"

namespace dmci::search {

namespace {

Expr fromDatum(const Datum& d) {
  if (d.kind == DatumKind::Number) return Expr::num(d.number);
  if (d.kind == DatumKind::Symbol) return Expr::sym(d.text);
  if (d.kind == DatumKind::List && !d.tail) {
    std::vector<Expr> items;
    for (const auto& item : d.items) items.push_back(fromDatum(*item));
    return Expr::list(std::move(items));
  }
  Expr atom;
  atom.kind = Expr::Kind::Atom, atom.text = print(d);
  return atom;
}

void printTo(std::string& out, const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Number:
      out += formatNumber(e.number);
      return;
    case Expr::Kind::Symbol:  // as the reader reads it back: |a b| is one symbol, not two
      out += print(*Datum::symbol(e.text));
      return;
    case Expr::Kind::Atom:
      out += e.text;
      return;
    case Expr::Kind::List:
      out += '(';
      for (size_t k = 0; k < e.items.size(); ++k) {
        if (k) out += ' ';
        printTo(out, e.items[k]);
      }
      out += ')';
      return;
  }
}

// The names a form binds (lambda parameters, let names, a named let's name, defined names), in order.
void boundNames(const Expr& e, std::vector<std::string>& out) {
  if (!e.isList()) return;
  auto add = [&](const Expr& name) {
    if (name.isSymbol() && std::find(out.begin(), out.end(), name.text) == out.end()) out.push_back(name.text);
  };
  const std::string& h = e.head();
  size_t n = e.items.size();
  if (h == "lambda" && n >= 2) {
    add(e.items[1]);
    for (const auto& p : e.items[1].items) add(p);
  } else if ((h == "let" || h == "let*" || h == "letrec" || h == "letrec*") && n >= 2) {
    size_t at = e.items[1].isSymbol() ? 2 : 1;  // a named let
    if (at == 2) add(e.items[1]);
    if (at < n)
      for (const auto& b : e.items[at].items)
        if (b.isList() && !b.items.empty()) add(b.items[0]);
  } else if (h == "define" && n >= 2) {
    add(e.items[1]);
    for (const auto& p : e.items[1].items) add(p);
  }
  for (const auto& item : e.items) boundNames(item, out);
}

std::string bucket(double x, int digits) {
  if (x == 0) return "0";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*e", std::max(0, digits - 1), x);
  return buf;
}

std::string canonical(const Expr& e, int digits, const std::vector<std::string>& bound) {
  switch (e.kind) {
    case Expr::Kind::Number:
      return bucket(e.number, digits);
    case Expr::Kind::Symbol: {
      auto at = std::find(bound.begin(), bound.end(), e.text);
      if (at == bound.end()) return print(*Datum::symbol(e.text));  // |a b| is not the two symbols a b
      std::string renamed = "_";
      return renamed += std::to_string(at - bound.begin());
    }
    case Expr::Kind::Atom:
      return e.text;
    case Expr::Kind::List:
      break;
  }
  std::vector<std::string> parts;
  for (const auto& item : e.items) parts.push_back(canonical(item, digits, bound));
  if ((e.head() == "+" || e.head() == "*") && parts.size() > 2) std::sort(parts.begin() + 1, parts.end());
  std::string out = "(";
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) out += ' ';
    out += parts[k];
  }
  return out + ")";
}

}  // namespace

Expr Expr::num(double x) {
  Expr e;
  e.kind = Kind::Number, e.number = x;
  return e;
}

Expr Expr::sym(std::string name) {
  Expr e;
  e.kind = Kind::Symbol, e.text = std::move(name);
  return e;
}

Expr Expr::list(std::vector<Expr> items) {
  Expr e;
  e.kind = Kind::List, e.items = std::move(items);
  return e;
}

const std::string& Expr::head() const {
  static const std::string none;
  return kind == Kind::List && !items.empty() && items[0].isSymbol() ? items[0].text : none;
}

bool Expr::operator==(const Expr& o) const {
  if (kind != o.kind) return false;
  if (kind == Kind::Number) return number == o.number;
  return text == o.text && items == o.items;
}

Result<std::vector<Expr>> readForms(const std::string& text, const std::string& file) {
  auto data = readAll(text, file);
  if (!data) return data.error();
  if (data->empty()) return Error{ErrorKind::Syntax, "the program is empty", SrcPos{internFile(file), 1, 1}};
  std::vector<Expr> forms;
  for (const auto& d : *data) forms.push_back(fromDatum(*d));
  return forms;
}

std::string print(const Expr& e) {
  std::string out;
  printTo(out, e);
  return out;
}

std::string printForms(const std::vector<Expr>& forms) {
  std::string out;
  for (const auto& f : forms) out += print(f) + "\n";
  return out;
}

Result<int> editedForm(const std::vector<Expr>& forms, const std::string& name) {
  for (size_t k = 0; k < forms.size(); ++k) {
    const Expr& f = forms[k];
    if (f.head() != "define" || f.items.size() < 2) continue;
    const Expr& target = f.items[1];
    if (target.isSymbol() && target.text == name)
      return Error{ErrorKind::Usage,
                   "--edit " + name + ": '" + name + "' is defined as a variable; --edit takes a procedure written " +
                       "(define (" + name + " ARG ...) BODY), whose BODY the search edits",
                   {}};
    if (!target.isList() || target.items.empty() || !target.items[0].isSymbol() || target.items[0].text != name)
      continue;
    for (size_t i = 1; i < target.items.size(); ++i)
      if (!target.items[i].isSymbol())
        return Error{ErrorKind::Usage, "--edit " + name + ": its arguments must be plain names", {}};
    if (f.items.size() != 3)
      return Error{ErrorKind::Usage,
                   "--edit " + name +
                       ": the definition must have one body expression, the one the search edits (it has " +
                       std::to_string(f.items.size() - 2) + ")",
                   {}};
    return static_cast<int>(k);
  }
  return Error{
      ErrorKind::Usage, "--edit " + name + ": the program has no definition (define (" + name + " ...) ...)", {}};
}

std::vector<std::string> editedArguments(const Candidate& c) {
  std::vector<std::string> out;
  if (c.edited < 0) return out;
  const Expr& target = c.forms[static_cast<size_t>(c.edited)].items[1];
  for (size_t i = 1; i < target.items.size(); ++i) out.push_back(target.items[i].text);
  return out;
}

int complexity(const Expr& e) {
  if (e.items.empty()) return 1;
  int n = 0;
  for (const auto& item : e.items) n += complexity(item);
  return n;
}

int depth(const Expr& e) {
  int d = 0;
  for (const auto& item : e.items) d = std::max(d, depth(item));
  return d + 1;
}

std::vector<std::string> symbolsOf(const Expr& e) {
  std::vector<std::string> out;
  std::function<void(const Expr&)> walk = [&](const Expr& x) {
    if (x.isSymbol() && std::find(out.begin(), out.end(), x.text) == out.end()) out.push_back(x.text);
    for (const auto& item : x.items) walk(item);
  };
  walk(e);
  return out;
}

std::string canonicalText(const Expr& e, int digits) {
  std::vector<std::string> bound;
  boundNames(e, bound);
  return canonical(e, digits, bound);
}

uint64_t canonicalHash(const Expr& e, int digits) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : canonicalText(e, digits)) h = (h ^ c) * 1099511628211ull;
  return h;
}

}  // namespace dmci::search
