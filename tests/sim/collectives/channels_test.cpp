// NCCL's several rings at once (channels) over the real links: a full NVLink mesh, a job on part of it, NIC rails,
// and a leaf-spine fabric whose flows are hashed onto uplinks. Expected times are the alpha-beta closed form with the
// bandwidth worked out by hand from the links each ring takes.

#include <gtest/gtest.h>

#include "models/collectives/collective_model.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::scenario_of;
using testing::simulated_allreduce_s;

constexpr double kBytes = 256e6;
constexpr double kNv4_Bps = 4 * 25e9 * 0.8;        // one HGX A100 4-GPU pair: NV4 x 25 GB/s x 0.8 (link_defaults)
using testing::kRoce100_Bps;

nlohmann::json hgx_a100(int hosts_per_rack, int racks, int nics, const std::string& fidelity) {
  return {{"cluster",
           {{"racks", racks},
            {"hosts_per_rack", hosts_per_rack},
            {"host", {{"gpus", 4}, {"gpu_model", "a100-40gb-sxm4"}, {"nics", nics}, {"nic_model", "connectx-5-100gbe"}}},
            {"transport", "roce_v2"}}},
          {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}},
          {"simulation", {{"fidelity", fidelity}}}};
}

/// Simulated time against the closed form 2(N-1)/N x S/B + 2(N-1) x alpha (with NCCL's base latency; Simple at these
/// sizes), with alpha the latency of the route from GPU `from` to GPU `to` (every ring step of these cases pays the
/// same).
void expect_bandwidth(const Scenario& scenario, double bus_Bps, int from, int to, NcclHop hop) {
  const Topology topology = scenario_topology(scenario, {});
  const double expected =
      testing::nccl_ring_closed_form_s(scenario, kBytes, bus_Bps, topology.latency_s(topology.route(from, to)), hop);
  EXPECT_NEAR(simulated_allreduce_s(scenario, kBytes), expected, 1e-3 * expected);
}

class Fidelities : public ::testing::TestWithParam<std::string> {};

TEST_P(Fidelities, FourGpuMeshRunsEveryDirectedRingAtThreePairLinks) {
  // The 6 directed Hamiltonian cycles of K4 use each directed pair link twice: each ring gets half an NV4, and the
  // 6 rings with 1/6 of the data each move it at 3 x NV4 = 240 GB/s.
  const Scenario scenario = scenario_of(hgx_a100(1, 1, 1, GetParam()));
  EXPECT_EQ(job_rings(scenario, 0, scenario_topology(scenario, {})).channels.size(), 6u);
  expect_bandwidth(scenario, 3 * kNv4_Bps, 0, 1, NcclHop::nvlink);
}

TEST_P(Fidelities, ForcedChannelsMoveTheirShareOfTheMeshsBandwidth) {
  // NCCL's search finds 240 GB/s / 20 GB/s per NVLink channel (topo.h) = 12 channels and runs each twice (24,
  // ncclTopoPostset). NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = 6 runs a quarter of them, each at its share of the
  // bandwidth: 60 GB/s. 48 channels add thread blocks on the same links, not bandwidth.
  const Scenario six = scenario_of(hgx_a100(1, 1, 1, GetParam()), {"jobs[0].nccl.channels=6"});
  expect_bandwidth(six, 3 * kNv4_Bps / 4, 0, 1, NcclHop::nvlink);
  const Scenario many = scenario_of(hgx_a100(1, 1, 1, GetParam()), {"jobs[0].nccl.channels=48"});
  expect_bandwidth(many, 3 * kNv4_Bps, 0, 1, NcclHop::nvlink);
}

TEST_P(Fidelities, TwoGpusOfTheMeshUseOnlyTheirPairLink) {
  const Scenario scenario = scenario_of(hgx_a100(1, 1, 1, GetParam()), {"jobs[0].gpus=[0,3]"});
  EXPECT_EQ(job_rings(scenario, 0, scenario_topology(scenario, {})).channels.size(), 1u);
  expect_bandwidth(scenario, kNv4_Bps, 0, 3, NcclHop::nvlink);
}

