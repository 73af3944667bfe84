// Source positions (file:line:col) carried by every datum, core expression and instruction.
#pragma once
#include <cstdint>
#include <string>

namespace dmci {

// A position in a source file. Files are interned so a position is three integers.
struct SrcPos {
  uint32_t file = 0;  // 0 = unknown
  uint32_t line = 0;  // 1-based; 0 = unknown
  uint32_t col = 0;   // 1-based

  bool known() const { return line != 0; }
  std::string str() const;  // "file:line:col", or "<unknown>"
  // In a library procedure's source (the Scheme prelude), not the user's program.
  bool inLibrary() const;
  bool operator==(const SrcPos&) const = default;
};

// Interns a file name and returns its id (thread-safe).
uint32_t internFile(const std::string& name);
// The name of an interned file.
const std::string& fileName(uint32_t id);

}  // namespace dmci
