// What a packaged dmci promises its users, run as a process: `--version` and `version --json/--probe` (the
// version, the commit, the C API, the plugins by file, no LibTorch loaded), the bash completion and the man pages
// (both written from the same CLI11 tree as `--help`: every option --help shows is in them).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "build_info.inc"
#include "capi/dmci.h"
#include "testing/CliFixture.h"

namespace {

namespace fs = std::filesystem;
using dmci::testing::Outcome;

class Packaging : public dmci::testing::CliFixture {
 protected:
  // The commands `dmci --help` lists.
  std::vector<std::string> commands() {
    Outcome o = dmci("--help");
    EXPECT_EQ(o.code, 0);
    std::vector<std::string> out;
    std::istringstream in(o.out.substr(o.out.find("Subcommands:")));
    std::string line;
    std::getline(in, line);
    std::smatch m;
    while (std::getline(in, line))
      if (std::regex_search(line, m, std::regex("^  ([a-z][a-z0-9-]*)"))) out.push_back(m[1]);
    return out;
  }
  // The long options `dmci COMMAND --help` shows.
  std::set<std::string> helpOptions(const std::string& command) {
    Outcome o = dmci(command + " --help");
    EXPECT_EQ(o.code, 0) << command;
    std::set<std::string> out;
    std::istringstream in(o.out);
    std::string line;
    std::smatch m;
    while (std::getline(in, line))  // an option's line: "  -o,--output TEXT   what it does"
      if (std::regex_search(line, m, std::regex("^ +(-[^ ]+)"))) {
        std::istringstream names(m[1].str());
        std::string name;
        while (std::getline(names, name, ','))
          if (name.rfind("--", 0) == 0) out.insert(name);
      }
    return out;
  }
  // A bash completion query: the words on the line, the last being completed.
  std::string complete(const std::string& words) {
    write("query.sh", "source <('" DMCI_BINARY_DIR "/dmci' completion bash)\nCOMP_WORDS=(" + words +
                          ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\nCOMPREPLY=()\n_dmci\necho \"${COMPREPLY[*]}\"\n");
    int status = std::system(("cd '" + dir.string() + "' && bash query.sh >reply.txt 2>&1").c_str());
    EXPECT_EQ(status, 0);
    std::string r = dmci::testing::slurp(dir / "reply.txt");
    while (!r.empty() && r.back() == '\n') r.pop_back();
    return r;
  }
};

TEST_F(Packaging, VersionNamesTheReleaseTheCommitTheApiAndThePluginsInTheBuild) {
  Outcome o = dmci("--version");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_EQ(o.out.substr(0, o.out.find('\n')), std::string("dmci ") + DMCI_RELEASE_VERSION);
  EXPECT_NE(o.out.find("C API " + std::to_string(DMCI_API_VERSION) + "\n"), std::string::npos) << o.out;
  if (std::string(DMCI_GIT_COMMIT).empty())
    EXPECT_EQ(o.out.find("commit"), std::string::npos) << o.out;
  else
    EXPECT_NE(o.out.find(std::string("commit ") + DMCI_GIT_COMMIT), std::string::npos) << o.out;
  // The build folder has the plugins this build made, beside the tool.
  for (const char* file : {"dmci-engine-tensor.so", "dmci-optimizer-ceres.so", "dmci-optimizer-pagmo.so",
                           "dmci-optimizer-torch.so", "dmci-canon-ginac.so", "dmci-search-mpi.so"})
    if (fs::exists(fs::path(DMCI_BINARY_DIR) / file)) {
      EXPECT_NE(o.out.find((fs::path(DMCI_BINARY_DIR) / file).lexically_normal().string()), std::string::npos)
          << file << "\n"
          << o.out;
    }
}

TEST_F(Packaging, VersionLoadsNoPluginAndNoLibTorch) {
  // The dynamic loader names every file it opens: --version opens no plugin, so no LibTorch.
  Outcome o = dmci("--version", "LD_DEBUG=files ");
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_NE(o.err.find("file="), std::string::npos) << "LD_DEBUG printed nothing: the check checks nothing";
  EXPECT_EQ(o.err.find("libtorch"), std::string::npos);
  EXPECT_EQ(o.err.find("dmci-engine-tensor.so"), std::string::npos);
  EXPECT_EQ(o.err.find("dmci-optimizer-"), std::string::npos);
}

TEST_F(Packaging, AToolWithoutPluginsSaysSoAndAPluginThatDoesNotLoadFailsTheProbe) {
  // A copy of the tool in a folder of its own, with one plugin file that is no shared library.
  fs::copy_file(fs::path(DMCI_BINARY_DIR) / "dmci", dir / "dmci");
  write("plugins/dmci-optimizer-pagmo.so", "not an ELF file\n");
  const std::string env = "DMCI_ENGINE_PATH='" + (dir / "plugins").string() + "' ";
  int status = std::system(("cd '" + dir.string() + "' && " + env + "./dmci --version >out.txt").c_str());
  ASSERT_EQ(status, 0);
  std::string out = dmci::testing::slurp(dir / "out.txt");
  EXPECT_NE(out.find("dmci-engine-tensor.so not installed"), std::string::npos) << out;
  EXPECT_NE(out.find("dmci-optimizer-ceres.so not installed"), std::string::npos) << out;
  EXPECT_NE(out.find("dmci-canon-ginac.so not installed (canonical form ginac)"), std::string::npos) << out;
  EXPECT_NE(out.find("dmci-search-mpi.so not installed (island exchange Open MPI)"), std::string::npos) << out;
  EXPECT_NE(out.find((dir / "plugins" / "dmci-optimizer-pagmo.so").string()), std::string::npos) << out;

  status = std::system(
      ("cd '" + dir.string() + "' && " + env + "./dmci version --json --probe >probe.json 2>probe.err").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1) << "a plugin found that does not load fails --probe";
  auto j = nlohmann::json::parse(dmci::testing::slurp(dir / "probe.json"));
  EXPECT_EQ(j["version"], DMCI_RELEASE_VERSION);
  EXPECT_EQ(j["c_api"], DMCI_API_VERSION);
  EXPECT_EQ(j.contains("commit"), !std::string(DMCI_GIT_COMMIT).empty());
  ASSERT_EQ(j["plugins"].size(), 6u) << "tensor, ceres, pagmo, torch, ginac and mpi";
  for (const auto& p : j["plugins"]) {
    if (p["name"] == "pagmo") {
      EXPECT_TRUE(p["present"]);
      EXPECT_FALSE(p["loads"]);
      EXPECT_NE(p["error"].get<std::string>().find("cannot load"), std::string::npos) << p.dump();
    } else {
      EXPECT_FALSE(p["present"]) << p.dump();
      EXPECT_FALSE(p.contains("loads")) << "a plugin not found is not probed";
    }
  }
}

TEST_F(Packaging, ProbeLoadsEveryPluginOfTheBuild) {
  if (!fs::exists(fs::path(DMCI_BINARY_DIR) / "dmci-optimizer-ceres.so")) GTEST_SKIP() << "no Ceres plugin built";
  Outcome o = dmci("version --json --probe", "env -u DMCI_ENGINE_PATH ");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  auto j = nlohmann::json::parse(o.out);
  int probed = 0;
  for (const auto& p : j["plugins"])
    if (p["present"]) {
      EXPECT_TRUE(p["loads"]) << p.dump();
      ++probed;
    }
  EXPECT_GE(probed, 1);
}

TEST_F(Packaging, CompletionOffersCommandsOptionsAndTheValuesTheParserKnows) {
  EXPECT_EQ(complete("dmci f"), "fit fuzz");
  EXPECT_EQ(complete("dmci fit --optimizer ''"), "lm dogleg lbfgs bfgs adam torch-lbfgs de cmaes");
  EXPECT_EQ(complete("dmci run --via ''"), "direct dmci dmci2 lantern lantern-dmci");
  EXPECT_EQ(complete("dmci fit --via = d"), "direct dmci dmci2") << "--via=VALUE, split by bash at '='";
  EXPECT_EQ(complete("dmci grad --engine t"), "tensor");
  EXPECT_EQ(complete("dmci completion ''"), "bash");
  EXPECT_EQ(complete("dmci --v"), "--version");
  EXPECT_EQ(complete("dmci fit --data ''"), "") << "a file name: bash's default completion";
}

TEST_F(Packaging, CompletionAndManPagesHaveEveryOptionThatHelpShows) {
  auto cmds = commands();
  ASSERT_GE(cmds.size(), 10u);
  Outcome script = dmci("completion bash");
  ASSERT_EQ(script.code, 0);
  for (const auto& c : cmds) {
    Outcome page = dmci("man " + c);
    ASSERT_EQ(page.code, 0) << c << ": " << page.err;
    std::string text = std::regex_replace(page.out, std::regex(R"(\\-)"), "-");
    std::string opts = complete("dmci " + c + " --");
    auto options = helpOptions(c);
    EXPECT_FALSE(options.empty()) << c;
    for (const auto& o : options) {
      EXPECT_NE(text.find("\\fB" + o + "\\fR"), std::string::npos) << "dmci-" << c << "(1) lacks " << o;
      EXPECT_NE((" " + opts + " ").find(" " + o + " "), std::string::npos) << "completion of " << c << " lacks " << o;
    }
    EXPECT_NE(text.find(".SH NAME\ndmci-" + c + " - "), std::string::npos) << c;
  }
}

TEST_F(Packaging, ManWritesEveryPageAndManRendersThemWithoutWarnings) {
  Outcome o = dmci("man --output-dir pages");
  ASSERT_EQ(o.code, 0) << o.err;
  auto cmds = commands();
  EXPECT_TRUE(fs::exists(dir / "pages" / "dmci.1"));
  size_t pages = 0;
  for (const auto& e : fs::directory_iterator(dir / "pages")) pages += e.path().extension() == ".1";
  EXPECT_EQ(pages, cmds.size() + 1);
  for (const auto& c : cmds) EXPECT_TRUE(fs::exists(dir / "pages" / ("dmci-" + c + ".1"))) << c;
  EXPECT_EQ(dmci("man nosuchcommand").code, 2);
  if (std::system("command -v man >/dev/null 2>&1") != 0) GTEST_SKIP() << "no man here to render the pages";
  for (const auto& e : fs::directory_iterator(dir / "pages")) {
    std::string cmd = "MANWIDTH=80 man --warnings -l '" + e.path().string() + "' 2>&1 >/dev/null";
    FILE* f = popen(cmd.c_str(), "r");
    ASSERT_NE(f, nullptr);
    std::string warnings;
    char buf[512];
    while (fgets(buf, sizeof buf, f)) warnings += buf;
    EXPECT_EQ(pclose(f), 0) << e.path();
    EXPECT_EQ(warnings, "") << e.path();
  }
}

}  // namespace
