// libdmci.so's C API (dmci.h) over the engine seam: a handle holds the program read, expanded and prepared once
// (shared, read-only), and a pool of prepared runs, the per-evaluation state, one per concurrent call. Every entry
// point catches what the pipeline throws and turns it into a status and a message: no exception crosses.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "capi/dmci.h"
#include "driver/Engine.h"
#include "driver/Program.h"
#include "engines/native/Evaluator.h"
#include "fit/Fit.h"
#include "fit/FitReport.h"
#include "support/JsonNumber.h"
#include "support/JsonText.h"
#include "support/Plugin.h"
#include "support/Split.h"

#ifndef DMCI_VERSION_STRING
#define DMCI_VERSION_STRING "0.0.0"
#endif

namespace {

using namespace dmci;

// One prepared run with the description of its batches' arrays (reused: a warm loop of lanes calls allocates
// nothing).
struct Slot {
  std::unique_ptr<PreparedRun> run;
  LaneArrays arrays;
};

// A failure on its way out of the library: a status and the message.
struct Failure {
  int32_t status;
  std::string message;
};

int32_t statusOf(ErrorKind k) {
  switch (k) {
    case ErrorKind::Usage:
      return DMCI_ERR_USAGE;
    case ErrorKind::Io:
      return DMCI_ERR_IO;
    default:
      return DMCI_ERR_PROGRAM;
  }
}

[[noreturn]] void fail(const Error& e) { throw Failure{statusOf(e.kind), e.str()}; }
[[noreturn]] void usage(const std::string& what) { throw Failure{DMCI_ERR_USAGE, "usage: " + what}; }

template <class T>
T take(Result<T> r) {
  if (!r) fail(r.error());
  return std::move(*r);
}

char* copyString(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

// Runs `body`, turning whatever it throws into a status (and the message, when the caller asked for it).
template <class F>
int32_t guarded(char** error, F&& body) {
  if (error) *error = nullptr;
  Failure f{DMCI_OK, ""};
  try {
    body();
    return DMCI_OK;
  } catch (const Failure& e) {
    f = e;
  } catch (const DmciError& e) {
    f = {statusOf(e.error().kind), e.error().str()};
  } catch (const std::bad_alloc&) {
    f = {DMCI_ERR_INTERNAL, "internal: out of memory"};
  } catch (const std::exception& e) {
    f = {DMCI_ERR_INTERNAL, std::string("internal: ") + e.what()};
  } catch (...) {  // reported, not hidden: an exception past a C caller's frames would terminate its process
    f = {DMCI_ERR_INTERNAL, "internal: an exception that is not a std::exception"};
  }
  if (error) *error = copyString(f.message);
  return f.status;
}

// libdmci.so's own folder: its plugins are beside it (the build tree) or in dmci/ beside it (PREFIX/lib/dmci).
// A plugin binds to the core's symbols in this library, so the library makes itself global first: ctypes and
// dlopen load it RTLD_LOCAL, where a plugin opened later would not see them.
void findPluginsBesideLibrary() {
  static std::once_flag once;
  std::call_once(once, [] {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&dmci_version), &info) || !info.dli_fname) return;
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
    std::error_code ec;
    auto self = std::filesystem::canonical(info.dli_fname, ec);
    if (ec) return;
    addPluginFolder(self.parent_path());
    addPluginFolder(self.parent_path() / "dmci");
  });
}

EvalOptions evalOptions(const dmci_options& o) {
  EvalOptions opts;
  if (auto route = parseRoute(o.route ? o.route : "dmci"))
    opts.route = *route;
  else
    usage(std::string("route '") + o.route + "': direct, dmci, dmci2, lantern or lantern-dmci");
  opts.gradient = true;
  if (o.max_steps) opts.budget.steps = o.max_steps;
  if (o.max_heap) opts.budget.heapCells = o.max_heap;
  if (o.max_seconds > 0) opts.budget.seconds = o.max_seconds;
  if (o.threads < 0) usage("threads: 0 (one per hardware thread) or more");
  opts.threads = o.threads;
  return opts;
}

}  // namespace

struct dmci_program {
  Program program;
  std::string text, name, engineName;
  Engine* engine = nullptr;
  EvalOptions opts;
  PreparedProgram prepared;
  std::vector<std::string> names;
  // A gradient's entries as the caller sees them: every parameter (0 for one not in wrt), then the literals'
  // positions when wrt asks for them.
  std::vector<std::string> gradientNames;
  std::vector<size_t> wrtIndex;  // the caller's entry of each of the engine's gradient entries (its keys' order)
  std::mutex mu;
  std::vector<std::unique_ptr<Slot>> idle;

