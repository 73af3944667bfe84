// The reader's exactness of number literals (syntax/Exactness.h).
#include "syntax/Exactness.h"

#include <cmath>
#include <string>

namespace dmci {

bool isExactIntegerToken(std::string_view t, double value) {
  size_t i = (!t.empty() && (t[0] == '+' || t[0] == '-')) ? 1 : 0;
  if (i == t.size()) return false;
  for (size_t k = i; k < t.size(); ++k)
    if (t[k] < '0' || t[k] > '9') return false;
  if (!holdsExactInteger(value)) return false;
  // The digits must be the double's: 9007199254740993 reads as 2^53, an inexact neighbour.
  while (i + 1 < t.size() && t[i] == '0') ++i;
  return t.substr(i) == std::to_string(static_cast<long long>(std::fabs(value)));
}

DatumPtr exactNumber(double x, SrcPos p) { return numberWithExactness(x, true, p); }

// numberWithExactness is defined in Datum.cpp, beside the allocation every datum shares.

}  // namespace dmci
