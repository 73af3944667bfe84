// The ComputeGraph text format: print -> load is the identity, the evaluator's graph is the one the build embedded, and
// malformed graphs are rejected.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "mce/Mce.h"

namespace dmci {
namespace {

const char* kPrograms[] = {
    "(* alpha (* x x))",
    "(define (fact n) (if (= n 0) 1 (* n (fact (- n 1))))) (fact 5)",
    "(define (even? n) (if (= n 0) #t (odd? (- n 1)))) (define (odd? n) (if (= n 0) #f (even? (- n 1)))) (if (even? "
    "10) x 2)",
    "(let loop ((i 0) (acc '(1 \"s\" #\\a))) (if (< i 3) (loop (+ i 1) (cons i acc)) (length acc)))",
    "(apply + (map (lambda (y . r) (* y x)) '(1 2.5 3)))",
    "(define a b) (define b 2) 1",
    "(vsum (matvec (mat '(1 2) '(3 4)) (vec x 1)))",
};

TEST(GraphText, PrintThenLoadIsTheIdentity) {
  for (const char* src : kPrograms) {
    auto p = Program::fromText(src, "prog.scm");
    ASSERT_TRUE(p) << p.error().str();
    auto g = p->compile({"x", "alpha"});
    ASSERT_TRUE(g) << g.error().str();
    std::string text = printGraph(*g);
    auto back = parseGraph(text);
    ASSERT_TRUE(back) << back.error().str() << "\n" << text;
    EXPECT_EQ(printGraph(*back), text) << src;
  }
}

TEST(GraphText, LoadedGraphRunsLikeTheOriginal) {
  auto p = Program::fromText(kPrograms[1], "prog.scm");
  auto g = p->compile({});
  auto back = parseGraph(printGraph(*g));
  ASSERT_TRUE(back);
  Runtime rt;
  Machine m(*back, rt);
  m.loadConstants(false);
  EXPECT_EQ(m.run({}).num, 120);
}

TEST(GraphText, LiteralPositionsSurviveTheRoundTrip) {
  auto p = Program::fromText("(+ 1.5 (car '(2 3)))", "prog.scm");
  auto g = p->compile({});
  auto back = parseGraph(printGraph(*g));
  ASSERT_TRUE(back);
  std::vector<std::string> positions;
  Runtime rt;
  Machine m(*back, rt);
  m.loadConstants(true);
  for (const auto& l : m.literals()) positions.push_back(l.pos.str());
  EXPECT_EQ(positions, (std::vector<std::string>{"prog.scm:1:4", "prog.scm:1:15", "prog.scm:1:17"}));
}

TEST(Evaluator, CompilingMceScmGivesTheEmbeddedGraph) {
  auto compiled = compileMce();
  ASSERT_TRUE(compiled) << compiled.error().str();
  auto embedded = mceGraph();
  ASSERT_TRUE(embedded) << embedded.error().str();
  EXPECT_EQ(printGraph(*compiled), printGraph(**embedded));
}

TEST(Evaluator, TheBuildsArtifactFileIsTheEmbeddedGraph) {
  std::ifstream in(std::string(DMCI_BINARY_DIR) + "/generated/mce.cg");
  ASSERT_TRUE(in);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), printGraph(**mceGraph()));
}

TEST(Evaluator, ALoadedArtifactRunsPrograms) {
  auto loaded = parseGraph(printGraph(**mceGraph()), "mce.cg");
  ASSERT_TRUE(loaded);
  auto p = Program::fromText("(define (f x) (* 1.5 x x)) (f 2)", "prog.scm");
  EvalOptions o;
  o.route = Route::Dmci;
  o.wrtLiterals = true;
  o.evaluator = std::make_shared<const ComputeGraph>(std::move(*loaded));
  auto ev = p->evaluate({}, o);
  ASSERT_TRUE(ev) << ev.error().str();
  EXPECT_EQ(ev->value, 6);
  ASSERT_FALSE(ev->gradient.empty());
  EXPECT_EQ(ev->gradient[0].first, "prog.scm:1:18");
  EXPECT_EQ(ev->gradient[0].second, 4);
}

TEST(GraphText, MalformedGraphsAreRejectedWithAPosition) {
  std::string good = printGraph(*Program::fromText(kPrograms[1], "prog.scm")->compile({}));
  const std::pair<std::string, std::string> edits[] = {
      {"dmci-graph 2", "dmci-graph 1"},  // version
      {"Return", "Retrun"},              // unknown instruction
      {"entry 0", "entry 99"},           // entry out of range
      {"end\n", ""},                     // unterminated block
  };
  for (const auto& [from, to] : edits) {
    std::string bad = good;
    auto at = bad.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    bad.replace(at, from.size(), to);
    auto g = parseGraph(bad, "bad.cg");
    ASSERT_FALSE(g) << from;
    EXPECT_EQ(g.error().kind, ErrorKind::Graph);
  }
  // Out-of-range operands are caught by validation, never run.
  std::string bad = good;
  auto at = bad.find("  Prim2 ");
  ASSERT_NE(at, std::string::npos);
  bad.replace(at, 8, "  Prim2 999 ");
  auto g = parseGraph(bad, "bad.cg");
  EXPECT_FALSE(g);
}

TEST(GraphText, TruncatedTextsNeverCrash) {
  std::string good = printGraph(**mceGraph());
  for (size_t n = 0; n < good.size(); n += good.size() / 97 + 1) {
    auto g = parseGraph(good.substr(0, n), "cut.cg");
    if (g) {
      EXPECT_NO_THROW(validateGraph(*g));
    }
  }
}

}  // namespace
}  // namespace dmci
