// The fitted program (--out): the user's text with each fitted literal's token replaced by its fitted number,
// in place (comments, layout and every other token kept), under a header comment that says what was fitted,
// to what loss, from which data, and how to bind the fitted parameters that are not literals.
#pragma once
#include <string>
#include <vector>

#include "fit/Model.h"

namespace dmci::fit {

// `about` is the header's line on the fit (optimizer, loss, data); `theta` the fitted values in the model's order.
std::string fittedProgram(const std::string& text, const Fitted& fitted, const std::vector<double>& theta,
                          const std::string& about);

}  // namespace dmci::fit
