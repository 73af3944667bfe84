// Dimensional analysis (search/Units.h): exact fractions, the units file's reader and its errors at file:line:col,
// the monomial and the dimensionless groups of known Feynman laws, the reduced table and the programs written back
// in the user's variables. (The property over random exponent matrices is properties/tests/units_property_test.)
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "search/Units.h"

namespace {

using namespace dmci;
using namespace dmci::search;

// AI Feynman's base units: m, s, kg, T (kelvin), V (volt).
const char* const kHeader = "Variable,Units,m,s,kg,T,V,\n";

std::string table(const std::string& rows) { return kHeader + rows; }

Reduction reduce(const std::string& rows, const std::vector<std::string>& vars, const std::string& target) {
  auto t = parseUnits(table(rows), "units.csv");
  EXPECT_TRUE(t) << (t ? "" : t.error().str());
  auto r = reduceUnits(*t, vars, target, {});
  EXPECT_TRUE(r) << (r ? "" : r.error().str());
  return r ? *r : Reduction{};
}

std::string monomial(const Reduction& r) { return print(monomialExpr(r.vars, r.monomial)); }

std::vector<std::string> groups(const Reduction& r) {
  std::vector<std::string> out;
  for (const auto& g : r.groups) out.push_back(print(monomialExpr(r.vars, {g.begin(), g.end()})));
  return out;
}

std::string errorOf(const std::string& text) {
  auto t = parseUnits(text, "units.csv");
  return t ? "" : t.error().str();
}

TEST(SearchUnits, FractionsAreExactAndInLowestTerms) {
  Rational h(1, 2), t(-2, 6);
  EXPECT_EQ((h + t).str(), "1/6");
  EXPECT_EQ((h * t).str(), "-1/6");
  EXPECT_EQ((h / t).str(), "-3/2");
  EXPECT_EQ(Rational(4, -8).str(), "-1/2");
  EXPECT_EQ((Rational(3) - Rational(3)).str(), "0");
  EXPECT_THROW(Rational(1, 0), std::domain_error);
  EXPECT_THROW(Rational(INT64_MAX / 2) * Rational(4), std::overflow_error);
}

TEST(SearchUnits, AIFeynmansTableReadsAsItIs) {
  // Its description column, the trailing comma on every line and the row of empty cells at the end.
  auto t = parseUnits(table("F,Force,1,-2,1,0,0,\nt,\xCE\xA4ime,0,1,0,0,0,\n,,,,,,,\n"), "units.csv");
  ASSERT_TRUE(t) << t.error().str();
  EXPECT_EQ(t->dims, (std::vector<std::string>{"m", "s", "kg", "T", "V"}));
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->find("F")->exponents[1].str(), "-2");
  EXPECT_EQ(t->find("t")->pos.line, 3u);
  // The plain form, with fractions and comments.
  auto plain = parseUnits("# a comment\nname,m,s\nv,1,-1\nroot,1/2,-3/4\n", "u.csv");
  ASSERT_TRUE(plain) << plain.error().str();
  EXPECT_EQ(plain->find("root")->exponents[1].str(), "-3/4");
}

