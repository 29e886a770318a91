#include "models/network/topology.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "models/catalog/gpu_catalog.hpp"
#include "models/resolve/resolve.hpp"
#include "tests/models/network/network_test_support.hpp"
#include "tests/models/scenario_test_support.hpp"

// Hand-derived figures used below (sources in models/catalog/link_defaults.cpp):
//   NVLink3 25 GB/s per link per direction x 0.8 ring efficiency; NCCL step latency (hwLat, Ring/LL) 0.6 us over
//   NVLink, 1.0 us over PCIe (two PCIe links per step, 0.5 us each); PCIe typical 25 GB/s (Gen4), 12 GB/s (Gen3);
//   host-memory staging 5 GB/s per GPU on Gen4; ConnectX-5 100 GbE: 12.5 GB/s x 0.97 (RoCE), 600 ns + 210 ns per
//   message.

namespace vtsim {
namespace {

constexpr double kNvlink3Link_Bps = 25e9;
constexpr double kPcieLink_s = 1.0e-6 / 2;  // NCCL hwLat PCI Ring/LL, half per link
using test_support::kRoce100_Bps;

/// A validated-looking scenario: `racks` x `hosts` hosts of `gpus` GPUs, one job on every GPU.
Scenario cluster(const std::string& gpu_model, int gpus, VirtualizationMode mode = VirtualizationMode::bare_metal,
                 int racks = 1, int hosts = 1) {
  Scenario scenario;
  ClusterConfig& config = scenario.cluster;
  config.racks = racks;
  config.hosts_per_rack = hosts;
  config.host.gpu_model = gpu_model;
  config.host.gpus = gpus;
  apply_gpu_model_defaults(config.host, *find_gpu(gpu_model));
  scenario.virtualization.mode = mode;
  JobConfig job;
  job.name = "job0";
  job.workload_id = "resnet-50";
  job.gpu_ids.resize(static_cast<std::size_t>(config.total_gpus()));
  std::iota(job.gpu_ids.begin(), job.gpu_ids.end(), 0);
  scenario.jobs.push_back(job);
  return scenario;
}

/// Replaces the jobs by one job per GPU list, with a vGPU profile (vgpu mode) or a MIG profile (mig mode).
void set_jobs(Scenario& scenario, const std::vector<std::vector<int>>& gpu_lists, const std::string& profile) {
  scenario.jobs.clear();
  for (const std::vector<int>& gpus : gpu_lists) {
    JobConfig job;
    job.name = "job" + std::to_string(scenario.jobs.size());
    job.workload_id = "resnet-50";
    job.gpu_ids = gpus;
    (scenario.virtualization.mode == VirtualizationMode::mig ? job.mig_profile : job.vgpu_profile) = profile;
    scenario.jobs.push_back(job);
  }
}

std::vector<std::string> names(const Topology& topology, const std::vector<Hop>& route) {
  std::vector<std::string> result;
  for (const Hop& hop : route) result.push_back(topology.links()[static_cast<std::size_t>(hop.link)].name);
  return result;
}

std::vector<LinkClass> classes(const Topology& topology, const std::vector<Hop>& route) {
  std::vector<LinkClass> result;
  for (const Hop& hop : route) result.push_back(topology.links()[static_cast<std::size_t>(hop.link)].link_class);
  return result;
}

std::vector<bool> directions(const std::vector<Hop>& route) {
  std::vector<bool> result;
  for (const Hop& hop : route) result.push_back(hop.forward);
  return result;
}

const std::vector<LinkClass> kStaged = {LinkClass::pcie, LinkClass::host_memory, LinkClass::host_memory,
                                        LinkClass::pcie};
const std::vector<LinkClass> kPcieP2p = {LinkClass::pcie, LinkClass::pcie};
const std::vector<LinkClass> kOneNvlink = {LinkClass::nvlink};

TEST(Topology, CountsAndLocationsFollowTheGlobalIndex) {
  const Topology topology = scenario_topology(cluster("a100-40gb-sxm4", 4, VirtualizationMode::bare_metal, 2, 3), {});
  EXPECT_EQ(topology.gpu_count(), 24);
  EXPECT_EQ(topology.host_count(), 6);
  EXPECT_EQ(topology.rack_count(), 2);
  const GpuLocation where = topology.location(17);  // host 17 / 4 = 4, rack 4 / 3 = 1, local 17 % 4 = 1
  EXPECT_EQ(where.host, 4);
  EXPECT_EQ(where.rack, 1);
  EXPECT_EQ(where.local, 1);
}

TEST(Topology, LinkNamesAreUniqueAndBandwidthsPositive) {
  const Topology topology = scenario_topology(cluster("a100-40gb-sxm4", 8, VirtualizationMode::bare_metal, 3, 2), {});
  std::set<std::string> seen;
  for (const Link& link : topology.links()) {
    EXPECT_TRUE(seen.insert(link.name).second) << link.name;
    EXPECT_GT(link.bandwidth_Bps, 0) << link.name;
  }
}

TEST(HgxA100FourGpu, PairRouteIsOneNvlinkHopOfFourLinks) {
  const Topology topology = scenario_topology(cluster("a100-40gb-sxm4", 4), {});
  EXPECT_EQ(topology.nvlink_layout(), NvlinkLayout::full_mesh);
  const std::vector<Hop> route = topology.route(0, 3);
  EXPECT_EQ(names(topology, route), std::vector<std::string>{"host0/nvlink0-3"});
  EXPECT_EQ(directions(route), std::vector<bool>{true});
  EXPECT_EQ(topology.route(3, 0), (std::vector<Hop>{{route[0].link, false}}));
  // NV4 per pair: 4 links x 25 GB/s x 0.8 (NCCL's several rings take other pairs' links, models/network/rings.cpp).
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), 4 * kNvlink3Link_Bps * 0.8);
  EXPECT_DOUBLE_EQ(topology.latency_s(route), 0.6e-6);  // NCCL hwLat NVLINK Ring/LL
}

