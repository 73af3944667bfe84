// The library procedures written in Scheme (prims/prelude.scm), cut into one source text per procedure for the
// rows of the family files that name them (Lists.cpp, Vectors.cpp).
#include "prims/Prelude.h"

#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>

namespace dmci {
namespace {
#include "prelude_scm.inc"  // kPreludeSource: the text of dmci/prims/prelude.scm

// The top-level forms of `text` by the name they define ((define (NAME ...) ...)): each the exact text from its
// opening to its closing parenthesis, so that a reader's positions count from the definition's first line.
// Comments (; to the end of the line) and strings are skipped when counting parentheses.
std::unordered_map<std::string, std::string> definitionsByName(std::string_view text) {
  std::unordered_map<std::string, std::string> out;
  size_t depth = 0, start = 0;
  for (size_t k = 0; k < text.size(); ++k) {
    char c = text[k];
    if (c == ';') {
      while (k < text.size() && text[k] != '\n') ++k;
    } else if (c == '"') {
      for (++k; k < text.size() && text[k] != '"'; ++k)
        if (text[k] == '\\') ++k;
    } else if (c == '#' && k + 1 < text.size() && text[k + 1] == '\\') {
      k += 2;  // a character literal such as #\( counts no parenthesis
    } else if (c == '(') {
      if (depth++ == 0) start = k;
    } else if (c == ')' && depth > 0 && --depth == 0) {
      std::string_view form = text.substr(start, k + 1 - start);
      constexpr std::string_view head = "(define (";
      if (form.substr(0, head.size()) != head)
        throw std::logic_error("prelude.scm: a top-level form is not (define (NAME ...) ...)");
      std::string_view rest = form.substr(head.size());
      std::string name(rest.substr(0, rest.find_first_of(" )\n")));
      out.emplace(std::move(name), std::string(form));
    }
  }
  if (depth != 0) throw std::logic_error("prelude.scm: unbalanced parentheses");
  return out;
}

}  // namespace

// The source of the prelude procedure `name`: its definition in prelude.scm. Throws std::logic_error when the
// file lacks it (a build defect, caught by the first use of the table).
const char* preludeSource(const std::string& name) {
  static const auto definitions = definitionsByName(kPreludeSource);
  auto it = definitions.find(name);
  if (it == definitions.end()) throw std::logic_error("prelude.scm defines no " + name);
  return it->second.c_str();
}

}  // namespace dmci