TEST(SearchUnits, BadFilesAreErrorsAtTheirPlace) {
  EXPECT_EQ(errorOf(""),
            "units.csv:1:1: usage-error: the units file is empty: expected a header `name,DIM,...` "
            "(e.g. name,m,s,kg)");
  EXPECT_NE(errorOf("name,Units\n").find("units.csv:1:1: usage-error: the header names no base unit"),
            std::string::npos);
  EXPECT_EQ(errorOf("name,m,s,m\n"), "units.csv:1:10: usage-error: base unit 'm' appears twice in the header");
  EXPECT_EQ(errorOf("name,m,,s\n"), "units.csv:1:8: usage-error: empty base-unit name in the header");
  EXPECT_EQ(errorOf("name,m,s\nv,1,x\n"),
            "units.csv:2:5: usage-error: 'v': the exponent of 's' is 'x', not an integer or a fraction p/q");
  EXPECT_EQ(errorOf("name,m,s\nv,1,0.5\n"),
            "units.csv:2:5: usage-error: 'v': the exponent of 's' is '0.5', not an integer or a fraction p/q");
  EXPECT_EQ(errorOf("name,m,s\nv,1,1/0\n"),
            "units.csv:2:5: usage-error: 'v': the exponent of 's' is '1/0', not an integer or a fraction p/q");
  EXPECT_EQ(errorOf("name,m,s\nv,1\n"),
            "units.csv:2:4: usage-error: 'v': no exponent for base unit 's' (3 cells in the header, 2 here)");
  EXPECT_EQ(errorOf("name,m,s\nv,1,1,1\n"), "units.csv:2:7: usage-error: more cells than the header names (3)");
  EXPECT_EQ(errorOf("name,m,s\nv,1,-1\nv,1,0\n"), "units.csv:3:1: usage-error: 'v' has two rows in the units file");
  EXPECT_EQ(errorOf("name,m,s\n,1,0\n"), "units.csv:2:1: usage-error: a row without a name");
  EXPECT_NE(errorOf("name,m,s\n(v),1,0\n").find("units.csv:2:1: usage-error: name '(v)' is not a plain name"),
            std::string::npos);
  EXPECT_EQ(errorOf(table("x,Length,1,0,0,0,0,7\n")),
            "units.csv:2:20: usage-error: a cell past the header's last base unit: '7'");
}

TEST(SearchUnits, MissingRowsAndATargetNoMonomialCarriesAreErrors) {
  auto t = parseUnits(table("q,Charge,2,-2,1,0,-1,\nr,Length,1,0,0,0,0,\nv,Velocity,1,-1,0,0,0,\n"), "units.csv");
  ASSERT_TRUE(t);
  auto noVar = reduceUnits(*t, {"q", "d"}, "r", {});
  ASSERT_FALSE(noVar);
  EXPECT_EQ(noVar.error().str().rfind("units.csv:1:1: usage-error: no row for the variable 'd' in the units file", 0),
            0u)
      << noVar.error().str();
  auto noTarget = reduceUnits(*t, {"q", "r"}, "F", {});
  ASSERT_FALSE(noTarget);
  EXPECT_NE(noTarget.error().message.find("no row for the target 'F'"), std::string::npos);
  // A velocity from a charge and a length: a time is missing (the target's row is where the error points).
  auto wrong = reduceUnits(*t, {"q", "r"}, "v", {});
  ASSERT_FALSE(wrong);
  EXPECT_EQ(
      wrong.error().str().rfind("units.csv:4:1: usage-error: the target 'v' has units m s^-1, which no product", 0), 0u)
      << wrong.error().str();
}

const char* const kCoulomb =
    "q1,Charge,2,-2,1,0,-1,\nq2,Charge,2,-2,1,0,-1,\nepsilon,Electric permitivity,1,-2,1,0,-2,\n"
    "r,Length,1,0,0,0,0,\nF,Force,1,-2,1,0,0,\n";

