// The result types' small helpers: counters by name, and one lane of a batch as a single run.
#include "driver/Evaluation.h"

namespace dmci {

double Counters::get(const std::string& name) const {
  for (const auto& [k, x] : *this)
    if (name == k) return x;
  return 0;
}

std::vector<std::pair<std::string, double>> LaneEvaluation::laneGradient(size_t lane) const {
  std::vector<std::pair<std::string, double>> out;
  out.reserve(gradientKeys.size());
  for (size_t k = 0; k < gradientKeys.size(); ++k) out.emplace_back(gradientKeys[k], gradient[k][lane]);
  return out;
}

Error notANumberOrTensor(const std::string& shown, SrcPos pos) {
  return Error{ErrorKind::Type, "the program's value must be a number or a tensor, got " + shown, pos};
}

std::string valueShape(bool isTensor, int rank, int rows, int cols) {
  if (!isTensor) return "a number";
  return rank == 1 ? "a vector of " + std::to_string(rows)
                   : "a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix";
}

Error laneShapeDiffers(const std::string& lane, const std::string& lane0, SrcPos pos) {
  return Error{ErrorKind::Type, "the lanes' values must have one shape: this lane's is " + lane + ", lane 0's " + lane0,
               pos};
}

Evaluation LaneEvaluation::lane(size_t l) const {
  Evaluation ev;
  ev.value = value[l];
  ev.isTensor = isTensor;
  ev.rank = rank, ev.rows = rows, ev.cols = cols;
  if (isTensor) {
    size_t n = tensor.size() / value.size();
    ev.tensor.assign(tensor.begin() + static_cast<std::ptrdiff_t>(l * n),
                     tensor.begin() + static_cast<std::ptrdiff_t>((l + 1) * n));
  }
  ev.gradient = laneGradient(l);
  ev.counters = counters;
  ev.stats.steps = static_cast<uint64_t>(counters.get("steps"));
  return ev;
}

}  // namespace dmci
