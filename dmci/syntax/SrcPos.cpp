// File interning and position formatting.
#include "syntax/SrcPos.h"

#include <deque>
#include <mutex>
#include <unordered_map>

#include "syntax/Error.h"

namespace dmci {
namespace {
struct FileTable {
  std::mutex mu;
  std::deque<std::string> names{"<unknown>"};
  std::unordered_map<std::string, uint32_t> ids;
};
FileTable& files() {
  static FileTable t;
  return t;
}
}  // namespace

uint32_t internFile(const std::string& name) {
  auto& t = files();
  std::lock_guard<std::mutex> g(t.mu);
  auto it = t.ids.find(name);
  if (it != t.ids.end()) return it->second;
  auto id = static_cast<uint32_t>(t.names.size());
  t.names.push_back(name);
  t.ids.emplace(name, id);
  return id;
}

const std::string& fileName(uint32_t id) {
  auto& t = files();
  std::lock_guard<std::mutex> g(t.mu);
  return id < t.names.size() ? t.names[id] : t.names[0];
}

std::string SrcPos::str() const {
  if (!known()) return fileName(file);
  return fileName(file) + ":" + std::to_string(line) + ":" + std::to_string(col);
}

bool SrcPos::inLibrary() const { return fileName(file).rfind("<prelude", 0) == 0; }

const char* errorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::Syntax:
      return "syntax-error";
    case ErrorKind::Form:
      return "bad-form";
    case ErrorKind::Unbound:
      return "unbound-variable";
    case ErrorKind::Arity:
      return "wrong-arity";
    case ErrorKind::Type:
      return "wrong-type";
    case ErrorKind::NotProcedure:
      return "not-a-procedure";
    case ErrorKind::Domain:
      return "domain-error";
    case ErrorKind::User:
      return "error";
    case ErrorKind::Budget:
      return "budget-exhausted";
    case ErrorKind::Usage:
      return "usage-error";
    case ErrorKind::Io:
      return "io-error";
    case ErrorKind::Graph:
      return "bad-graph";
  }
  return "error";
}

std::string Error::str() const {
  if (pos.file == 0 && !pos.known()) return std::string(errorKindName(kind)) + ": " + message;  // no position
  return pos.str() + ": " + errorKindName(kind) + ": " + message;
}

}  // namespace dmci
