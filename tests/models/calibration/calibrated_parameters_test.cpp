#include "models/calibration/calibrated_parameters.hpp"

#include <gtest/gtest.h>

namespace vtsim {
namespace {

Provenance measured_by(const std::string& tool) {
  return {tool, "NVIDIA A100-SXM4-40GB", "", "2024-05-01T10:00:00Z", "node01", ""};
}

// A hand-made profile: 4 A100s joined by NV4, one allreduce and one reduce-scatter fit, GPU probe values, RDMA fits.
CalibrationProfile hand_made_profile() {
  CalibrationProfile profile;
  profile.file = "p.json";
  TopologySection topology;
  topology.provenance.tool = "nvidia-smi topo -m";
  for (int i = 0; i < 4; ++i) topology.devices.push_back({"GPU" + std::to_string(i), "", "", ""});
  for (int a = 0; a < 4; ++a) {
    for (int b = a + 1; b < 4; ++b) {
      topology.links.push_back({"GPU" + std::to_string(a), "GPU" + std::to_string(b), "NV4"});
    }
  }
  profile.topology = topology;
  const CollectivePoint point{1 << 20, 40.0, 26.2, 39.3, std::nullopt};
  profile.collectives = {{measured_by("nccl-tests all_reduce_perf"), "all_reduce", 4, 1, {0, 1, 2, 3}, {point}},
                         {measured_by("nccl-tests reduce_scatter_perf"), "reduce_scatter", 4, 1, {0, 1, 2, 3}, {point}},
                         {measured_by("nccl-tests all_gather_perf"), "all_gather", 4, 1, {}, {point}}};
  GpuSection gpu;
  gpu.provenance = measured_by("vtsim calibrate probe gpu");
  gpu.name = "NVIDIA A100-SXM4-40GB";
  gpu.memory_bandwidth_gBps = 1400;
  gpu.h2d_gBps = 24;
  gpu.d2h_gBps = 22;
  gpu.p2p = {{0, 1, 90, 9.0}, {1, 0, 92, 11.0}};
  gpu.kernel_launch_us = 2.5;
  gpu.context_switch_us = 120;
  gpu.collective_sm_share = 0.07;
  gpu.gemm = {{Precision::fp16, 8192, 8192, 8192, 250}};
  profile.gpu = gpu;
  const RdmaPoint rdma_point{2, 1.1, std::nullopt};
  profile.rdma = {{measured_by("perftest ib_write_lat"), "roce", "write", "latency", {rdma_point}},
                  {measured_by("perftest ib_write_bw"), "roce", "write", "bandwidth", {rdma_point}},
                  {measured_by("perftest ib_send_lat"), "pvrdma", "send", "latency", {rdma_point}}};
  FitsSection fits;
  fits.provenance.tool = "vtsim calibrate fit";
  fits.alpha_beta = {
      {"collectives[0]", "nvlink", "", 30.0, 200.0, 0.01, 20, {}},
      {"collectives[1]", "host_memory", "", 60.0, 5.0, 0.01, 20, {}},
      {"rdma[0]", "nic", "roce", 1.2, 10.0, 0.02, 20, {}},
      {"rdma[1]", "nic", "roce", 0.2, 11.5, 0.2, 20, {{0, 0.5, 3.0, 0.01, 10}, {65536, 0.3, 11.9, 0.01, 10}}},
      {"rdma[2]", "nic", "pvrdma", 15.0, 2.0, 0.02, 20, {}},
  };
  profile.fits = fits;
  profile.gemm_efficiency = GemmEfficiencySection{
      {"vtsim calibrate fit", "", "", "", "", ""}, {{Precision::fp16, 280.0, 20.0, 0.01, 5, 312.0, 280.0 / 312.0}}};
  return profile;
}

TEST(CalibratedParameters, RingCollectiveGivesItsLinkClassBusBandwidthAndStepLatency) {
  const CalibratedParameters parameters = calibrated_parameters(hand_made_profile());
  // nvlink: all_reduce over 4 GPUs, bus bandwidth 200 GB/s, alpha 30 us over 2(4-1) = 6 ring steps.
  ASSERT_TRUE(parameters.nvlink.bandwidth_Bps && parameters.nvlink.latency_s);
  EXPECT_DOUBLE_EQ(parameters.nvlink.bandwidth_Bps->value, 200e9);
  EXPECT_DOUBLE_EQ(parameters.nvlink.latency_s->value, 5e-6);
  EXPECT_EQ(parameters.nvlink.bandwidth_Bps->provenance,
            "p.json: fits.alpha_beta[0] (nccl-tests all_reduce_perf, NVIDIA A100-SXM4-40GB, node01, "
            "2024-05-01T10:00:00Z): bus bandwidth of collectives[0] all_reduce over 4 GPUs");
  // host_memory: reduce_scatter, 5 GB/s; a step is 60 / (4-1) = 20 us, less two PCIe links of 5.7 / 2 us each
  // (NCCL's PCI step latency, the pcie default since no collective calibrated pcie).
  ASSERT_TRUE(parameters.host_memory.bandwidth_Bps && parameters.host_memory.latency_s);
  EXPECT_DOUBLE_EQ(parameters.host_memory.bandwidth_Bps->value, 5e9);
  EXPECT_NEAR(parameters.host_memory.latency_s->value, 20e-6 - 1.0e-6, 1e-15);
}

TEST(CalibratedParameters, ProbeValuesFillWhatCollectivesLeaveOpen) {
  const CalibratedParameters parameters = calibrated_parameters(hand_made_profile());
  // The P2P pairs are NVLink, which the allreduce already calibrated: nvlink keeps the collective's figure.
  EXPECT_DOUBLE_EQ(parameters.nvlink.bandwidth_Bps->value, 200e9);
  // No PCIe P2P pair: pcie bandwidth is the slower pinned copy direction, min(24, 22) GB/s; no latency.
  ASSERT_TRUE(parameters.pcie.bandwidth_Bps.has_value());
  EXPECT_DOUBLE_EQ(parameters.pcie.bandwidth_Bps->value, 22e9);
  EXPECT_FALSE(parameters.pcie.latency_s.has_value());
  EXPECT_DOUBLE_EQ(parameters.memory_bandwidth_Bps->value, 1.4e12);
  EXPECT_DOUBLE_EQ(parameters.kernel_launch_s->value, 2.5e-6);
  EXPECT_DOUBLE_EQ(parameters.context_switch_s->value, 120e-6);
  EXPECT_DOUBLE_EQ(parameters.collective_sm_share->value, 0.07);
  // GEMM: the fitted curve wins over the single measured point.
  EXPECT_DOUBLE_EQ(parameters.gemm_flops.at(Precision::fp16).value, 280e12);
  EXPECT_DOUBLE_EQ(parameters.gemm_flop_efficiency.at(Precision::fp16).value, 280.0 / 312.0);
}

TEST(CalibratedParameters, NvlinkFromP2pWhenNoCollective) {
  CalibrationProfile profile = hand_made_profile();
  profile.fits->alpha_beta.erase(profile.fits->alpha_beta.begin());
  const CalibratedParameters parameters = calibrated_parameters(profile);
  // Median of the NV4 pairs' copies: (90 + 92) / 2 GB/s and (9 + 11) / 2 us.
  EXPECT_DOUBLE_EQ(parameters.nvlink.bandwidth_Bps->value, 91e9);
  EXPECT_DOUBLE_EQ(parameters.nvlink.latency_s->value, 10e-6);
}

TEST(CalibratedParameters, RdmaFitsGiveNicFiguresPerTransport) {
  const CalibratedParameters parameters = calibrated_parameters(hand_made_profile());
  ASSERT_EQ(parameters.nic.size(), 2u);
  const CalibratedLink& roce = parameters.nic.at("roce");
  EXPECT_DOUBLE_EQ(roce.latency_s->value, 1.2e-6);        // latency test's alpha
  EXPECT_DOUBLE_EQ(roce.bandwidth_Bps->value, 11.9e9);    // bandwidth test's last segment
  const CalibratedLink& pvrdma = parameters.nic.at("pvrdma");
  EXPECT_DOUBLE_EQ(pvrdma.latency_s->value, 15e-6);
  EXPECT_DOUBLE_EQ(pvrdma.bandwidth_Bps->value, 2e9);     // no bandwidth test: the latency fit's slope
  EXPECT_EQ(parameters.nic_for(Transport::roce_v2), &roce);
  EXPECT_EQ(parameters.nic_for(Transport::roce_v1), &roce);
  EXPECT_EQ(parameters.nic_for(Transport::pvrdma), &pvrdma);
  EXPECT_EQ(parameters.nic_for(Transport::tcp), nullptr);
}

TEST(CalibratedParameters, NotesSayWhatWasNotUsed) {
  const CalibratedParameters parameters = calibrated_parameters(hand_made_profile());
  ASSERT_EQ(parameters.notes.size(), 1u);
  EXPECT_EQ(parameters.notes[0], "collectives[2]: not used: not fitted (run `vtsim calibrate fit`)");
}

TEST(CalibratedParameters, TheHostSectionGivesTheDispatchPerKernelPerNodeAndPerLaunchCall) {
  CalibrationProfile profile;
  profile.file = "p.json";
  profile.host = HostSection{measured_by("calibrate/gpu_harness/host_dispatch.py"),
                             "Test CPU",
                             Framework::pytorch,
                             "2.11.0",
                             33.5,
                             5034,
                             0.556,
                             8.19,
                             16798};
  const CalibratedParameters parameters = calibrated_parameters(profile);
  ASSERT_TRUE(parameters.host_dispatch.has_value());
  EXPECT_EQ(parameters.host_dispatch->framework, Framework::pytorch);
  EXPECT_DOUBLE_EQ(parameters.host_dispatch->eager_s.value, 33.5e-6);
  ASSERT_TRUE(parameters.host_dispatch->graph_node_s.has_value());
  EXPECT_DOUBLE_EQ(parameters.host_dispatch->graph_node_s->value, 0.556e-6);
  ASSERT_TRUE(parameters.host_dispatch->launch_call_s.has_value());
  EXPECT_DOUBLE_EQ(parameters.host_dispatch->launch_call_s->value, 8.19e-6);
  EXPECT_NE(parameters.host_dispatch->launch_call_s->provenance.find("host.launch_call_us"), std::string::npos);
  EXPECT_NE(parameters.host_dispatch->launch_call_s->provenance.find("16798 kernels"), std::string::npos);
  // Logs without launch calls give none.
  profile.host->launch_call_us.reset();
  EXPECT_FALSE(calibrated_parameters(profile).host_dispatch->launch_call_s.has_value());
}

TEST(CalibratedParameters, EmptyProfileCalibratesNothing) {
  EXPECT_EQ(calibrated_parameters(CalibrationProfile{}), CalibratedParameters{});
}

}  // namespace
}  // namespace vtsim
