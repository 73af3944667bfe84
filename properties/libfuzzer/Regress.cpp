// The regression driver: runs a libFuzzer harness's LLVMFuzzerTestOneInput once over every seed and every saved
// reproducer, without libFuzzer (OSS-Fuzz's regression mode), so that each harness builds and runs in every CI.
//
//   fuzz_NAME_regress [--suffix .scm] SEEDS [REPRODUCERS]
//
// SEEDS is a directory read recursively (only files ending in the suffix, when one is given); it must hold at
// least one input. REPRODUCERS (properties/libfuzzer/crashes/NAME) may be absent: none saved yet. Each input's
// path is printed before it runs, so a crash, a sanitizer report or an abort names the input that caused it.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The regular files under `dir`, sorted (so that runs are in one order), that end in `suffix`.
std::vector<fs::path> inputsUnder(const fs::path& dir, const std::string& suffix) {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && endsWith(e.path().filename().string(), suffix)) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool runOne(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "regress: cannot read %s\n", p.string().c_str());
    return false;
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::fprintf(stderr, "regress: running %s (%zu bytes)\n", p.string().c_str(), bytes.size());
  // A copy of exactly `size` bytes on the heap, as libFuzzer passes it, so that ASan sees a read past the end.
  std::vector<uint8_t> exact(bytes);
  (void)LLVMFuzzerTestOneInput(exact.empty() ? nullptr : exact.data(), exact.size());
  return true;
}

int usage() {
  std::fprintf(stderr, "usage: fuzz_NAME_regress [--suffix .ext] SEEDS [REPRODUCERS]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string suffix;
  if (args.size() >= 2 && args[0] == "--suffix") suffix = args[1], args.erase(args.begin(), args.begin() + 2);
  if (args.empty() || args.size() > 2) return usage();
  const fs::path seeds = args[0];
  if (!fs::is_directory(seeds)) {
    std::fprintf(stderr, "regress: no seeds: %s is not a directory\n", seeds.string().c_str());
    return 1;
  }
  std::vector<fs::path> seedFiles = inputsUnder(seeds, suffix);
  if (seedFiles.empty()) {
    std::fprintf(stderr, "regress: no seeds: %s holds no file ending in '%s'\n", seeds.string().c_str(),
                 suffix.c_str());
    return 1;
  }
  std::vector<fs::path> reproducers;
  if (args.size() == 2 && fs::exists(args[1])) {
    if (!fs::is_directory(args[1])) {
      std::fprintf(stderr, "regress: %s is not a directory\n", args[1].c_str());
      return 1;
    }
    reproducers = inputsUnder(args[1], "");
  }
  size_t ran = 0;
  for (const auto& p : seedFiles) ran += runOne(p);
  for (const auto& p : reproducers) ran += runOne(p);
  if (ran != seedFiles.size() + reproducers.size()) return 1;
  std::printf("regress: %zu seeds and %zu reproducers ran without a finding\n", seedFiles.size(), reproducers.size());
  return 0;
}
