// The fitted program's text.
#include "fit/FittedProgram.h"

#include "fit/Literals.h"

namespace dmci::fit {

std::string fittedProgram(const std::string& text, const Fitted& fitted, const std::vector<double>& theta,
                          const std::string& about) {
  std::string header = ";; Fitted by dmci fit: " + about + "\n";
  std::vector<std::string> numbers;
  for (size_t k = fitted.parameters; k < fitted.names.size(); ++k) {
    numbers.push_back(schemeNumber(theta[k]));
    header += ";;   literal " + fitted.names[k] + ": " + schemeNumber(fitted.start[k]) + " -> " + numbers.back() + "\n";
  }
  if (fitted.parameters > 0) {
    header += ";;   parameters (bind them when running): dmci run THIS.scm";
    for (size_t k = 0; k < fitted.parameters; ++k)
      if (!fitted.isUnused(fitted.names[k]))  // dmci run refuses a name the program does not use
        header += " --bind " + fitted.names[k] + "=" + schemeNumber(theta[k]);
    header += "\n";
  }
  return header + replaceTokens(text, fitted.literals, numbers);
}

}  // namespace dmci::fit
