// The fit's objective on an engine: what is fitted, the program prepared once, and the loss with its gradient.
#include "fit/Model.h"

#include <algorithm>
#include <cmath>

#include "driver/Program.h"
#include "fit/Names.h"
#include "smooth/Smooth.h"
#include "support/Csv.h"
#include "syntax/Reader.h"

namespace dmci::fit {

namespace {

Error usage(const std::string& msg) { return Error{ErrorKind::Usage, msg, {}}; }

// The whole-column bindings as definitions, put before the program's forms: (define NAME (list x1 x2 ...)), or
// (vec ...), built as datums (in a source of their own, "<data>") that hold the column's doubles themselves: no
// number is printed and read back, and no name is written into text.
Result<std::vector<DatumPtr>> dataForms(const std::vector<DataBinding>& bindings) {
  std::vector<DatumPtr> forms;
  const uint32_t file = internFile("<data>");
  for (const auto& b : bindings) {
    std::string option = b.vector ? "--data-vec " : "--data-list ";
    // The name must read as that one symbol and nothing more: a name no program could refer to is a mistake.
    if (!readsAsBareSymbol(b.name))
      return usage(option + b.name + "=...: the name must be a plain symbol (no spaces, parentheses, quotes, ;)");
    auto table = readDataTable(b.path);
    if (!table) return table.error();
    auto col = table->column(b.column, option + b.name);
    if (!col) return col.error();
    const uint32_t line = static_cast<uint32_t>(forms.size() + 1);
    std::vector<DatumPtr> items{Datum::symbol(b.vector ? "vec" : "list", SrcPos{file, line, 1})};
    const auto& values = table->columns[static_cast<size_t>(*col)];
    for (size_t i = 0; i < values.size(); ++i)
      items.push_back(Datum::num(values[i], SrcPos{file, line, static_cast<uint32_t>(i + 2)}));
    forms.push_back(Datum::list({Datum::symbol("define", SrcPos{file, line, 1}), Datum::symbol(b.name, {file, line, 1}),
                                 Datum::list(std::move(items), SrcPos{file, line, 1})},
                                SrcPos{file, line, 1}));
  }
  return forms;
}

// `a` then `b`.
std::vector<DatumPtr> joinedForms(const std::vector<DatumPtr>& a, const std::vector<DatumPtr>& b) {
  std::vector<DatumPtr> out = a;
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// The literal keys of the user's program, from one gradient evaluation at the start (row 0 in data mode).
Result<std::vector<std::string>> literalKeysOf(const Program& p, const std::vector<SeedValue>& seed,
                                               const Budget& budget) {
  EvalOptions o;
  o.wrtLiterals = true;
  o.budget = budget;  // the fit's own budget: a program that loops stops here as it would in the fit
  auto ev = nativeEngine().evaluate(p, seed, o);
  if (!ev) return ev.error();
  std::vector<std::string> keys;
  for (const auto& [k, v] : ev->gradient) keys.push_back(k);
  return keys;
}

struct Wrt {
  std::vector<std::string> names;
  bool literals = false;
};

// --wrt resolved: names, 'literals', 'all' (every --bind name and every literal); by default the --bind names,
// or the literals when nothing is bound.
Wrt resolveWrt(const ModelSpec& s) {
  Wrt w;
  std::vector<std::string> items = s.wrt;
  if (items.empty()) items = {s.binds.empty() ? "literals" : "params"};
  for (const auto& item : items) {
    if (item == "literals" || item == "all") w.literals = true;
    if (item == "all" || item == "params") {
      for (const auto& [n, v] : s.binds)
        if (!contains(w.names, n)) w.names.push_back(n);
    } else if (item != "literals" && !contains(w.names, item)) {
      w.names.push_back(item);
    }
  }
  return w;
}

// The --bind entry of `name`, or null.
const std::pair<std::string, double>* bindOf(const ModelSpec& s, const std::string& name) {
  auto at = std::find_if(s.binds.begin(), s.binds.end(), [&](const auto& b) { return b.first == name; });
  return at == s.binds.end() ? nullptr : &*at;
}

// Whether the symbol `name` occurs anywhere in the forms (as a variable, a definition, a primitive's name, quoted).
bool mentions(const std::vector<DatumPtr>& forms, const std::string& name) {
  for (const auto& d : forms) {
    if (!d) continue;
    if (d->kind == DatumKind::Symbol && d->text == name) return true;
    if (mentions(d->items, name) || (d->tail && mentions({d->tail}, name))) return true;
  }
  return false;
}

// A --bind name that is not a free variable but that the program names (it defines it, or it is a primitive's
// name) is a mistake, not an unused name: binding it would not change what the program means by it.
std::optional<Error> bindsOfNamesNotFree(const ModelSpec& s, const std::vector<DatumPtr>& forms,
                                         const std::vector<std::string>& free) {
  for (const auto& [name, v] : s.binds)
    if (!contains(free, name) && mentions(forms, name))
      return usage("--bind " + name + ": not a free variable of " + s.programPath +
                   " (the program defines it, or it is a primitive's name; its free variables: " + joined(free) + ")");
  return std::nullopt;
}

// The fitted parameters with their starts (from --bind) and transforms. A name the program does not use is fitted
// only when --bind gives its start (it is then unused: Fitted::unused); with no --bind it is a mistake.
Result<Fitted> fittedParameters(const ModelSpec& s, const Wrt& w, const std::vector<std::string>& free) {
  Fitted f;
  for (const auto& name : w.names) {
    if (!contains(free, name) && !bindOf(s, name))
      return usage("--wrt " + name + ": not a free variable of " + s.programPath +
                   " (its free variables: " + joined(free) + ")");
    if (s.data && s.data->find(name) >= 0)
      return usage("--wrt " + name + ": it is also a column of " + s.data->path +
                   "; a fitted parameter is one "
                   "value for every row");
    auto bind = bindOf(s, name);
    if (!bind) return usage("--wrt " + name + ": give its start with --bind " + name + "=NUMBER");
    f.names.push_back(name), f.variables.push_back(name), f.start.push_back(bind->second);
  }
  f.parameters = f.names.size();
  for (const auto& [name, v] : s.binds)
    if (!contains(free, name) && !contains(f.unused, name)) f.unused.push_back(name);
  return f;
}

// The fitted variables the program uses (not Fitted::unused), and their places in θ.
std::vector<std::string> usedVariables(const Fitted& f) {
  std::vector<std::string> out;
  for (size_t k = 0; k < f.variables.size(); ++k)
    if (!f.isUnused(f.variables[k])) out.push_back(f.variables[k]);
  return out;
}
std::vector<size_t> usedPlaces(const Fitted& f) {
  std::vector<size_t> out;
  for (size_t k = 0; k < f.variables.size(); ++k)
    if (!f.isUnused(f.variables[k])) out.push_back(k);
  return out;
}

// Transforms by name or literal key; each start must lie inside its transform's range.
std::optional<Error> applyTransforms(const ModelSpec& s, Fitted& f) {
  f.transforms.assign(f.names.size(), Transform{});
  for (const auto& [name, t] : s.transforms) {
    auto at = std::find(f.names.begin(), f.names.end(), name);
    if (at == f.names.end())
      return usage("--transform " + name + ": not a fitted name (fitted: " + joined(f.names) + ")");
    size_t k = static_cast<size_t>(at - f.names.begin());
    if (!t.contains(f.start[k]))
      return usage("--transform " + name + "=" + t.text() + ": its start " + schemeNumber(f.start[k]) +
                   " is outside the transform's range");
    f.transforms[k] = t;
  }
  return std::nullopt;
}

// Every name the program needs bound, with its role, and the prepared runs (with and without the gradient).
struct Prepared {
  std::vector<std::string> inputs;                    // data columns bound per row (data mode)
  std::vector<std::pair<std::string, double>> fixed;  // --bind names not fitted
  std::vector<size_t> used;                           // the places in θ of the fitted variables the run is given
  std::unique_ptr<PreparedRun> withGradient, valueOnly;
};

// Binds every free variable: a data column (data mode), a fixed --bind, or a fitted variable. A --bind name the
// program does not use (Fitted::unused) is not given to the run.
Result<Prepared> prepareRuns(const ModelSpec& s, const Program& p, const std::vector<std::string>& userFree,
                             const Fitted& f) {
  Prepared out;
  for (const auto& [name, v] : s.binds) {
    if (s.data && s.data->find(name) >= 0) return usage("--bind " + name + ": it is also a column of " + s.data->path);
    if (!contains(f.variables, name) && !f.isUnused(name)) out.fixed.emplace_back(name, v);
  }
  for (const auto& name : userFree) {
    bool bound = contains(f.variables, name) ||
                 std::any_of(s.binds.begin(), s.binds.end(), [&](const auto& b) { return b.first == name; });
    if (bound) continue;
    if (s.data && s.data->find(name) >= 0 && name != s.target) {
      out.inputs.push_back(name);
      continue;
    }
    std::string unused = f.unused.empty() ? "" : "; the program does not use --bind " + joined(f.unused);
    return usage("the free variable '" + name + "' of " + s.programPath + " is " +
                 (s.data ? "neither a column of " + s.data->path + " nor" : "not") + " bound with --bind" + unused);
  }
  if (s.smoothSigma > 0) out.fixed.emplace_back(smooth::kSigmaName, s.smoothSigma);
  std::vector<std::string> params = out.inputs, used = usedVariables(f);
  for (const auto& [n, v] : out.fixed) params.push_back(n);
  params.insert(params.end(), used.begin(), used.end());
  out.used = usedPlaces(f);
  auto engine = engineNamed(s.engine);
  if (!engine) return engine.error();
  EvalOptions o = s.options;
  o.gradient = true, o.wrt = used, o.wrtLiterals = false, o.anyValue = false;
  auto grad = (*engine)->prepare(p, params, o);
  if (!grad) return grad.error();
  o.gradient = false, o.wrt.clear();
  auto value = (*engine)->prepare(p, params, o);
  if (!value) return value.error();
  out.withGradient = std::move(*grad), out.valueOnly = std::move(*value);
  return out;
}

// Smoothing: the width bound to the smoothed program's kSigmaName (a fixed binding), when there is one.
void setSigma(Prepared& p, double sigma) {
  for (auto& [n, v] : p.fixed)
    if (n == smooth::kSigmaName) v = sigma;
}

// The program smoothed over the fitted variables when the spec asks for it (smooth/Smooth.h, si).
// Counts what it smoothed in f.smoothed.
Program smoothedIfAsked(const ModelSpec& s, const Program& p, Fitted& f) {
  if (!(s.smoothSigma > 0)) return p;
  smooth::SmoothSettings settings;
  settings.sigma = s.smoothSigma;
  settings.minWeight = s.smoothMinWeight;
  settings.dea = s.smoothDea;
  settings.maxPaths = s.smoothMaxPaths;
  smooth::SiStats stats;
  Program out = p.withCore(smooth::smoothProgram(p.core(), usedVariables(f), settings, &stats));
  f.smoothed = stats.smoothed;
  return out;
}

// The indices in `keys` of each fitted variable's gradient.
std::vector<size_t> gradientIndex(const std::vector<std::string>& keys, const Fitted& f) {
  std::vector<size_t> out;
  for (const auto& v : f.variables)
    out.push_back(static_cast<size_t>(std::find(keys.begin(), keys.end(), v) - keys.begin()));
  return out;
}

class DataModel : public Model {
 public:
  DataModel(const ModelSpec& s, Fitted f, Prepared p) : spec_(s), p_(std::move(p)) {
    fitted_ = std::move(f);
    target_ = static_cast<size_t>(s.data->find(s.target));
    for (const auto& in : p_.inputs) inputCols_.push_back(static_cast<size_t>(s.data->find(in)));
    train_ = s.trainRows;
    if (train_.empty())
      for (size_t r = 0; r < s.data->rows(); ++r) train_.push_back(r);
  }

  double loss(const std::vector<double>& theta, std::vector<double>* grad) override {
    return lossOn(train_, theta, grad);
  }

  std::optional<double> holdoutLoss(const std::vector<double>& theta) override {
    if (spec_.holdoutRows.empty()) return std::nullopt;
    return lossOn(spec_.holdoutRows, theta, nullptr);
  }

  std::vector<double> predict(const std::vector<double>& theta) override {
    std::vector<size_t> all(spec_.data->rows());
    for (size_t r = 0; r < all.size(); ++r) all[r] = r;
    return evaluate(all, theta, false).value;
  }
  std::vector<std::string> inputs() const override { return p_.inputs; }
  void setSmoothSigma(double sigma) override { setSigma(p_, sigma); }

  size_t residualRows() const override { return train_.size(); }
  const Loss* rowLoss() const override { return &spec_.loss; }
  double targetNorm() const override {
    double sum = 0;
    for (size_t r : train_) sum += spec_.data->columns[target_][r] * spec_.data->columns[target_][r];
    return std::sqrt(sum);
  }
  void residuals(const std::vector<double>& theta, std::vector<double>& r, std::vector<double>* jacobian) override {
    const LaneEvaluation& ev = evaluate(train_, theta, jacobian != nullptr);
    const auto& y = spec_.data->columns[target_];
    const size_t m = train_.size(), n = theta.size();
    r.resize(m);
    for (size_t i = 0; i < m; ++i) r[i] = ev.value[i] - y[train_[i]];
    if (!jacobian) return;
    jacobian->assign(m * n, 0.0);
    std::vector<size_t> index = gradientIndex(ev.gradientKeys, fitted_);
    for (size_t j = 0; j < n; ++j) {
      if (index[j] >= ev.gradient.size()) continue;  // a parameter the value does not depend on
      const auto& column = ev.gradient[index[j]];
      for (size_t i = 0; i < m; ++i) (*jacobian)[i * n + j] = column[i];
    }
  }

 private:
  const ModelSpec& spec_;
  Prepared p_;
  size_t target_ = 0;
  std::vector<size_t> inputCols_, train_;

  // The lanes' values: [param][lane] for these rows.
  std::vector<std::vector<double>> lanes(const std::vector<size_t>& rows, const std::vector<double>& theta) const {
    std::vector<std::vector<double>> v;
    for (size_t c : inputCols_) {
      v.emplace_back(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) v.back()[i] = spec_.data->columns[c][rows[i]];
    }
    for (const auto& [n, x] : p_.fixed) v.emplace_back(rows.size(), x);
    for (size_t k : p_.used) v.emplace_back(rows.size(), theta[k]);
    return v;
  }

  // The rows' batch, in a batch kept from one step to the next (runLanesInto: no allocation once warm); valid
  // until the next call.
  const LaneEvaluation& evaluate(const std::vector<size_t>& rows, const std::vector<double>& theta, bool gradient) {
    auto values = lanes(rows, theta);
    auto& run = gradient ? p_.withGradient : p_.valueOnly;
    if (auto e = run->runLanesInto(values, static_cast<int64_t>(rows.size()), batch_))
      throw DmciError(rowError(*e, rows, values));
    if (batch_.isTensor) throw DmciError(usage("the program's value must be a number at every row, not a tensor"));
    return batch_;
  }
  LaneEvaluation batch_;

  // The batch's error, said at the first row that fails alone (the row's line in the data file, and the source).
  Error rowError(const Error& batchError, const std::vector<size_t>& rows,
                 const std::vector<std::vector<double>>& values) {
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<double> seed;
      for (const auto& v : values) seed.push_back(v[i]);
      auto one = p_.valueOnly->run(seed);
      if (one) continue;
      Error e = one.error();
      e.message = "at row " + std::to_string(rows[i] + 1) + " of the data (" + spec_.data->rowPlace(rows[i]) +
                  "): " + e.message;
      return e;
    }
    return batchError;
  }

  double lossOn(const std::vector<size_t>& rows, const std::vector<double>& theta, std::vector<double>* grad) {
    const LaneEvaluation& ev = evaluate(rows, theta, grad != nullptr);
    const auto& y = spec_.data->columns[target_];
    std::vector<size_t> index = grad ? gradientIndex(ev.gradientKeys, fitted_) : std::vector<size_t>{};
    if (grad) grad->assign(theta.size(), 0.0);
    double sum = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      double r = ev.value[i] - y[rows[i]];
      sum += spec_.loss.value(r);
      if (!grad) continue;
      double d = spec_.loss.derivative(r);
      for (size_t j = 0; j < index.size(); ++j)
        (*grad)[j] += index[j] < ev.gradient.size() ? d * ev.gradient[index[j]][i] : 0.0;
    }
    double n = static_cast<double>(rows.size());
    if (grad)
      for (double& g : *grad) g /= n;
    return sum / n;
  }
};

class ObjectiveModel : public Model {
 public:
  ObjectiveModel(Fitted f, Prepared p, std::unique_ptr<PreparedRun> held) : p_(std::move(p)), held_(std::move(held)) {
    fitted_ = std::move(f);
  }

