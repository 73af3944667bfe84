// Sharded runs and their merge, through the dmci tool as a process: `dmci check --shard` over the real corpus
// merges to the unsharded run; the shard comes from the flag, GoogleTest's or SLURM's variables; `dmci merge`
// refuses a missing or duplicated shard, another corpus or build, and fails on a failing pair; a sharded fuzz
// campaign merges to the unsharded one, its failures deduplicated; every JUnit file validates against
// reports/junit.xsd and its counts match its test cases.
#include <gtest/gtest.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "testing/CliFixture.h"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

using dmci::testing::Outcome;
using dmci::testing::slurp;

json readJson(const fs::path& p) { return json::parse(slurp(p)); }

// The names of a gate report's pairs, in order.
std::vector<std::string> pairNames(const json& report) {
  std::vector<std::string> names;
  for (const auto& p : report["pairs"]) names.push_back(p["name"]);
  return names;
}

// A pair's JSON without its times, which no two runs share.
json withoutTimes(json pair) {
  pair.erase("seconds");
  pair.erase("route_seconds");
  return pair;
}

class Shards : public dmci::testing::CliFixture {
 protected:
  // Runs `dmci ARGS` in the temporary directory with only the sharding variables in `env` (the test's own, when a
  // runner shards it, are not passed on).
  Outcome dmci(const std::string& args, const std::string& env = "") {
    return CliFixture::dmci(args,
                            "env -u GTEST_SHARD_INDEX -u GTEST_TOTAL_SHARDS -u SLURM_ARRAY_TASK_ID "
                            "-u SLURM_ARRAY_TASK_COUNT -u SLURM_ARRAY_TASK_MIN -u SLURM_ARRAY_TASK_STEP "
                            "-u GTEST_SHARD_STATUS_FILE " +
                                env + " ");
  }

  // A corpus of `n` pairs, k*x^2 at x = 2 for k = 1..n, in DIR/NAME; `wrongPair` (1-based; 0: none) states a
  // wrong closed-form gradient, so that it fails.
  void smallCorpus(const std::string& name, int n, int wrongPair = 0) {
    json pairs = json::array();
    for (int k = 1; k <= n; ++k) {
      std::string file = std::string("p").append(std::to_string(k)).append(".scm");
      write(name + "/" + file, std::string("(* ").append(std::to_string(k)).append(" x x)"));
      double dx = 4.0 * k + (k == wrongPair ? 1.0 : 0.0);
      pairs.push_back({{"name", "small/" + std::to_string(k)},
                       {"file", file},
                       {"family", k % 2 ? "odd" : "even"},
                       {"bind", {{"x", 2.0}}},
                       {"wrt", {"x"}},
                       {"closed_form", {{"x", dx}}}});
    }
    write(name + "/manifest.json", json{{"version", 1}, {"pairs", pairs}}.dump(1));
  }

  // Runs shards 0..n-1 of `dmci check CORPUS`, each writing sK.json; the exit codes.
  std::vector<int> checkShards(const std::string& corpus, int n, const std::string& prefix = "s") {
    std::vector<int> codes;
    for (int k = 0; k < n; ++k)
      codes.push_back(dmci("check " + corpus + " --quiet --jobs 1 --shard " + std::to_string(k) + "/" +
                           std::to_string(n) + " --json " + prefix + std::to_string(k) + ".json")
                          .code);
    return codes;
  }
};

// --- the acceptance test: the real corpus in 4 shards, merged, equals the unsharded run ---

