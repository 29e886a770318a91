#include "models/catalog/link_defaults.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/scenario/scenario.hpp"

namespace vtsim {
namespace {

const GpuSpec& catalog_gpu(const std::string& id) { return *find_gpu(id); }

Scenario single_host(const std::string& gpu_model, int gpus) {
  Scenario scenario;
  HostConfig& host = scenario.cluster.host;
  host.gpu_model = gpu_model;
  host.gpus = gpus;
  apply_gpu_model_defaults(host, catalog_gpu(gpu_model));
  return scenario;
}

std::vector<LinkClass> classes_of(const std::vector<ClassDefault>& defaults) {
  std::vector<LinkClass> classes;
  for (const ClassDefault& entry : defaults) classes.push_back(entry.link_class);
  return classes;
}

/// The defaults of the scenario's link classes, without a calibration profile.
std::vector<ClassDefault> catalog_defaults(const Scenario& scenario) {
  return link_defaults_for(scenario, scenario_links(scenario, {}));
}

/// The uncalibrated ones among `defaults`.
std::vector<ClassDefault> uncalibrated_of(const std::vector<ClassDefault>& defaults) {
  std::vector<ClassDefault> uncalibrated;
  for (const ClassDefault& entry : defaults) {
    if (entry.value.uncalibrated) uncalibrated.push_back(entry);
  }
  return uncalibrated;
}

TEST(LinkClass, SpellingsAreTheResultKeys) {
  EXPECT_EQ(to_string(LinkClass::nvlink), "nvlink");
  EXPECT_EQ(to_string(LinkClass::pcie), "pcie");
  EXPECT_EQ(to_string(LinkClass::host_memory), "host_memory");
  EXPECT_EQ(to_string(LinkClass::nic), "nic");
  EXPECT_EQ(to_string(LinkClass::fabric), "fabric");
  EXPECT_EQ(to_string(LinkClass::tcp_stack), "tcp_stack");
}

TEST(NvlinkLayout, FollowsTheBoardsOfEachGeneration) {
  // HGX A100 4-GPU: every pair NV4 = 12 links / 3 peers (docs/hardware-facts.md); a connection is one pair's links.
  EXPECT_EQ(nvlink_layout(catalog_gpu("a100-40gb-sxm4"), 4), NvlinkLayout::full_mesh);
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("a100-40gb-sxm4"), 4), 4);
  // HGX A100 8-GPU: NVSwitch, each GPU's 12 links to the switches.
  EXPECT_EQ(nvlink_layout(catalog_gpu("a100-40gb-sxm4"), 8), NvlinkLayout::nvswitch);
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("a100-40gb-sxm4"), 8), 12);
  // HGX H100 4-GPU: 18 links / 3 peers = 6 per pair.
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("h100-sxm5"), 4), 6);
  // DGX-1 V100 (NVLink 2, 8 GPUs): the cube-mesh approximated by a star with all 6 links.
  EXPECT_EQ(nvlink_layout(catalog_gpu("v100-sxm2-16gb"), 8), NvlinkLayout::hub_approximation);
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("v100-sxm2-16gb"), 8), 6);
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("v100-sxm2-16gb"), 4), 2);  // 6 / 3 per pair
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("p100-sxm2"), 4), 1);       // 4 / 3 rounded down
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("a100-40gb-sxm4"), 2), 12); // two GPUs: every link joins the pair
  // Turing: a bridge joins two cards with both links, whatever the number of cards.
  EXPECT_EQ(nvlink_layout(catalog_gpu("quadro-rtx-6000"), 8), NvlinkLayout::bridge_pairs);
  EXPECT_EQ(nvlink_links_per_connection(catalog_gpu("quadro-rtx-6000"), 8), 2);
  EXPECT_EQ(nvlink_layout(catalog_gpu("t4"), 4), NvlinkLayout::none);
  EXPECT_EQ(nvlink_layout(catalog_gpu("a100-40gb-sxm4"), 1), NvlinkLayout::none);
}

TEST(LinkDefaults, NvlinkIsLinksTimesPerLinkRateTimesProtocolEfficiency) {
  const LinkDefault nv4 = nvlink_default(*find_nvlink("nvlink3"), 4);
  EXPECT_DOUBLE_EQ(nv4.bandwidth_Bps, 4 * 25e9 * 0.8);  // NVLink3 25 GB/s per link per direction; 80% [S]
  EXPECT_DOUBLE_EQ(nv4.latency_s, 0.6e-6);               // NCCL hwLat NVLINK Ring/LL
  EXPECT_FALSE(nv4.uncalibrated);
}

TEST(LinkDefaults, PcieIsTheCatalogTypicalRateWithHalfANcclPcieStep) {
  const LinkDefault gen4 = pcie_default(4);
  EXPECT_DOUBLE_EQ(gen4.bandwidth_Bps, 25e9);  // ~25 GB/s measured on an A100 [S]
  EXPECT_DOUBLE_EQ(gen4.latency_s, 1.0e-6 / 2);
  EXPECT_FALSE(gen4.uncalibrated);
  EXPECT_DOUBLE_EQ(pcie_default(3).bandwidth_Bps, 12e9);
  EXPECT_TRUE(pcie_default(5).uncalibrated);  // the catalog's Gen5 typical rate is derived, not measured
}

