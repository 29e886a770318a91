#pragma once
// Helpers for tests that run SimGrid: each simulation runs in a child process (one engine per process).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "models/collective_model.hpp"
#include "models/nccl_tuning.hpp"
#include "models/network/topology.hpp"
#include "models/overrides.hpp"
#include "models/resolve/resolve.hpp"
#include "models/scenario_loader.hpp"
#include "runner/point_runner.hpp"
#include "sim/communicators.hpp"
#include "sim/engine_setup.hpp"
#include "sim/isolated_run.hpp"
#include "sim/platform.hpp"
#include "sim/simulation.hpp"

namespace vtsim::sim::testing {

/// ConnectX-5 100 GbE's line rate times RoCE v2's protocol efficiency, 0.97 (models/nic_catalog.cpp), in bytes/s.
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

/// The result of simulating `scenario`, as JSON, from a child process (one SimGrid engine per process).
inline nlohmann::json simulate_in_child(const Scenario& scenario) {
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario)); });
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

/// A SimGrid engine configured as simulations configure theirs, for a test's child process (one engine per process).
inline std::unique_ptr<simgrid::s4u::Engine> test_engine(std::size_t actors) {
  int argc = 1;
  char program[] = "test";
  char* argv[] = {program, nullptr};
  auto engine = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
  configure_engine();
  configure_stacks(actors);
  return engine;
}

/// Simulated seconds one allreduce of `bytes` takes for job 0 of `scenario`, with what its `nccl` settings force (all
/// ranks start at 0; the last to finish ends it). Runs in a child process.
inline double simulated_allreduce_s(const Scenario& scenario, double bytes) {
  const nlohmann::json answer = vtsim::sim::run_isolated([&] {
    const Topology topology = scenario_topology(scenario);
    const auto engine = test_engine(2 * scenario.jobs[0].gpu_ids.size());
    const JobRings rings = job_rings(scenario, 0, topology);
    const Platform platform(topology, cross_rack_ports(scenario.jobs[0], rings, topology));
    std::unique_ptr<SimulatedCollective> allreduce =
        make_allreduce(scenario.jobs[0], rings, topology, platform, scenario.simulation.fidelity,
                       job_nccl_communicator(scenario, 0, nccl_device(scenario), rings, topology), nullptr);
    double end = 0;
    for (std::size_t p = 0; p < rings.ring.size(); ++p) {
      simgrid::s4u::Actor::create("rank" + std::to_string(p), platform.gpu_host(rings.ring[p]), [&, p] {
        allreduce->run(static_cast<int>(p), bytes);
        end = std::max(end, simgrid::s4u::Engine::get_clock());
      });
    }
    engine->run();
    return nlohmann::json(end);
  });
  return answer.get<double>();
}

/// The closed form of a flat NCCL ring allreduce of `bytes` for job 0 of `scenario` at bus bandwidth `bandwidth_Bps`
/// and link latency per step `alpha_s` on steps of class `hop`: the base latency of the protocol NCCL picks, then
/// 2(N-1)/N x wire bytes / B + 2(N-1) (alpha + the protocol's extra per step) with the protocol's wire bytes
/// (models/nccl_tuning.hpp; the choice itself is tested against hand derivations in tests/models/nccl_tuning_test.cpp).
inline double nccl_ring_closed_form_s(const Scenario& scenario, double bytes, double bandwidth_Bps, double alpha_s,
                                      NcclHop hop) {
  const Topology topology = scenario_topology(scenario);
  const JobRings rings = job_rings(scenario, 0, topology);
  const NcclChoice choice = nccl_allreduce_choice(nccl_communicator(nccl_device(scenario), rings, topology), bytes);
  EXPECT_EQ(choice.algorithm, NcclAlgorithm::ring) << "a case for rings";
  return nccl_base_latency_s(choice.algorithm, choice.protocol) +
         ring_allreduce_time_s(static_cast<int>(rings.ring.size()), bytes / nccl_protocol_efficiency(choice.protocol),
                               bandwidth_Bps, alpha_s + nccl_step_extra_s(hop, choice.protocol));
}

}  // namespace vtsim::sim::testing