TEST(HgxA100FourGpu, PassthroughWithNvlinkDisabledStagesThroughHostMemory) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::passthrough);
  scenario.cluster.host.nvlink_enabled = false;
  const Topology topology = scenario_topology(scenario, {});
  const std::vector<Hop> route = topology.route(1, 2);
  EXPECT_EQ(classes(topology, route), kStaged);
  EXPECT_EQ(names(topology, route), (std::vector<std::string>{"host0/gpu1/pcie", "host0/gpu1/host_memory",
                                                              "host0/gpu2/host_memory", "host0/gpu2/pcie"}));
  EXPECT_EQ(directions(route), (std::vector<bool>{true, true, false, false}));  // into host memory, then out
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), 5e9);
  EXPECT_DOUBLE_EQ(topology.latency_s(route), 2 * kPcieLink_s);  // staging adds nothing in NCCL's model
}

TEST(HgxA100FourGpu, PassthroughWithoutNvlinkGoesThroughHostMemory) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::passthrough);
  scenario.cluster.host.nvlink_present = false;
  scenario.cluster.host.nvlink_enabled = false;
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(classes(topology, topology.route(0, 1)), kStaged);
}

TEST(Vgpu, WholeGpuProfileKeepsNvlink) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::vgpu);
  set_jobs(scenario, {{0, 1, 2, 3}}, "A100X-40C");  // max 1 per GPU
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(classes(topology, topology.route(0, 1)), kOneNvlink);
}

TEST(Vgpu, HalfGpuProfileLosesNvlink) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::vgpu);
  set_jobs(scenario, {{0, 1, 2, 3}, {0, 1, 2, 3}}, "A100X-20C");  // 2 per GPU: not a whole GPU
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(classes(topology, topology.route(0, 1)), kStaged);
}

TEST(Vgpu, WholeGpusOfDifferentVmsDoNotUseNvlink) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::vgpu);
  set_jobs(scenario, {{0, 1}, {2, 3}}, "A100X-40C");
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(classes(topology, topology.route(0, 1)), kOneNvlink);
  EXPECT_EQ(classes(topology, topology.route(1, 2)), kStaged);  // never P2P over PCIe in vGPU mode
}