TEST_P(Fidelities, ThreeGpusOfTheMeshRunTwoRings) {
  // K3 has two directed cycles, arc-disjoint: 2 x NV4.
  const Scenario scenario = scenario_of(hgx_a100(1, 1, 1, GetParam()), {"jobs[0].gpus=[0,1,2]"});
  expect_bandwidth(scenario, 2 * kNv4_Bps, 0, 1, NcclHop::nvlink);
}

TEST_P(Fidelities, TwoNicsCarryTwoRails) {
  // 2 hosts x 2 A100 joined by NVLink (12 links, 240 GB/s): the rings are bound by the NICs. One NIC: one ring
  // flow each way through it. Two NICs: two rings, each leaving a host through one NIC and entering through the
  // other, so each NIC direction carries one flow: twice the bandwidth.
  const Scenario single = scenario_of(hgx_a100(2, 1, 1, GetParam()), {"cluster.host.gpus=2"});
  const Scenario dual = scenario_of(hgx_a100(2, 1, 2, GetParam()), {"cluster.host.gpus=2"});
  EXPECT_EQ(job_rings(dual, 0, scenario_topology(dual, {})).channels.size(), 2u);
  // A ring step either crosses NVLink or the NICs; the NIC steps' latency dominates each phase's N-1 steps only in
  // part, so the latency bound used here is the NIC route's, and the tolerance covers the rest (microseconds).
  expect_bandwidth(single, kRoce100_Bps, 1, 2, NcclHop::net);
  expect_bandwidth(dual, 2 * kRoce100_Bps, 1, 2, NcclHop::net);
}

INSTANTIATE_TEST_SUITE_P(StepFlowAnalytic, Fidelities, ::testing::Values("step", "flow", "analytic"));

/// Allreduce time of 8 one-GPU hosts split over two racks, with `spines` spines and 100 Gb/s uplinks.
double two_rack_allreduce_s(int spines, const std::string& fidelity) {
  nlohmann::json json = hgx_a100(4, 2, 1, fidelity);
  json["cluster"]["host"]["gpus"] = 1;
  json["cluster"]["fabric"] = {{"spines", spines}, {"uplink_gbps", 100}};
  return simulated_allreduce_s(scenario_of(json), kBytes);
}

TEST(Fabric, MoreSpinesAtAFixedUplinkSpeedNeverSlowAJob) {
  for (const std::string fidelity : {"flow", "analytic"}) {
    double previous = std::numeric_limits<double>::infinity();
    for (int spines : {1, 2, 4, 8}) {
      const double time_s = two_rack_allreduce_s(spines, fidelity);
      EXPECT_LE(time_s, previous * (1 + 1e-9)) << spines << " spines, " << fidelity;
      previous = time_s;
    }
  }
}

TEST(Fabric, NonBlockingTwoRackJobRunsAsInOneRack) {
  // 1:1 with uplinks at the NIC's rate: the two edges between racks each take one uplink port (each rack sends one
  // flow up and receives one), so the ring runs at the NIC's rate as in one rack; only 2 x 2 switch latencies differ.
  nlohmann::json one_rack = hgx_a100(8, 1, 1, "flow");
  one_rack["cluster"]["host"]["gpus"] = 1;
  const double in_one_rack = simulated_allreduce_s(scenario_of(one_rack), kBytes);
  const double across_two = two_rack_allreduce_s(4, "flow");
  EXPECT_NEAR(across_two, in_one_rack, 0.03 * in_one_rack);
  expect_bandwidth(scenario_of(one_rack), kRoce100_Bps, 0, 1, NcclHop::net);
}

