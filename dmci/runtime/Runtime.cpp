// The per-evaluation arena: heap, tensors, strings, tape, budgets and display.
#include "runtime/Runtime.h"

#include <deque>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "runtime/RuntimePrims.h"
#include "syntax/Datum.h"

namespace dmci {
namespace {
struct SymbolTable {
  std::mutex mu;
  std::deque<std::string> names;
  std::unordered_map<std::string, int32_t> ids;
};
SymbolTable& symbols() {
  static SymbolTable t;
  return t;
}
}  // namespace

int32_t internSymbol(const std::string& name) {
  auto& t = symbols();
  std::lock_guard<std::mutex> g(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  auto id = static_cast<int32_t>(t.names.size());
  t.names.push_back(name);
  t.ids.emplace(name, id);
  return id;
}

const std::string& symbolName(int32_t id) {
  auto& t = symbols();
  std::lock_guard<std::mutex> g(t.mu);
  return t.names.at(static_cast<size_t>(id));
}

void Runtime::reset() {
  heap.clear();
  strings.clear();
  tensors.clear();
  tensorData.clear();
  tape.clear();
  tensorOps.clear();
  nslots_ = 0;
  cellPos.clear();
  userLo = userHi = 0;
  userCell.clear();
  userNode = -1;
  start_ = std::chrono::steady_clock::now();
}

void Runtime::resetTo(const Mark& m) {
  heap.resize(m.heap);
  strings.resize(m.strings);
  tensors.resize(m.tensors);
  tensorData.resize(m.tensorData);
  tape.resize(m.tape);
  tensorOps.resize(m.tensorOps);
  cellPos.resize(m.cellPos);
  nslots_ = m.nslots;
  userNode = -1;
  start_ = std::chrono::steady_clock::now();
}

int32_t Runtime::alloc(int32_t n) {
  size_t at = heap.size();
  if (at + static_cast<size_t>(n) + tape.size() > budget_.heapCells) budgetExceeded("heap");
  Value unset;
  unset.tag = Tag::Unset;
  heap.resize(at + static_cast<size_t>(n), unset);
  return static_cast<int32_t>(at);
}

Value Runtime::string(const std::string& s) {
  strings.push_back(s);
  return Value::make(Tag::String, static_cast<int32_t>(strings.size() - 1));
}

Value Runtime::newTensor(int32_t rank, int32_t rows, int32_t cols) {
  size_t n = static_cast<size_t>(rows) * static_cast<size_t>(cols);
  if (tensorData.size() + n + heap.size() > budget_.heapCells) budgetExceeded("heap");
  TensorRec r{rank, rows, cols, -1, tensorData.size()};
  tensorData.resize(tensorData.size() + n, 0.0);
  tensors.push_back(r);
  return Value::make(Tag::Tensor, static_cast<int32_t>(tensors.size() - 1));
}

void Runtime::recordTensorOp(int32_t primId, const Value* in, int32_t argc, Value& out) {
  if (!taping) return;
  bool active = false;
  for (int k = 0; k < argc; ++k) {
    if (in[k].isActive()) active = true;
    if (in[k].tag == Tag::Tensor && tensors[in[k].i].slot >= 0) active = true;
  }
  if (!active) return;
  TensorOp op{primId, argc, {}, out};
  for (int k = 0; k < argc; ++k) op.in[k] = in[k];
  if (out.tag == Tag::Tensor) {
    tensors[out.i].slot = newSlots(tensors[out.i].size());
  } else {
    out.i = newSlot();
  }
  op.out = out;
  tensorOps.push_back(op);
  pushTape({op.out.tag == Tag::Tensor ? tensors[out.i].slot : out.i, -1, -1, static_cast<int32_t>(tensorOps.size() - 1),
            0.0, 0.0});
}

std::vector<double> Runtime::backward(const Value& out) {
  std::vector<double> adj;
  backward(out, adj);
  return adj;
}

void Runtime::backward(const Value& out, std::vector<double>& adj) {
  adj.assign(static_cast<size_t>(nslots_), 0.0);
  if (out.tag == Tag::Real && out.i >= 0) {
    adj[out.i] = 1.0;
  } else if (out.tag == Tag::Tensor && tensors[out.i].slot >= 0) {
    const auto& r = tensors[out.i];
    for (int32_t k = 0; k < r.size(); ++k) adj[r.slot + k] = 1.0;
  }
  for (size_t n = tape.size(); n-- > 0;) {
    const TapeEntry& e = tape[n];
    if (e.op < 0) {
      double g = adj[e.out];
      if (g == 0.0) continue;
      if (e.a >= 0) adj[e.a] += e.pa * g;
      if (e.b >= 0) adj[e.b] += e.pb * g;
    } else {
      const TensorOp& op = tensorOps[e.op];
      primitiveAdjoint(op.prim)(*this, op, adj);
    }
  }
}

SrcPos Runtime::positionOf(int32_t cell) const {
  for (const auto& [addr, pos] : cellPos)
    if (addr == cell) return pos;
  return {};
}

void Runtime::budgetExceeded(const char* what) const {
  std::ostringstream m;
  if (std::string(what) == "steps")
    m << "step budget of " << budget_.steps << " instructions exhausted";
  else if (std::string(what) == "time")
    m << "time budget of " << budget_.seconds << " s exhausted";
  else
    m << "heap budget of " << budget_.heapCells << " cells exhausted (" << what << ")";
  throw DmciError(ErrorKind::Budget, m.str());
}

std::string Runtime::show(const Value& v, int depth) const {
  if (depth > 50) return "...";
  switch (v.tag) {
    case Tag::Nil:
      return "()";
    case Tag::Bool:
      return v.i ? "#t" : "#f";
    case Tag::Int:
    case Tag::Real:
      return formatNumber(v.num);
    case Tag::Char:
      return print(*Datum::character(static_cast<uint32_t>(v.i)));  // #\λ in UTF-8, #\space by name
    case Tag::Symbol:  // as the reader reads it back: |a b| for a name with a space, escapes for control bytes
      return print(*Datum::symbol(symbolName(v.i)));
    case Tag::String: {
      std::string s = "\"";
      for (char c : strings[v.i]) s += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
      return s + "\"";
    }
    case Tag::Pair: {
      std::string s = "(";
      Value p = v;
      int n = 0;
      while (p.tag == Tag::Pair) {
        if (n) s += " ";
        if (++n > 100) return s + "...)";
        s += show(car(p), depth + 1);
        p = cdr(p);
      }
      if (p.tag != Tag::Nil) s += " . " + show(p, depth + 1);
      return s + ")";
    }
    case Tag::Closure:
      return "#<procedure>";
    case Tag::Prim:
      return std::string("#<primitive ") + primitiveName(v.i) + ">";
    case Tag::Tensor: {
      const TensorRec& r = tensors[v.i];
      std::ostringstream o;
      o << "#<tensor " << r.rows;
      if (r.rank == 2) o << "x" << r.cols;
      o << " [";
      for (int32_t k = 0; k < r.size() && k < 16; ++k) o << (k ? " " : "") << formatNumber(tensorData[r.data + k]);
      if (r.size() > 16) o << " ...";
      o << "]>";
      return o.str();
    }
    case Tag::Vector: {
      std::string s = "#(";
      for (int32_t k = 0; k < static_cast<int32_t>(v.code); ++k) {
        if (k) s += " ";
        if (k >= 100) return s + "...)";
        s += show(vectorRef(v, k), depth + 1);
      }
      return s + ")";
    }
    case Tag::Box:
      return "#<box>";
    case Tag::Unset:
      return "#<unset>";
  }
  return "?";
}

void wrongType(const Runtime& rt, const char* primName, int argIndex, const Value& got, const char* expected) {
  std::ostringstream m;
  m << primName << ": argument " << (argIndex + 1) << " must be " << expected << ", got " << rt.show(got);
  throw DmciError(ErrorKind::Type, m.str());
}

}  // namespace dmci
