// JSON as text for everything the tool writes (standard output, reports, checkpoints, the C API's strings).
//
// A program, a file name or a CSV cell may carry bytes that are not UTF-8, and an error message quotes them.
// nlohmann's plain dump() throws on such a byte, which outside a try ends the process with an abort instead of
// the report. Every dump goes through jsonText, which writes an invalid byte as U+FFFD instead: the message
// stays readable, the JSON stays valid, and the exit status is the one the command meant.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace dmci {

template <class Json>
std::string jsonText(const Json& j, int indent = -1) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace dmci
