// libdmci.so's C API (dmci.h) over the engine seam: a handle holds the program read, expanded and prepared once
// (shared, read-only), and a pool of prepared runs, the per-evaluation state, one per concurrent call. Every entry
// point catches what the pipeline throws and turns it into a status and a message: no exception crosses.
#include <dlfcn.h>

#include <algorithm>
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
#include "fit/Fit.h"
#include "fit/FitReport.h"
#include "support/ParallelLanes.h"
#include "support/Plugin.h"
#include "support/Split.h"

#ifndef DMCI_VERSION_STRING
#define DMCI_VERSION_STRING "0.0.0"
#endif

namespace {

using namespace dmci;

// One prepared run with the scratch its batches reuse (so that a warm loop of lanes calls allocates nothing).
struct Slot {
  std::unique_ptr<PreparedRun> run;
  std::vector<std::vector<double>> in;  // [param][lane]
  LaneEvaluation out;
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
  std::vector<size_t> wrtIndex;  // the parameter of each gradient entry (opts.wrt's order)
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
  std::string wrt = o.wrt ? o.wrt : "";
  for (const auto& w : wrt.empty() ? p->names : cli::splitCommas(wrt)) {
    size_t k = 0;
    while (k < p->names.size() && p->names[k] != w) ++k;
    if (k == p->names.size()) {
      std::string known;
      for (const auto& n : p->names) known += (known.empty() ? "" : ", ") + n;
      usage("wrt '" + w + "' is not a parameter of " + p->name + " (parameters: " + (known.empty() ? "none" : known) +
            ")");
    }
    for (size_t j : p->wrtIndex)
      if (j == k) usage("wrt '" + w + "' is named twice");
    p->opts.wrt.push_back(w);
    p->wrtIndex.push_back(k);
  }
  p->prepared = take(prepareProgram(p->program, p->names, p->opts));
  // One run prepared now, so that an engine's set-up error is the open's, not the first call's.
  p->idle.push_back(p->makeSlot());
  return p.release();
}

// The lanes [0, b) in blocks on the lane threads (the rows-to-columns copies of a large batch are memory-bound
// work that would otherwise be a serial tail after the engine's parallel one).
template <class F>
void inBlocks(const dmci_program& p, size_t b, F&& body) {
  constexpr size_t kBlock = 8192;
  if (b <= kBlock) return body(size_t{0}, b);
  forChunks(laneThreads(p.opts), (b + kBlock - 1) / kBlock,
            [&](size_t c, int) { body(c * kBlock, std::min(b, (c + 1) * kBlock)); });
}

void needNumber(const dmci_program& p, bool isData, bool isTensor, const std::string& written) {
  if (isData) fail(notANumberOrTensor(written, p.prepared.valuePos));
  if (isTensor)
    fail(Error{ErrorKind::Type, "the program's value is a tensor; the C API returns one number per lane",
               p.prepared.valuePos});
}

// A fit's settings from dmci.h's JSON (dmci fit's option names); anything else is a usage error.
void readFitOptions(const std::string& text, fit::ModelSpec& spec, fit::FitSettings& settings) {
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
      else
        usage("fit options: unknown setting '" + key +
              "' (optimizer, steps, restarts, seed, lr, loss, wrt, bind, transform)");
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
    std::fill(grad, grad + program->names.size(), 0.0);
    for (size_t k = 0; k < ev.gradient.size(); ++k) grad[program->wrtIndex[k]] = ev.gradient[k].second;
  });
}

int32_t dmci_lanes(dmci_program* program, int64_t lanes, const double* params, double* values, double* grads,
                   char** error) {
  return guarded(error, [&] {
    if (!program || !values || (!params && !program->names.empty()))
      usage("dmci_lanes needs a handle, the parameters and somewhere to put the values");
    if (lanes < 1) usage("dmci_lanes: at least one lane");
    const size_t p = program->names.size(), b = static_cast<size_t>(lanes);
    Lease slot(*program);
    slot->in.resize(p);
    for (auto& col : slot->in) col.resize(b);
    inBlocks(*program, b, [&](size_t from, size_t to) {
      for (size_t k = 0; k < p; ++k) {
        double* col = slot->in[k].data();
        for (size_t l = from; l < to; ++l) col[l] = params[l * p + k];
      }
    });
    LaneEvaluation& out = slot->out;
    if (auto err = slot->run->runLanesInto(slot->in, lanes, out)) fail(*err);
    needNumber(*program, false, out.isTensor, "");
    if (out.value.size() != b || out.gradient.size() != program->wrtIndex.size())
      usage("internal: the batch has a value per lane and a gradient row per wrt name");
    inBlocks(*program, b, [&](size_t from, size_t to) {
      std::copy(out.value.begin() + static_cast<std::ptrdiff_t>(from),
                out.value.begin() + static_cast<std::ptrdiff_t>(to), values + from);
      if (!grads) return;
      if (program->wrtIndex.size() != p) std::fill(grads + from * p, grads + to * p, 0.0);
      for (size_t k = 0; k < out.gradient.size(); ++k) {
        const double* g = out.gradient[k].data();
        const size_t j = program->wrtIndex[k];
        for (size_t l = from; l < to; ++l) grads[l * p + j] = g[l];
      }
    });
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
    table.path = "<data>";
    for (int64_t c = 0; c < columns; ++c) {
      if (!names[c] || (!data[c] && rows > 0)) usage("dmci_fit: column " + std::to_string(c) + " is NULL");
      table.names.emplace_back(names[c]);
      table.columns.emplace_back(data[c], data[c] + rows);
    }
    for (int64_t r = 0; r < rows; ++r) table.lines.push_back(static_cast<uint32_t>(r + 2));  // as a CSV's lines
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
    readFitOptions(options_json ? options_json : "{}", spec, settings);
    auto model = take(fit::makeModel(spec));
    auto r = take(fit::runFit(*model, settings));
    fit::FitInfo info{program->name,    target ? "<data>" : "", target ? target : "", settings.optimizer,
                      spec.loss.name(), program->engineName,    settings.seed};
    *json_out = copyString(fit::resultJson(model->fitted(), r, info).dump());
    if (r.nonFinite) throw Failure{DMCI_ERR_PROGRAM, "fit: " + r.stop};
  });
}

void dmci_free(dmci_program* program) { delete program; }

void dmci_string_free(char* s) { std::free(s); }

}  // extern "C"