TEST(Fabric, OneForcedChannelHoldsTransfersBetweenRacksToHalfTheNicsRate) {
  // 4 one-GPU hosts, one per rack: every ring edge crosses racks, a host-to-host communication between port hosts,
  // whose rate SimGrid ignores; the cap holds each transfer's end instead. Each rack sends one flow up and receives
  // one, so no uplink is shared: the NIC's rate uncapped, half of it with one of NCCL's two channels.
  nlohmann::json json = hgx_a100(1, 4, 1, "flow");
  json["cluster"]["host"]["gpus"] = 1;
  json["cluster"]["fabric"] = {{"spines", 4}, {"uplink_gbps", 100}};
  const Scenario own = scenario_of(json);
  json["jobs"][0]["nccl"] = {{"channels", 1}};
  const Scenario forced = scenario_of(json);
  const Topology topology = scenario_topology(own, {});
  const double alpha_s = topology.latency_s(topology.route(0, 1));
  const double own_s = testing::nccl_ring_closed_form_s(own, kBytes, kRoce100_Bps, alpha_s, NcclHop::net);
  const double forced_s = testing::nccl_ring_closed_form_s(forced, kBytes, kRoce100_Bps / 2, alpha_s, NcclHop::net);
  EXPECT_NEAR(simulated_allreduce_s(own, kBytes), own_s, 1e-3 * own_s);
  EXPECT_NEAR(simulated_allreduce_s(forced, kBytes), forced_s, 1e-3 * forced_s);
  // Every edge is alone on its route, so the above computed each transfer at the capped rate; simulated, the cap
  // holds each host-to-host communication's end.
  json["simulation"]["reduce_flows"] = false;
  EXPECT_NEAR(simulated_allreduce_s(scenario_of(json), kBytes), forced_s, 1e-3 * forced_s);
}

TEST(Fabric, ForcedChannelsStretchATreeCallsBandwidthTerm) {
  // 4 HGX A100 hosts in one rack, one 200 Gb/s NIC each: NCCL's search finds 2 channels of the NIC's ~24 GB/s and
  // runs 4; at 64 KiB it picks a tree, which vtsim times by NCCL's own model. One forced channel moves a quarter of
  // the bandwidth: the call takes its latency plus 4 x its bandwidth term (models/collectives/nccl_tuning.hpp).
  const nlohmann::json json = {
      {"cluster",
       {{"hosts_per_rack", 4},
        {"host", {{"gpus", 8}, {"gpu_model", "a100-40gb-sxm4"}, {"nics", 1}, {"nic_model", "connectx-6-200gb"}}},
        {"transport", "roce_v2"}}},
      {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 64}}}}};
  constexpr double kTreeBytes = 65536;
  const Scenario own = scenario_of(json);
  const Scenario forced = scenario_of(json, {"jobs[0].nccl.channels=1"});
  const Topology topology = scenario_topology(own, {});
  const NcclCommunicator comm = job_nccl_communicator(own, 0, nccl_device(own), job_rings(own, 0, topology), topology);
  ASSERT_EQ(nccl_running_channels(comm), 4);
  const NcclChoice choice = nccl_allreduce_choice(comm, kTreeBytes);
  ASSERT_EQ(choice.algorithm, NcclAlgorithm::tree);
  const double latency_s =
      nccl_allreduce_costs(comm).latency_us[0][static_cast<std::size_t>(choice.protocol)] * 1e-6;  // row 0: tree
  EXPECT_NEAR(simulated_allreduce_s(own, kTreeBytes), choice.predicted_s, 1e-12);
  EXPECT_NEAR(simulated_allreduce_s(forced, kTreeBytes), latency_s + 4 * (choice.predicted_s - latency_s), 1e-12);
}

