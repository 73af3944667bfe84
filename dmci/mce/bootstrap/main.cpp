// dmci-bootstrap: lowers mce.scm to its ComputeGraph text at build time.
#include <fstream>
#include <iostream>

#include "lower/ComputeGraph.h"
#include "mce/Mce.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: dmci-bootstrap OUT.cg\n";
    return 2;
  }
  auto g = dmci::compileMce();
  if (!g) {
    std::cerr << g.error().str() << "\n";
    return 1;
  }
  std::ofstream out(argv[1], std::ios::binary);
  out << dmci::printGraph(*g);
  return out ? 0 : 1;
}