TEST_F(Shards, TheCorpusInFourShardsMergedEqualsTheUnshardedRun) {
  const std::string corpus = "'" DMCI_SOURCE_DIR "/corpus'";
  Outcome whole = dmci("check " + corpus + " --quiet --jobs 2 --json whole.json");
  ASSERT_EQ(whole.code, 0) << whole.out << whole.err;
  for (int k = 0; k < 4; ++k) {
    Outcome o = dmci("check " + corpus + " --quiet --jobs 2 --shard " + std::to_string(k) + "/4 --json s" +
                     std::to_string(k) + ".json");
    ASSERT_EQ(o.code, 0) << o.out << o.err;
  }
  Outcome m = dmci("merge s2.json s0.json s3.json s1.json --json merged.json --md merged.md");
  ASSERT_EQ(m.code, 0) << m.out << m.err;
  json a = readJson(dir / "whole.json"), b = readJson(dir / "merged.json");
  ASSERT_EQ(pairNames(a), pairNames(b));
  ASSERT_GT(a["pairs"].size(), 400u);
  for (size_t k = 0; k < a["pairs"].size(); ++k)  // statuses, reasons, values, gradients, errors: all of it
    EXPECT_EQ(withoutTimes(a["pairs"][k]), withoutTimes(b["pairs"][k])) << a["pairs"][k]["name"];
  json ca = a["summary"]["counts"], cb = b["summary"]["counts"];
  ca.erase("seconds"), cb.erase("seconds");
  EXPECT_EQ(ca, cb);
  EXPECT_EQ(a["summary"]["errors"], b["summary"]["errors"]);
  EXPECT_EQ(b["provenance"]["shard"], "all/4");
  EXPECT_EQ(a["provenance"]["fingerprint"], b["provenance"]["fingerprint"]);
}

// --- which pairs a shard runs, and where the shard comes from ---

TEST_F(Shards, EveryPairRunsInExactlyOneShardTheSameEachTime) {
  smallCorpus("c", 7);
  ASSERT_EQ(checkShards("c", 3), std::vector<int>({0, 0, 0}));
  EXPECT_EQ(pairNames(readJson(dir / "s0.json")), std::vector<std::string>({"small/1", "small/4", "small/7"}));
  EXPECT_EQ(pairNames(readJson(dir / "s1.json")), std::vector<std::string>({"small/2", "small/5"}));
  EXPECT_EQ(pairNames(readJson(dir / "s2.json")), std::vector<std::string>({"small/3", "small/6"}));
  json p = readJson(dir / "s1.json")["provenance"];
  EXPECT_EQ(p["shard"], "1/3");
  EXPECT_EQ(p["selected"], 7);
  ASSERT_EQ(checkShards("c", 3, "again"), std::vector<int>({0, 0, 0}));
  EXPECT_EQ(pairNames(readJson(dir / "again1.json")), pairNames(readJson(dir / "s1.json")));
  // More shards than pairs: the extra shards are empty, and still merge.
  ASSERT_EQ(checkShards("c", 9, "many"), std::vector<int>(9, 0));
  EXPECT_TRUE(readJson(dir / "many8.json")["pairs"].empty());
  std::string all;
  for (int k = 0; k < 9; ++k) all += " many" + std::to_string(k) + ".json";
  Outcome m = dmci("merge" + all + " --json merged.json");
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(readJson(dir / "merged.json")["pairs"].size(), 7u);
}

TEST_F(Shards, TheShardComesFromGoogleTestsOrSlurmsVariablesWhenTheFlagIsAbsent) {
  smallCorpus("c", 7);
  auto shardOf = [&](const std::string& env, const std::string& flag = "") {
    Outcome o = dmci("check c --quiet --jobs 1 --json r.json " + flag, env);
    EXPECT_EQ(o.code, 0) << env << ": " << o.err;
    json r = readJson(dir / "r.json");
    return r["provenance"]["shard"].get<std::string>() + " " + r["pairs"][0]["name"].get<std::string>();
  };
  EXPECT_EQ(shardOf(""), "0/1 small/1");
  EXPECT_EQ(shardOf("GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=3"), "1/3 small/2");
  EXPECT_EQ(shardOf("SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_COUNT=3"), "2/3 small/3");
  // An array numbered from 4 (--array=4-6): the task's index counts from the first.
  EXPECT_EQ(shardOf("SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=3"), "1/3 small/2");
  // GoogleTest's variables before SLURM's, the flag before both.
  EXPECT_EQ(shardOf("GTEST_SHARD_INDEX=2 GTEST_TOTAL_SHARDS=3 SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3"),
            "2/3 small/3");
  EXPECT_EQ(shardOf("GTEST_SHARD_INDEX=2 GTEST_TOTAL_SHARDS=3", "--shard 0/2"), "0/2 small/1");
  // A runner that asks for an acknowledgement gets one.
  EXPECT_EQ(shardOf("GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=3 GTEST_SHARD_STATUS_FILE=ack"), "1/3 small/2");
  EXPECT_TRUE(fs::exists(dir / "ack"));
}