TEST(Fabric, LoaderDerivesTheThirdFabricFigure) {
  // 4 hosts x one 100 Gb/s NIC = 400 Gb/s into each leaf.
  nlohmann::json json = hgx_a100(4, 2, 1, "flow");
  json["cluster"]["fabric"] = {{"spines", 2}, {"uplink_gbps", 100}};
  EXPECT_DOUBLE_EQ(scenario_of(json).cluster.fabric.oversubscription, 2.0);
  json["cluster"]["fabric"] = {{"oversubscription", 2.0}, {"spines", 4}};
  EXPECT_DOUBLE_EQ(scenario_of(json).cluster.fabric.uplink_bandwidth_Bps, 50e9 / 8);
  json["cluster"]["fabric"] = {{"oversubscription", 1.0}, {"uplink_gbps", 400}};
  EXPECT_EQ(scenario_of(json).cluster.fabric.spines, 1);
  json["cluster"]["fabric"] = nlohmann::json::object();  // 1:1 at the NIC's rate: one uplink per NIC
  EXPECT_EQ(scenario_of(json).cluster.fabric.spines, 4);
  json["cluster"]["fabric"] = {{"oversubscription", 3.0}};  // 400 / 3 / 100 = 1.33, rounded up: 2 spines, 2:1
  EXPECT_EQ(scenario_of(json).cluster.fabric.spines, 2);
  EXPECT_DOUBLE_EQ(scenario_of(json).cluster.fabric.oversubscription, 2.0);
}

/// 8 one-GPU hosts in two racks on ConnectX-6 VPI HDR 200 Gb/s over InfiniBand, 2 spines of 200 Gb/s uplinks (2:1).
nlohmann::json two_rack_infiniband(const std::string& fidelity) {
  nlohmann::json json = hgx_a100(4, 2, 1, fidelity);
  json["cluster"]["host"]["gpus"] = 1;
  json["cluster"]["host"]["nic_model"] = "connectx-6-vpi-hdr";
  json["cluster"]["transport"] = "infiniband";
  json["cluster"]["fabric"] = {{"spines", 2}, {"uplink_gbps", 200}};
  return json;
}

TEST(Fabric, AdaptiveRoutingJoinsALeafsUplinksIntoOne) {
  // InfiniBand routes adaptively by default: each leaf's 2 uplinks act as one of 2 x 200 Gb/s x 0.98 (the transport's
  // efficiency, nic_catalog), and every flow between racks takes it: no spine to hash onto.
  const Scenario adaptive = scenario_of(two_rack_infiniband("flow"));
  EXPECT_TRUE(adaptive.cluster.fabric.adaptive_routing);
  const Topology topology = scenario_topology(adaptive, {});
  EXPECT_EQ(topology.spine_count(), 1);
  const Link& uplink = topology.links()[static_cast<std::size_t>(topology.uplink(0, 0))];
  EXPECT_DOUBLE_EQ(uplink.bandwidth_Bps, 2 * 200e9 / 8 * 0.98);
  // Switched off, the two spines are hashed onto as on Ethernet.
  nlohmann::json hashed = two_rack_infiniband("flow");
  hashed["cluster"]["fabric"]["adaptive_routing"] = false;
  EXPECT_EQ(scenario_topology(scenario_of(hashed), {}).spine_count(), 2);
}

TEST_P(Fidelities, AdaptivelyRoutedRingAcrossRacksRunsAtTheNicsRate) {
  // The ring's two edges between racks each take one direction of the joined uplink (400 Gb/s x 0.98), faster than
  // the NIC (200 x 0.98): the closed form at the NIC's rate, with the cross-rack route's latency.
  const double ib200_Bps = 200e9 / 8 * 0.98;
  expect_bandwidth(scenario_of(two_rack_infiniband(GetParam())), ib200_Bps, 3, 4, NcclHop::net);
}

/// Two racks of one host each, 2 A100s joined by NVLink and 2 ConnectX-5 100 GbE per host, one spine of 100 Gb/s
/// uplinks.
nlohmann::json two_rack_two_nics(const std::string& fidelity) {
  nlohmann::json json = hgx_a100(1, 2, 2, fidelity);
  json["cluster"]["host"]["gpus"] = 2;
  json["cluster"]["fabric"] = {{"spines", 1}, {"uplink_gbps", 100}};
  return json;
}