TEST(Mig, NeverUsesNvlink) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::mig);
  set_jobs(scenario, {{0, 1, 2, 3}, {0, 1, 2, 3}}, "3g.20gb");
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(classes(topology, topology.route(0, 1)), kStaged);
  EXPECT_EQ(classes(topology, topology.route(3, 2)), kStaged);
}

TEST(BareMetal, WithoutNvlinkUsesPcieP2pWithoutHostMemory) {
  const Topology topology = scenario_topology(cluster("t4", 4), {});  // T4: no NVLink, PCIe Gen3
  const std::vector<Hop> route = topology.route(0, 2);
  EXPECT_EQ(names(topology, route), (std::vector<std::string>{"host0/gpu0/pcie", "host0/gpu2/pcie"}));
  EXPECT_EQ(directions(route), (std::vector<bool>{true, false}));  // up to the root, down to the peer
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), 12e9);
  EXPECT_DOUBLE_EQ(topology.latency_s(route), 1.0e-6);  // NCCL hwLat PCI Ring/LL
}

TEST(PcieSwitches, PeersUnderOneSwitchStayBelowItAndOthersCrossItsUplink) {
  // 8 T4s behind two PCIe switches of 4 (GPUs 0-3 and 4-7), one NIC, on the first switch (NIC 0 of 1 on switch
  // floor(0 x 2 / 1) = 0).
  Scenario scenario = cluster("t4", 8);
  scenario.cluster.host.pcie_switch_gpus = 4;
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(names(topology, topology.route(0, 1)), (std::vector<std::string>{"host0/gpu0/pcie", "host0/gpu1/pcie"}));
  const std::vector<Hop> across = topology.route(0, 4);
  EXPECT_EQ(names(topology, across), (std::vector<std::string>{"host0/gpu0/pcie", "host0/pcie_switch0/uplink",
                                                               "host0/pcie_switch1/uplink", "host0/gpu4/pcie"}));
  EXPECT_EQ(directions(across), (std::vector<bool>{true, true, false, false}));
  EXPECT_DOUBLE_EQ(topology.latency_s(across), 1.0e-6);  // the uplinks add no latency to NCCL's PCI step
  EXPECT_EQ(names(topology, topology.gpu_to_network(1)), (std::vector<std::string>{"host0/gpu1/pcie", "host0/nic0"}));
  EXPECT_EQ(names(topology, topology.gpu_to_network(5)),
            (std::vector<std::string>{"host0/gpu5/pcie", "host0/pcie_switch1/uplink", "host0/pcie_switch0/uplink",
                                      "host0/nic0"}));
}

/// Two hosts in one rack of `gpus` GPUs of `gpu_model` with `nics` NICs, `per_switch` GPUs to a PCIe switch, on rail
/// leaves.
Scenario switched_hosts(const std::string& gpu_model, int gpus, int nics, int per_switch) {
  Scenario scenario = cluster(gpu_model, gpus, VirtualizationMode::bare_metal, 1, 2);
  scenario.cluster.host.nics = nics;
  scenario.cluster.host.pcie_switch_gpus = per_switch;
  scenario.cluster.fabric.rail_optimized = true;
  return scenario;
}

TEST(PcieSwitches, EachGpuSendsByTheNicUnderItsSwitch) {
  // Two hosts of 4 T4s (no NVLink, so no PXN) behind two PCIe switches of 2, with 2 NICs, on rail leaves: GPUs 0 and
  // 1 use NIC 0 under switch 0, GPUs 2 and 3 NIC 1 under switch 1. GPU 0 to GPU 5 (host 1, local 1) stays under
  // switch 0 at both ends (rail 0); GPU 0 to GPU 6 (local 2) takes rail 1, whose NIC is under switch 1: up GPU 0's
  // switch's uplink and down switch 1's, and at the far end NIC 1 and GPU 6 share switch 1.
  const Topology topology = scenario_topology(switched_hosts("t4", 4, 2, 2), {});
  EXPECT_EQ(topology.nic_of(1), 0);
  EXPECT_EQ(topology.nic_of(2), 1);
  EXPECT_EQ(names(topology, topology.route(0, 5)),
            (std::vector<std::string>{"host0/gpu0/pcie", "host0/nic0", "host1/nic0", "host1/gpu1/pcie"}));
  const std::vector<Hop> route = topology.route(0, 6);
  EXPECT_EQ(names(topology, route),
            (std::vector<std::string>{"host0/gpu0/pcie", "host0/pcie_switch0/uplink", "host0/pcie_switch1/uplink",
                                      "host0/nic1", "host1/nic1", "host1/gpu2/pcie"}));
  EXPECT_EQ(directions(route), (std::vector<bool>{true, true, false, true, false, false}));
}