TEST_F(Shards, AShardThatCannotBeIsAUsageError) {
  smallCorpus("c", 3);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--shard 3/3", "--shard 3/3: a shard index i and count N need 0 <= i < N, got 3 of 3"},
      {"--shard 1/0", "got 1 of 0"},
      {"--shard 1", "--shard expects i/N with 0 <= i < N, got '1'"},
      {"--shard a/b", "got 'a/b'"},
  };
  for (const auto& [flag, message] : cases) {
    Outcome o = dmci("check c --quiet --json r.json " + flag);
    EXPECT_EQ(o.code, 2) << flag;
    EXPECT_NE(o.err.find(message), std::string::npos) << flag << ": " << o.err;
  }
  const std::vector<std::pair<std::string, std::string>> envs = {
      {"GTEST_SHARD_INDEX=1", "GTEST_SHARD_INDEX is set but GTEST_TOTAL_SHARDS is not"},
      {"GTEST_SHARD_INDEX=x GTEST_TOTAL_SHARDS=2", "GTEST_SHARD_INDEX='x' is not a whole number"},
      {"SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 SLURM_ARRAY_TASK_STEP=2", "SLURM_ARRAY_TASK_STEP=2"},
  };
  for (const auto& [env, message] : envs) {
    Outcome o = dmci("check c --quiet --json r.json", env);
    EXPECT_EQ(o.code, 2) << env;
    EXPECT_NE(o.err.find(message), std::string::npos) << env << ": " << o.err;
  }
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  Outcome o = dmci("fuzz --cases 1 --json f.json", "GTEST_TOTAL_SHARDS=2");
  EXPECT_EQ(o.code, 2);
  EXPECT_NE(o.err.find("GTEST_TOTAL_SHARDS is set but GTEST_SHARD_INDEX is not"), std::string::npos) << o.err;
}

// --- what `dmci merge` refuses ---

class MergeRefuses : public Shards {
 protected:
  void SetUp() override {
    Shards::SetUp();
    smallCorpus("c", 6);
    ASSERT_EQ(checkShards("c", 3), std::vector<int>({0, 0, 0}));
  }
  // `dmci merge ARGS` fails (exit 1) saying `message`, and writes no report.
  void refused(const std::string& reports, const std::string& message) {
    Outcome o = dmci("merge " + reports + " --json m.json --md m.md --junit m.xml");
    EXPECT_EQ(o.code, 1) << reports << "\n" << o.out << o.err;
    EXPECT_NE(o.err.find(message), std::string::npos) << reports << ": " << o.err;
    EXPECT_FALSE(fs::exists(dir / "m.json") || fs::exists(dir / "m.md") || fs::exists(dir / "m.xml")) << reports;
  }
  void edit(const std::string& name, const std::function<void(json&)>& change) {
    json r = readJson(dir / name);
    change(r);
    write(name, r.dump(1));
  }
};

TEST_F(MergeRefuses, AMissingShard) { refused("s0.json s2.json", "shard 1/3 is missing"); }

TEST_F(MergeRefuses, ADuplicatedShard) {
  fs::copy_file(dir / "s1.json", dir / "s1-again.json");
  refused("s0.json s1.json s2.json s1-again.json", "shard 1/3 appears twice: s1.json and s1-again.json");
}

TEST_F(MergeRefuses, AShardOfAnotherCorpus) {
  fs::copy(dir / "c", dir / "d", fs::copy_options::recursive);
  write("d/p2.scm", "(* 2 x x 1)");  // the same pair names, another program
  Outcome o = dmci("check d --quiet --shard 1/3 --json d1.json");
  ASSERT_EQ(o.code, 0) << o.err;
  refused("s0.json d1.json s2.json", "different corpora: s0.json has 'fnv1a64:");
}

TEST_F(MergeRefuses, AShardOfAnotherBuild) {
  // A shard's report carries the hash of the dmci that wrote it; another build's differs.
  edit("s2.json", [](json& r) { r["provenance"]["fingerprint"]["build"] = "fnv1a64:0123456789abcdef"; });
  refused("s0.json s1.json s2.json", "mixed builds (the dmci executables differ): s0.json has 'fnv1a64:");
}

