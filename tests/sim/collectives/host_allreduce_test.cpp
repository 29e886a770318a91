// One communication actor per host (sim/collectives/communicators.hpp make_host_allreduce): Horovod's hierarchical
// allreduce at flow fidelity with each host's ranks communicating as one, held to the full simulation, in which every
// rank runs its own actors and every transfer is a SimGrid communication (simulation.reduce_ranks and reduce_flows
// false). The host's flow to the next host is computed where it is alone on its links (the default), else a SimGrid
// flow on the route of all its members (reduce_flows false): both are checked.

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::scenario_of;
using testing::simulate_in_child;

/// BERT-large on 64 A100s, 2 racks of 4 hosts of 8, one 200 GbE NIC per host, the racks joined by 2 spines of
/// `uplink_gbps` each way, Horovod's hierarchical allreduce at flow fidelity. With `variability`, per-iteration
/// spread, a 5% spread of the GPUs' speeds (every rank a compute class of its own) and a 20 ms stall one iteration in
/// five.
nlohmann::json two_racks(double uplink_gbps, bool variability) {
  nlohmann::json json = {
      {"cluster",
       {{"racks", 2},
        {"hosts_per_rack", 4},
        {"host", {{"gpus", 8}, {"gpu_model", "a100-80gb-sxm4"}, {"nics", 1}, {"nic_model", "connectx-6-200gb"}}},
        {"transport", "roce_v2"},
        {"fabric", {{"spines", 2}, {"uplink_gbps", uplink_gbps}}}}},
      {"jobs",
       {{{"workload", "bert-large-pretrain-seq128"},
         {"batch_per_gpu", 32},
         {"data_parallel", "horovod"},
         {"horovod", {{"allreduce", "hierarchical"}}},
         {"iterations", 4},
         {"warmup_iterations", 1}}}},
      {"simulation", {{"fidelity", "flow"}, {"variability", variability}}}};
  if (variability) {
    json["simulation"]["gpu_speed_cv"] = 0.05;
    json["simulation"]["stalls"] = {{"per_iteration_probability", 0.2}, {"duration_ms", 20}};
  }
  return json;
}

struct Compared {
  nlohmann::json computed;   ///< one actor per host, its flow computed where alone
  nlohmann::json simulated;  ///< one actor per host, its flow a SimGrid communication
  nlohmann::json full;       ///< every rank its own actors, every transfer simulated
};

/// The scenario simulated with a communication actor per host, both ways, and in full.
Compared simulate_all(const nlohmann::json& json) {
  return {simulate_in_child(scenario_of(json)), simulate_in_child(scenario_of(json, {"simulation.reduce_flows=false"})),
          simulate_in_child(scenario_of(json, {"simulation.reduce_ranks=false", "simulation.reduce_flows=false"}))};
}

/// The largest relative difference between `run`'s steps and the full simulation's.
double largest_step_difference(const nlohmann::json& run, const nlohmann::json& full, const std::string& name) {
  const nlohmann::json& steps = run.at("jobs").at(0).at("step_times_s");
  const nlohmann::json& reference = full.at("jobs").at(0).at("step_times_s");
  EXPECT_EQ(steps.size(), reference.size()) << name;
  EXPECT_FALSE(reference.empty()) << name;
  double largest = 0;
  for (std::size_t i = 0; i < std::min(steps.size(), reference.size()); ++i) {
    const double step = reference.at(i).get<double>();
    largest = std::max(largest, std::abs(steps.at(i).get<double>() - step) / step);
  }
  return largest;
}

int communication_actors(const nlohmann::json& run) {
  return run.at("jobs").at(0).at("simulated_ranks").at("communication_actors").get<int>();
}

/// One actor per host in the reduced runs, one per rank in the full one. Every transfer of the default run is
/// computed: each host's flow to the next is alone on its links (its NIC's way out, the next NIC's way in, its
/// rack's uplinks), as are the NVLink transfers. With reduce_flows false all are SimGrid communications.
void expect_one_actor_per_host(const Compared& runs, const std::string& name) {
  EXPECT_EQ(communication_actors(runs.computed), 8) << name;
  EXPECT_EQ(communication_actors(runs.simulated), 8) << name;
  EXPECT_EQ(communication_actors(runs.full), 64) << name;
  EXPECT_EQ(runs.computed.at("communications").get<long>(), 0) << name;
  EXPECT_GT(runs.computed.at("transfers_alone").get<long>(), 0) << name;
  EXPECT_EQ(runs.simulated.at("transfers_alone").get<long>(), 0) << name;
  EXPECT_GT(runs.simulated.at("communications").get<long>(), 0) << name;
}

