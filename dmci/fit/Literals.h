// A program's numeric literals as things to fit. A literal is found by its gradient key ("file:line:col", Prepare.h's
// literalKeys), as a number datum of the read program and as a token in the source text. To fit it, the datum is
// replaced by a fresh variable that the engines bind like any parameter (its gradient is the literal's: a literal
// the expander duplicated is one variable used twice), on the forms already read: no text is written or read
// again, and every other datum keeps its position. To write the fitted program (--out), each token is replaced by
// its fitted number in place in the text: comments, layout and every other token are kept.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "syntax/Datum.h"
#include "syntax/Error.h"

namespace dmci::fit {

struct LiteralSite {
  std::string key;  // "file:line:col"
  uint32_t line = 0, col = 0;
  size_t offset = 0, length = 0;  // the token in the source text
  double value = 0;               // as written
  std::string variable;           // the variable that stands for it while fitting
};

// The sites of these literal keys (the program file's only) in `text`; a key whose token is not a plain decimal
// number is a Usage error at its position.
Result<std::vector<LiteralSite>> findLiterals(const std::string& text, const std::string& file,
                                              const std::vector<std::string>& keys,
                                              const std::vector<std::string>& namesInUse);
// The read forms with each site's number datum (in `sites`' file) replaced by the symbol of its variable, and each
// site's value set to the datum's number, bit for bit. A site that is no number datum, or one inside a quoted
// datum (where a symbol would be a symbol, not a variable), is a Usage error at its position.
Result<std::vector<DatumPtr>> bindLiterals(const std::vector<DatumPtr>& forms, const std::string& file,
                                           std::vector<LiteralSite>& sites);
// `text` with each site's token replaced by `replacement[k]` (same order as `sites`).
std::string replaceTokens(const std::string& text, const std::vector<LiteralSite>& sites,
                          const std::vector<std::string>& replacement);
// A number as a Scheme literal that reads back to the same double ("3.0", "-1.25e-07").
std::string schemeNumber(double x);

}  // namespace dmci::fit
