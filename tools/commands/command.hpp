#pragma once
// A vtsim subcommand: its node in the command line and what it does when chosen. Each command module adds its own
// options, so main.cpp only lists the commands.

#include <functional>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

namespace vtsim::tools {

/// One subcommand. `action` runs after parsing if `app` was chosen; it throws InputError on bad input.
struct Command {
  CLI::App* app = nullptr;
  std::function<void()> action;
};

/// A check the command was asked to make failed (`vtsim validate --check`): main exits with status 4.
class CheckFailed : public std::runtime_error {
 public:
  explicit CheckFailed(const std::string& message) : std::runtime_error(message) {}
};

/// The subcommands, each defined next to its implementation.
Command add_catalog_command(CLI::App& parent);
Command add_check_command(CLI::App& parent);
Command add_run_command(CLI::App& parent);
Command add_bench_command(CLI::App& parent);
Command add_calibrate_command(CLI::App& parent);
Command add_sweep_command(CLI::App& parent);
Command add_merge_command(CLI::App& parent);
Command add_plot_command(CLI::App& parent);
Command add_validate_command(CLI::App& parent);
Command add_collectives_command(CLI::App& parent);
Command add_plan_command(CLI::App& parent);
Command add_kernels_command(CLI::App& parent);

}  // namespace vtsim::tools
