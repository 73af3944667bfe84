// The pipeline's front: a program read, expanded and held as core expressions, lowered on request for the
// direct route, and run once through the engine registry (the native engine prepares it each time).
#include "driver/Program.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "driver/Engine.h"
#include "expand/Expand.h"
#include "lower/Control.h"
#include "lower/FreeVars.h"
#include "lower/LinkPrelude.h"
#include "lower/Lower.h"
#include "prims/PrimTable.h"
#include "syntax/Reader.h"

namespace dmci {

const char* routeName(Route r) {
  switch (r) {
    case Route::Direct:
      return "direct";
    case Route::Dmci:
      return "dmci";
    case Route::Dmci2:
      return "dmci2";
    case Route::Lantern:
      return "lantern";
    case Route::LanternDmci:
      return "lantern-dmci";
  }
  return "?";
}

std::optional<Route> parseRoute(const std::string& name) {
  for (Route r : {Route::Direct, Route::Dmci, Route::Dmci2, Route::Lantern, Route::LanternDmci})
    if (name == routeName(r)) return r;
  return std::nullopt;
}

Result<Program> Program::fromText(const std::string& text, const std::string& file) {
  auto forms = readAll(text, file);
  if (!forms) return forms.error();
  return fromForms(*forms, file);
}

Result<Program> Program::fromForms(const std::vector<DatumPtr>& forms, const std::string& file) {
  ExpandOptions opts;
  opts.file = file;
  auto core = expandProgram(forms, opts);
  if (!core) return core.error();
  Program p;
  p.file_ = file;
  p.core_ = *core;
  return p;
}

Result<Program> Program::fromFile(const std::string& path) {
  std::ostringstream s;
  if (path == "-") {
    s << std::cin.rdbuf();
    return fromText(s.str(), "<stdin>");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{ErrorKind::Io, "cannot read " + path, {}};
  s << in.rdbuf();
  return fromText(s.str(), path);
}

std::vector<std::string> Program::freeParameters() const {
  std::vector<std::string> out;
  for (const auto& n : freeVars(*core_)) {
    int id = primId(n);
    if (id < 0) out.push_back(n);
  }
  return out;
}

Result<ComputeGraph> Program::compile(const std::vector<std::string>& params) const {
  return catchErrors([&]() -> ComputeGraph {
    auto g = lower(convertControl(linkPrelude(core_, params), params), LowerOptions{params});
    if (!g) throw DmciError(g.error());
    return std::move(*g);
  });
}

Result<Evaluation> Program::evaluate(const std::vector<SeedValue>& seed, const EvalOptions& opts) const {
  return nativeEngine().evaluate(*this, seed, opts);
}

}  // namespace dmci
