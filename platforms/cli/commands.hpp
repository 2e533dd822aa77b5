// The `softalign` subcommands: each registers its options on a CLI11 app and
// runs after parsing, returning the process exit status.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace softalign::cli {

// Adds `translate` to `app`; the returned function runs it (after parsing).
std::function<int()> add_translate_command(CLI::App& app);
// Adds `info` to `app`; the returned function runs it (after parsing).
std::function<int()> add_info_command(CLI::App& app);

}  // namespace softalign::cli