  dmci_program(Program p, std::string t, std::string n)
      : program(std::move(p)), text(std::move(t)), name(std::move(n)) {}

  std::unique_ptr<Slot> makeSlot() {
    auto slot = std::make_unique<Slot>();
    slot->run = take(engine->prepare(prepared, opts));
    return slot;
  }
};

namespace {

// A slot of the handle's pool for one call: an idle one, or a new one when every slot is busy; back on return.
class Lease {
 public:
  explicit Lease(dmci_program& p) : p_(p) {
    {
      std::lock_guard<std::mutex> g(p_.mu);
      if (!p_.idle.empty()) slot_ = std::move(p_.idle.back()), p_.idle.pop_back();
    }
    if (!slot_) slot_ = p_.makeSlot();
  }
  ~Lease() {
    std::lock_guard<std::mutex> g(p_.mu);
    p_.idle.push_back(std::move(slot_));
  }
  Slot& operator*() { return *slot_; }
  Slot* operator->() { return slot_.get(); }

 private:
  dmci_program& p_;
  std::unique_ptr<Slot> slot_;
};

// wrt as `dmci grad --wrt` reads it: parameter names, "literals" (every numeric literal), "all" (every parameter
// and every literal); empty: every parameter.
void setWrt(dmci_program& p, const std::string& wrt) {
  auto add = [&](const std::string& w) {
    if (std::find(p.names.begin(), p.names.end(), w) == p.names.end()) {
      std::string known;
      for (const auto& n : p.names) known += (known.empty() ? "" : ", ") + n;
      usage("wrt '" + w + "' is not a parameter of " + p.name + " (parameters: " + (known.empty() ? "none" : known) +
            "; or 'literals', 'all')");
    }
    if (std::find(p.opts.wrt.begin(), p.opts.wrt.end(), w) != p.opts.wrt.end()) usage("wrt '" + w + "' is named twice");
    p.opts.wrt.push_back(w);
  };
  for (const auto& w : wrt.empty() ? p.names : cli::splitCommas(wrt)) {
    if (w == "literals" || w == "all") {
      if (p.opts.wrtLiterals) usage("wrt: 'literals' or 'all' is named twice");
      p.opts.wrtLiterals = true;
    }
    if (w == "all")
      for (const auto& n : p.names) add(n);
    else if (w != "literals")
      add(w);
  }
}

dmci_program* open(Program program, std::string text, std::string name, const dmci_options* options) {
  findPluginsBesideLibrary();
  dmci_options o{};
  if (options) o = *options;
  auto p = std::make_unique<dmci_program>(std::move(program), std::move(text), std::move(name));
  p->opts = evalOptions(o);
  p->engineName = o.engine ? o.engine : "replay";
  p->engine = take(engineNamed(p->engineName));
  if (auto why = p->engine->unsupported(p->opts)) usage(*why);
  p->names = p->program.freeParameters();
  setWrt(*p, o.wrt ? o.wrt : "");
  p->prepared = take(prepareProgram(p->program, p->names, p->opts));
  p->gradientNames = p->names;
  for (size_t k = 0; k < p->opts.wrt.size(); ++k)
    p->wrtIndex.push_back(
        static_cast<size_t>(std::find(p->names.begin(), p->names.end(), p->opts.wrt[k]) - p->names.begin()));
  if (p->opts.wrtLiterals) {  // the literals' keys, known once prepared: the native machine's, which every engine's
    Evaluator probe(p->prepared, p->opts);  // gradient follows (wrt names, then literals in source order)
    if (const Error* e = probe.setupError()) fail(*e);
    auto keys = probe.gradientKeys();
    for (size_t k = p->opts.wrt.size(); k < keys.size(); ++k) {
      p->wrtIndex.push_back(p->gradientNames.size());
      p->gradientNames.push_back(keys[k]);
    }
  }
  // One run prepared now, so that an engine's set-up error is the open's, not the first call's.
  p->idle.push_back(p->makeSlot());
  return p.release();
}

void needNumber(const dmci_program& p, bool isData, bool isTensor, const std::string& written) {
  if (isData) fail(notANumberOrTensor(written, p.prepared.valuePos));
  if (isTensor)
    fail(Error{ErrorKind::Type, "the program's value is a tensor; the C API returns one number per lane",
               p.prepared.valuePos});
}

// A fit's settings from dmci.h's JSON (dmci fit's option names); anything else is a usage error.
void readFitOptions(const std::string& text, fit::ModelSpec& spec, fit::FitSettings& settings, std::string& dataName) {
  nlohmann::json o;
  try {
    o = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    usage(std::string("fit options: not JSON (") + e.what() + ")");
  }
  if (!o.is_object()) usage("fit options: a JSON object");
  bool lrGiven = false;
  try {
    for (const auto& [key, v] : o.items()) {
      if (key == "optimizer")
        settings.optimizer = v.get<std::string>();
      else if (key == "steps")
        settings.steps = v.get<int>();
      else if (key == "restarts")
        settings.restarts = v.get<int>();
      else if (key == "seed")
        settings.seed = v.get<uint64_t>();
      else if (key == "lr")
        settings.method.lr = v.get<double>(), lrGiven = true;
      else if (key == "loss") {
        auto loss = fit::parseLoss(v.get<std::string>());
        if (!loss) usage("fit options: loss: mse, mae, huber or huber:DELTA");
        spec.loss = *loss;
      } else if (key == "wrt")
        spec.wrt = cli::splitCommas(v.get<std::string>());
      else if (key == "bind") {
        if (!v.is_object()) usage("fit options: bind: an object of name: start");
        for (const auto& [name, x] : v.items()) spec.binds.emplace_back(name, x.get<double>());
      } else if (key == "transform")
        spec.transforms = take(fit::parseTransforms(v.get<std::string>()));
      else if (key == "data_name")
        dataName = v.get<std::string>();
      else
        usage("fit options: unknown setting '" + key +
              "' (optimizer, steps, restarts, seed, lr, loss, wrt, bind, transform, data_name)");
    }
  } catch (const nlohmann::json::exception& e) {
    usage(std::string("fit options: ") + e.what());
  }
  if (settings.steps < 0 || settings.restarts < 0)
    usage("fit options: steps >= 0 (0: the method's default), restarts >= 0");
  // dmci fit's default step: lbfgs's first step length 1, adam's rate 0.05.
  if (!lrGiven) settings.method.lr = settings.optimizer == "lbfgs" ? 1.0 : 0.05;
  settings.method.seed = settings.seed;
}

}  // namespace

