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
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "models/collectives/collective_model.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "models/network/topology.hpp"
#include "models/resolve/resolve.hpp"
#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario_loader.hpp"
#include "runner/point_runner.hpp"
#include "sim/collectives/communicators.hpp"
#include "sim/engine/engine_setup.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/simulation.hpp"
#include "tests/models/scenario_test_support.hpp"

namespace vtsim::sim::testing {

using vtsim::test_support::eight_hosts;
using vtsim::test_support::eight_hosts_json;
using vtsim::test_support::kRoce100_Bps;
using vtsim::test_support::scenario_of;

/// The result of simulating `scenario`, as JSON, from a child process (one SimGrid engine per process).
inline nlohmann::json simulate_in_child(const Scenario& scenario) {
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario)); });
}

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

/// The platform of a test that needs only somewhere for its actors to run: one host named `name` (speed 1 flop/s) in
/// a zone of its own. REQUIRES: an engine (test_engine) and no platform yet.
inline simgrid::s4u::Host* lone_host(const std::string& name) {
  simgrid::s4u::NetZone* zone = simgrid::s4u::create_full_zone("zone");
  simgrid::s4u::Host* host = zone->create_host(name, 1.0)->seal();
  zone->seal();
  return host;
}

/// Simulated seconds one allreduce of `bytes` takes for job 0 of `scenario` with `calibration`'s link measurements,
/// with what its `nccl` settings force (all ranks start at 0; the last to finish ends it). Runs in a child process.
inline double simulated_allreduce_s(const Scenario& scenario, double bytes,
                                    const CalibratedParameters& calibration = {}) {
  const nlohmann::json answer = vtsim::sim::run_isolated([&] {
    const Topology topology = scenario_topology(scenario, calibration);
    const auto engine = test_engine(2 * scenario.jobs[0].gpu_ids.size());
    const JobRings rings = job_rings(scenario, 0, topology);
    const Platform platform(topology, cross_rack_ports(scenario.jobs[0], rings, topology));
    if (!scenario.simulation.reduce_flows) platform.route_ledger().disable();
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

/// The closed form of a flat NCCL ring allreduce of `bytes` for job 0 of `scenario` (its links as `calibration` has
/// them) at bus bandwidth `bandwidth_Bps` and link latency per step `alpha_s` on steps of class `hop`: the base
/// latency of the protocol NCCL picks, then
/// 2(N-1)/N x wire bytes / B + 2(N-1) (alpha + the protocol's extra per step) with the protocol's wire bytes
/// (models/collectives/nccl_tuning.hpp; the choice itself is tested against hand derivations in
/// tests/models/collectives/nccl_tuning_test.cpp).
inline double nccl_ring_closed_form_s(const Scenario& scenario, double bytes, double bandwidth_Bps, double alpha_s,
                                      NcclHop hop, const CalibratedParameters& calibration = {}) {
  const Topology topology = scenario_topology(scenario, calibration);
  const JobRings rings = job_rings(scenario, 0, topology);
  const NcclChoice choice = nccl_allreduce_choice(nccl_communicator(nccl_device(scenario), rings, topology), bytes);
  EXPECT_EQ(choice.algorithm, NcclAlgorithm::ring) << "a case for rings";
  return nccl_base_latency_s(choice.algorithm, choice.protocol) +
         RingAlgorithm(Collective::allreduce, static_cast<int>(rings.ring.size()))
             .time_s(bytes / nccl_protocol_efficiency(choice.protocol), bandwidth_Bps,
                     alpha_s + nccl_step_extra_s(hop, choice.protocol));
}

/// A GPT of 4 blocks of width 1024 (512 tokens) split tensor 4 x pipeline 2 x data 2 over 2 racks of 2 hosts of 4
/// A100s, one NIC per host, at analytic fidelity: every tensor group's pipeline transfers between racks share its
/// host's one NIC (the test fails when a group moves one member's activations instead of all of them).
inline nlohmann::json split_gpt(const std::string& schedule, int zero_stage, int iterations) {
  return {{"cluster",
           {{"racks", 2},
            {"hosts_per_rack", 2},
            {"host", {{"gpus", 4}, {"gpu_model", "a100-40gb-sxm4"}, {"nics", 1}}},
            {"fabric", {{"spines", 2}, {"oversubscription", 1.0}}}}},
          {"jobs",
           {{{"workload",
              {{"transformer",
                {{"layers", 4}, {"hidden_size", 1024}, {"heads", 8}, {"sequence_length", 512}, {"vocab_size", 64}}}}},
             {"precision", "fp16"},
             {"batch_per_gpu", 4},
             {"data_loading_cpu_ms_per_sample", 0},
             {"parallelism",
              {{"tensor", 4},
               {"pipeline", 2},
               {"micro_batch_size", 1},
               {"schedule", schedule},
               {"zero_stage", zero_stage}}},
             {"iterations", iterations},
             {"warmup_iterations", 1}}}},
          {"simulation", {{"fidelity", "analytic"}, {"variability", false}}}};
}

}  // namespace vtsim::sim::testing
