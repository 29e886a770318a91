// vtsim: simulator of virtualized distributed deep-learning training. Command-line entry point.
//
// Exit status: 0 success, 1 bad input (the message names the file and the JSON path) or an output that cannot be
// written, 2 bad command line, 3 internal error (a bug: please report it) or a simulation out of memory, 4 a check
// asked for failed (`vtsim validate --check`).

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "calibrate/build_features.hpp"
#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/engine/simgrid_info.hpp"
#include "tools/commands/command.hpp"

namespace {

constexpr int kExitInputError = 1;
constexpr int kExitUsageError = 2;
constexpr int kExitInternalError = 3;
constexpr int kExitCheckFailed = 4;

std::string version_text() {
  const vtsim::calibrate::BuildFeatures features = vtsim::calibrate::build_features();
  return std::string("vtsim ") + VTSIM_VERSION + " (SimGrid " + vtsim::sim::simgrid_version() + "; CUDA " +
         (features.cuda ? "found" : "not found") + "; libibverbs " + (features.ibverbs ? "found" : "not found") + ")";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"vtsim: simulate data-parallel deep-learning training on virtualized GPU clusters", "vtsim"};
  app.set_version_flag("--version", version_text());
  app.require_subcommand(1);
  const std::vector<vtsim::tools::Command> commands = {
      vtsim::tools::add_run_command(app),
      vtsim::tools::add_check_command(app),
      vtsim::tools::add_catalog_command(app),
      vtsim::tools::add_bench_command(app),
      vtsim::tools::add_calibrate_command(app),
      vtsim::tools::add_sweep_command(app),
      vtsim::tools::add_merge_command(app),
      vtsim::tools::add_plot_command(app),
      vtsim::tools::add_validate_command(app),
      vtsim::tools::add_collectives_command(app),
      vtsim::tools::add_plan_command(app),
      vtsim::tools::add_kernels_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {  // --help or --version, which must reach their reader too (issue 31)
      const int code = app.exit(error);
      std::cout.flush();
      if (!std::cout) {
        std::cerr << "vtsim: standard output: write failed (is the disk full?)\n";
        return kExitInputError;
      }
      return code;
    }
    // One line, which quotes the argument as typed: its control characters are shown escaped.
    std::cerr << "vtsim: " << vtsim::printable(error.what()) << " (see --help)\n";
    return kExitUsageError;
  }

  try {
    for (const vtsim::tools::Command& command : commands) {
      if (*command.app) command.action();
    }
  } catch (const vtsim::tools::CheckFailed& error) {
    std::cerr << "vtsim: " << error.what() << '\n';
    return kExitCheckFailed;
  } catch (const vtsim::InputError& error) {
    std::cerr << "vtsim: " << error.what() << '\n';  // escaped when thrown (models/core/error.hpp)
    return kExitInputError;
  } catch (const vtsim::sim::OutOfMemory& error) {  // not a bug: the machine's memory, said in one line
    std::cerr << "vtsim: " << error.what() << '\n';
    return kExitInternalError;
  } catch (const std::exception& error) {  // std::runtime_error from a failed simulation process, or any other
    std::cerr << "vtsim: internal error: " << vtsim::printable(error.what()) << '\n';
    return kExitInternalError;
  } catch (...) {
    std::cerr << "vtsim: internal error: an exception of unknown type\n";
    return kExitInternalError;
  }
  // A result that did not reach its reader (a full disk, a closed pipe) is not a success.
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "vtsim: standard output: write failed (is the disk full?)\n";
    return kExitInputError;
  }
  return 0;
}
