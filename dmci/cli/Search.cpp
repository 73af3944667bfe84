// `dmci search --data FILE.csv --target COL --seed-program SEED.scm`: reads the data and the seed program, sets
// up the task (variables, named parameters, the held-out rows), runs the search and writes what was asked: the
// progress line on a terminal, --json, --out DIR (and the checkpoint that --resume DIR continues from). With --mpi
// (under mpirun or srun) the islands run on the ranks (search/Exchange.h's plugin); rank 0 reports and writes, the
// others only search. SIGUSR1 (and SIGTERM under --mpi: SLURM's preemption) ends the search after its epoch, its
// checkpoint written, with the exit code kRequeue.
#include "cli/Search.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "cli/Exit.h"
#include "driver/Program.h"
#include "search/SearchReport.h"
#include "search/Units.h"
#include "smooth/Smooth.h"
#include "support/JsonText.h"
#include "support/Split.h"
#include "syntax/Reader.h"
#include "syntax/TerminalText.h"

namespace dmci::cli {

namespace {

using namespace dmci::search;

struct SearchArgs {
  std::string data, target, seedProgram, vars, ops = "+ - * / exp log sin cos sqrt expt";
  std::string edit;   // --edit NAME
  std::string units;  // --units FILE
  uint64_t seed = 1;
  int jobs = 0;
  uint64_t evals = 0;
  double seconds = 0, goal = 0;
  double holdout = 0.2;
  std::string split, group, score = "holdout";
  bool noGradient = false;
  std::string proposer;
  double proposerTimeout = 30;
  int proposerEvery = 1;
  int iterations = 8, restarts = 2, islands = 4, population = 20, children = 4, maxSize = 30, maxDepth = 10;
  double candidateSeconds = 2;
  double smooth = 0;  // --smooth SIGMA (0: off)
  bool smoothGiven = false;
  int smoothStages = 3;
  bool smoothDea = false;
  std::string engine = "replay";
  std::string canon = "ginac";
  double pickWindow = 1.5, pickFloor = 1e-9, snapTolerance = 0.01;
  int enumerate = 4;               // --enumerate SIZE (0: off)
  uint64_t enumerateLimit = 1000;  // --enumerate-limit N
  int terms = -1;                  // --terms K (0: off; -1: 4 with --edit, else off)
  bool noSnap = false, noProbe = false;
  bool json = false, quiet = false;
  std::string out, resume;
  bool mpi = false;
  int epochEvals = 20;
};

// Set by SIGUSR1 (and SIGTERM under --mpi): the search ends after its epoch, checkpointed.
std::atomic<bool> stopRequested{false};
void requestStop(int) { stopRequested.store(true); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DmciError(ErrorKind::Io, "cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> words(const std::string& text) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// The held-out rows: --split COL<VALUE (rows with COL < VALUE are fitted), else a seeded --holdout fraction.
void splitRows(const SearchArgs& a, const fit::DataTable& t, Task& task) {
  if (!a.split.empty()) {
    size_t lt = a.split.find('<');
    if (lt == std::string::npos || lt == 0) throw UsageError{"--split " + a.split + ": expected COLUMN<VALUE"};
    auto col = t.column(a.split.substr(0, lt), "--split");
    if (!col) throw DmciError(col.error());
    char* end = nullptr;
    std::string v = a.split.substr(lt + 1);
    double at = std::strtod(v.c_str(), &end);
    if (v.empty() || *end) throw UsageError{"--split " + a.split + ": '" + v + "' is not a number"};
    for (size_t r = 0; r < t.rows(); ++r)
      (t.columns[static_cast<size_t>(*col)][r] < at ? task.train : task.holdout).push_back(r);
  } else {
    if (!(a.holdout > 0 && a.holdout < 1)) throw UsageError{"--holdout: a fraction between 0 and 1"};
    std::vector<size_t> rows(t.rows());
    for (size_t r = 0; r < rows.size(); ++r) rows[r] = r;
    std::shuffle(rows.begin(), rows.end(), std::mt19937_64(a.seed));
    auto n = static_cast<std::ptrdiff_t>(std::ceil(a.holdout * static_cast<double>(rows.size())));
    task.holdout.assign(rows.begin(), rows.begin() + n), task.train.assign(rows.begin() + n, rows.end());
    std::sort(task.holdout.begin(), task.holdout.end()), std::sort(task.train.begin(), task.train.end());
  }
  if (!a.group.empty()) {  // one group per distinct value of the column, in the order of first appearance
    auto col = t.column(a.group, "--group");
    if (!col) throw DmciError(col.error());
    std::map<double, size_t> index;
    for (size_t r = 0; r < t.rows(); ++r) {
      double v = t.columns[static_cast<size_t>(*col)][r];
      auto [it, fresh] = index.emplace(v, task.groups.size());
      if (fresh) task.groups.emplace_back();
      task.groups[it->second].push_back(r);
    }
  }
  if (task.train.empty() || task.holdout.empty())
    throw UsageError{"the split leaves no rows to " + std::string(task.train.empty() ? "fit" : "hold out")};
}

// Where the seed defines NAME (the error of a bad --edit points there), else its first line.
SrcPos editPosition(const std::string& text, const std::string& file, const std::string& name) {
  if (auto datums = readAll(text, file))
    for (const auto& d : *datums)
      if (d->head() == "define" && d->items.size() >= 2) {
        const Datum& target = *d->items[1];
        if (target.isSymbol(name.c_str()) ||
            (target.kind == DatumKind::List && target.items[0]->isSymbol(name.c_str())))
          return d->pos;
      }
  return SrcPos{internFile(file), 1, 1};
}

// Where the seed first reads the symbol `name` (an error about it points there), else its first line.
SrcPos symbolPosition(const std::string& text, const std::string& file, const std::string& name) {
  std::function<const Datum*(const Datum&)> find = [&](const Datum& d) -> const Datum* {
    if (d.isSymbol(name.c_str())) return &d;
    for (const auto& item : d.items)
      if (const Datum* hit = find(*item)) return hit;
    return nullptr;
  };
  if (auto datums = readAll(text, file))
    for (const auto& d : *datums)
      if (const Datum* hit = find(*d)) return hit->pos;
  return SrcPos{internFile(file), 1, 1};
}

// The variables (--vars, default every column but the target), and the seed's other free names as parameters.
Candidate setUp(const SearchArgs& a, const fit::DataTable& t, Task& task) {
  task.data = &t, task.target = a.target;
  if (auto col = t.column(a.target, "--target"); !col) throw DmciError(col.error());
  task.vars = splitCommas(a.vars);
  if (task.vars.empty())
    for (const auto& name : t.names)
      if (name != a.target && name != a.group) task.vars.push_back(name);
  for (const auto& v : task.vars) {
    if (v == a.target) throw UsageError{"--vars " + v + ": it is the target column"};
    if (auto col = t.column(v, "--vars"); !col) throw DmciError(col.error());
  }
  std::string text = slurp(a.seedProgram);
  auto program = Program::fromText(text, a.seedProgram);
  if (!program) throw DmciError(program.error());
  auto forms = readForms(text, a.seedProgram);
  if (!forms) throw DmciError(forms.error());
  Candidate seed{std::move(*forms), {}};
  if (!a.edit.empty()) {
    auto k = editedForm(seed.forms, a.edit);
    if (!k) throw DmciError(Error{k.error().kind, k.error().message, editPosition(text, a.seedProgram, a.edit)});
    seed.edited = *k;
  }
  for (const auto& name : program->freeParameters()) {
    if (std::find(task.vars.begin(), task.vars.end(), name) != task.vars.end()) continue;
    if (t.find(name) >= 0)
      throw UsageError{a.seedProgram + ": '" + name + "' is a column of " + a.data + " that is not a variable" +
                       (name == a.target ? " (it is the target)" : " (--vars)")};
    task.params.push_back(name), seed.params[name] = 1.0;
  }
  const auto& y = t.columns[static_cast<size_t>(t.find(a.target))];
  task.spread = *std::max_element(y.begin(), y.end()) - *std::min_element(y.begin(), y.end());
  return seed;
}

SearchSettings settingsOf(const SearchArgs& a, const Task& task, const std::string& dataText,
                          const std::string& seedText, const std::string& unitsText) {
  SearchSettings s;
  s.seed = a.seed;
  s.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  s.evals = a.evals == 0 && a.seconds <= 0 ? 2000 : a.evals;
  s.seconds = a.seconds, s.goal = a.goal;
  s.islands = a.islands, s.population = a.population, s.children = a.children, s.epochEvals = a.epochEvals;
  s.grammar = {task.vars, task.params, words(a.ops), a.maxSize, a.maxDepth};
  for (const auto& op : s.grammar.ops)
    if (operatorArity(op) == 0) throw UsageError{"--ops: '" + op + "' is not an operator (" + knownOperators() + ")"};
  s.score.gradient = !a.noGradient, s.score.iterations = a.iterations, s.score.restarts = a.restarts;
  s.score.engine = a.engine, s.score.budget.seconds = a.candidateSeconds, s.score.seconds = 5 * a.candidateSeconds;
  s.score.scoreAll = a.score == "all";
  if (a.smoothDea && !a.smoothGiven) throw UsageError{"--smooth-dea needs --smooth SIGMA"};
  if (a.smoothGiven) {
    smooth::SmoothSettings check;
    check.sigma = a.smooth;
    if (auto why = smooth::checkSettings(check)) throw UsageError{*why};
    if (a.noGradient) throw UsageError{"--smooth smooths the candidates' fits: it does not apply with --no-gradient"};
    if (a.smoothStages < 1) throw UsageError{"--smooth-stages: at least 1"};
  }
  s.score.smoothSigma = a.smooth, s.score.smoothStages = a.smoothStages, s.score.smoothDea = a.smoothDea;
  s.proposer = a.proposer, s.proposerTimeout = a.proposerTimeout, s.proposerEvery = a.proposerEvery;
  if (!(a.pickWindow >= 1)) throw UsageError{"--pick-window: at least 1 (the lowest loss itself)"};
  if (!(a.pickFloor >= 0)) throw UsageError{"--pick-floor: at least 0"};
  if (!(a.snapTolerance >= 0)) throw UsageError{"--snap-tolerance: at least 0"};
  s.pick = {a.pickWindow, a.pickFloor};
  s.canon = a.canon == "hash" ? CanonKind::Hash : CanonKind::Ginac;
  if (a.enumerate < 0) throw UsageError{"--enumerate: a size of at least 0 (0: no enumeration)"};
  s.snap = !a.noSnap, s.snapping.tolerance = a.snapTolerance, s.probe = !a.noProbe;
  s.enumerate = a.enumerate, s.enumerateLimit = a.enumerateLimit;
  if (a.terms < -1) throw UsageError{"--terms: at least 0 (0: no sparse regression)"};
  s.terms = a.terms >= 0 ? a.terms : a.edit.empty() ? 0 : 4;
  std::string dir = !a.out.empty() ? a.out : a.resume;
  if (!dir.empty()) s.stateFile = (std::filesystem::path(dir) / "state.json").string();
  if (!a.resume.empty()) {
    s.resume = true;
    s.stateFile = (std::filesystem::path(a.resume) / "state.json").string();
  }
  std::string all = dataText + "\x1f" + seedText + "\x1f" + a.target + "\x1f" + a.ops + "\x1f" + a.split + "\x1f" +
                    a.group + "\x1f" + a.score + "\x1f" + a.canon + "\x1f" + a.edit + "\x1f" + unitsText;
  for (const auto& v : task.vars) all += "\x1f" + v;
  for (double x : {a.holdout, a.candidateSeconds, a.smooth}) all += "\x1f" + std::to_string(x);
  for (long long x : {a.iterations, a.restarts, a.islands, a.population, a.children, a.epochEvals, a.maxSize,
                      a.maxDepth, static_cast<int>(a.noGradient), a.smoothStages, static_cast<int>(a.smoothDea),
                      static_cast<int>(a.noProbe), a.enumerate})
    all += "\x1f" + std::to_string(x);
  all += "\x1f" + std::to_string(a.enumerateLimit) + "\x1f" + std::to_string(s.terms);
  all += "\x1f" + std::to_string(a.seed) + "\x1f" + a.engine;
  char buf[20];
  std::snprintf(buf, sizeof buf, "%016zx", std::hash<std::string>{}(all));
  s.fingerprint = buf;
  return s;
}

// What --json says of the units' reduction: the law's form, the monomial and each group as programs.
nlohmann::ordered_json unitsJson(const Reduction& r) {
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (size_t k = 0; k < r.groups.size(); ++k) {
    std::vector<Rational> e(r.groups[k].begin(), r.groups[k].end());
    groups.push_back({{"name", r.groupNames[k]}, {"program", print(monomialExpr(r.vars, e))}});
  }
  return {{"reduction", describe(r)}, {"monomial", print(monomialExpr(r.vars, r.monomial))}, {"groups", groups}};
}

// The progress line on a terminal: the epoch, the ranks, evaluations, best score, front size, rate (and each
// rank's, of its own work).
SearchEvents events(bool quiet) {
  SearchEvents ev;
  bool terminal = !quiet && isatty(fileno(stderr));
  if (!quiet)
    ev.note = [terminal](const std::string& msg) {
      std::fprintf(stderr, "%sdmci search: %s\n", terminal ? "\r\033[K" : "", escapeControls(msg, true).c_str());
    };
  if (!terminal) return ev;
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  ev.generation = [last](const SearchResult& r) {
    auto now = std::chrono::steady_clock::now();
    if (now - *last < std::chrono::milliseconds(100)) return;
    *last = now;
    std::string perRank;
    for (double rate : r.rankRates) perRank += (perRank.empty() ? "" : " ") + std::to_string(std::lround(rate));
    std::fprintf(stderr,
                 "\r\033[Ksearch: epoch %llu  %d rank%s  %llu evaluations  best %.6g (complexity %d)  front %zu  %.0f "
                 "evals/s (per rank: %s)",
                 static_cast<unsigned long long>(r.epochs), r.ranks, r.ranks == 1 ? "" : "s",
                 static_cast<unsigned long long>(r.evaluations), r.found ? r.best.score : NAN,
                 r.found ? r.best.complexity : 0, r.front.size(), r.seconds > 0 ? r.evaluations / r.seconds : 0.0,
                 perRank.c_str());
    std::fflush(stderr);
  };
  return ev;
}

int searchCommand(const SearchArgs& a) {
  try {
    if (!a.out.empty() && !a.resume.empty() && a.out != a.resume)
      throw UsageError{"--resume DIR writes back into DIR: give --out DIR with the same folder, or leave it out"};
    std::string dataText = slurp(a.data);
    auto table = fit::parseDataTable(dataText, a.data);
    if (!table) return reportError(table.error(), a.json);
    Task task;
    Candidate seed = setUp(a, *table, task);
    splitRows(a, *table, task);
    std::optional<Reduction> reduction;
    std::string unitsText;
    if (!a.units.empty()) {  // dimensional analysis: the search runs on the dimensionless groups (search/Units.h)
      if (!a.edit.empty())
        throw UsageError{"--units and --edit: the units reduce the data's columns, which --edit does not search"};
      unitsText = slurp(a.units);
      auto units = parseUnits(unitsText, a.units);
      if (!units) return reportError(units.error(), a.json);
      auto r = reduceUnits(*units, task.vars, task.target, task.params);
      if (!r) return reportError(r.error(), a.json);
      orientGroups(*r, *table, task.train);
      reduction = std::move(*r);
    }
    SearchSettings settings = settingsOf(a, task, dataText, slurp(a.seedProgram), unitsText);
    if (!a.edit.empty()) {  // edits write the definition's body: its arguments are what it reads, not the columns
      settings.edit = a.edit, settings.probe = false, settings.enumerate = 0;
      settings.grammar.vars = editedArguments(seed);
    }
    if (reduction)  // the search runs on the groups: the seed may read no other variable
      for (const auto& name : symbolsOf(seed.value()))
        if (std::find(task.vars.begin(), task.vars.end(), name) != task.vars.end() &&
            std::find(reduction->groupNames.begin(), reduction->groupNames.end(), name) == reduction->groupNames.end())
          throw DmciError(Error{ErrorKind::Usage,
                                "--units: the seed reads the variable '" + name +
                                    "', but the search runs on the dimensionless groups (" + describe(*reduction) +
                                    "): start from a seed of parameters alone (e.g. `a`)",
                                symbolPosition(slurp(a.seedProgram), a.seedProgram, name)});
    std::unique_ptr<IslandExchange> exchange;
    if (a.mpi) {
      std::string why;
      exchange = openMpiExchange(why);
      if (!exchange) throw UsageError{"--mpi: " + why};
      settings.exchange = exchange.get();
    }
    const bool lead = !exchange || exchange->rank() == 0;  // rank 0 reports and writes
    if (!lead) settings.stateFile.clear();
    settings.stopRequested = &stopRequested;
    std::signal(SIGUSR1, requestStop);
    if (a.mpi) std::signal(SIGTERM, requestStop);
    if (const char* fault = std::getenv("DMCI_SEARCH_FAULT")) settings.fault = fault;
    SearchEvents ev = events(a.quiet || !lead);
    if (reduction && ev.note) ev.note("units: " + describe(*reduction));
    auto r = reduction ? runSearchWithUnits(task, settings, seed, *reduction, ev) : runSearch(task, settings, seed, ev);
    if (ev.generation) std::fprintf(stderr, "\r\033[K");
    if (!r)
      return lead ? reportError(r.error(), a.json) : (r.error().kind == ErrorKind::Usage ? kUsageError : kProgramError);
    if (r->follower) return kOk;
    SearchInfo info{
        a.data,        a.target, a.seedProgram, a.seed,
        !a.noGradient, a.smooth, settings.pick, settings.canon == CanonKind::Hash ? "hash" : canonicalBackend()};
    std::string dir = !a.out.empty() ? a.out : a.resume;
    if (!dir.empty())
      if (auto ok = writeSearchOutputs(dir, *r, info); !ok) return reportError(ok.error(), a.json);
    if (a.json) {
      auto j = searchJson(*r, info);
      if (reduction) j["units"] = unitsJson(*reduction);
      std::cout << jsonText(j) << "\n";
    } else if (r->found) {
      const Member pick = reportedMember(*r);
      std::cout << "best (the front's pick" << (r->snapped.reported ? ", its constants snapped" : "") << ": score "
                << pick.score << ", held-out RMSE " << pick.holdoutRmse << ", complexity " << pick.complexity << "):\n"
                << bestProgram(*r, info) << "front (complexity, score, gain per node):\n";
      for (size_t k = 0; k < r->front.size(); ++k) {
        const Member& m = r->front[k];
        std::cout << (k == r->pick.index ? "* " : "  ") << m.complexity << "  " << m.score << "  " << r->pick.gain[k]
                  << "  " << printForms(m.candidate.forms);
      }
      std::cout << r->evaluations << " evaluations (" << r->failed << " failed) in " << r->seconds << " s\n";
      if (a.smooth > 0)
        std::cout << r->smoothed << " candidates kept the fit that went through their smoothed program\n";
    } else {
      std::cout << "no candidate scored in " << r->evaluations << " evaluations\n";
    }
    if (r->stopped) {
      if (!a.quiet)
        std::fprintf(stderr, "dmci search: stopped by a signal after epoch %llu%s; exit %d: resume with --resume\n",
                     static_cast<unsigned long long>(r->epochs),
                     dir.empty() ? " (no --out: nothing to resume from)" : (", checkpoint in " + dir).c_str(),
                     kRequeue);
      return kRequeue;
    }
    return r->found ? kOk : kProgramError;
  } catch (const DmciError& e) {
    return reportError(e.error(), a.json);
  }
}

void addOptions(CLI::App* cmd, SearchArgs& a) {
  cmd->add_option("--data", a.data, "a CSV file: a header of column names, then one row per observation")->required();
  cmd->add_option("--target", a.target, "the column the programs predict")->required();
  cmd->add_option("--seed-program", a.seedProgram,
                  "the program the search starts from (.scm); its free names that are not variables are named "
                  "parameters, fitted (from 1) with the literals")
      ->required();
  cmd->add_option(
      "--edit", a.edit,
      "edit only the body of the seed's (define (NAME ARG ...) BODY): the rest of the program (an integrator, "
      "a recursion, a filter step) stays as written and is differentiated through; edits read NAME's "
      "arguments, not the data's columns");
  cmd->add_option(
      "--units", a.units,
      "FILE: the units of the variables and the target, for dimensional analysis (as AI Feynman does it): the "
      "search runs on the dimensionless groups of the variables and fits target / M, M the monomial of the "
      "variables with the target's units; the programs it reports are written back in the variables. FILE is a "
      "CSV: a header `name,DIM,...` (e.g. name,m,s,kg,T,V; a column named Units or description is free text), "
      "then a row per name with the exponent of each base unit (an integer or p/q), e.g. `F,1,-2,1,0,0`; AI "
      "Feynman's units.csv reads as it is");
  cmd->add_option("--vars", a.vars, "the columns programs may read, comma-separated (default: all but the target)");
  cmd->add_option("--ops", a.ops,
                  "the operators edits may introduce, separated by spaces or commas (any of: " + knownOperators() + ")")
      ->capture_default_str();
  cmd->add_option("--seed", a.seed, "seed of every random draw (and of the --holdout rows)")->capture_default_str();
  cmd->add_option("--jobs,-j", a.jobs,
                  "candidates scored in parallel (0: one per hardware thread; with --mpi, per rank); a seed gives the "
                  "same search for any number, and on any number of ranks, unless --seconds or a candidate's time "
                  "budget cuts it")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--evals", a.evals,
                  "stop at the end of the first epoch that reaches this many evaluations (default 2000 when "
                  "--seconds is not given)");
  cmd->add_option("--seconds", a.seconds, "stop at the end of the first epoch past this much time");
  cmd->add_option("--goal", a.goal, "stop at the end of the epoch whose best score is at most this");
  auto* holdout = cmd->add_option("--holdout", a.holdout, "score on this fraction of the rows, held out (seeded)")
                      ->capture_default_str();
  cmd->add_option("--split", a.split, "COL<VALUE: fit on the rows with COL < VALUE, score on the rest")
      ->excludes(holdout);
  cmd->add_option("--group", a.group,
                  "COL: one structure, its constants fitted per group (each value of COL), the errors pooled over "
                  "every group (e.g. one group per battery cell)");
  cmd->add_option("--score", a.score,
                  "what candidates are ranked by: holdout (the RMSE on the held-out rows) or all (the RMSE on every "
                  "row, the fitted rows' predictions still from the fit on them: a structure must fit its rows and "
                  "predict the others)")
      ->check(CLI::IsMember({"holdout", "all"}))
      ->capture_default_str();
  cmd->add_flag("--no-gradient", a.noGradient,
                "fit nothing: constants change only by the proposer's edits (the baseline for exact gradients)");
  cmd->add_option("--proposer", a.proposer,
                  "'COMMAND ARGS': an external proposer (run by /bin/sh) that reads a JSON prompt on standard input "
                  "and writes a JSON array of programs; asked every --proposer-every generations");
  cmd->add_option("--proposer-timeout", a.proposerTimeout, "seconds before the proposer is killed")
      ->capture_default_str();
  cmd->add_option("--proposer-every", a.proposerEvery, "ask the external proposer every N generations")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--iterations", a.iterations, "Levenberg-Marquardt iterations per start of a candidate's fit")
      ->capture_default_str();
  cmd->add_option("--restarts", a.restarts, "further jittered starts of a candidate's fit")->capture_default_str();
  cmd->add_option("--islands", a.islands, "islands of the population")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--population", a.population, "members per island")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--children", a.children, "children per island per generation")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--epoch-evals", a.epochEvals,
                  "evaluations per island per epoch; at an epoch's end the islands' results are merged, migrants "
                  "move and the checkpoint is written")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_flag("--mpi", a.mpi,
                "run the islands on MPI ranks (under mpirun or srun; the plugin dmci-search-mpi.so): island i on "
                "rank i mod R, rank 0 merging, reporting and writing; the same result as one process. --islands must "
                "be at least the ranks. SIGTERM (as SIGUSR1 always) ends the search after its epoch, checkpointed, "
                "with exit 75");
  cmd->add_option("--max-size", a.maxSize, "the most nodes an edited program may have")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--max-depth", a.maxDepth, "the deepest an edited program may nest")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  cmd->add_option("--candidate-seconds", a.candidateSeconds,
                  "time budget of one run of a candidate (its fit: five times this)")
      ->capture_default_str();
  cmd->add_option("--smooth", a.smooth,
                  "also fit each candidate whose fitted constants sit in branches (a comparison, min, max, abs or a "
                  "step on them) through its Gaussian-smoothed program (smooth interpretation) at width SIGMA, in "
                  "--smooth-stages stages of width SIGMA 4^-k, then crisply from there; the crisp fit that ends lower "
                  "on the training rows is kept (counted as smoothed_fits in --json)");
  cmd->add_option("--smooth-stages", a.smoothStages, "--smooth: the stages")->capture_default_str();
  cmd->add_flag("--smooth-dea", a.smoothDea, "--smooth: each comparison's width SIGMA |grad d| (see dmci grad)");
  cmd->add_option("--canon", a.canon,
                  "how candidates are known as one: ginac (their algebraic normal form, by the plugin "
                  "dmci-canon-ginac.so; without it, the hash) or hash (their S-expression, + and * unordered)")
      ->check(CLI::IsMember({"ginac", "hash"}))
      ->capture_default_str();
  cmd->add_option("--pick-window", a.pickWindow,
                  "the final pick (PySR's rule): among the front members whose loss (MSE) is within this factor of "
                  "the lowest, the one whose loss fell most per node against the next simpler member")
      ->capture_default_str();
  cmd->add_option("--pick-floor", a.pickFloor,
                  "the pick: errors below this fraction of the target's spread count as equal (the fit's precision)")
      ->capture_default_str();
  cmd->add_option("--snap-tolerance", a.snapTolerance,
                  "a constant of the pick snaps to a simple form (p/q, pi, e, square roots) when the refit score "
                  "rises by at most this fraction")
      ->capture_default_str();
  cmd->add_flag("--no-snap", a.noSnap, "report the pick's constants as fitted only");
  cmd->add_flag("--no-probe", a.noProbe,
                "start from the seed alone: no monomial c x1^e1 x2^e2 ... read off a log-log least-squares fit "
                "of the data (the power-law probe) joins the first generation");
  cmd->add_option("--enumerate", a.enumerate,
                  "before the first generation, score every small form C chain(x) of one variable up to this "
                  "size (chains of sqrt, x^2, 1/x, 1/sqrt, e^(kx) with k fitted, exp, log, sin, cos, asin, tanh, "
                  "1-t, 1+t; x times a chain is one more, as is x^p times it for the power p the data follow) and "
                  "then products and sums of each two variables' best chains (each an evaluation of the budget, "
                  "fitted with four times the loop's iterations); the best seed the islands (0: no enumeration)")
      ->capture_default_str();
  cmd->add_option(
         "--terms", a.terms,
         "before the first generation, sums of at most K terms of a library (1, x, x^2, x^3, 1/x, sin x, cos x, "
         "x/(1+x), x/(k+x^2), sin(x-y), products of two...) picked by sparse regression on the exact Jacobian "
         "of the whole program, then fitted and scored as any candidate (0: off; default 4 with --edit, "
         "else 0)")
      ->check(CLI::Range(0, 8));
  cmd->add_option("--enumerate-limit", a.enumerateLimit,
                  "the most forms --enumerate scores, and at most a third of --evals (so --resume with more --evals "
                  "ends where the uninterrupted search does only when both parts reached this limit)")
      ->capture_default_str();
  cmd->add_option("--engine", a.engine, "engine the candidates run on (any in `dmci engines`)")->capture_default_str();
  cmd->add_flag("--json", a.json, "print one JSON object: best, pareto, evaluations, seconds, history");
  cmd->add_option("--out", a.out,
                  "write best.scm, front.md, front.json, front.svg, progress.svg, archive.json (canonical: its "
                  "SHA-256 names the outcome) and the checkpoint (state.json, after every epoch; the one before "
                  "is state.prev.json) here; SIGUSR1 ends the search after its epoch with exit 75");
  cmd->add_option("--resume", a.resume,
                  "continue the search checkpointed in this folder (same command line but for --jobs and the ranks; "
                  "--evals and --seconds count from the start)");
  cmd->add_flag("--quiet,-q", a.quiet, "no progress line and no notes on standard error");
}

}  // namespace

std::function<int()> addSearchCommand(CLI::App& app) {
  auto a = std::make_shared<SearchArgs>();
  auto* cmd = app.add_subcommand("search",
                                 "search program structures and their constants together: edits (or an external "
                                 "proposer) propose, exact gradients fit, held-out error scores");
  addOptions(cmd, *a);
  return [cmd, a] {
    if (!*cmd) return -1;
    a->smoothGiven = cmd->count("--smooth") > 0;
    return searchCommand(*a);
  };
}

}  // namespace dmci::cli
