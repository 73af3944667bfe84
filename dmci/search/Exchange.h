// The islands' exchange: the seam between the search's epochs and the processes that run them. An epoch ends with
// every rank handing rank 0 the text of its islands' reports (gather) and rank 0 handing every rank the merged
// state back (broadcast); the search (Search.cpp) is the same code on either side of the seam. One process is the
// exchange with R = 1 (localExchange: both calls are the identity); `dmci search --mpi` opens the plugin
// dmci-search-mpi.so (search/mpi/), whose exchange is Open MPI's MPI_Gatherv and MPI_Bcast on MPI_COMM_WORLD, so
// that `dmci` itself links no MPI and starts without it.
#pragma once
#include <memory>
#include <string>
#include <vector>

namespace dmci::search {

class IslandExchange {
 public:
  virtual ~IslandExchange() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Every rank passes its text; rank 0 gets every rank's, in rank order (the others: empty).
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // Rank 0's `text` on every rank (the others' argument is ignored).
  virtual std::string broadcast(const std::string& text) = 0;
  // What it runs on, for messages ("one process", "Open MPI 4.1.4, 4 ranks").
  virtual std::string describe() const = 0;
};

// The exchange of one process (R = 1).
IslandExchange& localExchange();

// A plugin's maker of its exchange (it may initialise its library: called once, from the main thread).
using ExchangeMaker = std::unique_ptr<IslandExchange> (*)(std::string& why);
// The plugin registers its maker from a static initialiser.
void registerExchangeMaker(const std::string& name, ExchangeMaker make);

// Opens dmci-search-mpi.so and makes its exchange; nullptr with `why` set when it cannot (not installed, not
// under mpirun or srun, MPI's initialisation failed).
std::unique_ptr<IslandExchange> openMpiExchange(std::string& why);

}  // namespace dmci::search