TEST(PcieSwitches, PxnRelaysOnlyToANicUnderAnotherSwitch) {
  // Two DGX A100-like hosts (8 A100s on NVSwitch, 8 NICs, switches of 2 GPUs and 2 NICs) on rail leaves, RoCE v2.
  // GPU 0 reaches NIC 1 under its own switch directly, as NCCL does; NIC 2, under switch 1, across NVLink to GPU 2
  // (PXN) and through GPU 2's PCIe link.
  const Topology topology = scenario_topology(switched_hosts("a100-80gb-sxm4", 8, 8, 2), {});
  EXPECT_EQ(names(topology, topology.route(0, 9)),
            (std::vector<std::string>{"host0/gpu0/pcie", "host0/nic1", "host1/nic1", "host1/gpu1/pcie"}));
  EXPECT_EQ(names(topology, topology.route(0, 10)),
            (std::vector<std::string>{"host0/gpu0/nvlink", "host0/gpu2/nvlink", "host0/gpu2/pcie", "host0/nic2",
                                      "host1/nic2", "host1/gpu2/pcie"}));
  // gpu_to_nic keeps each searched route to another NIC by GPU and NIC: asked again, GPU 0's is the same, and GPU 1's
  // to NIC 0 (also under its own switch) is its own.
  EXPECT_EQ(names(topology, topology.route(0, 9)),
            (std::vector<std::string>{"host0/gpu0/pcie", "host0/nic1", "host1/nic1", "host1/gpu1/pcie"}));
  EXPECT_EQ(names(topology, topology.route(1, 8)),
            (std::vector<std::string>{"host0/gpu1/pcie", "host0/nic0", "host1/nic0", "host1/gpu0/pcie"}));
}

TEST(PcieSwitches, StagedTransportsCrossTheUplinkEvenToTheNicUnderTheirSwitch) {
  // TCP stages every message in host memory: GPU 0's data climbs its switch's uplink to the root complex and comes
  // back down it to NIC 0 under the same switch (each direction of the uplink once), where RoCE's GPUDirect RDMA
  // stays under the switch.
  Scenario scenario = cluster("t4", 4, VirtualizationMode::bare_metal, 1, 2);
  scenario.cluster.host.nics = 2;
  scenario.cluster.host.pcie_switch_gpus = 2;
  scenario.cluster.transport = Transport::tcp;
  const Topology tcp = scenario_topology(scenario, {});
  const std::vector<Hop> staged = tcp.gpu_to_network(0);
  EXPECT_EQ(names(tcp, staged),
            (std::vector<std::string>{"host0/gpu0/pcie", "host0/pcie_switch0/uplink", "host0/pcie_switch0/uplink",
                                      "host0/gpu0/tcp_stack", "host0/nic0"}));
  EXPECT_EQ(directions(staged), (std::vector<bool>{true, true, false, true, true}));
  scenario.cluster.transport = Transport::roce_v2;
  const Topology rdma = scenario_topology(scenario, {});
  EXPECT_EQ(names(rdma, rdma.gpu_to_network(0)), (std::vector<std::string>{"host0/gpu0/pcie", "host0/nic0"}));
}