TEST(SearchUnits, KnownLawsGiveTheirMonomialsAndGroups) {
  // I.12.2, Coulomb: F = q1 q2 / (4 pi epsilon r^2) = q1^2/(epsilon r^2) * g(q2/q1).
  Reduction c = reduce(kCoulomb, {"q1", "q2", "epsilon", "r"}, "F");
  EXPECT_EQ(monomial(c), "(/ (* q1 q1) (* epsilon r r))");
  EXPECT_EQ(groups(c), (std::vector<std::string>{"(/ q2 q1)"}));
  EXPECT_EQ(c.groupNames, (std::vector<std::string>{"pi1"}));
  // I.10.7, relativistic mass: m = m_0 g(v/c).
  Reduction m = reduce("m_0,Mass,0,0,1,0,0,\nv,Velocity,1,-1,0,0,0,\nc,Velocity,1,-1,0,0,0,\nm,Mass,0,0,1,0,0,\n",
                       {"m_0", "v", "c"}, "m");
  EXPECT_EQ(monomial(m), "m_0");
  EXPECT_EQ(groups(m), (std::vector<std::string>{"(/ v c)"}));
  // I.14.3, m g z: the law is its monomial, no group.
  Reduction u = reduce("m,Mass,0,0,1,0,0,\ng,Acceleration,1,-2,0,0,0,\nz,Length,1,0,0,0,0,\nU,Energy,2,-2,1,0,0,\n",
                       {"m", "g", "z"}, "U");
  EXPECT_EQ(monomial(u), "(* m g z)");
  EXPECT_TRUE(u.groups.empty());
  // I.39.11: a dimensionless variable is a group of its own and keeps its name.
  Reduction g = reduce(
      "Gamma,Dimensionless,0,0,0,0,0,\npr,Pressure,-1,-2,1,0,0,\nV,volume,3,0,0,0,0,\n"
      "E_n,Energy,2,-2,1,0,0,\n",
      {"Gamma", "pr", "V"}, "E_n");
  EXPECT_EQ(monomial(g), "(* pr V)");
  EXPECT_EQ(groups(g), (std::vector<std::string>{"Gamma"}));
  EXPECT_EQ(g.groupNames, (std::vector<std::string>{"Gamma"}));
  // III.4.33, Planck: E = h omega g(h omega / (kb T)).
  Reduction p = reduce(
      "h,Angular momentum,2,-1,1,0,0,\nomega,Frequency,0,-1,0,0,0,\nkb,Boltzmann,2,-2,1,-1,0,\n"
      "T,Temperature,0,0,0,1,0,\nE_n,Energy,2,-2,1,0,0,\n",
      {"h", "omega", "kb", "T"}, "E_n");
  EXPECT_EQ(monomial(p), "(* h omega)");
  EXPECT_EQ(groups(p), (std::vector<std::string>{"(/ (* h omega) (* kb T))"}));
  // I.8.14, a distance: x1 g(x2/x1, y1/x1, y2/x1), the monomial's variable below each ratio.
  Reduction d = reduce("x1,L,1,0,0,0,0,\nx2,L,1,0,0,0,0,\ny1,L,1,0,0,0,0,\ny2,L,1,0,0,0,0,\nd,L,1,0,0,0,0,\n",
                       {"x1", "x2", "y1", "y2"}, "d");
  EXPECT_EQ(monomial(d), "x1");
  EXPECT_EQ(groups(d), (std::vector<std::string>{"(/ x2 x1)", "(/ y1 x1)", "(/ y2 x1)"}));
  // I.47.23, a speed of sound: a half power when no integer monomial carries the units.
  Reduction s =
      reduce("Gamma,D,0,0,0,0,0,\npr,Pressure,-1,-2,1,0,0,\nrho,Density,-3,0,1,0,0,\nc,Velocity,1,-1,0,0,0,\n",
             {"Gamma", "pr", "rho"}, "c");
  EXPECT_EQ(monomial(s), "(/ (sqrt pr) (sqrt rho))");
  // A dimensionless target of dimensionless variables: the search runs as before (M = 1, every variable a group).
  Reduction n = reduce("theta,D,0,0,0,0,0,\nf,D,0,0,0,0,0,\n", {"theta"}, "f");
  EXPECT_EQ(monomial(n), "1");
  EXPECT_EQ(n.groupNames, (std::vector<std::string>{"theta"}));
}

TEST(SearchUnits, GroupNamesAvoidTheNamesTaken) {
  auto t = parseUnits(table(kCoulomb), "units.csv");
  ASSERT_TRUE(t);
  auto r = reduceUnits(*t, {"q1", "q2", "epsilon", "r"}, "F", {"pi1"});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->groupNames, (std::vector<std::string>{"pi2"}));
}

