// The plugin dmci-search-mpi.so: the islands' exchange (search/Exchange.h) over Open MPI, opened by
// `dmci search --mpi` under mpirun or srun. Rank 0 gathers every rank's reports (MPI_Gatherv, their lengths first)
// and broadcasts the merged state (MPI_Bcast); nothing else crosses ranks. MPI is initialised when the exchange is
// made and finalised when it is destroyed. A rank that dies ends the run: Debian 12's Open MPI cannot shrink a
// communicator, so the others are stopped by mpirun (or srun) and the run resumes from its last checkpoint.
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "search/Exchange.h"

namespace dmci::search {

namespace {

class MpiExchange final : public IslandExchange {
 public:
  MpiExchange() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(version, &n);
    library_.assign(version, static_cast<size_t>(n));
    if (auto comma = library_.find(','); comma != std::string::npos) library_.resize(comma);
  }
  ~MpiExchange() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  std::string describe() const override { return library_ + ", " + std::to_string(ranks_) + " ranks"; }

  std::vector<std::string> gather(const std::string& mine) override {
    long long length = static_cast<long long>(mine.size());
    std::vector<long long> lengths(rank_ == 0 ? static_cast<size_t>(ranks_) : 0);
    MPI_Gather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    std::vector<int> counts, offsets;
    std::string all;
    if (rank_ == 0) {
      long long at = 0;
      for (long long l : lengths)
        counts.push_back(static_cast<int>(l)), offsets.push_back(static_cast<int>(at)), at += l;
      all.resize(static_cast<size_t>(at));
    }
    MPI_Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(), offsets.data(),
                MPI_CHAR, 0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (rank_ == 0)
      for (size_t r = 0; r < counts.size(); ++r)
        out.push_back(all.substr(static_cast<size_t>(offsets[r]), static_cast<size_t>(counts[r])));
    return out;
  }

  std::string broadcast(const std::string& text) override {
    long long length = rank_ == 0 ? static_cast<long long>(text.size()) : 0;
    MPI_Bcast(&length, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    std::string out = rank_ == 0 ? text : std::string(static_cast<size_t>(length), '\0');
    MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return out;
  }

 private:
  int rank_ = 0, ranks_ = 1;
  std::string library_;
};

std::unique_ptr<IslandExchange> make(std::string& why) {
  // dmci opens this plugin with RTLD_LOCAL; Open MPI's own components (opened by MPI_Init) bind to libmpi's
  // symbols, which must then be global.
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&MPI_Init), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      why = "MPI_Init failed (run dmci search --mpi under mpirun or srun)";
      return nullptr;
    }
  }
  return std::make_unique<MpiExchange>();
}

struct Registration {
  Registration() { registerExchangeMaker("Open MPI", make); }
} registration;

}  // namespace

}  // namespace dmci::search
