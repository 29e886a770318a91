// A job's rings (models/network/rings.hpp) without an engine: the flows its allreduce puts on the topology and
// the share of the data each carries, and the step class NCCL's latency table gives a route, derived by hand.

#include "models/network/rings.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "models/network/topology.hpp"
#include "models/resolve/resolve.hpp"
#include "tests/models/scenario_test_support.hpp"

namespace vtsim {
namespace {

using test_support::scenario_of;

/// `hosts` hosts of `gpus` A100 SXM4 (an NVLink mesh) in one rack with `nics` ConnectX-5 NICs each, RoCE v2; the
/// job's allreduce is `algorithm` (Horovod's ring or hierarchical).
Scenario mesh_hosts(int hosts, int gpus, int nics, const std::string& algorithm) {
  return scenario_of(
      {{"cluster",
        {{"hosts_per_rack", hosts},
         {"host",
          {{"gpus", gpus}, {"gpu_model", "a100-40gb-sxm4"}, {"nics", nics}, {"nic_model", "connectx-5-100gbe"}}},
         {"transport", "roce_v2"}}},
       {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"horovod", {{"allreduce", algorithm}}}}}}});
}

TEST(JobFlows, FlatChannelsSplitTheDataEqually) {
  // 2 hosts x 2 GPUs with 2 NICs: NCCL lays 2 rings over the 4 ranks (one per NIC, channels_test). Each ring edge
  // carries 2(N-1)/N = 3/2 of its ring's half of the data: 3/4 per flow, 8 flows, 2(N-1) = 6 in all; connection ids
  // are the channels.
  const Scenario scenario = mesh_hosts(2, 2, 2, "ring");
  const Topology topology = scenario_topology(scenario, {});
  const JobRings rings = job_rings(scenario, 0, topology);
  ASSERT_EQ(rings.ring.size(), 4U);
  ASSERT_EQ(rings.channels.size(), 2U);
  const std::vector<std::pair<GpuFlow, double>> flows = job_flows(scenario.jobs[0], rings);
  ASSERT_EQ(flows.size(), 8U);
  std::map<int, int> per_connection;
  for (const auto& [flow, share] : flows) {
    EXPECT_DOUBLE_EQ(share, 0.75);
    ++per_connection[flow.flow];
  }
  EXPECT_EQ(per_connection, (std::map<int, int>{{0, 4}, {1, 4}}));
}

TEST(JobFlows, HierarchicalRingsCarryAllOfTheDataInsideHostsAndAGthOfItAcross) {
  // 3 hosts x G = 4 GPUs, hierarchical. Inside a host, the K4 mesh's 6 directed cycles (channels_test) split the
  // data: each edge 2(4-1)/4 / 6 = 1/4, 6 rings x 4 edges per host. Across hosts, G rings of the 3 GPUs with one local
  // index each carry 1/G of the data: 2(3-1)/3 / 4 = 1/3 per edge, 4 rings x 3 edges.
  const Scenario scenario = mesh_hosts(3, 4, 1, "hierarchical");
  const Topology topology = scenario_topology(scenario, {});
  const JobRings rings = job_rings(scenario, 0, topology);
  ASSERT_EQ(rings.intra_host_channels.size(), 3U);
  ASSERT_EQ(rings.intra_host_channels.front().size(), 6U);
  ASSERT_EQ(rings.inter_host.size(), 4U);
  int inside = 0;
  int across = 0;
  for (const auto& [flow, share] : job_flows(scenario.jobs[0], rings)) {
    if (topology.location(flow.src).host == topology.location(flow.dst).host) {
      ++inside;
      EXPECT_DOUBLE_EQ(share, 0.25);
    } else {
      ++across;
      EXPECT_DOUBLE_EQ(share, 1.0 / 3.0);
      EXPECT_EQ(topology.location(flow.src).local, topology.location(flow.dst).local);
    }
  }
  EXPECT_EQ(inside, 3 * 6 * 4);
  EXPECT_EQ(across, 4 * 3);
}

TEST(StepHop, NetWhenAStepLeavesTheHostNvlinkWhenEveryHopIsNvlinkElsePci) {
  const Scenario scenario = mesh_hosts(2, 4, 1, "ring");
  const Topology topology = scenario_topology(scenario, {});
  EXPECT_EQ(step_hop(topology, topology.route(0, 1)), NcclHop::nvlink);
  EXPECT_EQ(step_hop(topology, topology.route(0, 4)), NcclHop::net);
  // T4s have no NVLink: between two of one host a step crosses PCIe.
  const Scenario pcie = scenario_of({{"cluster", {{"host", {{"gpus", 2}, {"gpu_model", "t4"}}}}},
                                     {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}}});
  const Topology t4 = scenario_topology(pcie, {});
  EXPECT_EQ(step_hop(t4, t4.route(0, 1)), NcclHop::pci);
}

}  // namespace
}  // namespace vtsim
