// Text from input made safe to print on a terminal. A name or a message read from a file (a pair's name, a file
// name, a column, an error quoting them) may hold control characters that a terminal obeys (ESC sequences recolour
// or retitle it, CR rewrites the line); every place that shows such text prints it through escapeControls.
#pragma once
#include <string>

namespace dmci {

// `text` with each control character (C0, DEL and, in UTF-8, C1) written as the printer writes it in a string
// (\n, \t, \r, \x1b;), everything else as it is. With `keepLines`, a message of several lines keeps its line
// breaks (a newline moves to the next line and does nothing else). Defined beside the printer (Datum.cpp), which
// shares the rule.
std::string escapeControls(const std::string& text, bool keepLines = false);

}  // namespace dmci