TEST_F(MergeRefuses, ShardsRunWithOtherSettingsOrCounts) {
  Outcome o = dmci("check c --quiet --shard 1/3 --tol-fd 1e-5 --json t1.json");
  ASSERT_EQ(o.code, 0) << o.err;
  refused("s0.json t1.json s2.json", "different settings");
  o = dmci("check c --quiet --shard 1/2 --json h1.json");
  ASSERT_EQ(o.code, 0) << o.err;
  refused("s0.json h1.json s2.json", "different shard counts: s0.json is shard 0/3, h1.json is shard 1/2");
}

TEST_F(MergeRefuses, AMergedReportOrAnUnreadableOne) {
  Outcome o = dmci("merge s0.json s1.json s2.json --json all.json");
  ASSERT_EQ(o.code, 0) << o.err;
  refused("all.json", "all.json is a merged report");
  write("broken.json", "{\n  \"provenance\": [1,\n");
  refused("s0.json broken.json s2.json", "broken.json:3:1: not valid JSON");
  edit("s1.json", [](json& r) { r["pairs"][1]["status"] = "maybe"; });
  refused("s0.json s1.json s2.json", "s1.json: pairs[1] (small/5).status: 'maybe' is not a status");
  refused("s0.json nowhere.json s2.json", "cannot read nowhere.json");
}

// Whatever a report holds, merge refuses it in words and exits 1: never an abort, a hang or a billion lines.
TEST_F(MergeRefuses, AReportOfWrongTypesOrNumbersPastRange) {
  std::string text = slurp(dir / "s1.json");
  const size_t at = text.find("\"seconds\": ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find_first_of(",\n}", at) - at, "\"seconds\": 1e999");
  write("s1.json", text);
  refused("s0.json s1.json s2.json", "s1.json:");
  refused("s0.json s1.json s2.json", "a number past double's range");
  ASSERT_EQ(checkShards("c", 3), std::vector<int>({0, 0, 0}));
  edit("s1.json", [](json& r) { r["provenance"]["merged_shards"] = "0,1"; });
  refused("s0.json s1.json s2.json", "s1.json: provenance.merged_shards: not an array of shard numbers");
  ASSERT_EQ(checkShards("c", 3), std::vector<int>({0, 0, 0}));
  edit("s1.json", [](json& r) { r["provenance"]["shard_count"] = 3.5; });
  refused("s0.json s1.json s2.json", "s1.json: provenance.shard_count: missing or not a whole number in range");
  edit("s1.json", [](json& r) { r["provenance"]["shard_count"] = int64_t{1} << 40; });
  refused("s0.json s1.json s2.json", "s1.json: provenance.shard_count: missing or not a whole number in range");
  ASSERT_EQ(checkShards("c", 3), std::vector<int>({0, 0, 0}));
  edit("s0.json", [](json& r) { r["provenance"]["shard_count"] = 2147483647; });
  refused("s0.json s1.json s2.json", "and 2147483636 more shards of 2147483647 are missing");
}

TEST_F(MergeRefuses, AShardThatLostPairs) {
  edit("s1.json", [](json& r) { r["pairs"].erase(r["pairs"].size() - 1); });
  refused("s0.json s1.json s2.json", "s1.json: shard 1/3 of 6 pairs holds 1 pairs, not 2");
}