TEST_P(Fidelities, RailLeavesGiveEachRailItsOwnUplinks) {
  // Two rings, one per NIC. One leaf per rack: ring 0 runs 1 -> 0 -> 3 -> 2 (it leaves each host from the GPU beside
  // NIC 0), ring 1 0 -> 1 -> 2 -> 3; the four edges between the racks are 0 -> 3, 2 -> 1, 1 -> 2 and 3 -> 0. Each
  // leaf's one uplink carries two of them each way (0 -> 3 and 1 -> 2 up from rack 0), so each ring gets half of
  // 100 Gb/s: bus bandwidth 2 x 50 Gb/s.
  // Rail-optimized: ring c enters each host at the GPU beside NIC c (ring 0: 0 -> 1 -> 2 -> 3, ring 1: 1 -> 0 -> 3 ->
  // 2) and each flow takes its receiver's rail, so 1 -> 2 and 3 -> 0 run on rail 0, 0 -> 3 and 2 -> 1 on rail 1; each
  // rail leaf has its own uplink: one flow per uplink and NIC direction, 2 x 100 Gb/s.
  const Scenario one_leaf = scenario_of(two_rack_two_nics(GetParam()));
  expect_bandwidth(one_leaf, kRoce100_Bps, 1, 2, NcclHop::net);
  nlohmann::json rails = two_rack_two_nics(GetParam());
  rails["cluster"]["fabric"]["rail_optimized"] = true;
  const Scenario rail_leaves = scenario_of(rails);
  EXPECT_EQ(scenario_topology(rail_leaves, {}).rail_count(), 2);
  expect_bandwidth(rail_leaves, 2 * kRoce100_Bps, 1, 2, NcclHop::net);
}

TEST_P(Fidelities, RailOptimizedChannelsStayOnTheirRails) {
  // Two HGX A100 4-GPU boards (a full NVLink mesh: 6 rings, each walking a host's GPUs in another order) in two racks,
  // 2 NICs each on rail leaves, one spine. NCCL keeps channel c on one NIC; so does vtsim: every edge of channel c
  // between the hosts enters a GPU beside NIC c % 2, on rail c % 2. Three channels per rail: each rail's NICs and
  // uplink carry 3 flows each way at a third of 100 Gb/s, and 6 channels of a sixth of the data each give a bus
  // bandwidth of 2 x 100 Gb/s (with 4 channels on one rail and 2 on the other, 6 x 25: 1.5 x).
  nlohmann::json json = hgx_a100(1, 2, 2, GetParam());
  json["cluster"]["fabric"] = {{"spines", 1}, {"uplink_gbps", 100}, {"rail_optimized", true}};
  const Scenario scenario = scenario_of(json);
  const Topology topology = scenario_topology(scenario, {});
  const JobRings rings = job_rings(scenario, 0, topology);
  ASSERT_EQ(rings.channels.size(), 6u);
  for (std::size_t c = 0; c < rings.channels.size(); ++c) {
    const std::vector<int>& ring = rings.channels[c];
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const int from = ring[i];
      const int to = ring[(i + 1) % ring.size()];
      if (topology.location(from).host == topology.location(to).host) continue;
      EXPECT_EQ(topology.rail(to), static_cast<int>(c % 2)) << "channel " << c << ": " << from << " -> " << to;
    }
  }
  // The closed form takes each of the 14 steps at the NIC route's latency; the latencies are microseconds beside the
  // 19 ms of transfers, and the bound (1%) is a fifth of what one rail too many would cost (33%).
  const double alpha_s = topology.latency_s(topology.route(3, 4));
  const double expected = testing::nccl_ring_closed_form_s(scenario, kBytes, 2 * kRoce100_Bps, alpha_s, NcclHop::net);
  EXPECT_NEAR(simulated_allreduce_s(scenario, kBytes), expected, 0.01 * expected);
}

