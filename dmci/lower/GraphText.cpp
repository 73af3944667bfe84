// The stable text format of a ComputeGraph: one printer, one parser, one validator.
//
//   dmci-graph 2
//   params N name...
//   const K NPOS ("file" line col EXACT)* DATUM   the datum's numbers in pre-order: position, and 1 when exact
//                                                 (syntax/Exactness.h: 1 and 1.0 print alike in DATUM)
//   block K "name" NPARAMS VARIADIC NSLOTS NFREE "file" line col [HIDDEN]   HIDDEN when not 0 (lower/Control.h)
//     OP dst a b c "file" line col
//   end
//   entry K
#include <cstring>
#include <sstream>

#include "lower/ComputeGraph.h"
#include "syntax/Exactness.h"
#include "syntax/Reader.h"

namespace dmci {
namespace {

const char* const kOpNames[] = {"Const",  "Move",    "Env",         "Param",  "PrimRef",  "Prim",   "Prim1",
                                "Prim2",  "Closure", "Sibling",     "Call",   "TailCall", "Apply",  "TailApply",
                                "Return", "Jump",    "JumpIfFalse", "BoxNew", "BoxSet",   "BoxGet", "Unbound"};
constexpr int kNumOps = sizeof(kOpNames) / sizeof(kOpNames[0]);

std::string quoted(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
std::string posText(const SrcPos& p) {
  return quoted(fileName(p.file)) + " " + std::to_string(p.line) + " " + std::to_string(p.col);
}

// A number of a constant: where the program wrote it, and whether it is exact.
struct NumberMark {
  SrcPos pos;
  bool exact = false;
};

void numberPositions(const Datum& d, std::vector<NumberMark>& out) {
  if (d.kind == DatumKind::Number) out.push_back({d.pos, isExact(d)});
  for (const auto& k : d.items) numberPositions(*k, out);
  if (d.tail) numberPositions(*d.tail, out);
}

// Rebuilds a datum giving its numbers the positions and exactness in `ps` (pre-order).
DatumPtr withPositions(const DatumPtr& d, const std::vector<NumberMark>& ps, size_t& k) {
  if (d->kind == DatumKind::Number) {
    if (k >= ps.size()) throw DmciError(ErrorKind::Graph, "constant has more numbers than positions");
    const NumberMark& m = ps[k++];
    return numberWithExactness(d->number, m.exact, m.pos);
  }
  if (d->kind != DatumKind::List && d->kind != DatumKind::Vector) return d;
  std::vector<DatumPtr> items;
  for (const auto& i : d->items) items.push_back(withPositions(i, ps, k));
  if (d->kind == DatumKind::Vector) return Datum::vector(std::move(items), d->pos);
  DatumPtr tail = d->tail ? withPositions(d->tail, ps, k) : nullptr;
  return Datum::list(std::move(items), d->pos, tail);
}

// Splits a line into words and "quoted strings"; `rest` receives the text after `limit` tokens.
std::vector<std::string> tokens(const std::string& line, size_t limit, std::string* rest) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size() && out.size() < limit) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    std::string t;
    if (line[i] == '"') {
      ++i;
      while (i < line.size() && line[i] != '"') {
        if (line[i] == '\\' && i + 1 < line.size()) ++i;
        t += line[i++];
      }
      if (i >= line.size()) throw DmciError(ErrorKind::Graph, "unterminated string");
      ++i;
    } else {
      while (i < line.size() && line[i] != ' ') t += line[i++];
    }
    out.push_back(t);
  }
  if (rest) *rest = i < line.size() ? line.substr(i + (line[i] == ' ' ? 1 : 0)) : "";
  return out;
}

int toInt(const std::string& s) {
  try {
    size_t used = 0;
    int v = std::stoi(s, &used);
    if (used != s.size()) throw std::invalid_argument(s);
    return v;
  } catch (const std::exception&) {
    throw DmciError(ErrorKind::Graph, "expected an integer, got '" + s + "'");
  }
}

SrcPos toPos(const std::vector<std::string>& t, size_t at) {
  if (t.size() < at + 3) throw DmciError(ErrorKind::Graph, "missing position");
  return SrcPos{internFile(t[at]), static_cast<uint32_t>(toInt(t[at + 1])), static_cast<uint32_t>(toInt(t[at + 2]))};
}

struct Parser {
  ComputeGraph g;
  std::string file;
  int lineNo = 0;

  void constLine(const std::vector<std::string>& head, const std::string& line) {
    int npos = toInt(head.at(2));
    std::string rest;
    auto t = tokens(line, 3 + 4 * static_cast<size_t>(npos), &rest);
    std::vector<NumberMark> ps;
    for (int k = 0; k < npos; ++k) {
      const size_t at = 3 + 4 * static_cast<size_t>(k);
      if (t.size() < at + 4) throw DmciError(ErrorKind::Graph, "missing a number's position or exactness");
      const std::string& exact = t[at + 3];
      if (exact != "0" && exact != "1") throw DmciError(ErrorKind::Graph, "a number's exactness must be 0 or 1");
      ps.push_back({toPos(t, at), exact == "1"});
    }
    auto d = readAll(rest, file);
    if (!d || d->size() != 1) throw DmciError(ErrorKind::Graph, "bad constant datum: " + rest);
    size_t k = 0;
    g.consts.push_back(withPositions((*d)[0], ps, k));
  }

