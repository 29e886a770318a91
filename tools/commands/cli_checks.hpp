#pragma once
// Validators for command-line options, so that a malformed value is a command-line error (exit status 2, one line
// naming the option) before anything runs, rather than an input error found later.

#include <CLI/CLI.hpp>

namespace vtsim::tools {

/// PATH=VALUE with a path that parses (`--set`, `--compare`).
CLI::Validator assignment_check();
/// One or more PATH=VALUE separated by commas (overrides.hpp split_assignments), each with a path that parses
/// (`--compare`).
CLI::Validator assignments_check();
/// i/N with 0 <= i < N (`--shard`).
CLI::Validator shard_check();
/// A whole number >= 1 (`--jobs`, `--shards`).
CLI::Validator at_least_one_check();
/// A finite number: CLI11's Range lets "nan" through (every comparison with NaN is false).
CLI::Validator finite_number_check();

}  // namespace vtsim::tools
