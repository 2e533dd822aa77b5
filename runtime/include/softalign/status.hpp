// softalign — error values. No exception crosses the public API: every
// fallible call returns a Status (a code and a human-readable message).
#pragma once

#include <string>
#include <utility>

#include "softalign/export.h"

namespace softalign {

enum class StatusCode : int {
  kOk = 0,
  kInvalidArgument = 1,     // a bad argument or option (out-of-range id, beam 0, ...)
  kNotFound = 2,            // a file that does not exist
  kIoError = 3,             // a file that cannot be opened, read or mapped
  kInvalidModel = 4,        // a file that is not a valid softalign model
  kUnsupportedVersion = 5,  // a model made by a newer converter
  kInputTooLong = 6,        // a source longer than the translator's max source tokens
  kInvalidUtf8 = 7,         // text that is not valid UTF-8
  kUnsupported = 8,         // a feature this build or machine does not have
  kInternal = 9,            // a bug: please report it
  kResourceExhausted = 10,  // out of memory, or a translator larger than TranslatorOptions::max_arena_bytes
  kCancelled = 11,          // stopped by Translator::cancel() (TranslatorPool::cancel()) or a stream callback
  kDeadlineExceeded = 12,   // the call ran past its deadline (SearchOptions::timeout_ms)
};

// The name of a code ("ok", "invalid_argument", ...).
SOFTALIGN_API const char* status_code_name(StatusCode code);

class Status {
 public:
  Status() = default;  // ok
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "<code name>: <message>", or "ok".
  SOFTALIGN_API std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

}  // namespace softalign
