// The memory bandwidth the tensor engine's batch throughput is held against (PERF.md P9, batch_bench's
// BM_Bandwidth and roofline): STREAM's triad c = a + 3b, timed by LibTorch on the device and, on the CPU, by a
// plain loop over every hardware thread. A measurement, not part of the engine: it lives with the benchmarks.
#pragma once
#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace dmci::bench {

// STREAM's triad in plain C++ over every hardware thread (each thread touches its own slice first).
template <class T>
double plainTriad(int64_t elements, int repeats) {
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<T> a(static_cast<size_t>(elements)), b(a.size()), c(a.size());
  auto slice = [&](int t, auto&& f) {
    size_t lo = a.size() * static_cast<size_t>(t) / static_cast<size_t>(threads);
    size_t hi = a.size() * static_cast<size_t>(t + 1) / static_cast<size_t>(threads);
    f(lo, hi);
  };
  auto parallel = [&](auto&& f) {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back([&, t] { slice(t, f); });
    slice(0, f);
    for (auto& th : pool) th.join();
  };
  parallel([&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) a[i] = T(1), b[i] = T(2), c[i] = T(0);
  });
  double best = 0;
  for (int r = 0; r <= repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    parallel([&](size_t lo, size_t hi) {
      T* __restrict ca = c.data();
      const T* __restrict aa = a.data();
      const T* __restrict ba = b.data();
      for (size_t i = lo; i < hi; ++i) ca[i] = aa[i] + T(3) * ba[i];
    });
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0 && s > 0) best = std::max(best, 3.0 * static_cast<double>(elements) * sizeof(T) / s);
  }
  volatile T sink = c[static_cast<size_t>(elements) - 1];
  (void)sink;
  return best;
}

// The device's memory bandwidth in bytes/s: the triad over `elements` numbers (best of `repeats` runs after a
// warm-up; 3 * elements * size bytes a run), by LibTorch on the device and, on the CPU, also by the plain loop
// (the better of the two). `device` is "cpu" or "cuda" (a GPU must be present).
inline double deviceBandwidth(const std::string& device, bool float32, int64_t elements, int repeats = 5) {
  if (device != "cpu" && !(device == "cuda" && at::hasCUDA()))
    throw std::invalid_argument("no such device here: '" + device + "'");
  auto opts = at::TensorOptions()
                  .dtype(float32 ? at::kFloat : at::kDouble)
                  .device(device == "cuda" ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU));
  double best = 0;
  {  // LibTorch's tensors are freed before the plain loop allocates its own
    at::Tensor a = at::full({elements}, 1.0, opts), b = at::full({elements}, 2.0, opts),
               c = at::empty({elements}, opts);
    for (int r = 0; r <= repeats; ++r) {  // run 0 warms up (first touch, allocation, kernel load)
      auto t0 = std::chrono::steady_clock::now();
      at::add_out(c, a, b, 3.0);
      volatile double sink = c[elements - 1].item<double>();  // waits for the device
      (void)sink;
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0 && s > 0)
        best = std::max(best, 3.0 * static_cast<double>(elements) * static_cast<double>(c.element_size()) / s);
    }
  }
  // On the CPU, LibTorch's own kernel need not reach the memory's bandwidth (how it splits the work and
  // vectorises differs between builds); the machine's bandwidth is the better of it and a plain loop.
  if (device == "cpu")
    best = std::max(best, float32 ? plainTriad<float>(elements, repeats) : plainTriad<double>(elements, repeats));
  return best;
}

}  // namespace dmci::bench
