#include <gtest/gtest.h>

#include "calibrate/nccl_probe.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/rdma_probe.hpp"
#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

// 4 GPUs; one allreduce of S bytes takes 10 us + S x 2(n-1)/n / 200 GB/s.
class FakeNccl : public NcclBackend {
 public:
  int gpus = 4;
  std::vector<GpuDeviceInfo> devices() override {
    std::vector<GpuDeviceInfo> list;
    for (int i = 0; i < gpus; ++i) list.push_back({i, "NVIDIA A100-SXM4-40GB", 8, 0, 40e9});
    return list;
  }
  std::string versions() override { return "NCCL 2.18.3"; }
  std::vector<double> time_allreduce(std::int64_t bytes, int batch, int repetitions) override {
    const double one_s = 10e-6 + static_cast<double>(bytes) * 1.5 / 200e9;
    return std::vector<double>(static_cast<std::size_t>(repetitions), one_s * batch);
  }
  InterferenceSample time_gemm_beside_allreduce(std::int64_t, std::int64_t, int, int) override {
    return {{1.0, 0.9, 1.1}, {1.25, 1.3, 1.2}};
  }
};

TEST(NcclProbe, ReportsAlgbwAndBusbwAsNcclTestsDefinesThem) {
  FakeNccl nccl;
  NcclProbeOptions options;
  options.max_bytes = 1 << 20;
  const NcclProbeResult result = probe_nccl(nccl, options);
  const CollectiveSeries& series = result.series;
  EXPECT_EQ(series.op, "all_reduce");
  EXPECT_EQ(series.ranks, 4);
  EXPECT_EQ(series.hosts, 1);
  EXPECT_EQ(series.gpus, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(series.points.size(), 18u);  // 8 B to 1 MiB, doubling
  const CollectivePoint& last = series.points.back();
  const double time_s = 10e-6 + 1048576 * 1.5 / 200e9;
  EXPECT_NEAR(last.time_us, time_s * 1e6, 1e-9);
  EXPECT_NEAR(last.algbw_gBps, 1048576 / time_s / 1e9, 1e-9);
  EXPECT_NEAR(last.busbw_gBps, 1048576 / time_s / 1e9 * 1.5, 1e-9);  // 2(n-1)/n = 1.5 for n = 4
  EXPECT_EQ(series.provenance.tool, "vtsim calibrate probe nccl");
  EXPECT_EQ(series.provenance.device, "4x NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(series.provenance.driver, "NCCL 2.18.3");
  // The GEMM takes 1.25 s beside an allreduce against 1.0 s alone: it lost 20% of the GPU.
  ASSERT_TRUE(result.collective_sm_share.has_value());
  EXPECT_NEAR(*result.collective_sm_share, 0.2, 1e-12);
}

TEST(NcclProbe, OneGpuHasNoInterferenceMeasurement) {
  FakeNccl nccl;
  nccl.gpus = 1;
  NcclProbeOptions options;
  options.max_bytes = 64;
  const NcclProbeResult result = probe_nccl(nccl, options);
  EXPECT_FALSE(result.collective_sm_share.has_value());
  EXPECT_EQ(result.notes, std::vector<std::string>{"collective_sm_share: not measured, it needs two GPUs or more"});
  EXPECT_EQ(result.series.points.front().busbw_gBps, 0);  // 2(1-1)/1
}

TEST(NcclProbe, NoDeviceIsOneClearError) {
  FakeNccl nccl;
  nccl.gpus = 0;
  EXPECT_EQ(testing::error_of([&] { probe_nccl(nccl, {}); }), "no CUDA device found");
}

// One RDMA write of S bytes takes 1 us + S / 10 GB/s one way; streaming reaches 9 GB/s.
class FakeConnection : public RdmaConnection {
 public:
  std::string device_name() override { return "mlx5_0"; }
  std::string link_layer() override { return "Ethernet"; }
  std::vector<double> write_round_trips_s(std::int64_t bytes, int iterations) override {
    const double one_way_s = 1e-6 + static_cast<double>(bytes) / 10e9;
    std::vector<double> samples(static_cast<std::size_t>(iterations), 2 * one_way_s);
    samples.front() = 100 * one_way_s;  // an outlier the median ignores
    return samples;
  }
  double write_stream_s(std::int64_t bytes, int iterations, int) override {
    return static_cast<double>(bytes) * iterations / 9e9;
  }
  explicit FakeConnection(bool& finished) : finished_(finished) {}
  void finish() override { finished_ = true; }

 private:
  bool& finished_;  // owned by the backend: the probe destroys its connection before the test looks
};

class FakeRdma : public RdmaBackend {
 public:
  std::vector<std::string> names = {"mlx5_0"};
  bool connection_finished = false;
  std::vector<std::string> devices() override { return names; }
  void serve(const RdmaEndpointOptions&) override { served = true; }
  std::unique_ptr<RdmaConnection> connect(const std::string&, const RdmaEndpointOptions&) override {
    return std::make_unique<FakeConnection>(connection_finished);
  }
  bool served = false;
};

TEST(RdmaProbe, MeasuresWriteLatencyAndBandwidthOverSizes) {
  FakeRdma rdma;
  RdmaProbeOptions options;
  options.endpoint.max_bytes = 1024;
  const std::vector<RdmaSeries> series = probe_rdma(rdma, "server1", options);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_TRUE(rdma.connection_finished);
  const RdmaSeries& latency = series[0];
  EXPECT_EQ(latency.transport, "roce");
  EXPECT_EQ(latency.op, "write");
  EXPECT_EQ(latency.test, "latency");
  ASSERT_EQ(latency.points.size(), 10u);  // 2 B to 1 KiB
  EXPECT_NEAR(*latency.points.back().latency_us, 1.0 + 1024 / 10e9 * 1e6, 1e-9);  // half the median round trip
  const RdmaSeries& bandwidth = series[1];
  EXPECT_EQ(bandwidth.test, "bandwidth");
  EXPECT_NEAR(*bandwidth.points.back().bandwidth_gBps, 9.0, 1e-9);
  EXPECT_EQ(latency.provenance.device, "mlx5_0");
  EXPECT_EQ(latency.provenance.tool, "vtsim calibrate probe rdma");
}

TEST(RdmaProbe, NoDeviceIsOneClearErrorInEitherRole) {
  FakeRdma rdma;
  rdma.names.clear();
  EXPECT_EQ(testing::error_of([&] { probe_rdma(rdma, "server1", {}); }), "no RDMA device found");
  EXPECT_EQ(testing::error_of([&] { serve_rdma(rdma, {}); }), "no RDMA device found");
  EXPECT_FALSE(rdma.served);
}

TEST(RdmaProbe, TransportFollowsDeviceAndLinkLayer) {
  EXPECT_EQ(rdma_transport("vmw_pvrdma0", "Ethernet"), "pvrdma");
  EXPECT_EQ(rdma_transport("mlx5_0", "Ethernet"), "roce");
  EXPECT_EQ(rdma_transport("mlx5_0", "InfiniBand"), "infiniband");
  EXPECT_EQ(rdma_transport("mlx5_0", "IB"), "infiniband");
  EXPECT_EQ(rdma_transport("mlx5_0", ""), "");
}

}  // namespace
}  // namespace vtsim::calibrate
