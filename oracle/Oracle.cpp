// The oracle's plain entry points: the program's value at a point, and its literals.
#include "oracle/Oracle.h"

#include <optional>

#include "oracle/Interpreter.h"
#include "support/BigStack.h"

namespace dmci::oracle {

namespace {

// Runs `body(prepared, values)` for the program prepared at the point's parameter names, on a big stack, with
// errors as results.
template <class T, class Body>
Result<T> atPoint(const Program& program, const Point& point, Body body) {
  std::optional<Result<T>> out;
  runWithBigStack([&] {
    out = catchErrors([&] {
      std::vector<std::string> names;
      std::vector<Wide> values;
      for (const auto& [name, value] : point.params) {
        names.push_back(name);
        values.push_back(value);
      }
      Prepared prepared = prepare(program, names);
      return body(prepared, values);
    });
  });
  return *out;
}

}  // namespace

Result<WideValue> evaluate(const Program& program, const Point& point, const Budget& budget) {
  return atPoint<WideValue>(program, point, [&](const Prepared& prepared, const std::vector<Wide>& values) {
    Output<Wide> o = Interpreter<Wide>(prepared, budget, values, point.literals).run();
    return WideValue{o.isTensor, o.data, o.total};
  });
}

Result<double> roundingSpread(const Program& program, const Point& point, const Budget& budget, int samples,
                              uint64_t seed) {
  return atPoint<double>(program, point, [&](const Prepared& prepared, const std::vector<Wide>& values) {
    Wide exact = Interpreter<Wide>(prepared, budget, values, point.literals).run().total;
    Wide spread = 0;
    int ran = 0;
    std::optional<Error> last;
    for (int k = 0; k < samples; ++k) {
      Interpreter<Wide> noisy(prepared, budget, values, point.literals);
      noisy.setRandomRounding(roundingSeed(seed, k));
      try {
        Wide v = noisy.run().total;
        spread = std::max<Wide>(spread, abs(v - exact));
        ++ran;
      } catch (const DmciError& e) {
        last = e.error();
      }
    }
    if (ran == 0) throw DmciError(*last);
    return static_cast<double>(spread);
  });
}

std::vector<std::pair<std::string, double>> literals(const Program& program, const std::vector<std::string>& params) {
  std::vector<std::pair<std::string, double>> out;
  runWithBigStack([&] { out = prepare(program, params).literals; });
  return out;
}

}  // namespace dmci::oracle
