// Summarises a gate run: counts, error distributions (median, max, worst pairs) and timings.
#include "oracle/gate/Summary.h"

#include <algorithm>

namespace dmci::gate {
namespace {

void count(StatusCounts& c, const PairResult& r) {
  ++c.total;
  c.seconds += r.seconds;
  if (r.status == Verdict::Pass)
    ++c.pass;
  else if (r.status == Verdict::Fail)
    ++c.fail;
  else
    ++c.nondifferentiable;
  if (r.status != Verdict::Fail && !r.notes.empty()) ++c.illConditioned;
  if (!r.lanternUncovered.empty()) ++c.lanternUncovered;
}

// Sorted by value, largest first, keeping the first `top`; ties keep manifest order.
std::vector<std::pair<std::string, double>> largest(std::vector<std::pair<std::string, double>> v, size_t top) {
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (v.size() > top) v.resize(top);
  return v;
}

ErrorDistribution distributionOf(const GateRun& run, const std::string& name, double tol,
                                 std::optional<double> PairErrors::*field, size_t top) {
  ErrorDistribution d;
  d.comparison = name;
  d.tolerance = tol;
  std::vector<std::pair<std::string, double>> named;
  for (const auto& r : run.results) {
    const std::optional<double>& e = r.errors.*field;
    if (!e) continue;
    d.errors.push_back(*e);
    if (*e > 0) named.emplace_back(r.pair.name, *e);  // an exact pair is nobody's worst
  }
  d.worst = largest(named, top);
  if (d.errors.empty()) return d;
  std::vector<double> sorted = d.errors;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  d.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  d.max = sorted.back();
  return d;
}

}  // namespace

GateSummary summarize(const GateRun& run, size_t top) {
  GateSummary s;
  s.seconds = run.seconds;
  std::vector<std::pair<std::string, double>> times;
  for (const auto& r : run.results) {
    count(s.all, r);
    count(s.families[r.pair.family], r);
    times.emplace_back(r.pair.name, r.seconds);
  }
  s.slowest = largest(times, top);
  const Criteria& c = run.criteria;
  s.comparisons.push_back(distributionOf(run, "value", c.value, &PairErrors::value, top));
  s.comparisons.push_back(distributionOf(run, "dmci_vs_direct", c.ad, &PairErrors::dmciVsDirect, top));
  s.comparisons.push_back(distributionOf(run, "direct_vs_fd", c.fd, &PairErrors::directVsFd, top));
  s.comparisons.push_back(distributionOf(run, "dmci_vs_fd", c.fd, &PairErrors::dmciVsFd, top));
  s.comparisons.push_back(distributionOf(run, "closed_form", c.closedForm, &PairErrors::closedForm, top));
  s.comparisons.push_back(distributionOf(run, "batched_vs_alone", c.batched, &PairErrors::batchedVsAlone, top));
  s.comparisons.push_back(distributionOf(run, "lantern_vs_direct", c.ad, &PairErrors::lanternVsDirect, top));
  s.comparisons.push_back(distributionOf(run, "lantern_vs_fd", c.fd, &PairErrors::lanternVsFd, top));
  s.passed = gatePassed(run);
  return s;
}

const ErrorDistribution* distribution(const GateSummary& s, const std::string& comparison) {
  for (const auto& d : s.comparisons)
    if (d.comparison == comparison) return &d;
  return nullptr;
}

}  // namespace dmci::gate
