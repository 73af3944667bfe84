// What every harness checks besides "no crash": a finding is reported in words, then aborts (libFuzzer saves the
// input as a crash reproducer; the regression driver's CTest run fails on it).
//
// The project's rule for bad input is a clear error at file:line:col: checkErrorAt holds an error to it, so a
// position that points outside the text it was read from (line 0, a line past the end, a column past the line's
// end) is a finding, like a crash.
#pragma once
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "syntax/Error.h"

namespace dmci::fuzz {

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
}

inline void require(bool ok, const std::string& what) {
  if (!ok) finding(what);
}

// Two numbers read from text are the same number: bit for bit, or both NaN.
inline bool sameNumber(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

// `err` names `file` and a line and column inside `text` (a column may be one past the line's last byte).
inline void checkErrorAt(const Error& err, const std::string& text, const std::string& file) {
  const SrcPos& p = err.pos;
  require(p.known() && fileName(p.file) == file, "an error without the input's position: " + err.str());
  size_t begin = 0;
  for (uint32_t line = 1; line < p.line; ++line) {
    begin = text.find('\n', begin);
    require(begin != std::string::npos, "an error at a line past the end of the input: " + err.str());
    ++begin;
  }
  size_t end = text.find('\n', begin);
  size_t length = (end == std::string::npos ? text.size() : end) - begin;
  require(p.col >= 1 && p.col <= length + 1, "an error at a column outside its line: " + err.str());
}

}  // namespace dmci::fuzz
