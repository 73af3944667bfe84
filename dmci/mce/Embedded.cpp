// mce.scm's ComputeGraph, lowered by the build (dmci-bootstrap) and embedded here.
#include "mce/Mce.h"

namespace dmci {
namespace {
#include "mce_cg.inc"  // kMceGraph: the text of the graph the build wrote
}  // namespace

Result<std::shared_ptr<const ComputeGraph>> mceGraph() {
  static const Result<std::shared_ptr<const ComputeGraph>> g = []() -> Result<std::shared_ptr<const ComputeGraph>> {
    auto parsed = parseGraph(kMceGraph, "mce.cg");
    if (!parsed) return parsed.error();
    return std::make_shared<const ComputeGraph>(std::move(*parsed));
  }();
  return g;
}

}  // namespace dmci