  double loss(const std::vector<double>& theta, std::vector<double>* grad) override {
    auto ev = (grad ? p_.withGradient : p_.valueOnly)->run(values(theta));
    if (!ev) throw DmciError(ev.error());
    if (ev->isTensor) throw DmciError(usage("the program's value (the loss) must be a number, not a tensor"));
    if (grad) {
      std::vector<std::string> keys;
      for (const auto& [k, v] : ev->gradient) keys.push_back(k);
      auto index = gradientIndex(keys, fitted_);
      grad->assign(theta.size(), 0.0);
      for (size_t j = 0; j < index.size(); ++j)
        if (index[j] < keys.size()) (*grad)[j] = ev->gradient[index[j]].second;
    }
    return ev->value;
  }
  std::optional<double> holdoutLoss(const std::vector<double>& theta) override {
    if (!held_) return std::nullopt;
    auto ev = held_->run(values(theta));
    if (!ev) throw DmciError(ev.error());
    if (ev->isTensor) throw DmciError(usage("the program's held-out value must be a number, not a tensor"));
    return ev->value;
  }
  std::vector<double> predict(const std::vector<double>&) override { return {}; }
  std::vector<std::string> inputs() const override { return {}; }
  void setSmoothSigma(double sigma) override { setSigma(p_, sigma); }  // the held-out run takes p_'s values too

