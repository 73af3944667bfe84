// Literal sites: from a gradient key to the token in the text, and rewrites of those tokens.
#include "fit/Literals.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace dmci::fit {

namespace {

bool isDelimiter(char c) { return std::isspace(static_cast<unsigned char>(c)) || std::strchr("()[]{}\";'`,|", c); }

// The byte offset of line:col (1-based) in text, or npos.
size_t offsetOf(const std::string& text, uint32_t line, uint32_t col) {
  size_t at = 0;
  for (uint32_t l = 1; l < line; ++l) {
    at = text.find('\n', at);
    if (at == std::string::npos) return at;
    ++at;
  }
  return at + col - 1 <= text.size() ? at + col - 1 : std::string::npos;
}

// "file:line:col" split from the right (a file name may hold ':').
bool splitKey(const std::string& key, std::string& file, uint32_t& line, uint32_t& col) {
  size_t c2 = key.rfind(':');
  size_t c1 = c2 == std::string::npos || c2 == 0 ? std::string::npos : key.rfind(':', c2 - 1);
  if (c1 == std::string::npos) return false;
  file = key.substr(0, c1);
  line = static_cast<uint32_t>(std::strtoul(key.c_str() + c1 + 1, nullptr, 10));
  col = static_cast<uint32_t>(std::strtoul(key.c_str() + c2 + 1, nullptr, 10));
  return line > 0 && col > 0;
}

}  // namespace

Result<std::vector<LiteralSite>> findLiterals(const std::string& text, const std::string& file,
                                              const std::vector<std::string>& keys,
                                              const std::vector<std::string>& namesInUse) {
  std::vector<LiteralSite> out;
  for (const auto& key : keys) {
    LiteralSite s;
    std::string keyFile;
    if (!splitKey(key, keyFile, s.line, s.col) || keyFile != file) continue;
    s.key = key;
    SrcPos pos{internFile(file), s.line, s.col};
    s.offset = offsetOf(text, s.line, s.col);
    if (s.offset == std::string::npos) return Error{ErrorKind::Usage, "no literal at " + key, pos};
    size_t end = s.offset;
    while (end < text.size() && !isDelimiter(text[end])) ++end;
    s.length = end - s.offset;
    std::string token = text.substr(s.offset, s.length);
    char* stop = nullptr;
    s.value = std::strtod(token.c_str(), &stop);
    if (token.empty() || *stop != '\0' || !std::isfinite(s.value))
      return Error{ErrorKind::Usage, "the literal '" + token + "' cannot be fitted: only decimal numbers can", pos};
    s.variable = "dmci-literal-" + std::to_string(s.line) + "-" + std::to_string(s.col);
    while (std::find(namesInUse.begin(), namesInUse.end(), s.variable) != namesInUse.end()) s.variable += "*";
    out.push_back(s);
  }
  return out;
}

namespace {

struct Binder {
  uint32_t file;
  std::vector<LiteralSite>& sites;
  std::vector<bool> found;

  // The site at `pos`, or nullptr.
  LiteralSite* siteAt(const SrcPos& pos) {
    if (pos.file != file) return nullptr;
    for (size_t k = 0; k < sites.size(); ++k)
      if (sites[k].line == pos.line && sites[k].col == pos.col) {
        found[k] = true;
        return &sites[k];
      }
    return nullptr;
  }

  // `d` with its sites bound; `quoted` > 0 inside a quote (or a quasiquote outside its unquotes). The reader nests
  // at most kMaxReadDepth deep, so this recursion is bounded.
  DatumPtr bind(const DatumPtr& d, int quoted) {
    if (d->kind == DatumKind::Number) {
      LiteralSite* site = siteAt(d->pos);
      if (!site) return d;
      if (quoted > 0)
        throw DmciError(
            Error{ErrorKind::Usage,
                  "the literal " + formatNumber(d->number) +
                      " is inside a quoted datum and cannot be fitted: write it with list (or vector) instead",
                  d->pos});
      site->value = d->number;
      return Datum::symbol(site->variable, d->pos);
    }
    if (d->kind == DatumKind::Vector) {  // a vector literal is a constant: its numbers are quoted data
      for (const auto& item : d->items) bind(item, quoted + 1000);
      return d;
    }
    if (d->kind != DatumKind::List) return d;
    const std::string& head = d->head();
    int inner = quoted;
    if (head == "quote") inner = quoted + 1000;  // nothing inside a quote is evaluated
    if (head == "quasiquote") inner = quoted + 1;
    if ((head == "unquote" || head == "unquote-splicing") && quoted > 0) inner = quoted - 1;
    std::vector<DatumPtr> items;
    bool changed = false;
    for (const auto& item : d->items) {
      items.push_back(bind(item, inner));
      changed = changed || items.back() != item;
    }
    DatumPtr tail = d->tail ? bind(d->tail, inner) : nullptr;
    changed = changed || tail != d->tail;
    return changed ? Datum::list(std::move(items), d->pos, tail) : d;
  }
};

}  // namespace

Result<std::vector<DatumPtr>> bindLiterals(const std::vector<DatumPtr>& forms, const std::string& file,
                                           std::vector<LiteralSite>& sites) {
  return catchErrors([&] {
    Binder b{internFile(file), sites, std::vector<bool>(sites.size(), false)};
    std::vector<DatumPtr> out;
    for (const auto& d : forms) out.push_back(b.bind(d, 0));
    for (size_t k = 0; k < sites.size(); ++k)
      if (!b.found[k])
        throw DmciError(Error{ErrorKind::Usage, "no number literal at " + sites[k].key,
                              SrcPos{internFile(file), sites[k].line, sites[k].col}});
    return out;
  });
}

std::string replaceTokens(const std::string& text, const std::vector<LiteralSite>& sites,
                          const std::vector<std::string>& replacement) {
  std::vector<size_t> order(sites.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sites[a].offset > sites[b].offset; });
  std::string out = text;
  for (size_t k : order) out.replace(sites[k].offset, sites[k].length, replacement[k]);
  return out;
}

std::string schemeNumber(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  std::string s = buf;
  if (s.find_first_of(".eEni") == std::string::npos) s += ".0";
  return s;
}

}  // namespace dmci::fit
