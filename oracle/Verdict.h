// The verdict of a check against the oracle, one type for the gate (a corpus pair's status) and the properties
// (a generated case's outcome): it passed, it failed, or the oracle found the seed nondifferentiable, which is
// counted on its own and not failed (engine values and AD gradients must still agree there).
#pragma once

namespace dmci {

enum class Verdict { Pass, Fail, Nondifferentiable };

// "pass", "fail", "nondifferentiable": the words of the JSON and Markdown reports.
inline const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Pass:
      return "pass";
    case Verdict::Fail:
      return "fail";
    case Verdict::Nondifferentiable:
      return "nondifferentiable";
  }
  return "?";
}

}  // namespace dmci