TEST(PcieSwitches, GpusStagingThroughHostMemoryShareTheirSwitchsUplink) {
  // 8 T4s under one PCIe switch (a "single-root" server). In a passthrough VM (no PCIe P2P) a ring over them stages
  // every step through host memory: the switch's uplink carries all eight GPUs' sends up and all eight receives
  // down, so each step gets an eighth of it, where without the switch each GPU's own x16 link and its staging link
  // bound it.
  Scenario scenario = cluster("t4", 8, VirtualizationMode::passthrough);
  const Topology flat = scenario_topology(scenario, {});
  scenario.cluster.host.pcie_switch_gpus = 8;
  const Topology switched = scenario_topology(scenario, {});
  const auto bandwidth = [&](const std::string& name) {
    for (const Link& link : switched.links()) {
      if (link.name == name) return link.bandwidth_Bps;
    }
    ADD_FAILURE() << name;
    return 0.0;
  };
  const double staging = bandwidth("host0/gpu0/host_memory");
  const double uplink = bandwidth("host0/pcie_switch0/uplink");
  EXPECT_DOUBLE_EQ(uplink, bandwidth("host0/gpu0/pcie"));  // an x16 uplink at the slots' generation
  const std::vector<int> ring = {0, 1, 2, 3, 4, 5, 6, 7};
  EXPECT_DOUBLE_EQ(flat.ring_bottleneck_Bps(ring), std::min(staging, uplink));
  EXPECT_DOUBLE_EQ(switched.ring_bottleneck_Bps(ring), std::min(staging, uplink / 8));
  EXPECT_LT(uplink / 8, staging);  // so the switch binds here (Gen3: 12 GB/s / 8 against 2.4 GB/s of staging)
}

TEST(BareMetal, DisabledNvlinkFallsBackToPcieP2p) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4);
  scenario.cluster.host.nvlink_enabled = false;
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(classes(topology, topology.route(0, 1)), kPcieP2p);
}

TEST(P2pRules, OneRulePerModeInEnumOrderEachWithItsSource) {
  const P2pRuleTable& rules = default_p2p_rules();
  for (std::size_t i = 0; i < rules.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(rules[i].mode), i);
    EXPECT_FALSE(rules[i].source.empty());
  }
  EXPECT_FALSE(rules[static_cast<std::size_t>(VirtualizationMode::mig)].nvlink);
}

TEST(P2pRules, PassthroughPcieP2pCanBeFlipped) {
  const Scenario scenario = cluster("t4", 4, VirtualizationMode::passthrough);
  const Topology by_default = scenario_topology(scenario, {});
  EXPECT_EQ(classes(by_default, by_default.route(0, 1)), kStaged);
  P2pRuleTable rules = default_p2p_rules();
  rules[static_cast<std::size_t>(VirtualizationMode::passthrough)].pcie_p2p = true;  // ACS and IOMMU off
  const Topology flipped = scenario_topology(scenario, {}, rules);
  EXPECT_EQ(classes(flipped, flipped.route(0, 1)), kPcieP2p);
}

TEST(HgxA100EightGpu, RoutesThroughTheNvswitchInTwoHops) {
  const Topology topology = scenario_topology(cluster("a100-40gb-sxm4", 8), {});
  EXPECT_EQ(topology.nvlink_layout(), NvlinkLayout::nvswitch);
  const std::vector<Hop> route = topology.route(2, 5);
  EXPECT_EQ(names(topology, route), (std::vector<std::string>{"host0/gpu2/nvlink", "host0/gpu5/nvlink"}));
  EXPECT_EQ(directions(route), (std::vector<bool>{true, false}));
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), 12 * kNvlink3Link_Bps * 0.8);  // 240 GB/s
  EXPECT_DOUBLE_EQ(topology.latency_s(route), 0.6e-6);                            // two halves of one NVLink step
}