TEST(HostAllreduce, GivesTheFullSimulationsStepsWhereAHostsFlowsGetTheSameRate) {
  // Each host's 8 inter-host flows (one per local index) share its NIC, and its next host's, and nothing else binds
  // them: the 2 x 200 Gb/s of uplinks carry the 8 flows between the racks at 25 Gb/s each. So every flow of a host
  // gets 1/8 of the NIC in the full simulation, as the one flow standing for them does on a route that lists the
  // NICs 8 times. Horovod's coordinator hands every rank a fusion buffer at once, so the host's ranks start each
  // allreduce together, with or without variability: the steps are the same but for SimGrid's timing precision.
  for (const bool variability : {false, true}) {
    const std::string name = variability ? "with variability" : "without variability";
    const Compared runs = simulate_all(two_racks(200, variability));
    expect_one_actor_per_host(runs, name);
    EXPECT_LT(largest_step_difference(runs.computed, runs.full, name), 1e-9) << name;
    EXPECT_LT(largest_step_difference(runs.simulated, runs.full, name), 1e-9) << name;
  }
}

TEST(HostAllreduce, StaysWithinOnePercentWhereSpineCollisionsSlowSomeOfAHostsFlows) {
  // Uplinks of 20 Gb/s: between the racks ECMP hashes the 8 flows of a boundary host unevenly onto the 2 spines
  // (from rack 0 to rack 1, 6 onto one and 2 onto the other under the default seed), and each spine binds its flows
  // below their 25 Gb/s share of the NIC, the crowded one more. The flow standing for the 8 moves at the slowest
  // member's rate, so the members on the other spine end later than in the full simulation; but the host's allgather
  // waits for its slowest member in both, whose rate the spine sets alone. (Measured: the same steps to the last
  // digit; the bound tested is the 1%.)
  const nlohmann::json json = two_racks(20, true);
  // The 8 flows from the last host of rack 0 (GPUs 24-31) to the first of rack 1 (GPUs 32-39), local index l as
  // connection l: the spines ECMP hashes them onto.
  const Topology topology = scenario_topology(scenario_of(json), {});
  std::multiset<int> spines;
  for (int l = 0; l < 8; ++l) spines.insert(topology.ecmp_spine(24 + l, 32 + l, l));
  EXPECT_EQ(spines.count(0) * spines.count(1), 12U) << "6 flows on one spine and 2 on the other";
  const Compared runs = simulate_all(json);
  expect_one_actor_per_host(runs, "thin uplinks");
  EXPECT_LT(largest_step_difference(runs.computed, runs.full, "thin uplinks"), 0.01);
  EXPECT_LT(largest_step_difference(runs.simulated, runs.full, "thin uplinks"), 0.01);
  // The same model both ways: a boundary host's flow computed at the least of its links' bandwidth / k (the NIC's / 8,
  // the crowded uplink's / 6) is SimGrid's flow on its class route to SimGrid's timing precision.
  EXPECT_LT(largest_step_difference(runs.computed, runs.simulated, "computed against simulated"), 1e-9);
}

TEST(HostAllreduce, EveryRankCommunicatesWhereAHostsRanksWouldNotBeAlike) {
  // Where the host's intra-host transfers share links with its flows to other hosts (PCIe servers, whose GPUs reach
  // each other and the NIC through the same switches) or another job runs beside the job, every rank keeps its own
  // communication actor.
  nlohmann::json pcie = two_racks(200, false);
  pcie["cluster"]["host"]["gpu_model"] = "a100-80gb-pcie";
  pcie["cluster"]["hosts_per_rack"] = 2;
  pcie["cluster"]["host"]["gpus"] = 4;
  const nlohmann::json pcie_run = simulate_in_child(scenario_of(pcie));
  EXPECT_EQ(communication_actors(pcie_run), 16);
  // Refused for its intra-host edges, where the SXM servers' rings are accepted.
  for (const auto& [json, accepted] : {std::pair{pcie, false}, std::pair{two_racks(200, false), true}}) {
    const Scenario scenario = scenario_of(json);
    const Topology topology = scenario_topology(scenario, {});
    EXPECT_EQ(host_communicates_for_its_ranks(job_rings(scenario, 0, topology), topology), accepted);
  }
  nlohmann::json two_jobs = two_racks(200, false);
  two_jobs["jobs"].push_back(two_jobs["jobs"][0]);
  for (int j = 0; j < 2; ++j) {
    nlohmann::json gpus = nlohmann::json::array();
    for (int g = 0; g < 32; ++g) gpus.push_back(32 * j + g);
    two_jobs["jobs"][j]["gpus"] = gpus;
    two_jobs["jobs"][j]["name"] = "job" + std::to_string(j);
  }
  const nlohmann::json two_jobs_run = simulate_in_child(scenario_of(two_jobs));
  EXPECT_EQ(communication_actors(two_jobs_run), 32);
  // The same job alone runs one actor per host (the first test).
}

}  // namespace
}  // namespace vtsim::sim