fit::DataTable coulombData() {
  fit::DataTable d;
  d.path = "c.csv";
  d.names = {"q1", "q2", "epsilon", "r", "F"};
  d.columns.assign(5, {});
  for (int i = 0; i < 4; ++i) {
    double q1 = 1 + i, q2 = 2 + 0.5 * i, e = 1.5, r = 2 - 0.25 * i;
    d.columns[0].push_back(q1), d.columns[1].push_back(q2), d.columns[2].push_back(e), d.columns[3].push_back(r);
    d.columns[4].push_back(q1 * q2 / (4 * M_PI * e * r * r));
    d.lines.push_back(static_cast<uint32_t>(i + 2));
  }
  return d;
}

TEST(SearchUnits, TheReducedTableHoldsTheGroupsAndTheScaledTarget) {
  Reduction c = reduce(kCoulomb, {"q1", "q2", "epsilon", "r"}, "F");
  fit::DataTable d = coulombData();
  auto t = reducedTable(d, c);
  ASSERT_TRUE(t) << t.error().str();
  EXPECT_EQ(t->names, (std::vector<std::string>{"pi1", "F"}));
  ASSERT_EQ(t->rows(), 4u);
  for (size_t r = 0; r < 4; ++r) {
    EXPECT_NEAR(t->columns[0][r], d.columns[1][r] / d.columns[0][r], 1e-15);
    EXPECT_NEAR(t->columns[1][r], t->columns[0][r] / (4 * M_PI), 1e-15);  // y / M = pi1 / (4 pi)
  }
  d.columns[3][2] = 0;  // r = 0: M is infinite
  auto bad = reducedTable(d, c);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("at row 3 of the data (c.csv:4)"), std::string::npos) << bad.error().str();
}

