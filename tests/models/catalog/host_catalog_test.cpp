#include "models/catalog/host_catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/nic_catalog.hpp"

namespace vtsim {
namespace {

TEST(HostCatalog, IdsAreUniqueAndEveryEntryNamesCatalogedPartsAndASource) {
  std::set<std::string> ids;
  for (const HostSpec& host : host_catalog()) {
    EXPECT_TRUE(ids.insert(host.id).second) << "duplicate " << host.id;
    EXPECT_EQ(find_host(host.id), &host);
    EXPECT_FALSE(host.name.empty()) << host.id;
    EXPECT_FALSE(host.source.empty()) << host.id;
    EXPECT_FALSE(host.pcie_layout.empty()) << host.id;
    ASSERT_FALSE(host.gpu_models.empty()) << host.id;
    for (const std::string& gpu : host.gpu_models) EXPECT_NE(find_gpu(gpu), nullptr) << host.id << ": " << gpu;
    // A server whose source names no compute-fabric NIC has none, and no NIC model.
    if (host.nics > 0) {
      EXPECT_NE(find_nic(host.nic_model), nullptr) << host.id;
    } else {
      EXPECT_TRUE(host.nic_model.empty()) << host.id;
    }
    EXPECT_GE(host.gpus, 1) << host.id;
    EXPECT_GE(host.cpu_threads, host.cpu_cores) << host.id;
  }
  EXPECT_EQ(find_host("dgx-a"), nullptr);
}

// Cores and threads from the CPUs' own counts, worked by hand: AMD EPYC 7742 and 7763 have 64 cores and 128 threads
// each, Xeon Platinum 8480C and 8570 56 cores, 8470 52, 8580 60, Gold 6252 24, D-2775TE 16, all two threads per core.
struct HostCase {
  const char* id;
  int sockets;
  int cores_per_socket;
  int gpus;
  const char* gpu_model;
  int nics;
  double nic_gbps;
};

class CataloguedHost : public testing::TestWithParam<HostCase> {};

TEST_P(CataloguedHost, MatchesItsVendorsFigures) {
  const HostCase& c = GetParam();
  const HostSpec* host = find_host(c.id);
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->cpu_cores, c.sockets * c.cores_per_socket);
  EXPECT_EQ(host->cpu_threads, 2 * c.sockets * c.cores_per_socket);
  EXPECT_EQ(host->gpus, c.gpus);
  EXPECT_EQ(host->gpu_models.front(), c.gpu_model);
  EXPECT_EQ(host->nics, c.nics);
  if (c.nics > 0) {
    EXPECT_DOUBLE_EQ(find_nic(host->nic_model)->line_rate_Bps, c.nic_gbps * 1e9 / 8);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Datasheets, CataloguedHost,
    testing::Values(HostCase{"dgx-a100", 2, 64, 8, "a100-80gb-sxm4", 8, 200},      // DGX A100 datasheet
                    HostCase{"dgx-h100", 2, 56, 8, "h100-sxm5", 8, 400},           // DGX BasePOD RA
                    HostCase{"dgx-h200", 2, 56, 8, "h200-sxm", 8, 400},            // DGX BasePOD RA
                    HostCase{"dgx-b200", 2, 56, 8, "b200-sxm", 8, 400},            // DGX B200 user guide
                    HostCase{"dell-xe9680", 2, 52, 8, "h100-sxm5", 8, 400},        // Dell MLPerf v3.1 system
                    HostCase{"dell-xe8545", 2, 64, 4, "a100-40gb-sxm4", 2, 200},   // Dell MLPerf v1.1 system file
                    HostCase{"quanta-d54u-l40s", 2, 52, 4, "l40s", 2, 400},        // Quanta MLPerf v4.0 system file
                    HostCase{"dell-r760-l40s", 2, 60, 2, "l40s", 0, 0},            // Dell MLPerf v4.0 system file
                    HostCase{"lenovo-se360-v2-l4", 1, 16, 2, "l4", 0, 0},          // Lenovo MLPerf v4.1 system file
                    HostCase{"dell-xe2420-t4", 2, 24, 4, "t4", 0, 0}),             // Dell EMC MLPerf v1.0 system file
    [](const testing::TestParamInfo<HostCase>& host) {
      std::string name = host.param.id;
      for (char& ch : name) if (ch == '-') ch = '_';
      return name;
    });

TEST(HostCatalog, OnlyTheDgxA100SaysWhichGpusShareAPcieSwitch) {
  // DGX A100: four PCIe switches of 2 GPUs and 2 NICs (nvidia-smi topo -m [S]); the other sources do not say.
  for (const HostSpec& host : host_catalog()) {
    EXPECT_EQ(host.pcie_switch_gpus, host.id == "dgx-a100" ? 2 : 0) << host.id;
  }
}

TEST(HostCatalog, Gb200Nvl72IsOneNvlinkDomainOf72GpusWithTheGracesCores) {
  // 18 compute trays of 2 GB200 superchips: 36 Graces of 72 Neoverse V2 cores, one thread each (Neoverse V2 has no
  // SMT), 72 GPUs and one 400 Gb/s NIC per GPU (MLPerf system description: 4 per tray of 4 GPUs).
  const HostSpec* host = find_host("gb200-nvl72");
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->cpu_cores, 36 * 72);
  EXPECT_EQ(host->cpu_threads, host->cpu_cores);
  EXPECT_EQ(host->gpus, 72);
  EXPECT_EQ(host->gpu_models.front(), "gb200");
  EXPECT_EQ(host->nics, 72);
  EXPECT_DOUBLE_EQ(find_nic(host->nic_model)->line_rate_Bps, 400e9 / 8);
}

}  // namespace
}  // namespace vtsim