TEST(Gb200Nvl72, SeventyTwoGpusMeetOverNvlinkAtEighteenLinksEach) {
  // A GB200 NVL72 rack is one NVLink domain: any two of its 72 GPUs, on the same compute tray or not, meet through the
  // NVLink switches in two hops of 18 NVLink 5 links (50 GB/s each way, x 0.8 protocol efficiency), and a ring over
  // all 72 runs at one GPU's links: 720 GB/s.
  const Topology topology = scenario_topology(cluster("gb200", 72), {});
  EXPECT_EQ(topology.nvlink_layout(), NvlinkLayout::nvswitch);
  const std::vector<Hop> route = topology.route(0, 71);
  EXPECT_EQ(names(topology, route), (std::vector<std::string>{"host0/gpu0/nvlink", "host0/gpu71/nvlink"}));
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), 18 * 50e9 * 0.8);
  std::vector<int> all(72);
  for (int g = 0; g < 72; ++g) all[static_cast<std::size_t>(g)] = g;
  EXPECT_DOUBLE_EQ(topology.ring_bottleneck_Bps(all), 720e9);
}

TEST(Dgx1V100, EightGpusUseTheStarApproximation) {
  const Topology topology = scenario_topology(cluster("v100-sxm2-16gb", 8), {});
  EXPECT_EQ(topology.nvlink_layout(), NvlinkLayout::hub_approximation);
  const std::vector<Hop> route = topology.route(0, 7);
  EXPECT_EQ(classes(topology, route), (std::vector<LinkClass>{LinkClass::nvlink, LinkClass::nvlink}));
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), 6 * 25e9 * 0.8);  // V100: 6 NVLink2 links of 25 GB/s
}

TEST(TuringBridge, JoinsPairsAndLeavesOtherPairsToPcie) {
  const Topology bare = scenario_topology(cluster("quadro-rtx-6000", 4), {});
  EXPECT_EQ(names(bare, bare.route(2, 3)), std::vector<std::string>{"host0/nvlink2-3"});
  EXPECT_DOUBLE_EQ(bare.bottleneck_Bps(bare.route(2, 3)), 2 * 25e9 * 0.8);  // two links of 25 GB/s
  EXPECT_EQ(classes(bare, bare.route(1, 2)), kPcieP2p);
  const Topology passthrough = scenario_topology(cluster("quadro-rtx-6000", 4, VirtualizationMode::passthrough), {});
  EXPECT_EQ(classes(passthrough, passthrough.route(1, 2)), kStaged);
}

/// 2 racks x 2 hosts x 4 A100, one ConnectX-5 100 GbE per host, RoCE v2, 2 spines with 50 Gb/s uplinks: 2:1.
Scenario two_racks(int nics = 1) {
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::bare_metal, 2, 2);
  scenario.cluster.host.nics = nics;
  scenario.cluster.fabric.oversubscription = 2;
  scenario.cluster.fabric.spines = 2;
  scenario.cluster.fabric.uplink_bandwidth_Bps = 50e9 / 8;
  scenario.cluster.fabric.switch_latency_s = 300e-9;
  return scenario;
}

TEST(Fabric, CrossRackRouteClimbsToTheSpineAndBack) {
  const Topology topology = scenario_topology(two_racks(), {});
  const std::vector<Hop> route = topology.route(0, 8);  // GPU 8: host 2, rack 1; through the spine ECMP hashes to
  const std::string spine = std::to_string(topology.ecmp_spine(0, 8, 0));
  EXPECT_EQ(names(topology, route),
            (std::vector<std::string>{"host0/gpu0/pcie", "host0/nic0", "rack0/uplink" + spine, "rack1/uplink" + spine,
                                      "host2/nic0", "host2/gpu0/pcie"}));
  EXPECT_EQ(classes(topology, route), (std::vector<LinkClass>{LinkClass::pcie, LinkClass::nic, LinkClass::fabric,
                                                              LinkClass::fabric, LinkClass::nic, LinkClass::pcie}));
  EXPECT_EQ(directions(route), (std::vector<bool>{true, true, true, false, false, false}));
  // Uplink: one 50 Gb/s port after RoCE's 0.97 = 6.0625 GB/s.
  const double uplink_Bps = 50e9 / 8 * 0.97;
  EXPECT_DOUBLE_EQ(topology.links()[static_cast<std::size_t>(route[2].link)].bandwidth_Bps, uplink_Bps);
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), uplink_Bps);
  // 2 PCIe links + one message NIC to NIC (0.81 us) + leaf, spine, leaf (3 x 0.3 us).
  EXPECT_NEAR(topology.latency_s(route), 2 * kPcieLink_s + 0.81e-6 + 3 * 300e-9, 1e-15);
}