 private:
  Prepared p_;
  std::unique_ptr<PreparedRun> held_;  // the program on the held-out bindings, value only; or null

  std::vector<double> values(const std::vector<double>& theta) const {
    std::vector<double> v;
    for (const auto& [n, x] : p_.fixed) v.push_back(x);
    for (size_t k : p_.used) v.push_back(theta[k]);
    return v;
  }
};

// The seed of the literal-finding run: the --bind values and, in data mode, row 0's inputs.
std::vector<SeedValue> startSeed(const ModelSpec& s, const std::vector<std::string>& free) {
  std::vector<SeedValue> seed;
  for (const auto& [n, v] : s.binds)
    if (contains(free, n)) seed.push_back({n, v});
  if (s.data)
    for (const auto& name : free) {
      int c = s.data->find(name);
      bool bound = std::any_of(seed.begin(), seed.end(), [&](const SeedValue& b) { return b.name == name; });
      if (c >= 0 && !bound) seed.push_back({name, s.data->columns[static_cast<size_t>(c)][0]});
    }
  return seed;
}

}  // namespace

bool Fitted::isUnused(const std::string& name) const { return contains(unused, name); }

void Model::residuals(const std::vector<double>&, std::vector<double>&, std::vector<double>*) {
  throw DmciError(ErrorKind::Usage, "this fit has no residuals: its loss is the program's value (objective mode)");
}

