#include <gtest/gtest.h>

#include <thread>

#include "calibrate/collective_bandwidth.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/tcp_channel.hpp"
#include "models/catalog/gpu_name_match.hpp"

namespace vtsim::calibrate {
namespace {

TEST(CollectiveBandwidth, BusFactorsOfNcclTestsPerformanceDoc) {
  EXPECT_DOUBLE_EQ(bus_factor("all_reduce", 8), 2.0 * 7 / 8);
  EXPECT_DOUBLE_EQ(bus_factor("reduce_scatter", 8), 7.0 / 8);
  EXPECT_DOUBLE_EQ(bus_factor("all_gather", 4), 3.0 / 4);
  EXPECT_DOUBLE_EQ(bus_factor("alltoall", 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor("broadcast", 16), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor("all_reduce", 1), 0.0);
  EXPECT_EQ(ranks_for_bus_factor("all_reduce", 1.75), 8);
  EXPECT_EQ(ranks_for_bus_factor("all_gather", 0.75), 4);
  EXPECT_EQ(ranks_for_bus_factor("broadcast", 1.0), std::nullopt);
}

TEST(CollectiveBandwidth, CollectiveInProgramOrFileName) {
  EXPECT_EQ(collective_in_name("all_reduce_perf"), "all_reduce");
  EXPECT_EQ(collective_in_name("logs/reduce_scatter_perf.8gpu.log"), "reduce_scatter");
  EXPECT_EQ(collective_in_name("reduce_perf"), "reduce");
  EXPECT_EQ(collective_in_name("gather.log"), "gather");
  EXPECT_EQ(collective_in_name("run7.log"), std::nullopt);
}

TEST(GpuNameMatch, CudaNamesFindTheirCatalogGpu) {
  const std::pair<const char*, const char*> cases[] = {
      {"NVIDIA A100-SXM4-40GB", "a100-40gb-sxm4"}, {"NVIDIA A100-SXM4-80GB", "a100-80gb-sxm4"},
      {"NVIDIA H100 80GB HBM3", "h100-sxm5"},      {"NVIDIA H200", "h200-sxm"},
      {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb"},  {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb"},
      {"Tesla T4", "t4"},                          {"Quadro RTX 6000", "quadro-rtx-6000"},
      {"Tesla P100-SXM2-16GB", "p100-sxm2"},
      {"NVIDIA H100 PCIe", "h100-pcie"},            {"NVIDIA H100 NVL", "h100-nvl"},
      {"NVIDIA H200 NVL", "h200-nvl"},              {"Tesla V100-PCIE-16GB", "v100-pcie-16gb"},
      {"NVIDIA A10", "a10"},                        {"NVIDIA A30", "a30"},
      {"NVIDIA A40", "a40"},                        {"NVIDIA RTX A6000", "rtx-a6000"},
      {"NVIDIA A100-PCIE-40GB", "a100-40gb-pcie"},  {"NVIDIA A100 80GB PCIe", "a100-80gb-pcie"},
      {"Tesla V100-PCIE-32GB", "v100-pcie-32gb"},   {"Tesla P100-PCIE-16GB", "p100-pcie-16gb"},
      {"Tesla P4", "p4"},
      {"NVIDIA L4", "l4"},                          {"NVIDIA L40", "l40"},
      {"NVIDIA L40S", "l40s"},                      {"NVIDIA B200", "b200-sxm"},
      {"NVIDIA GeForce RTX 4090", ""},  // no catalog entry
      {"NVIDIA A100", ""},              // 40 and 80 GB alike: ambiguous
  };
  for (const auto& [name, id] : cases) EXPECT_EQ(catalog_gpu_for(name), id) << name;
}

TEST(ProbeSupport, MedianAndSizes) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(powers_of_two(8, 64), (std::vector<std::int64_t>{8, 16, 32, 64}));
  EXPECT_EQ(powers_of_two(3, 20), (std::vector<std::int64_t>{3, 6, 12}));
}

TEST(TcpChannel, ExchangesValuesOverLoopback) {
  TcpListener listener(0);
  ASSERT_GT(listener.port(), 0);
  double received_by_client = 0;
  std::thread client([&] {
    TcpChannel channel = TcpChannel::connect_to("localhost", listener.port(), 5);
    channel.send_value(std::int64_t{42});
    received_by_client = channel.receive_value<double>();
  });
  TcpChannel server = listener.accept_one();
  EXPECT_EQ(server.receive_value<std::int64_t>(), 42);
  server.send_value(2.5);
  client.join();
  EXPECT_EQ(received_by_client, 2.5);
}

TEST(TcpChannel, ClosedPeerIsAProbeError) {
  TcpListener listener(0);
  std::thread client([&] { TcpChannel channel = TcpChannel::connect_to("127.0.0.1", listener.port(), 5); });
  TcpChannel server = listener.accept_one();
  client.join();
  EXPECT_THROW(server.receive_value<int>(), ProbeFailed);
}

}  // namespace
}  // namespace vtsim::calibrate
