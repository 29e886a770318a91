#include "calibrate/profile_fits.hpp"

#include <gtest/gtest.h>

#include "calibrate/nccl_tests_importer.hpp"
#include "calibrate/perftest_importer.hpp"
#include "calibrate/topology_importer.hpp"
#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::read_fixture;

Provenance fit_provenance() {
  Provenance provenance;
  provenance.tool = "vtsim calibrate fit";
  provenance.date = "2025-01-01T00:00:00Z";
  return provenance;
}

TEST(ProfileFits, CollectiveOnOneNvlinkHostCalibratesNvlink) {
  CalibrationProfile profile;
  // all_gather over 4 GPUs, generated as 9 us + S x 3/4 / 110 GB/s; the topology joins GPU0-3 by NV4.
  profile.collectives.push_back(
      import_nccl_tests(read_fixture("all_gather_perf_4xv100.log"), "all_gather_perf.log", {}));
  profile.topology = import_topology(read_fixture("topo_4xa100_nv4.txt"), "topo.txt");
  const std::vector<std::string> notes = fit_profile(profile, fit_provenance());
  EXPECT_TRUE(notes.empty());
  ASSERT_TRUE(profile.fits.has_value());
  ASSERT_EQ(profile.fits->alpha_beta.size(), 1u);
  const AlphaBetaFit& fit = profile.fits->alpha_beta[0];
  EXPECT_EQ(fit.subject, "collectives[0]");
  EXPECT_EQ(fit.link_class, "nvlink");
  EXPECT_NEAR(fit.alpha_us, 9.0, 0.05);     // the times are printed to 0.01 us
  EXPECT_NEAR(fit.beta_gBps, 110.0, 0.2);   // bus bandwidth: the fit is on S x (n-1)/n
  EXPECT_LT(fit.residual, 0.002);
  EXPECT_TRUE(fit.segments.empty());
  EXPECT_EQ(profile.fits->provenance, fit_provenance());
}

TEST(ProfileFits, CollectiveWithoutTopologyIsFittedButNotLabelled) {
  CalibrationProfile profile;
  profile.collectives.push_back(import_nccl_tests(read_fixture("all_reduce_perf_8xa100.log"), "ar.log", {}));
  profile.collectives.push_back(import_nccl_tests(read_fixture("all_reduce_perf_2hosts.log"), "ar2.log", {}));
  const std::vector<std::string> notes = fit_profile(profile, fit_provenance());
  ASSERT_EQ(profile.fits->alpha_beta.size(), 2u);
  EXPECT_EQ(profile.fits->alpha_beta[0].link_class, "");
  EXPECT_NEAR(profile.fits->alpha_beta[0].alpha_us, 12.0, 0.05);
  EXPECT_NEAR(profile.fits->alpha_beta[0].beta_gBps, 230.0, 0.3);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "collectives[0]: no link class: import the host's `nvidia-smi topo -m` and fit again");
  EXPECT_EQ(notes[1], "collectives[1]: no link class: it ran on 2 hosts, and only single-host runs calibrate a "
                      "link class");
}

TEST(ProfileFits, RdmaSeriesAreNicFitsOfTheirTransport) {
  CalibrationProfile profile;
  profile.rdma.push_back(import_perftest(read_fixture("ib_write_lat_roce.log"), "lat.log", {}));
  profile.rdma.push_back(import_perftest(read_fixture("ib_write_bw_roce.log"), "bw.log", {}));
  fit_profile(profile, fit_provenance());
  ASSERT_EQ(profile.fits->alpha_beta.size(), 2u);
  const AlphaBetaFit& latency = profile.fits->alpha_beta[0];
  EXPECT_EQ(latency.subject, "rdma[0]");
  EXPECT_EQ(latency.link_class, "nic");
  EXPECT_EQ(latency.transport, "roce");
  EXPECT_EQ(latency.points, 6);
  const AlphaBetaFit& bandwidth = profile.fits->alpha_beta[1];
  // Streaming: time per message = bytes / bandwidth; the large messages run at ~11425 MiB/s = 11.98 GB/s.
  const double last_beta = bandwidth.segments.empty() ? bandwidth.beta_gBps : bandwidth.segments.back().beta_gBps;
  EXPECT_NEAR(last_beta, 11425.0 * 1048576 / 1e9, 0.1);
}

TEST(ProfileFits, GemmCurveRecoversAsymptoteAndHalfRateSize) {
  // throughput(w) = 280 TFLOP/s x w / (w + 20 GFLOP): time = 20e9 / 280e12 s + w / 280e12.
  CalibrationProfile profile;
  profile.gpu = GpuSection{};
  profile.gpu->provenance.tool = "test";
  profile.gpu->name = "NVIDIA A100-SXM4-40GB";
  profile.gpu->catalog_gpu = "a100-40gb-sxm4";
  for (std::int64_t n : {512, 1024, 2048, 4096, 8192}) {
    const double size = static_cast<double>(n);
    const double flop = 2.0 * size * size * size;
    profile.gpu->gemm.push_back({Precision::fp16, n, n, n, 280.0 * flop / (flop + 20e9)});
  }
  fit_profile(profile, fit_provenance());
  ASSERT_TRUE(profile.gemm_efficiency.has_value());
  ASSERT_EQ(profile.gemm_efficiency->curves.size(), 1u);
  const GemmEfficiencyCurve& curve = profile.gemm_efficiency->curves[0];
  EXPECT_EQ(curve.precision, Precision::fp16);
  EXPECT_NEAR(curve.asymptotic_tflops, 280.0, 1e-6);
  EXPECT_NEAR(curve.half_rate_gflop, 20.0, 1e-6);
  EXPECT_NEAR(curve.residual, 0, 1e-9);
  EXPECT_EQ(curve.catalog_peak_tflops, 312.0);  // A100 FP16 tensor-core dense peak (docs/hardware-facts.md)
  EXPECT_NEAR(*curve.max_efficiency, 280.0 / 312.0, 1e-9);
  EXPECT_FALSE(profile.fits.has_value());  // nothing else to fit
}

}  // namespace
}  // namespace vtsim::calibrate
