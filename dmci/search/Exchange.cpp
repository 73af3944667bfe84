// The one-process exchange, and the opening of the MPI plugin (Exchange.h).
#include "search/Exchange.h"

#include <mutex>

#include "support/Plugin.h"

namespace dmci::search {

namespace {

constexpr const char* kPlugin = "dmci-search-mpi.so";

class Local final : public IslandExchange {
 public:
  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  std::vector<std::string> gather(const std::string& mine) override { return {mine}; }
  std::string broadcast(const std::string& text) override { return text; }
  std::string describe() const override { return "one process"; }
};

struct Makers {
  std::mutex mu;
  ExchangeMaker make = nullptr;
  std::string name;
};

Makers& makers() {
  static Makers m;
  return m;
}

}  // namespace

IslandExchange& localExchange() {
  static Local local;
  return local;
}

void registerExchangeMaker(const std::string& name, ExchangeMaker make) {
  Makers& m = makers();
  std::lock_guard<std::mutex> lock(m.mu);
  m.make = make, m.name = name;
}

std::unique_ptr<IslandExchange> openMpiExchange(std::string& why) {
  Makers& m = makers();
  ExchangeMaker make = nullptr;
  {
    std::lock_guard<std::mutex> lock(m.mu);
    make = m.make;
  }
  if (!make) {
    why = openPlugin(kPlugin, "the plugin " + std::string(kPlugin) +
                                  " is not installed (this dmci was built without Open MPI: libopenmpi-dev)");
    if (!why.empty()) return nullptr;
    std::lock_guard<std::mutex> lock(m.mu);
    make = m.make;
  }
  if (!make) {
    why = "the plugin " + std::string(kPlugin) + " registered nothing";
    return nullptr;
  }
  return make(why);
}

}  // namespace dmci::search
