// vtsim: simulator of virtualized distributed deep-learning training. Command-line entry point.
//
// Exit status: 0 success, 1 bad input (the message names the file and the JSON path), 2 bad command line, 3 internal
// error (a bug: please report it).

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "calibrate/build_features.hpp"
#include "models/error.hpp"
#include "sim/simgrid_info.hpp"
#include "tools/bench_command.hpp"
#include "tools/catalog_command.hpp"
#include "tools/check_command.hpp"
#include "tools/run_command.hpp"

namespace {

constexpr int kExitInputError = 1;
constexpr int kExitUsageError = 2;
constexpr int kExitInternalError = 3;

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

  std::string catalog_name;
  std::string catalog_format = "table";
  CLI::App* catalog = app.add_subcommand("catalog", "Print the built-in hardware and workload catalogs");
  catalog->add_option("name", catalog_name, "Which catalog (all when omitted)")
      ->check(CLI::IsMember(vtsim::tools::catalog_names()));
  catalog->add_option("--format", catalog_format, "table or json")->check(CLI::IsMember({"table", "json"}));

  std::string scenario_file;
  std::vector<std::string> overrides;
  CLI::App* check = app.add_subcommand("check", "Validate a scenario and print it with every default filled in");
  check->add_option("scenario", scenario_file, "Scenario JSON file (the built-in default scenario when omitted)");
  check->add_option("--set", overrides, "Override a field, PATH=VALUE (e.g. jobs[0].batch_per_gpu=16); repeatable")
      ->allow_extra_args(false);

  vtsim::tools::RunRequest run_request;
  std::string run_format = "table";
  CLI::App* run = app.add_subcommand("run", "Simulate a scenario and print step time, throughput and scaling");
  run->add_option("scenario", run_request.scenario_file,
                  "Scenario JSON file (the built-in default when omitted; then NVLink on and off are compared)");
  run->add_option("--set", run_request.overrides, "Override a field, PATH=VALUE; repeatable")->allow_extra_args(false);
  run->add_option("--compare", run_request.compare,
                  "Also run the scenario with PATH=VALUE and show it side by side; repeatable")
      ->allow_extra_args(false);
  run->add_option("--format", run_format, "table or json")->check(CLI::IsMember({"table", "json"}));
  run->add_option("--trace", run_request.trace_file, "Write a Chrome trace-event timeline (Perfetto) to FILE");

  int bench_max_gpus = 1024;
  CLI::App* bench = app.add_subcommand("bench", "Time simulations of growing clusters; print a table");
  bench->add_option("--max-gpus", bench_max_gpus, "Largest cluster to simulate (8, 32, 128, ... up to this)")
      ->check(CLI::Range(8, 1 << 20));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);  // prints help, the version, or the error
    return code == 0 ? 0 : kExitUsageError;
  }

  try {
    if (*catalog) {
      vtsim::tools::print_catalog(std::cout, catalog_name, catalog_format == "json");
    } else if (*bench) {
      vtsim::tools::bench_command(std::cout, bench_max_gpus);
    } else if (*run) {
      run_request.json = run_format == "json";
      vtsim::tools::run_command(run_request, std::cout);
    } else if (*check) {
      const vtsim::Scenario scenario = vtsim::tools::load_scenario_or_default(scenario_file, overrides);
      vtsim::tools::print_resolved_scenario(std::cout, scenario);
    }
  } catch (const vtsim::InputError& error) {
    std::cerr << "vtsim: " << error.what() << '\n';
    return kExitInputError;
  } catch (const std::runtime_error& error) {
    std::cerr << "vtsim: internal error: " << error.what() << '\n';
    return kExitInternalError;
  }
  return 0;
}
