// The transforms, each with its inverse and its slope.
#include "fit/Transform.h"

#include <cmath>
#include <cstdlib>

#include "support/JsonNumber.h"
#include "support/JsonText.h"

namespace dmci::fit {

namespace {

double sigmoid(double u) { return u >= 0 ? 1 / (1 + std::exp(-u)) : std::exp(u) / (1 + std::exp(u)); }

}  // namespace

double Transform::toParam(double u) const {
  switch (kind) {
    case Free:
      return u;
    case Positive:
      return std::exp(u);
    case Unit:
      return sigmoid(u);
    case Interval:
      return lo + (hi - lo) * sigmoid(u);
  }
  return NAN;
}

double Transform::toFree(double theta) const {
  switch (kind) {
    case Free:
      return theta;
    case Positive:
      return std::log(theta);
    case Unit:
      return std::log(theta / (1 - theta));
    case Interval: {
      double p = (theta - lo) / (hi - lo);
      return std::log(p / (1 - p));
    }
  }
  return NAN;
}

double Transform::slope(double u) const {
  switch (kind) {
    case Free:
      return 1;
    case Positive:
      return std::exp(u);
    case Unit:
      return sigmoid(u) * (1 - sigmoid(u));
    case Interval:
      return (hi - lo) * sigmoid(u) * (1 - sigmoid(u));
  }
  return NAN;
}

bool Transform::contains(double theta) const {
  switch (kind) {
    case Free:
      return std::isfinite(theta);
    case Positive:
      return theta > 0;
    case Unit:
      return theta > 0 && theta < 1;
    case Interval:
      return theta > lo && theta < hi;
  }
  return false;
}

std::string Transform::text() const {
  switch (kind) {
    case Free:
      return "free";
    case Positive:
      return "positive";
    case Unit:
      return "unit";
    case Interval: {
      std::string s = "[";
      s += jsonText(jsonNumber(lo));
      s += ",";
      s += jsonText(jsonNumber(hi));
      return s + "]";
    }
  }
  return "?";
}

Result<std::map<std::string, Transform>> parseTransforms(const std::string& text) {
  std::map<std::string, Transform> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t eq = text.find('=', at);
    if (eq == std::string::npos)
      return Error{ErrorKind::Usage, "--transform: expected NAME=KIND at '" + text.substr(at) + "'", {}};
    std::string name = text.substr(at, eq - at);
    // An interval's comma belongs to it: [lo,hi] ends at its bracket.
    size_t end = text[eq + 1] == '[' ? text.find(']', eq) : text.find(',', eq);
    if (end != std::string::npos && text[eq + 1] == '[') ++end;
    std::string kind = text.substr(eq + 1, end == std::string::npos ? std::string::npos : end - eq - 1);
    Transform t;
    if (kind == "positive") {
      t.kind = Transform::Positive;
    } else if (kind == "unit") {
      t.kind = Transform::Unit;
    } else if (kind == "free") {
      t.kind = Transform::Free;
    } else if (kind.size() > 2 && kind.front() == '[' && kind.back() == ']') {
      char *e1 = nullptr, *e2 = nullptr;
      t.kind = Transform::Interval;
      t.lo = std::strtod(kind.c_str() + 1, &e1);
      t.hi = *e1 == ',' ? std::strtod(e1 + 1, &e2) : NAN;
      if (*e1 != ',' || *e2 != ']' || !(t.lo < t.hi))
        return Error{ErrorKind::Usage, "--transform " + name + ": expected [lo,hi] with lo < hi, got " + kind, {}};
    } else {
      return Error{ErrorKind::Usage,
                   "--transform " + name + ": unknown transform '" + kind + "' (positive, unit, free or [lo,hi])",
                   {}};
    }
    if (name.empty()) return Error{ErrorKind::Usage, "--transform: a name is missing before '='", {}};
    out[name] = t;
    at = end == std::string::npos ? text.size() : end + (end < text.size() && text[end] == ',' ? 1 : 0);
  }
  return out;
}

}  // namespace dmci::fit
