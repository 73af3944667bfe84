// The fixture of the tests that run the `dmci` tool: a temporary directory per test, files written into it, and
// `dmci ARGS` run there with its exit code, standard output and standard error.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dmci::testing {

// The threshold model's data, (if (< x 1) (* 2 x) (* 0.5 x)) at x = 0, 2/n, 4/n, ..., 2 (n + 1 rows), as CSV with
// the header x,y: the smoothing tests' data (alpha = 1, beta = 2, gamma = 0.5).
inline std::string thresholdCsv(int n) {
  std::string csv = "x,y\n";
  for (int i = 0; i <= n; ++i) {
    const double x = 2.0 * i / n;
    char line[80];
    std::snprintf(line, sizeof line, "%.17g,%.17g\n", x, x < 1 ? 2 * x : 0.5 * x);
    csv += line;
  }
  return csv;
}

struct Outcome {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Whether process `pid` is gone (or a zombie nobody has reaped yet).
inline bool processGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string all;
  if (!std::getline(stat, all)) return true;
  const size_t close = all.rfind(')');
  return close != std::string::npos && close + 2 < all.size() && all[close + 2] == 'Z';
}

// Waits (a hang guard of 10 s, polled) until every one of `pids` is gone; whether they all are.
inline bool processesGone(const std::vector<pid_t>& pids) {
  for (int k = 0; k < 200; ++k) {
    bool all = true;
    for (pid_t p : pids) all = all && processGone(p);
    if (all) return true;
    ::usleep(50000);
  }
  return false;
}

class CliFixture : public ::testing::Test {
 protected:
  std::filesystem::path dir;

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = std::filesystem::temp_directory_path() /
          ("dmci_" + std::string(info->test_suite_name()) + "_" + std::to_string(::getpid()) + "_" + info->name());
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  void write(const std::string& name, const std::string& text) {
    std::filesystem::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << text;
  }

  // The shell command running `dmci ARGS` in the directory; `prefix` goes before the tool (`env -u X `, or `exec `
  // so that the shell's process becomes the tool's). ARGS may go on with more shell (`; ldd ...`).
  std::string command(const std::string& args, const std::string& prefix = "") const {
    return "cd '" + dir.string() + "' && " + prefix + "'" DMCI_BINARY_DIR "/dmci' " + args;
  }

  Outcome dmci(const std::string& args, const std::string& prefix = "") {
    int status = std::system((command(args, prefix) + " >stdout.txt 2>stderr.txt").c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "stdout.txt"), slurp(dir / "stderr.txt")};
  }
};

}  // namespace dmci::testing