TEST(LinkDefaults, HostMemoryIsMeasuredOnGen4AndScaledElsewhere) {
  const LinkDefault gen4 = host_memory_default(4);
  EXPECT_DOUBLE_EQ(gen4.bandwidth_Bps, 5e9);  // 4x A100 PCIe SYS all_reduce busbw ~5 GB/s [S]
  EXPECT_FALSE(gen4.uncalibrated);
  const LinkDefault gen3 = host_memory_default(3);
  EXPECT_DOUBLE_EQ(gen3.bandwidth_Bps, 5e9 * 12.0 / 25.0);  // scaled by the typical PCIe rates 12 / 25 GB/s
  EXPECT_TRUE(gen3.uncalibrated);
  EXPECT_TRUE(host_memory_default(5).uncalibrated);
}

TEST(LinkDefaults, NicIsLineRateTimesTransportEfficiency) {
  const NicSpec& cx5 = *find_nic("connectx-5-100gbe");
  const LinkDefault roce = nic_default(cx5, transport_spec(Transport::roce_v2));
  EXPECT_DOUBLE_EQ(roce.bandwidth_Bps, 100e9 / 8 * 0.97);
  EXPECT_NEAR(roce.latency_s, 0.81e-6, 1e-15);  // the catalog's ib_send_lat one-way: NIC 600 ns + 210 ns
  EXPECT_FALSE(roce.uncalibrated);
  const LinkDefault tcp = nic_default(cx5, transport_spec(Transport::tcp));
  EXPECT_DOUBLE_EQ(tcp.bandwidth_Bps, 100e9 / 8 * 1448.0 / 1538.0);  // MTU 1500 framing
  EXPECT_TRUE(tcp.uncalibrated);
}

TEST(LinkDefaults, TransportsWithoutGpudirectStageOneNcclSlotOverPcieAtEachEnd) {
  // PVRDMA and TCP stage through host memory: a 4 MiB / 8 = 512 KiB slot crosses the GPU's PCIe link before the NIC
  // takes it and after it delivers it. RoCE reads GPU memory directly.
  Scenario scenario = single_host("t4", 1);
  scenario.cluster.hosts_per_rack = 2;
  const double pcie_Bps = scenario_links(scenario, {}).pcie.bandwidth_Bps;
  const double slot_fill_s = 512.0 * 1024 / pcie_Bps;
  EXPECT_DOUBLE_EQ(staging_fill_s(transport_spec(Transport::roce_v2), pcie_Bps), 0.0);
  EXPECT_DOUBLE_EQ(staging_fill_s(transport_spec(Transport::pvrdma), pcie_Bps), slot_fill_s);
  EXPECT_DOUBLE_EQ(staging_fill_s(transport_spec(Transport::tcp), pcie_Bps), slot_fill_s);
  const NicSpec& cx5 = *find_nic(scenario.cluster.host.nic_model);
  for (Transport transport : {Transport::roce_v2, Transport::pvrdma, Transport::tcp}) {
    scenario.cluster.transport = transport;
    const double catalog_s = nic_default(cx5, transport_spec(transport)).latency_s;
    const double staged_s = transport == Transport::roce_v2 ? 0.0 : 2 * slot_fill_s;
    EXPECT_DOUBLE_EQ(scenario_links(scenario, {}).nic.latency_s, catalog_s + staged_s) << to_string(transport);
  }
}

TEST(LinkDefaults, TcpStackIsARanksShareOfTheVmsNetworkCores) {
  // 6 vCPUs, 4 ranks: 2 spare cores, 8 socket threads get half of them: 1 core for 8 threads, 1/8 core each way.
  Scenario scenario = single_host("t4", 4);
  scenario.cluster.transport = Transport::tcp;
  scenario.virtualization.vm_cpu_cores = 6;
  const LinkDefault stack = tcp_stack_default(scenario, 6, 4);
  EXPECT_DOUBLE_EQ(stack.bandwidth_Bps, 15e9 / 8 / 8);
  EXPECT_TRUE(stack.uncalibrated);
  // A measured rate per core (say iperf3, one stream, in the VM) replaces the default.
  scenario.virtualization.tcp_core_Bps = 24e9 / 8;
  EXPECT_DOUBLE_EQ(tcp_stack_default(scenario, 6, 4).bandwidth_Bps, 24e9 / 8 / 8);
  EXPECT_FALSE(tcp_stack_default(scenario, 6, 4).uncalibrated);
}

