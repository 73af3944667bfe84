// Where LibTorch 1.13 (Debian 12's libtorch-dev) and 2.x (the GPU machine's wheel, Debian 13's libtorch-dev)
// differ, for the files that include LibTorch: one definition that compiles against both, chosen from the types
// the headers declare rather than from version macros. ci/torch2-check --syntax-only (run by ci/test) compiles
// every LibTorch file against 2.x, so a call that exists in one version only fails CI.
#pragma once

#include <torch/torch.h>

#include <sstream>
#include <string>
#include <type_traits>

namespace dmci::torchcompat {

// The key of a parameter's entry in torch::optim's state map: 1.13 keys it by the parameter's TensorImpl address
// printed as a string (c10::guts::to_string, which 2.x no longer has), 2.x by that address itself.
template <class TorchOptimizer>
auto optimizerStateKey(const TorchOptimizer& opt, const torch::Tensor& x) {
  using Key = typename std::decay_t<decltype(opt.state())>::key_type;
  if constexpr (std::is_same_v<Key, std::string>) {
    std::ostringstream s;
    s << x.unsafeGetTensorImpl();
    return s.str();
  } else {
    return static_cast<Key>(x.unsafeGetTensorImpl());
  }
}

}  // namespace dmci::torchcompat