Result<std::unique_ptr<Model>> makeModel(const ModelSpec& s) {
  if (s.data && s.data->find(s.target) < 0) {
    auto col = s.data->column(s.target, "--target");
    return col.error();
  }
  // The program is read once; everything after binds on its forms.
  auto forms = readAll(s.programText, s.programPath);
  if (!forms) return forms.error();
  auto defs = dataForms(s.dataBindings);
  if (!defs) return defs.error();
  auto user = Program::fromForms(joinedForms(*defs, *forms), s.programPath);
  if (!user) return user.error();
  auto free = user->freeParameters();
  if (auto err = bindsOfNamesNotFree(s, *forms, free)) return *err;
  Wrt w = resolveWrt(s);
  auto f = fittedParameters(s, w, free);
  if (!f) return f.error();
  std::vector<DatumPtr> fittedForms = *forms;
  if (w.literals) {
    auto keys = literalKeysOf(*user, startSeed(s, free), s.options.budget);
    if (!keys) return keys.error();
    auto sites = findLiterals(s.programText, s.programPath, *keys, free);
    if (!sites) return sites.error();
    if (!s.literalLines.empty())
      std::erase_if(*sites, [&](const LiteralSite& site) {
        return std::find(s.literalLines.begin(), s.literalLines.end(), site.line) == s.literalLines.end();
      });
    auto bound = bindLiterals(*forms, s.programPath, *sites);  // each site's value: its datum's number
    if (!bound) return bound.error();
    fittedForms = std::move(*bound);
    for (const auto& site : *sites) {
      f->names.push_back(site.key), f->variables.push_back(site.variable), f->start.push_back(site.value);
      f->literals.push_back(site);
    }
  }
  if (f->names.empty()) return usage("nothing to fit: --wrt names no parameter and the program has no literal");
  if (auto err = applyTransforms(s, *f)) return *err;
  auto fitted = Program::fromForms(joinedForms(*defs, fittedForms), s.programPath);
  if (!fitted) return fitted.error();
  auto prepared = prepareRuns(s, smoothedIfAsked(s, *fitted, *f), free, *f);
  if (!prepared) return prepared.error();
  if (s.data) return std::unique_ptr<Model>(new DataModel(s, std::move(*f), std::move(*prepared)));
  std::unique_ptr<PreparedRun> held;
  if (!s.holdoutBindings.empty()) {  // the same program on the held-out bindings
    std::vector<DataBinding> bindings = s.dataBindings;
    for (const auto& b : s.holdoutBindings) {
      auto it = std::find_if(bindings.begin(), bindings.end(), [&](const DataBinding& d) { return d.name == b.name; });
      if (it == bindings.end())
        return usage("--holdout-data-list " + b.name + ": not bound by --data-list or --data-vec as well");
      *it = b;
    }
    auto heldDefs = dataForms(bindings);
    if (!heldDefs) return heldDefs.error();
    auto heldProgram = Program::fromForms(joinedForms(*heldDefs, fittedForms), s.programPath);
    if (!heldProgram) return heldProgram.error();
    auto heldRuns = prepareRuns(s, smoothedIfAsked(s, *heldProgram, *f), free, *f);
    if (!heldRuns) return heldRuns.error();
    held = std::move(heldRuns->valueOnly);
  }
  return std::unique_ptr<Model>(new ObjectiveModel(std::move(*f), std::move(*prepared), std::move(held)));
}

}  // namespace dmci::fit