TEST_P(Fidelities, RingOverAGb200Nvl72RunsAtOneGpusNvlinks) {
  // The catalogued GB200 NVL72 rack, one NVLink domain of 72 GPUs: a ring allreduce (forced: NCCL would pick NVLS)
  // over all of them runs at one GPU's 18 NVLink 5 links, 18 x 50 GB/s x 0.8 = 720 GB/s of bus bandwidth, and pays
  // the NVLink step's latency.
  const nlohmann::json json = {{"cluster", {{"host", {{"model", "gb200-nvl72"}}}, {"transport", "infiniband"}}},
                               {"jobs", {{{"workload", "gpt3-1.3b"}, {"precision", "bf16"}, {"batch_per_gpu", 1}}}},
                               {"simulation", {{"fidelity", GetParam()}}}};
  const Scenario scenario = scenario_of(json, {"jobs[0].nccl.algorithm=ring"});
  const Topology topology = scenario_topology(scenario, {});
  const JobRings rings = job_rings(scenario, 0, topology);
  ASSERT_EQ(rings.ring.size(), 72u);
  const NcclChoice choice =
      nccl_allreduce_choice(job_nccl_communicator(scenario, 0, nccl_device(scenario), rings, topology), kBytes);
  ASSERT_EQ(choice.algorithm, NcclAlgorithm::ring);
  const double alpha_s = topology.latency_s(topology.route(0, 1)) + nccl_step_extra_s(NcclHop::nvlink, choice.protocol);
  const double expected = nccl_base_latency_s(choice.algorithm, choice.protocol) +
                          RingAlgorithm(Collective::allreduce, 72)
                              .time_s(kBytes / nccl_protocol_efficiency(choice.protocol), 18 * 50e9 * 0.8, alpha_s);
  EXPECT_NEAR(simulated_allreduce_s(scenario, kBytes), expected, 1e-3 * expected);
}

TEST(Fabric, NcclSearchesAtMostThirtyTwoChannels) {
  // Two GB200 NVL72 racks over InfiniBand: 72 NIC rails of 400 Gb/s x 0.98 between them, 3.5 TB/s of bus bandwidth
  // over NCCL's 12 GB/s per NIC channel would be 294 channels; NCCL's ring search stops at MAXCHANNELS / 2 = 32
  // (src/init.cc), which it then runs twice: 64.
  const nlohmann::json json = {
      {"cluster", {{"hosts_per_rack", 2}, {"host", {{"model", "gb200-nvl72"}}}, {"transport", "infiniband"}}},
      {"jobs", {{{"workload", "gpt3-1.3b"}, {"precision", "bf16"}, {"batch_per_gpu", 1}}}}};
  const Scenario scenario = scenario_of(json);
  const Topology topology = scenario_topology(scenario, {});
  const NcclCommunicator comm = nccl_communicator(nccl_device(scenario), job_rings(scenario, 0, topology), topology);
  EXPECT_EQ(comm.channels, 32);
  EXPECT_EQ(nccl_running_channels(comm), 64);
}

