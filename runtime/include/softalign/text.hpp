// softalign — text helpers for programs that print what a model file or a
// user gave them (C++17 API).
//
//   std::cerr << "error: " << softalign::escape_controls(status.to_string()) << "\n";
#pragma once

#include <string>
#include <string_view>

#include "softalign/export.h"

namespace softalign {

// `s` with every ASCII control character written as an escape (\n, \t, \r,
// \xHH), each C1 control (U+0080..U+009F), line or paragraph separator
// (U+2028, U+2029) and bidirectional control (U+061C, U+200E, U+200F,
// U+202A..U+202E, U+2066..U+2069) as \uXXXX, and each byte that is not
// valid UTF-8 as \xHH, so text from a file (metadata, tensor names) or an
// input line prints as one line, in its order, and cannot move, recolour or
// reorder a terminal's text. Other UTF-8 is unchanged. The runtime quotes
// names from a model file in its error messages this way, and the softalign
// CLI and softalign-convert print every error and model string through it.
SOFTALIGN_API std::string escape_controls(std::string_view s);

}  // namespace softalign