TEST_F(Shards, AFailingPairInAnyShardFailsTheMerge) {
  smallCorpus("c", 6, 5);
  ASSERT_EQ(checkShards("c", 3), std::vector<int>({0, 1, 0}));  // small/5 is in shard 1
  Outcome o = dmci("merge s0.json s1.json s2.json --json m.json --md m.md");
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE(o.out.find("FAIL small/5 (p5.scm)"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("6 pairs: 5 pass, 1 fail"), std::string::npos) << o.out;
  json m = readJson(dir / "m.json");  // the merged report is written: it says what failed
  EXPECT_EQ(m["summary"]["passed"], false);
  EXPECT_EQ(m["pairs"][4]["status"], "fail");
  EXPECT_NE(slurp(dir / "m.md").find("### small/5"), std::string::npos);
}

// --- the fuzz campaign ---

TEST_F(Shards, AFuzzCampaignInThreeShardsMergedEqualsTheUnshardedOne) {
  const std::string flags = " --seed 11 --jobs 1 --lanes-every 0 --quiet";
  Outcome whole = dmci("fuzz --cases 60" + flags + " --json whole.json --md ''");
  ASSERT_EQ(whole.code, 0) << whole.out << whole.err;
  for (int k = 0; k < 3; ++k) {
    Outcome o = dmci("fuzz --cases 20" + flags + " --shard " + std::to_string(k) + "/3 --json f" + std::to_string(k) +
                     ".json --md ''");
    ASSERT_EQ(o.code, 0) << o.out << o.err;
  }
  Outcome m = dmci("merge f0.json f1.json f2.json --json merged.json --junit merged.xml");
  ASSERT_EQ(m.code, 0) << m.out << m.err;
  json a = readJson(dir / "whole.json"), b = readJson(dir / "merged.json");
  for (const char* key : {"seed", "cases", "pass", "nondifferentiable", "failed", "recursive", "higher_order",
                          "syntax_checks", "bad_input_checks", "by_family", "by_depth", "by_tag"})
    EXPECT_EQ(a[key], b[key]) << key;
  EXPECT_EQ(b["cases"], 60);
  EXPECT_EQ(b["shard"], "all/3");
  // Three shards with --cases 20 are not the campaign of --cases 60 in settings, so it says which it is.
  EXPECT_NE(a["provenance"]["fingerprint"]["settings"], b["provenance"]["fingerprint"]["settings"]);
}

TEST_F(Shards, MergedFuzzFailuresAreDeduplicatedByTheirShrunkProgram) {
  for (int k = 0; k < 2; ++k) {
    Outcome o = dmci("fuzz --cases 3 --seed 5 --jobs 1 --lanes-every 0 --quiet --shard " + std::to_string(k) +
                     "/2 --json f" + std::to_string(k) + ".json --md ''");
    ASSERT_EQ(o.code, 0) << o.err;
  }
  // The same shrunk program found from two cases, one in each shard, and another one in shard 1.
  auto failure = [](int index, const std::string& program) {
    return json{{"index", index},       {"property", "triangle"}, {"family", "arithmetic"}, {"program", program},
                {"seed", {{"x", 1.5}}}, {"wrt", {"x"}},           {"literals", false},      {"detail", "value 1 vs 2"},
                {"original", program},  {"shrink_steps", 3}};
  };
  for (auto [name, failures] : {std::pair{"f0.json", json::array({failure(4, "(* x x)")})},
                                {"f1.json", json::array({failure(1, "(* x x)"), failure(3, "(sin x)")})}}) {
    json r = readJson(dir / name);
    r["failures"] = failures;
    r["failed"] = failures.size();
    write(name, r.dump(1));
  }
  Outcome m = dmci("merge f0.json f1.json --json m.json");
  EXPECT_EQ(m.code, 1) << m.out << m.err;
  EXPECT_NE(m.out.find("3 failed (2 distinct shrunk programs, 1 duplicates dropped)"), std::string::npos) << m.out;
  json r = readJson(dir / "m.json");
  ASSERT_EQ(r["failures"].size(), 2u);
  EXPECT_EQ(r["failures"][0]["index"], 1);  // the lowest case that found it
  EXPECT_EQ(r["failures"][1]["program"], "(sin x)");
  EXPECT_EQ(r["failed"], 3);
  // A gate report does not merge with a campaign's.
  smallCorpus("c", 2);
  ASSERT_EQ(dmci("check c --quiet --shard 1/2 --json g1.json").code, 0);
  m = dmci("merge f0.json g1.json");
  EXPECT_EQ(m.code, 1);
  EXPECT_NE(m.err.find("mixed kinds of report: f0.json has 'fuzz', g1.json has 'gate'"), std::string::npos) << m.err;
}

// --- JUnit XML: valid against reports/junit.xsd, and its counts are its test cases' ---

struct XmlDoc {
  xmlDocPtr doc = nullptr;
  explicit XmlDoc(const fs::path& p) : doc(xmlReadFile(p.c_str(), nullptr, XML_PARSE_NONET)) {}
  ~XmlDoc() { xmlFreeDoc(doc); }
  // The number an XPath expression evaluates to.
  double number(const std::string& xpath) const {
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    xmlXPathObjectPtr r = xmlXPathEvalExpression(reinterpret_cast<const xmlChar*>(xpath.c_str()), ctx);
    double x = r ? xmlXPathCastToNumber(r) : -1;
    xmlXPathFreeObject(r);
    xmlXPathFreeContext(ctx);
    return x;
  }
};

// The schema's complaints about `file` (empty when it is valid).
std::string schemaErrors(const fs::path& file) {
  static std::string errors;
  errors.clear();
  xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(DMCI_SOURCE_DIR "/reports/junit.xsd");
  xmlSchemaPtr schema = xmlSchemaParse(pc);
  if (!schema) return "reports/junit.xsd does not parse";
  xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
  xmlSchemaSetValidStructuredErrors(
      vc, [](void*, xmlErrorPtr e) { errors += e && e->message ? e->message : "?"; }, nullptr);
  XmlDoc doc(file);
  int rc = doc.doc ? xmlSchemaValidateDoc(vc, doc.doc) : -1;
  xmlSchemaFreeValidCtxt(vc);
  xmlSchemaFree(schema);
  xmlSchemaFreeParserCtxt(pc);
  if (!doc.doc) return file.string() + " is not well-formed XML";
  return rc == 0 ? "" : "invalid: " + errors;
}

// The totals on <testsuites> and <testsuite> are the counts of what they hold.
void expectCountsMatch(const fs::path& file, double tests, double failures) {
  XmlDoc x(file);
  ASSERT_NE(x.doc, nullptr) << file;
  EXPECT_EQ(x.number("count(/testsuites/testsuite/testcase)"), tests) << file;
  EXPECT_EQ(x.number("count(//testcase/failure)"), failures) << file;
  EXPECT_EQ(x.number("sum(/testsuites/@tests)"), tests) << file;
  EXPECT_EQ(x.number("sum(/testsuites/@failures)"), failures) << file;
  EXPECT_EQ(x.number("sum(/testsuites/testsuite/@tests)"), tests) << file;
  EXPECT_EQ(x.number("sum(/testsuites/testsuite/@failures)"), failures) << file;
  EXPECT_EQ(x.number("count(//failure[string-length(@message) = 0 or string-length(@type) = 0])"), 0) << file;
}

TEST_F(Shards, JUnitFromCheckFuzzAndMergeValidatesAndCountsItsCases) {
  smallCorpus("c", 4, 3);
  json manifest = readJson(dir / "c/manifest.json");
  manifest["pairs"][2]["name"] = "small/3 <&> \"quoted\" 'x'";  // text that must be escaped
  write("c/manifest.json", manifest.dump(1));
  for (int k = 0; k < 2; ++k)
    dmci("check c --quiet --shard " + std::to_string(k) + "/2 --json s" + std::to_string(k) + ".json --junit s" +
         std::to_string(k) + ".xml");
  EXPECT_EQ(dmci("check c --quiet --json whole.json --junit whole.xml").code, 1);
  EXPECT_EQ(dmci("merge s0.json s1.json --junit merged.xml").code, 1);
  EXPECT_EQ(dmci("fuzz --cases 8 --seed 3 --jobs 1 --lanes-every 0 --quiet --json f.json --md '' --junit f.xml").code,
            0);
  for (const char* file : {"s0.xml", "s1.xml", "whole.xml", "merged.xml", "f.xml"})
    EXPECT_EQ(schemaErrors(dir / file), "") << file;
  expectCountsMatch(dir / "whole.xml", 4, 1);
  expectCountsMatch(dir / "merged.xml", 4, 1);
  expectCountsMatch(dir / "s0.xml", 2, 1);  // small/3 is at position 2: shard 0
  expectCountsMatch(dir / "f.xml", 4, 0);   // triangle, expand, print-read, bad-input
  XmlDoc merged(dir / "merged.xml");
  EXPECT_EQ(merged.number("count(//testcase[contains(@name, '<&> \"quoted\"') and @classname='gate.odd']"
                          "/failure[@type='gate.fail'])"),
            1);
  EXPECT_EQ(merged.number("count(//property[@name='shard' and @value='all/2'])"), 1);
  // A schema that checks nothing would pass anything: a file without a test's name does not validate.
  std::string text = slurp(dir / "whole.xml");
  size_t at = text.find("<testcase name=");
  ASSERT_NE(at, std::string::npos);
  write("broken.xml", text.substr(0, at) + "<testcase nom=" + text.substr(at + 15));
  EXPECT_NE(schemaErrors(dir / "broken.xml"), "");
}

}  // namespace
