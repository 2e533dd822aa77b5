// `softalign-convert --inspect FILE`: a readable dump of any model file.
#pragma once

#include <ostream>
#include <string>

namespace softalign::convert {

// Verifies the file (softalign_format.h) and prints its config, metadata,
// SentencePiece sizes and a tensor table (name, shape, dtype, bytes), one
// item per line ("key: value"; config keys as in WEIGHTS_FORMAT.md).
// Throws Error if the file cannot be read or is not a valid model file.
void inspect_file(const std::string& path, std::ostream& out);

}  // namespace softalign::convert
