#pragma once
// Scenarios written in tests, validated as a file would be: shared by the tests of models/ (network, resolve) and
// of the engine (tests/sim/sim_test_support.hpp), without SimGrid.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario.hpp"
#include "models/scenario/scenario_loader.hpp"

namespace vtsim::test_support {

/// ConnectX-5 100 GbE's line rate times RoCE v2's protocol efficiency, 0.97 (models/catalog/nic_catalog.cpp), in
/// bytes/s.
inline constexpr double kRoce100_Bps = 100e9 / 8 * 0.97;

/// A scenario from JSON text with `--set`-style overrides, validated as a file would be. Compute variability is off
/// unless the JSON or an override turns it on: these tests pin mechanisms against exact derivations.
inline Scenario scenario_of(nlohmann::json json, const std::vector<std::string>& overrides = {}) {
  if (!json.contains("simulation") || !json["simulation"].contains("variability")) {
    json["simulation"]["variability"] = false;
  }
  for (const std::string& assignment : overrides) apply_override(json, assignment);
  return load_scenario(json, "test.json", ".");
}

/// 8 one-GPU A100 hosts in a rack on ConnectX-5 100 GbE RoCE v2, training ResNet-50: every ring step crosses two
/// NICs, the bottleneck of identical routes. As JSON, for tests that change it with overrides.
inline nlohmann::json eight_hosts_json() {
  return {{"cluster",
           {{"hosts_per_rack", 8},
            {"host", {{"gpus", 1}, {"gpu_model", "a100-40gb-sxm4"}, {"nic_model", "connectx-5-100gbe"}}},
            {"transport", "roce_v2"}}},
          {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}}};
}

/// eight_hosts_json() as a scenario.
inline Scenario eight_hosts() { return scenario_of(eight_hosts_json()); }

}  // namespace vtsim::test_support