  Instr instr(const std::vector<std::string>& t, SrcPos& pos) {
    int op = -1;
    for (int k = 0; k < kNumOps; ++k)
      if (t[0] == kOpNames[k]) op = k;
    if (op < 0) throw DmciError(ErrorKind::Graph, "unknown instruction '" + t[0] + "'");
    if (t.size() != 8) throw DmciError(ErrorKind::Graph, "instruction needs 4 operands and a position");
    pos = toPos(t, 5);
    return Instr{static_cast<Op>(op), toInt(t[1]), toInt(t[2]), toInt(t[3]), toInt(t[4])};
  }

  void parse(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    CodeBlock* block = nullptr;
    bool sawHeader = false;
    while (std::getline(in, line)) {
      ++lineNo;
      auto t = tokens(line, 3, nullptr);
      if (t.empty()) continue;
      if (!sawHeader) {
        if (t.size() < 2 || t[0] != "dmci-graph" || t[1] != "2")
          throw DmciError(ErrorKind::Graph, "not a dmci-graph version 2 file");
        sawHeader = true;
      } else if (block && t[0] == "end") {
        block = nullptr;
      } else if (block) {
        SrcPos pos;
        block->code.push_back(instr(tokens(line, 8, nullptr), pos));
        block->where.push_back(pos);
      } else if (t[0] == "params") {
        auto all = tokens(line, 1u << 30, nullptr);
        int n = toInt(all.at(1));
        if (static_cast<int>(all.size()) != n + 2) throw DmciError(ErrorKind::Graph, "params count mismatch");
        g.params.assign(all.begin() + 2, all.end());
      } else if (t[0] == "const") {
        constLine(t, line);
      } else if (t[0] == "block") {
        auto b = tokens(line, 11, nullptr);  // the 11th, when there, is the count of hidden parameters
        if (b.size() != 10 && b.size() != 11) throw DmciError(ErrorKind::Graph, "bad block header");
        g.blocks.emplace_back();
        block = &g.blocks.back();
        block->name = b[2];
        block->nparams = toInt(b[3]);
        block->variadic = toInt(b[4]) != 0;
        block->nslots = toInt(b[5]);
        block->nfree = toInt(b[6]);
        block->pos = toPos(b, 7);
        if (b.size() == 11) block->hidden = toInt(b[10]);
      } else if (t[0] == "entry") {
        g.entry = toInt(t.at(1));
      } else {
        throw DmciError(ErrorKind::Graph, "unexpected line '" + line + "'");
      }
    }
    if (!sawHeader) throw DmciError(ErrorKind::Graph, "empty graph text");
    if (block) throw DmciError(ErrorKind::Graph, "block without end");
  }
};

}  // namespace

const char* opName(Op op) {
  auto k = static_cast<int>(op);
  return k < kNumOps ? kOpNames[k] : "?";
}

std::string printGraph(const ComputeGraph& g) {
  std::ostringstream o;
  o << "dmci-graph 2\nparams " << g.params.size();
  for (const auto& p : g.params) o << " " << quoted(p);
  o << "\n";
  for (size_t k = 0; k < g.consts.size(); ++k) {
    std::vector<NumberMark> ps;
    numberPositions(*g.consts[k], ps);
    o << "const " << k << " " << ps.size();
    for (const auto& m : ps) o << " " << posText(m.pos) << " " << (m.exact ? 1 : 0);
    o << " " << print(*g.consts[k]) << "\n";
  }
  for (size_t k = 0; k < g.blocks.size(); ++k) {
    const CodeBlock& b = g.blocks[k];
    o << "block " << k << " " << quoted(b.name) << " " << b.nparams << " " << (b.variadic ? 1 : 0) << " " << b.nslots
      << " " << b.nfree << " " << posText(b.pos);
    if (b.hidden) o << " " << b.hidden;
    o << "\n";
    for (size_t i = 0; i < b.code.size(); ++i) {
      const Instr& in = b.code[i];
      o << "  " << opName(in.op) << " " << in.dst << " " << in.a << " " << in.b << " " << in.c << " "
        << posText(b.where[i]) << "\n";
    }
    o << "end\n";
  }
  o << "entry " << g.entry << "\n";
  return o.str();
}

Result<ComputeGraph> parseGraph(const std::string& text, const std::string& file) {
  Parser p;
  p.file = file;
  try {
    p.parse(text);
    validateGraph(p.g);
  } catch (const DmciError& e) {
    Error err = e.error();
    if (!err.pos.known()) err.pos = SrcPos{internFile(file), static_cast<uint32_t>(p.lineNo), 1};
    return err;
  }
  return std::move(p.g);
}

}  // namespace dmci