TEST(SearchUnits, ProgramsAreWrittenBackInTheUsersVariables) {
  Reduction c = reduce(kCoulomb, {"q1", "q2", "epsilon", "r"}, "F");
  auto forms = readForms("(* 0.0796 pi1)", "t");
  ASSERT_TRUE(forms);
  Candidate e = expandCandidate(Candidate{*forms, {{"a", 2.0}}}, c);
  EXPECT_EQ(print(e.value()), "(* (/ (* q1 q1) (* epsilon r r)) (* 0.0796 (/ q2 q1)))");
  EXPECT_EQ(e.params.at("a"), 2.0);
  // M = 1: the program as it is.
  Reduction n = reduce("theta,D,0,0,0,0,0,\nf,D,0,0,0,0,0,\n", {"theta"}, "f");
  auto sin = readForms("(sin theta)", "t");
  EXPECT_EQ(print(expandCandidate(Candidate{*sin, {}}, n).value()), "(sin theta)");
  // A square root: M's variables that its content reads go under it, squared: an even power always (q1² here;
  // epsilon and r, which the content does not read, stay outside)...
  auto root = readForms("(sqrt (+ 1 (* pi1 pi1)))", "t");
  ASSERT_TRUE(root);
  EXPECT_EQ(print(expandCandidate(Candidate{*root, {}}, c).value()),
            "(* (/ 1 (* epsilon r r)) (sqrt (* (expt q1 4) (+ 1 (* (/ q2 q1) (/ q2 q1))))))");
  // ...an odd one only for a variable positive on the data: a distance x sqrt(1 + (y/x)²) is sqrt(x² (1 + ...)).
  Reduction d = reduce("x,Length,1,0,0,0,0,\ny,Length,1,0,0,0,0,\nL,Length,1,0,0,0,0,\n", {"x", "y"}, "L");
  ASSERT_EQ(print(monomialExpr(d.vars, d.monomial)), "x");
  EXPECT_EQ(print(expandCandidate(Candidate{*root, {}}, d, {"x"}).value()),
            "(sqrt (* (* x x) (+ 1 (* (/ y x) (/ y x)))))");
  EXPECT_EQ(print(expandCandidate(Candidate{*root, {}}, d).value()), "(* x (sqrt (+ 1 (* (/ y x) (/ y x)))))");
  // A power below 0 as well: (1/x) sqrt(1 + (y/x)²) is sqrt((1 + (y/x)²)/x²).
  Reduction inv = reduce("x,Length,1,0,0,0,0,\ny,Length,1,0,0,0,0,\nk,Wavenumber,-1,0,0,0,0,\n", {"x", "y"}, "k");
  EXPECT_EQ(print(expandCandidate(Candidate{*root, {}}, inv, {"x"}).value()),
            "(sqrt (* (/ 1 (* x x)) (+ 1 (* (/ y x) (/ y x)))))");
  // A half power of a positive variable goes under the root whatever it reads: sqrt(pr/rho) sqrt(G) (I.47.23).
  Reduction half =
      reduce("G,D,0,0,0,0,0,\npr,P,-1,-2,1,0,0,\nrho,R,-3,0,1,0,0,\nc,V,1,-1,0,0,0,\n", {"G", "pr", "rho"}, "c");
  auto sqrtG = readForms("(sqrt G)", "t");
  ASSERT_TRUE(sqrtG);
  EXPECT_EQ(print(expandCandidate(Candidate{*sqrtG, {}}, half, {"G", "pr", "rho"}).value()), "(sqrt (* (/ pr rho) G))");
  EXPECT_EQ(print(expandCandidate(Candidate{*sqrtG, {}}, half).value()), "(* (/ (sqrt pr) (sqrt rho)) (sqrt G))");
  // A sum with a root in a term: M into each term, squared under the root, when M's variables are positive
  // (I.37.4: I1 (1 + I2/I1 + 2 sqrt(I2/I1) cos d) is I1 + I2 + 2 sqrt(I1² I2/I1) cos d).
  Reduction sum = reduce("I1,W,1,0,0,0,0,\nI2,W,1,0,0,0,0,\nd,D,0,0,0,0,0,\nI,W,1,0,0,0,0,\n", {"I1", "I2", "d"}, "I");
  auto law = readForms("(+ 1 pi1 (* 2 (sqrt pi1) (cos d)))", "t");
  ASSERT_TRUE(law);
  EXPECT_EQ(print(expandCandidate(Candidate{*law, {}}, sum, {"I1", "I2"}).value()),
            "(+ (* I1 1) (* I1 (/ I2 I1)) (* 2 (sqrt (* (* I1 I1) (/ I2 I1))) (cos d)))");
  auto nested = readForms("(+ 1 pi1 (* 2 (* (sqrt pi1) (cos d))))", "t");
  ASSERT_TRUE(nested);
  EXPECT_EQ(print(expandCandidate(Candidate{*nested, {}}, sum, {"I1", "I2"}).value()),
            "(+ (* I1 1) (* I1 (/ I2 I1)) (* 2 (* (sqrt (* (* I1 I1) (/ I2 I1))) (cos d))))");
  EXPECT_EQ(print(expandCandidate(Candidate{*law, {}}, sum).value()),
            "(* I1 (+ 1 (/ I2 I1) (* 2 (sqrt (/ I2 I1)) (cos d))))");
}

TEST(SearchUnits, RatiosAreTurnedToStayMostlyBelowOne) {
  // c/v as the units alone might write it; on data with v < c it reads v/c.
  auto t = parseUnits("name,m,s\nv,1,-1\nc,1,-1\nm_0,0,0\nm,0,0\n", "u.csv");
  ASSERT_TRUE(t);
  auto r = reduceUnits(*t, {"v", "c", "m_0"}, "m", {});
  ASSERT_TRUE(r);
  r->groups = {{-1, 1, 0}, {0, 0, -1}};  // c/v, 1/m_0
  fit::DataTable d;
  d.names = {"v", "c", "m_0", "m"};
  d.columns = {{1, 1.5, 2}, {3, 5, 9}, {1, 2, 3}, {1, 1, 1}};
  d.lines = {2, 3, 4};
  orientGroups(*r, d, {0, 1, 2});
  EXPECT_EQ(r->groups, (std::vector<std::vector<int64_t>>{{1, -1, 0}, {0, 0, 1}}));
}

}  // namespace
