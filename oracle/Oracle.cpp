// The oracle's plain entry points: the program's value at a point, and its literals.
#include "oracle/Oracle.h"

#include <optional>

#include "oracle/BigStack.h"
#include "oracle/Evaluator.h"

namespace dmci::oracle {

Result<WideValue> evaluate(const Program& program, const Point& point, const Budget& budget) {
  std::optional<Result<WideValue>> out;
  runWithBigStack([&] {
    out = catchErrors([&] {
      std::vector<std::string> names;
      std::vector<Wide> values;
      for (const auto& [name, value] : point.params) {
        names.push_back(name);
        values.push_back(value);
      }
      Prepared prepared = prepare(program, names);
      Output<Wide> o = Interpreter<Wide>(prepared, budget, values, point.literals).run();
      return WideValue{o.isTensor, o.data, o.total};
    });
  });
  return *out;
}

std::vector<std::pair<std::string, double>> literals(const Program& program, const std::vector<std::string>& params) {
  std::vector<std::pair<std::string, double>> out;
  runWithBigStack([&] { out = prepare(program, params).literals; });
  return out;
}

}  // namespace dmci::oracle
