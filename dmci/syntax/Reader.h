// The reader: text to Datums, with file:line:col on every datum, and errors as values.
//
// Syntax (LANGUAGE.md): integers, decimals, exponents, .5; #t #f #true #false;
// #\a #\space #\newline characters; strings with \" \\ \n \t escapes; symbols;
// lists and dotted pairs; ' ` , ,@ abbreviations; ; line comments, #| |# nested
// block comments and #; datum comments. Nesting deeper than kMaxDepth is an error,
// so no input can exhaust the C++ stack.
#pragma once
#include <string>
#include <vector>

#include "syntax/Datum.h"
#include "syntax/Error.h"

namespace dmci {

constexpr int kMaxReadDepth = 1000;

// Reads every datum in `text`; `file` names the source in positions.
Result<std::vector<DatumPtr>> readAll(const std::string& text, const std::string& file);
// Reads a whole file from disk (Io error if it cannot be read).
Result<std::vector<DatumPtr>> readFile(const std::string& path);

}  // namespace dmci