TEST(Fabric, CollnetGraphsComeFromTheHostsLinksAndNics) {
  // Two DGX A100 on HDR InfiniBand with CollNet: each GPU's 12 NVLink 3 links of 25 GB/s at 0.8 (link_defaults)
  // reach 240 GB/s through the NVSwitch; 8 NICs of 200 Gb/s at InfiniBand's 0.98 give the node 8 x 24.5 GB/s.
  // Direct: a head per NIC at 24.5 GB/s, 24 in the search's speeds; bwIntra raised to 48, twice that (each GPU
  // carries 2 x 48 <= 240). Chain: the ring's 196 / 12 = 16 channels of 12.25 GB/s, 12 in the speeds; bwIntra 15, the
  // fastest speed 16 chains through one GPU fit (240 / 16).
  nlohmann::json json = {
      {"cluster", {{"hosts_per_rack", 2}, {"host", {{"model", "dgx-a100"}}}, {"transport", "infiniband"}}},
      {"virtualization", {{"mode", "bare_metal"}}},
      {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"nccl", {{"collnet", true}}}}}}};
  Scenario scenario = scenario_of(json);
  Topology topology = scenario_topology(scenario, {});
  NcclCommunicator comm =
      job_nccl_communicator(scenario, 0, nccl_device(scenario), job_rings(scenario, 0, topology), topology);
  EXPECT_TRUE(comm.collnet);
  EXPECT_TRUE(comm.nvswitch);
  EXPECT_DOUBLE_EQ(comm.collnet_gpu_intra_GBps, 240.0);
  EXPECT_EQ(comm.collnet_direct.channels, 8);
  EXPECT_DOUBLE_EQ(comm.collnet_direct.inter_GBps, 24.0);
  EXPECT_DOUBLE_EQ(comm.collnet_direct.intra_GBps, 48.0);
  EXPECT_EQ(comm.channels, 16);
  EXPECT_EQ(comm.collnet_chain.channels, 16);
  EXPECT_DOUBLE_EQ(comm.collnet_chain.inter_GBps, 12.0);
  EXPECT_DOUBLE_EQ(comm.collnet_chain.intra_GBps, 15.0);
  // 12 of the 16 GPUs, 8 on one node and 4 on the other: uneven nodes get no CollNet graphs.
  json["jobs"][0]["gpus"] = 12;
  scenario = scenario_of(json);
  topology = scenario_topology(scenario, {});
  comm = job_nccl_communicator(scenario, 0, nccl_device(scenario), job_rings(scenario, 0, topology), topology);
  EXPECT_EQ(comm.nodes, 2);
  EXPECT_EQ(comm.collnet_direct.channels, 0);
  EXPECT_EQ(comm.collnet_chain.channels, 0);
}

TEST(Fabric, RailOptimizedOversubscriptionIsPerRailLeaf) {
  // 4 hosts x 2 NICs of 100 Gb/s: one leaf takes 800 Gb/s, a rail leaf 400. With 2 spines of 100 Gb/s uplinks: 4:1
  // and 2:1; 1:1 at the NIC's rate needs 8 spines and 4.
  nlohmann::json json = hgx_a100(4, 2, 2, "flow");
  json["cluster"]["fabric"] = {{"spines", 2}, {"uplink_gbps", 100}};
  EXPECT_DOUBLE_EQ(scenario_of(json).cluster.fabric.oversubscription, 4.0);
  json["cluster"]["fabric"]["rail_optimized"] = true;
  EXPECT_DOUBLE_EQ(scenario_of(json).cluster.fabric.oversubscription, 2.0);
  json["cluster"]["fabric"] = {{"rail_optimized", true}};
  EXPECT_EQ(scenario_of(json).cluster.fabric.spines, 4);
  json["cluster"]["fabric"] = nlohmann::json::object();
  EXPECT_EQ(scenario_of(json).cluster.fabric.spines, 8);
  // Uplinks per rack: 2 rails x 4 spines.
  json["cluster"]["fabric"] = {{"rail_optimized", true}};
  const Topology topology = scenario_topology(scenario_of(json), {});
  EXPECT_EQ(topology.links()[static_cast<std::size_t>(topology.uplink(1, 7))].name, "rack1/rail1/uplink3");
}

TEST(Fabric, EcmpSpreadsFlowsOverTheSpinesAndFollowsTheSeed) {
  nlohmann::json json = hgx_a100(4, 2, 1, "flow");
  json["cluster"]["fabric"] = {{"spines", 8}, {"uplink_gbps", 100}};
  const Topology topology = scenario_topology(scenario_of(json), {});
  std::vector<int> hits(8, 0);
  for (int flow = 0; flow < 800; ++flow) ++hits[static_cast<std::size_t>(topology.ecmp_spine(0, 16, flow))];
  for (int count : hits) EXPECT_GT(count, 50);  // 100 expected per spine; far below 50 would be a broken hash
  json["simulation"]["seed"] = 2;
  const Topology reseeded = scenario_topology(scenario_of(json), {});
  int differ = 0;
  for (int flow = 0; flow < 64; ++flow) differ += topology.ecmp_spine(0, 16, flow) != reseeded.ecmp_spine(0, 16, flow);
  EXPECT_GT(differ, 32);  // 7/8 of them expected to differ
}

}  // namespace
}  // namespace vtsim::sim
