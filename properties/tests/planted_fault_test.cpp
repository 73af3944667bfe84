// A planted adjoint bug (sin's partial scaled by 1.5) is found by the gradient property and shrunk to a small program.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <chrono>

#include "prims/Faults.h"
#include "prims/PrimTable.h"
#include "properties/Properties.h"

namespace dmci::props {

TEST(PlantedFault, SinAdjointBugIsFoundAndShrunk) {
  plantAdjointFault("sin", 1.5);
  Case lastFailing;  // RapidCheck's last failing call is the fully shrunk counterexample
  bool failed = false;
  auto t0 = std::chrono::steady_clock::now();
  bool passed = rc::check("gradients agree under a planted sin fault", [&] {
    Case c = *genCase();
    TriangleOptions opts;
    opts.dmci = false;  // the fault is in the shared rule: direct vs FD shows it, and faster
    Outcome o = checkTriangle(c, opts);
    if (!o.ok()) {
      lastFailing = c;
      failed = true;
    }
    RC_ASSERT(o.ok());
  });
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  clearAdjointFaults();
  ASSERT_FALSE(passed) << "the planted fault went unnoticed";
  ASSERT_TRUE(failed);
  auto forms = std::count(lastFailing.text.begin(), lastFailing.text.end(), '(');
  std::cout << "shrunk to " << forms << " forms in " << seconds << " s:\n" << describe(lastFailing) << "\n";
  EXPECT_LE(forms, 5) << describe(lastFailing);  // how long it took is printed, not judged: CI's load varies
}

}  // namespace dmci::props
