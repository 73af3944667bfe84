// `dmci compile` (a program or mce.scm to its ComputeGraph text), `dmci expand` (the core AST), `dmci prims` (the
// primitive table) and `dmci engines` (the engine registry).
#include "cli/Compile.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/Exit.h"
#include "driver/Engine.h"
#include "driver/Program.h"
#include "expand/Expand.h"
#include "mce/Mce.h"
#include "prims/PrimTable.h"
#include "support/AtomicFile.h"
#include "support/JsonText.h"

namespace dmci::cli {
namespace {

using json = nlohmann::ordered_json;

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

int compileCommand(const std::string& file, const std::string& out, const std::vector<std::string>& params) {
  // mce.scm is compiled as the evaluator (its internal names allowed), anything else as a user program.
  Result<ComputeGraph> g = Error{};
  if (endsWith(file, "mce.scm")) {
    std::ifstream in(file);
    std::stringstream s;
    s << in.rdbuf();
    if (s.str() != mceSource())
      return reportError(Error{ErrorKind::Usage, file + " differs from the mce.scm this dmci was built with", {}},
                         false);
    g = compileMce();
  } else {
    auto program = Program::fromFile(file);
    if (!program) return reportError(program.error(), false);
    g = program->compile(params.empty() ? program->freeParameters() : params);
  }
  if (!g) return reportError(g.error(), false);
  std::string text = printGraph(*g);
  if (out.empty() || out == "-") {
    std::cout << text;
  } else if (auto written = writeFileAtomically(out, text); !written) {
    return reportError(written.error(), false);
  }
  return kOk;
}

int primsCommand(bool asJson) {
  json rows = json::array();
  for (const auto& p : primitives()) {
    if (p.family == PrimFamily::Internal || p.name[0] == '%') continue;  // the library's own rows
    if (asJson) {
      rows.push_back({{"name", p.name},
                      {"min", p.minArgs},
                      {"max", p.maxArgs},
                      {"family", familyName(p.family)},
                      {"doc", p.doc},
                      {"adjoint", p.partials},
                      {"scheme", p.prelude != nullptr}});
    } else {
      std::string arity = std::to_string(p.minArgs) + (p.maxArgs < 0            ? "+"
                                                       : p.maxArgs == p.minArgs ? ""
                                                                                : "-" + std::to_string(p.maxArgs));
      std::cout << p.name << "\t" << arity << "\t" << familyName(p.family) << "\t" << p.doc;
      if (p.partials && *p.partials) std::cout << "  [adjoint: " << p.partials << "]";
      std::cout << "\n";
    }
  }
  if (asJson) std::cout << jsonText(rows, 1) << "\n";
  return kOk;
}

int expandCommand(const std::string& file) {
  auto program = Program::fromFile(file);
  if (!program) return reportError(program.error(), false);
  std::cout << print(*program->core()) << "\n";
  return kOk;
}

// Each engine and whether it can run here (a plugin is opened to find out).
int enginesCommand() {
  for (const auto& name : engineNames()) {
    auto e = engineNamed(name);
    std::cout << name << "\t" << (e ? "available" : "unavailable: " + e.error().message) << "\n";
  }
  return kOk;
}

}  // namespace

std::function<int()> addCompileCommand(CLI::App& app) {
  struct Args {
    std::string file, out;
    std::vector<std::string> params;
  };
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand("compile", "lower a program to its ComputeGraph text");
  c->add_option("program", a->file,
                "the program (.scm; - for standard input); dmci/mce/mce.scm gives the "
                "evaluator's graph")
      ->required();
  c->add_option("-o,--output", a->out, "output file (default: standard output; written atomically)");
  c->add_option("--params", a->params, "parameter names in order (default: the program's free variables)")
      ->delimiter(',');
  return [c, a] { return *c ? compileCommand(a->file, a->out, a->params) : -1; };
}

std::function<int()> addExpandCommand(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* c = app.add_subcommand("expand", "print a program's core AST after expansion");
  c->add_option("program", *file, "the program (.scm; - for standard input)")->required();
  return [c, file] { return *c ? expandCommand(*file) : -1; };
}

std::function<int()> addPrimsCommand(CLI::App& app) {
  auto asJson = std::make_shared<bool>(false);
  auto* c = app.add_subcommand("prims", "list the primitive table: arity, family, doc and adjoint rule");
  c->add_flag("--json", *asJson, "print JSON");
  return [c, asJson] { return *c ? primsCommand(*asJson) : -1; };
}

std::function<int()> addEnginesCommand(CLI::App& app) {
  auto* c = app.add_subcommand("engines", "list the engines and whether each can run here");
  return [c] { return *c ? enginesCommand() : -1; };
}

}  // namespace dmci::cli