TEST(Fabric, HostsOfOneRackMeetAtTheLeaf) {
  const Topology topology = scenario_topology(two_racks(), {});
  EXPECT_TRUE(topology.host_to_host(0, 1, 0).empty());
  const std::vector<Hop> route = topology.route(1, 4);  // host 0 -> host 1, both rack 0
  EXPECT_EQ(names(topology, route),
            (std::vector<std::string>{"host0/gpu1/pcie", "host0/nic0", "host1/nic0", "host1/gpu0/pcie"}));
  EXPECT_NEAR(topology.latency_s(route), 2 * kPcieLink_s + 0.81e-6 + 300e-9, 1e-15);
}

TEST(Fabric, GpuUsesNicOfItsLocalIndexModuloNics) {
  const Topology topology = scenario_topology(two_racks(2), {});
  EXPECT_EQ(names(topology, topology.gpu_to_network(3)), (std::vector<std::string>{"host0/gpu3/pcie", "host0/nic1"}));
  EXPECT_EQ(names(topology, topology.gpu_to_network(6)), (std::vector<std::string>{"host1/gpu2/pcie", "host1/nic0"}));
}

TEST(Fabric, RoceV2NicLinkIsLineRateTimesEfficiency) {
  const Topology topology = scenario_topology(two_racks(), {});
  const Link& nic = topology.links()[static_cast<std::size_t>(topology.gpu_to_network(0).back().link)];
  EXPECT_EQ(nic.link_class, LinkClass::nic);
  EXPECT_DOUBLE_EQ(nic.bandwidth_Bps, 100e9 / 8 * 0.97);
}

TEST(RingOrder, GroupsByRackThenHost) {
  const Topology topology = scenario_topology(two_racks(), {});
  EXPECT_EQ(topology.ring_order({9, 0, 5, 12, 1, 8, 4}), (std::vector<int>{0, 1, 4, 5, 8, 9, 12}));
  const Topology turing = scenario_topology(cluster("quadro-rtx-6000", 6), {});
  EXPECT_EQ(turing.ring_order({5, 2, 4, 3}), (std::vector<int>{2, 3, 4, 5}));  // bridged pairs stay adjacent
}

TEST(RingBottleneck, StagedRingMatchesTheMeasuredBusBandwidth) {
  // Each GPU's staging carries one ring flow each way, so the ring runs at 5 GB/s: the ~5 GB/s busbw measured on
  // 4x A100 PCIe without P2P (docs/hardware-facts.md), which a single host-wide link would have divided by four.
  Scenario scenario = cluster("a100-40gb-sxm4", 4, VirtualizationMode::passthrough);
  scenario.cluster.host.nvlink_enabled = false;
  EXPECT_DOUBLE_EQ(scenario_topology(scenario, {}).ring_bottleneck_Bps({0, 1, 2, 3}), 5e9);
}

TEST(RingBottleneck, NvlinkRingsRunAtOneConnection) {
  // One ring on the HGX A100 4-GPU mesh: one pair's NV4, 4 x 25 GB/s x 0.8; on the 8-GPU NVSwitch board, 12 links.
  EXPECT_DOUBLE_EQ(scenario_topology(cluster("a100-40gb-sxm4", 4), {}).ring_bottleneck_Bps({0, 1, 2, 3}), 80e9);
  EXPECT_DOUBLE_EQ(scenario_topology(cluster("a100-40gb-sxm4", 8), {}).ring_bottleneck_Bps({0, 1, 2, 3, 4, 5, 6, 7}),
                   240e9);
  EXPECT_EQ(scenario_topology(cluster("a100-40gb-sxm4", 4), {}).ring_bottleneck_Bps({2}),
            std::numeric_limits<double>::infinity());
}