TEST(LinkDefaults, UplinkIsOnePortAtTheFabricsUplinkRateAfterTheTransportsEfficiency) {
  ClusterConfig cluster;
  cluster.racks = 2;
  cluster.hosts_per_rack = 4;
  cluster.host.nics = 2;
  cluster.host.nic_model = "connectx-6-200gb";
  cluster.transport = Transport::roce_v2;
  cluster.fabric.spines = 4;
  cluster.fabric.uplink_bandwidth_Bps = 400e9 / 8;
  cluster.fabric.switch_latency_s = 450e-9;
  const LinkDefault uplink = uplink_default(cluster);
  EXPECT_DOUBLE_EQ(uplink.bandwidth_Bps, 400e9 / 8 * 0.97);  // RoCE v2 efficiency 0.97 (models/catalog/nic_catalog.cpp)
  EXPECT_DOUBLE_EQ(uplink.latency_s, 450e-9);
  // A switch latency the scenario does not state is the uncalibrated default.
  EXPECT_TRUE(uplink.uncalibrated);
  // Stated, with the scenario's line rate and RoCE v2's published efficiency, the uplink is calibrated; over TCP,
  // whose figures are not, it is not.
  cluster.fabric.switch_latency_stated = true;
  EXPECT_FALSE(uplink_default(cluster).uncalibrated);
  cluster.transport = Transport::tcp;
  EXPECT_TRUE(uplink_default(cluster).uncalibrated);
}

TEST(LinkDefaults, EveryDefaultNamesItsSource) {
  const Scenario scenario = single_host("a100-40gb-sxm4", 4);
  for (int gen : {3, 4, 5}) {
    EXPECT_FALSE(pcie_default(gen).source.empty());
    EXPECT_FALSE(host_memory_default(gen).source.empty());
  }
  for (const NvlinkSpec& nvlink : nvlink_catalog()) EXPECT_FALSE(nvlink_default(nvlink, 1).source.empty());
  for (const TransportSpec& transport : transport_catalog()) {
    EXPECT_FALSE(nic_default(nic_catalog().front(), transport).source.empty());
  }
  EXPECT_FALSE(uplink_default(scenario.cluster).source.empty());
}

TEST(LinkDefaultsFor, SingleA100HostUsesOnlyCalibratedDefaults) {
  const Scenario scenario = single_host("a100-40gb-sxm4", 4);
  EXPECT_EQ(classes_of(catalog_defaults(scenario)),
            (std::vector<LinkClass>{LinkClass::nvlink, LinkClass::pcie, LinkClass::host_memory}));
  EXPECT_TRUE(uncalibrated_of(catalog_defaults(scenario)).empty());
}

TEST(LinkDefaultsFor, ListsTheUncalibratedDefaultsOfAT4TcpCluster) {
  Scenario scenario = single_host("t4", 4);  // Gen3: the host-memory rate is scaled, not measured
  scenario.cluster.racks = 2;
  scenario.cluster.hosts_per_rack = 2;
  scenario.cluster.transport = Transport::tcp;
  // TCP adds the ranks' shares of the guest's network stack, whose per-core rate no measurement of this VM backs.
  EXPECT_EQ(classes_of(catalog_defaults(scenario)),
            (std::vector<LinkClass>{LinkClass::pcie, LinkClass::host_memory, LinkClass::nic, LinkClass::fabric,
                                    LinkClass::tcp_stack}));
  EXPECT_EQ(classes_of(uncalibrated_of(catalog_defaults(scenario))),
            (std::vector<LinkClass>{LinkClass::host_memory, LinkClass::nic, LinkClass::fabric, LinkClass::tcp_stack}));
}

TEST(LinkDefaultsFor, DisabledNvlinkIsNotListed) {
  Scenario scenario = single_host("a100-40gb-sxm4", 4);
  scenario.cluster.host.nvlink_enabled = false;
  EXPECT_EQ(classes_of(catalog_defaults(scenario)), (std::vector<LinkClass>{LinkClass::pcie, LinkClass::host_memory}));
}

TEST(WithCalibration, TakesWhatTheProfileMeasuredAndSaysWhich) {
  const LinkDefault gen4 = pcie_default(4);
  // Bandwidth only: the profile's 22 GB/s, the catalog's latency; not yet calibrated as a whole.
  CalibratedLink bandwidth_only;
  bandwidth_only.bandwidth_Bps = CalibratedValue{22e9, "p.json: copy"};
  const LinkDefault half = with_calibration(gen4, bandwidth_only);
  EXPECT_EQ(half.bandwidth_Bps, 22e9);
  EXPECT_EQ(half.latency_s, gen4.latency_s);
  EXPECT_TRUE(half.bandwidth_measured);
  EXPECT_FALSE(half.latency_measured);
  EXPECT_EQ(half.source, "bandwidth from p.json: copy; the rest: " + gen4.source);
  // Both: measured, no longer uncalibrated.
  CalibratedLink both = bandwidth_only;
  both.latency_s = CalibratedValue{1.5e-6, "p.json: latency"};
  const LinkDefault full = with_calibration(pcie_default(5), both);
  EXPECT_TRUE(full.bandwidth_measured && full.latency_measured);
  EXPECT_FALSE(full.uncalibrated);
  EXPECT_EQ(full.latency_s, 1.5e-6);
  // Nothing measured: the default as it was.
  const LinkDefault none = with_calibration(gen4, CalibratedLink{});
  EXPECT_FALSE(none.bandwidth_measured || none.latency_measured);
  EXPECT_EQ(none.source, gen4.source);
}

}  // namespace
}  // namespace vtsim
