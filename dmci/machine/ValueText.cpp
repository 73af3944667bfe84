// Values written for a user: the Scheme written form and JSON, walking pairs iteratively along the cdr.
#include "machine/ValueText.h"

#include <nlohmann/json.hpp>

#include "prims/PrimTable.h"
#include "support/JsonNumber.h"
#include "support/JsonText.h"
#include "syntax/Datum.h"

namespace dmci {
namespace {

using json = nlohmann::ordered_json;

// Nesting beyond this is written as "..." (a heap is acyclic, but a value may nest deeply).
constexpr int kMaxDepth = 10000;

std::string charName(int32_t c) {
  switch (c) {
    case ' ':
      return "space";
    case '\n':
      return "newline";
    case '\t':
      return "tab";
    case '\r':
      return "return";
    case 0:
      return "null";
    case 0x7f:
      return "delete";
    case 0x1b:
      return "escape";
    case 0x07:
      return "alarm";
    case 0x08:
      return "backspace";
  }
  std::string s;
  appendUtf8(s, static_cast<uint32_t>(c));
  return s;
}

// Row-major entries as nested rows: (1 2 3) or ((1 2) (3 4)).
std::string tensorRows(int rank, int rows, int cols, const double* d) {
  auto row = [&](int from, int n) {
    std::string s = "(";
    for (int k = 0; k < n; ++k) {
      if (k) s += ' ';
      s += formatNumber(d[from + k]);
    }
    return s + ")";
  };
  if (rank != 2) return row(0, rows);
  std::string s = "(";
  for (int i = 0; i < rows; ++i) {
    if (i) s += ' ';
    s += row(i * cols, cols);
  }
  return s + ")";
}

std::string write(const Runtime& rt, const Value& v, int depth) {
  if (depth > kMaxDepth) return "...";
  switch (v.tag) {
    case Tag::Pair: {
      std::string s = "(";
      Value p = v;
      for (bool first = true; p.tag == Tag::Pair; first = false, p = rt.cdr(p)) {
        if (!first) s += " ";
        s += write(rt, rt.car(p), depth + 1);
      }
      if (p.tag != Tag::Nil) s += " . " + write(rt, p, depth + 1);
      return s + ")";
    }
    case Tag::Vector: {
      std::string s = "#(";
      for (int32_t k = 0; k < static_cast<int32_t>(v.code); ++k)
        s += (k ? " " : "") + write(rt, rt.vectorRef(v, k), depth + 1);
      return s + ")";
    }
    case Tag::Char:
      return "#\\" + charName(v.i);
    case Tag::String:
      return print(*Datum::string(rt.strings[static_cast<size_t>(v.i)]));
    case Tag::Tensor: {
      const TensorRec& r = rt.tensor(v);
      return writeTensor(r.rank, r.rows, r.cols, rt.tdata(v));
    }
    default:
      return rt.show(v);
  }
}

json toJson(const Runtime& rt, const Value& v, int depth) {
  if (depth > kMaxDepth) return "...";
  switch (v.tag) {
    case Tag::Nil:
      return json::array();
    case Tag::Bool:
      return v.i != 0;
    case Tag::Int:
    case Tag::Real:
      return jsonNumber(v.num);
    case Tag::Char:
      return json{{"char", charName(v.i)}};
    case Tag::Symbol:
      return json{{"symbol", symbolName(v.i)}};
    case Tag::String:
      return rt.strings[static_cast<size_t>(v.i)];
    case Tag::Pair: {
      json a = json::array();
      Value p = v;
      for (; p.tag == Tag::Pair; p = rt.cdr(p)) a.push_back(toJson(rt, rt.car(p), depth + 1));
      if (p.tag != Tag::Nil) return json{{"items", a}, {"tail", toJson(rt, p, depth + 1)}};
      return a;
    }
    case Tag::Tensor: {
      const TensorRec& r = rt.tensor(v);
      return tensorJson(r.rank, r.rows, r.cols, rt.tdata(v));
    }
    case Tag::Vector: {
      json a = json::array();
      for (int32_t k = 0; k < static_cast<int32_t>(v.code); ++k) a.push_back(toJson(rt, rt.vectorRef(v, k), depth + 1));
      return json{{"vector", a}};
    }
    case Tag::Prim:
      return json{{"procedure", prim(v.i).name}};
    default:
      return json{{"procedure", rt.show(v)}};
  }
}

}  // namespace

std::string writeValue(const Runtime& rt, const Value& v) { return write(rt, v, 0); }

std::string valueJson(const Runtime& rt, const Value& v) { return jsonText(toJson(rt, v, 0)); }

nlohmann::ordered_json tensorJson(int rank, int rows, int cols, const double* data) {
  json out = json::array();
  if (rank != 2) {
    for (int k = 0; k < rows; ++k) out.push_back(jsonNumber(data[k]));
    return out;
  }
  for (int i = 0; i < rows; ++i) {
    json row = json::array();
    for (int j = 0; j < cols; ++j) row.push_back(jsonNumber(data[i * cols + j]));
    out.push_back(row);
  }
  return out;
}

std::string writeTensor(int rank, int rows, int cols, const double* data) {
  std::string out = "#<tensor ";
  out += std::to_string(rows);
  if (rank == 2) {
    out += 'x';
    out += std::to_string(cols);
  }
  out += ' ';
  out += tensorRows(rank, rows, rank == 2 ? cols : 1, data);
  out += '>';
  return out;
}

}  // namespace dmci
