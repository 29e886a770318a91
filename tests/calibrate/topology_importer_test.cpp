#include "calibrate/topology_importer.hpp"

#include <gtest/gtest.h>

#include "models/calibration/calibrated_parameters.hpp"
#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::error_of;
using testing::read_fixture;

TEST(TopologyImporter, ReadsNvlinkBoardWithNics) {
  const TopologySection topology = import_topology(read_fixture("topo_4xa100_nv4.txt"), "topo.txt");
  ASSERT_EQ(topology.devices.size(), 6u);
  EXPECT_EQ(topology.links.size(), 15u);  // 6 x 5 / 2 pairs
  EXPECT_EQ(topology.connection("GPU0", "GPU3"), "NV4");
  EXPECT_EQ(topology.connection("GPU3", "GPU0"), "NV4");
  EXPECT_EQ(topology.connection("GPU2", "NIC0"), "PXB");
  EXPECT_EQ(topology.connection("GPU0", "NIC1"), "SYS");
  EXPECT_EQ(topology.connection("NIC0", "NIC1"), "PIX");
  EXPECT_EQ(topology.devices[2].name, "GPU2");
  EXPECT_EQ(topology.devices[2].cpu_affinity, "32-63,96-127");
  EXPECT_EQ(topology.devices[2].numa_affinity, "1");
  EXPECT_EQ(topology.devices[4].name, "NIC0");
  EXPECT_EQ(topology.devices[4].nic_name, "mlx5_0");
  EXPECT_EQ(topology.devices[4].cpu_affinity, "");
  EXPECT_EQ(topology.provenance.tool, "nvidia-smi topo -m");
}

TEST(TopologyImporter, ReadsSpaceSeparatedCopies) {
  std::string text = read_fixture("topo_4gpu_pcie.txt");
  for (char& c : text) {
    if (c == '\t') c = ' ';
  }
  const TopologySection topology = import_topology(text, "topo.txt");
  EXPECT_EQ(topology.connection("GPU0", "GPU1"), "PIX");
  EXPECT_EQ(topology.connection("GPU1", "GPU2"), "SYS");
  EXPECT_EQ(topology.devices[3].cpu_affinity, "16-31");
}

TEST(TopologyImporter, AsymmetricMatrixIsAnError) {
  EXPECT_EQ(error_of([] { import_topology(read_fixture("topo_asymmetric.txt"), "topo_asymmetric.txt"); }),
            "topo_asymmetric.txt:5: GPU3 to GPU1 is 'PXB' but GPU1 to GPU3 is 'SYS'");
}

TEST(TopologyImporter, UnknownConnectionIsAnError) {
  EXPECT_EQ(error_of([] { import_topology(read_fixture("topo_bad_connection.txt"), "topo_bad_connection.txt"); }),
            "topo_bad_connection.txt:3: GPU1 to GPU2: unknown connection 'NVX'; expected X, NV#, PIX, PXB, PHB, "
            "NODE or SYS");
}

TEST(TopologyImporter, NoMatrixIsAnError) {
  EXPECT_EQ(error_of([] { import_topology("No devices were found\n", "t.txt"); }),
            "t.txt: no `nvidia-smi topo -m` matrix (no header line starting with GPU0)");
}

// ring_link_class: the link class of the best ring through the GPUs, judged by its worst hop.
TopologySection four_gpus(const std::vector<std::string>& pairs01_02_03_12_13_23) {
  TopologySection topology;
  topology.provenance.tool = "test";
  for (int i = 0; i < 4; ++i) topology.devices.push_back({"GPU" + std::to_string(i), "", "", ""});
  const std::pair<int, int> order[] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
  for (std::size_t i = 0; i < 6; ++i) {
    topology.links.push_back({"GPU" + std::to_string(order[i].first), "GPU" + std::to_string(order[i].second),
                              pairs01_02_03_12_13_23[i]});
  }
  return topology;
}

TEST(RingLinkClass, FollowsTheWorstHopOfTheBestRing) {
  const TopologySection nv4 = import_topology(read_fixture("topo_4xa100_nv4.txt"), "t");
  EXPECT_EQ(ring_link_class(nv4, {0, 1, 2, 3}), "nvlink");
  const TopologySection pcie = import_topology(read_fixture("topo_4gpu_pcie.txt"), "t");
  EXPECT_EQ(ring_link_class(pcie, {0, 1}), "pcie");
  EXPECT_EQ(ring_link_class(pcie, {0, 1, 2, 3}), "host_memory");  // any ring crosses SYS twice
  // Two NVLink bridges, PXB between them: a ring must take two PXB hops.
  EXPECT_EQ(ring_link_class(four_gpus({"NV2", "PXB", "PXB", "PXB", "PXB", "NV2"}), {0, 1, 2, 3}), "pcie");
  // A PIX ring 0-1-2-3 exists although the diagonals are SYS: NCCL would take it.
  EXPECT_EQ(ring_link_class(four_gpus({"PIX", "SYS", "PIX", "PIX", "SYS", "PIX"}), {0, 1, 2, 3}), "pcie");
  EXPECT_EQ(ring_link_class(nv4, {0, 7}), "");  // GPU7 is not in the topology
  EXPECT_EQ(ring_link_class(nv4, {0}), "");
}

}  // namespace
}  // namespace vtsim::calibrate