TEST(RingBottleneck, TwoHostsAreBoundByTheirNic) {
  const Topology topology = scenario_topology(two_racks(), {});
  // 3 -> 4 leaves host 0's NIC forward and 7 -> 0 enters it backward: one flow per direction.
  EXPECT_DOUBLE_EQ(topology.ring_bottleneck_Bps({0, 1, 2, 3, 4, 5, 6, 7}), kRoce100_Bps);
}

TEST(EqualShare, FlowsThroughOneNicSplitIt) {
  const Topology topology = scenario_topology(two_racks(), {});
  const FlowRates rates = topology.equal_share_rates({{0, 4}, {1, 5}, {2, 2}});
  ASSERT_EQ(rates.rate_Bps.size(), 3u);
  EXPECT_DOUBLE_EQ(rates.rate_Bps[0], kRoce100_Bps / 2);
  EXPECT_DOUBLE_EQ(rates.rate_Bps[1], kRoce100_Bps / 2);
  EXPECT_EQ(rates.rate_Bps[2], std::numeric_limits<double>::infinity());
  EXPECT_DOUBLE_EQ(rates.slowest_Bps, kRoce100_Bps / 2);
}

TEST(Topology, IsDeterministic) {
  const Topology first = scenario_topology(two_racks(2), {});
  const Topology second = scenario_topology(two_racks(2), {});
  ASSERT_EQ(first.links().size(), second.links().size());
  for (std::size_t i = 0; i < first.links().size(); ++i) EXPECT_EQ(first.links()[i].name, second.links()[i].name);
  for (int a : {0, 5, 9}) {
    for (int b : {3, 8, 15}) EXPECT_EQ(first.route(a, b), second.route(a, b));
  }
}

TEST(Scale, SixteenThousandGpusBuildQuickly) {
  // 64 racks x 32 hosts x 8 A100 = 16,384 GPUs (2,048 hosts), one ConnectX-5 100 GbE each, non-blocking, 2 spines.
  Scenario scenario = cluster("a100-40gb-sxm4", 8, VirtualizationMode::bare_metal, 64, 32);
  const auto start = std::chrono::steady_clock::now();
  const Topology topology = scenario_topology(scenario, {});
  const auto built = std::chrono::steady_clock::now();
  std::vector<int> all(16384);
  std::iota(all.begin(), all.end(), 0);
  const double ring_Bps = topology.ring_bottleneck_Bps(topology.ring_order(all));
  const auto done = std::chrono::steady_clock::now();
  std::printf("[ timing ] 16384 GPUs: %zu links, build %.3f s, ring order + bottleneck %.3f s\n",
              topology.links().size(), std::chrono::duration<double>(built - start).count(),
              std::chrono::duration<double>(done - built).count());
  EXPECT_EQ(topology.gpu_count(), 16384);
  // Each host's NIC carries one ring flow each way; each edge between racks takes one uplink port at the NIC's rate
  // (the default uplink speed), and no two of them share one, as each rack sends one flow up and receives one.
  EXPECT_DOUBLE_EQ(ring_Bps, kRoce100_Bps);
}

TEST(TopologySpec, AHandWrittenSpecBuildsWithoutAScenario) {
  // Two one-GPU hosts in one rack, one NIC each, no NVLink: a route is PCIe, NIC, leaf, NIC, PCIe. Its bottleneck is
  // the slower of the two link classes; its latency both PCIe links', the NIC message's and the leaf switch's once
  // (each NIC link carries half of the NIC's and the switch's).
  const Topology topology(test_support::two_one_gpu_hosts());
  EXPECT_EQ(topology.gpu_count(), 2);
  EXPECT_EQ(topology.host_count(), 2);
  const std::vector<Hop> route = topology.route(0, 1);
  EXPECT_EQ(route.size(), 4u);
  EXPECT_DOUBLE_EQ(topology.bottleneck_Bps(route), 12e9);
  EXPECT_NEAR(topology.latency_s(route), 2 * 0.5e-6 + 2e-6 + 0.3e-6, 1e-18);
}

}  // namespace
}  // namespace vtsim