extern "C" {

const char* dmci_version(void) { return DMCI_VERSION_STRING; }
int32_t dmci_api_version(void) { return DMCI_API_VERSION; }

int32_t dmci_open_text(const char* text, const char* name, const dmci_options* options, dmci_program** out,
                       char** error) {
  return guarded(error, [&] {
    if (!text || !out) usage("dmci_open_text needs the text and somewhere to put the handle");
    *out = nullptr;
    std::string file = name ? name : "<text>";
    *out = open(take(Program::fromText(text, file)), text, file, options);
  });
}

int32_t dmci_open_file(const char* path, const dmci_options* options, dmci_program** out, char** error) {
  return guarded(error, [&] {
    if (!path || !out) usage("dmci_open_file needs a path and somewhere to put the handle");
    *out = nullptr;
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    if (!in) throw Failure{DMCI_ERR_IO, std::string("io: cannot read ") + path};
    s << in.rdbuf();  // an empty file inserts nothing (and sets failbit): the reader then names what is missing
    *out = open(take(Program::fromText(s.str(), path)), s.str(), path, options);
  });
}

int64_t dmci_param_count(const dmci_program* program) {
  return program ? static_cast<int64_t>(program->names.size()) : -1;
}

const char* dmci_param_name(const dmci_program* program, int64_t i) {
  if (!program || i < 0 || static_cast<size_t>(i) >= program->names.size()) return nullptr;
  return program->names[static_cast<size_t>(i)].c_str();
}

int64_t dmci_gradient_count(const dmci_program* program) {
  return program ? static_cast<int64_t>(program->gradientNames.size()) : -1;
}

const char* dmci_gradient_name(const dmci_program* program, int64_t i) {
  if (!program || i < 0 || static_cast<size_t>(i) >= program->gradientNames.size()) return nullptr;
  return program->gradientNames[static_cast<size_t>(i)].c_str();
}

int32_t dmci_value_gradient(dmci_program* program, const double* params, double* value, double* grad, char** error) {
  return guarded(error, [&] {
    if (!program || !value || (!params && !program->names.empty()))
      usage("dmci_value_gradient needs a handle, the parameters and somewhere to put the value");
    std::vector<double> seed(params, params + program->names.size());
    Lease slot(*program);
    auto ev = take(slot->run->run(seed));
    needNumber(*program, ev.isData(), ev.isTensor, ev.written);
    if (ev.gradient.size() != program->wrtIndex.size()) usage("internal: the gradient has an entry per wrt name");
    *value = ev.value;
    if (!grad) return;
    std::fill(grad, grad + program->gradientNames.size(), 0.0);
    for (size_t k = 0; k < ev.gradient.size(); ++k) grad[program->wrtIndex[k]] = ev.gradient[k].second;
  });
}

int32_t dmci_lanes(dmci_program* program, int64_t lanes, const double* params, double* values, double* grads,
                   char** error) {
  return guarded(error, [&] {
    if (!program || !values || (!params && !program->names.empty()))
      usage("dmci_lanes needs a handle, the parameters and somewhere to put the values");
    if (lanes < 1) usage("dmci_lanes: at least one lane");
    const size_t p = program->names.size(), g = program->gradientNames.size(), b = static_cast<size_t>(lanes);
    Lease slot(*program);
    // The caller's row-major arrays, read and written in place: parameter k of lane l at params[l * p + k],
    // gradient entry j at grads[l * g + j].
    LaneArrays& a = slot->arrays;
    a.lanes = lanes;
    a.param.resize(p);
    for (size_t k = 0; k < p; ++k) a.param[k] = params + k;
    a.paramStride = p;
    a.gradientStride = g;
    a.value = values;
    a.gradient.clear();
    if (grads)
      for (size_t j : program->wrtIndex) a.gradient.push_back(grads + j);
    if (auto err = slot->run->runLanesIn(a)) fail(*err);
    needNumber(*program, false, a.isTensor, "");
    if (!grads || program->wrtIndex.size() == g) return;
    for (size_t j = 0; j < g; ++j)  // a parameter not in wrt: its gradient is 0
      if (std::find(program->wrtIndex.begin(), program->wrtIndex.end(), j) == program->wrtIndex.end())
        for (size_t l = 0; l < b; ++l) grads[l * g + j] = 0.0;
  });
}

int32_t dmci_fit(dmci_program* program, int64_t columns, const char* const* names, const double* const* data,
                 int64_t rows, const char* target, const char* options_json, char** json_out, char** error) {
  return guarded(error, [&] {
    if (!program || !json_out) usage("dmci_fit needs a handle and somewhere to put the result");
    *json_out = nullptr;
    if (columns < 0 || rows < 0 || (columns > 0 && (!names || !data)))
      usage("dmci_fit: the columns' names and numbers");
    fit::DataTable table;
    for (int64_t c = 0; c < columns; ++c) {
      if (!names[c] || (!data[c] && rows > 0)) usage("dmci_fit: column " + std::to_string(c) + " is NULL");
      table.names.emplace_back(names[c]);
      table.columns.emplace_back(data[c], data[c] + rows);
    }
    // A row's place is its number (from 1), in the data named by "data_name" or, by default, by its columns.
    for (int64_t r = 0; r < rows; ++r) table.lines.push_back(static_cast<uint32_t>(r + 1));
    table.path = "<columns";
    for (size_t c = 0; c < table.names.size(); ++c) table.path += (c ? ", " : " ") + table.names[c];
    table.path += ">";
    fit::ModelSpec spec;
    spec.programPath = program->name;
    spec.programText = program->text;
    spec.engine = program->engineName;
    spec.options.route = program->opts.route;
    spec.options.threads = program->opts.threads;
    spec.options.budget = program->opts.budget;
    if (target) {
      if (rows < 1) usage("dmci_fit: a target needs at least one row of data");
      spec.data = &table;
      spec.target = target;
    } else if (columns > 0) {
      usage("dmci_fit: data columns without a target (objective mode binds no columns here)");
    }
    fit::FitSettings settings;
    readFitOptions(options_json ? options_json : "{}", spec, settings, table.path);
    for (size_t c = 0; c < table.columns.size(); ++c)  // as the CSV reader refuses a cell that is not finite
      for (size_t r = 0; r < table.columns[c].size(); ++r)
        if (!std::isfinite(table.columns[c][r]))
          usage("dmci_fit: " + table.path + ": row " + std::to_string(r + 1) + " of column '" + table.names[c] +
                "' is " + jsonNumber(table.columns[c][r]).get<std::string>() + ", not a finite number");
    auto model = take(fit::makeModel(spec));
    auto r = take(fit::runFit(*model, settings));
    fit::FitInfo info{program->name,    target ? table.path : "", target ? target : "", settings.optimizer,
                      spec.loss.name(), program->engineName,      settings.seed,        std::nullopt};
    *json_out = copyString(jsonText(fit::resultJson(model->fitted(), r, info)));
    if (r.nonFinite) throw Failure{DMCI_ERR_PROGRAM, "fit: " + r.stop};
  });
}

void dmci_free(dmci_program* program) { delete program; }

void dmci_string_free(char* s) { std::free(s); }

}  // extern "C"
