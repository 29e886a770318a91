// vSphere operations' closed forms against the published figures they rest on.

#include "models/scenario/operations.hpp"

#include <gtest/gtest.h>

#include <utility>

namespace vtsim {
namespace {

TEST(VmotionStun, FollowsVmwaresVsphere7VgpuTableWithinItsRounding) {
  // VMware vSphere 7.0 documentation, "vMotion of vGPU VMs" (10 GbE, V100 PCIe 32 GB): framebuffer in use -> expected
  // stun, given to the second. The least-squares line through it stays within 1.3 s of every row (the 1 GB row's
  // "2" is the farthest: the line gives 2.86).
  const OperationsConfig defaults;
  const double ten_gbe_Bps = 10e9 / 8;
  for (auto [gib, published_s] : {std::pair{1.0, 2.0}, {2.0, 4.0}, {4.0, 6.0}, {8.0, 12.0}, {16.0, 22.0},
                                  {32.0, 39.0}}) {
    EXPECT_NEAR(vmotion_stun_s(defaults, gib * 1024 * 1024 * 1024, ten_gbe_Bps), published_s, 1.3) << gib << " GiB";
  }
  // By hand: slope = sum (x - 10.5)(y - 14.1667) / sum (x - 10.5)^2 = 837.5 / 703.5, intercept 14.1667 - slope x 10.5.
  EXPECT_NEAR(vmotion_stun_s(defaults, 0, ten_gbe_Bps), 85.0 / 6 - 837.5 / 703.5 * 10.5, 1e-3);
  EXPECT_NEAR(stun_s_per_framebuffer_gib(defaults, ten_gbe_Bps), 837.5 / 703.5, 1e-5);
}

TEST(VmotionStun, TheFramebufferPartScalesWithTheVmotionNicsLineRateUnlessStated) {
  // vSphere 8.0 U2 estimates the stun from the vMotion NIC's bandwidth: 100 GbE moves the framebuffer 10x faster.
  const OperationsConfig defaults;
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(vmotion_stun_s(defaults, 32 * gib, 100e9 / 8) - defaults.stun_fixed_s,
              (vmotion_stun_s(defaults, 32 * gib, 10e9 / 8) - defaults.stun_fixed_s) / 10, 1e-9);
  OperationsConfig stated = defaults;
  stated.stun_s_per_framebuffer_gib = 2.0;  // measured on the user's setup: used as given at any rate
  EXPECT_DOUBLE_EQ(vmotion_stun_s(stated, 32 * gib, 100e9 / 8), defaults.stun_fixed_s + 64.0);
}

TEST(VmotionRate, IsTheLineRateUnlessVsphereBefore7U2sStreamsPeakLower) {
  // Broadcom KB 323379, one 40 GbE NIC: 1, 2 and 3 vMotion vmknics reached 18, 28 and 36 Gb/s; since 7.0 U2 one vmknic
  // fills 25-100 GbE (vSphere 7.0 networking best practices).
  const OperationsConfig since_7u2;
  EXPECT_DOUBLE_EQ(vmotion_rate_Bps(since_7u2, 100e9 / 8), 100e9 / 8);
  OperationsConfig before = since_7u2;
  before.vmotion_vmknics = 1;
  EXPECT_DOUBLE_EQ(vmotion_rate_Bps(before, 100e9 / 8), 18e9 / 8);
  EXPECT_DOUBLE_EQ(vmotion_rate_Bps(before, 10e9 / 8), 10e9 / 8);  // one vmknic fills 10 GbE
  before.vmotion_vmknics = 3;
  EXPECT_DOUBLE_EQ(vmotion_rate_Bps(before, 40e9 / 8), 36e9 / 8);
  EXPECT_DOUBLE_EQ(vmotion_rate_Bps(before, 25e9 / 8), 25e9 / 8);
  // A 32 GiB framebuffer over 100 GbE with one vmknic: the 10 GbE table's line (its least squares by hand, above) with
  // its slope at 10 / 18 of itself.
  before.vmotion_vmknics = 1;
  const double gib = 1024.0 * 1024 * 1024;
  const double slope = 837.5 / 703.5;
  EXPECT_NEAR(vmotion_stun_s(before, 32 * gib, vmotion_rate_Bps(before, 100e9 / 8)),
              85.0 / 6 - slope * 10.5 + 32 * slope * 10 / 18, 1e-3);
}

TEST(HaRestart, IsDetectionBootJobRestartAndTheCheckpointsReadBack) {
  OperationsConfig operations;
  operations.ha_detection_s = 15;
  operations.vm_boot_s = 40;
  operations.job_restart_s = 20;
  EXPECT_DOUBLE_EQ(ha_restart_s(operations, 5), 15.0 + 40 + 20 + 5);
}

TEST(UncalibratedOperations, NamesOnlyTheDefaultsInUse) {
  const OperationsConfig defaults;
  EXPECT_TRUE(uncalibrated_operations(defaults, false, false, false).empty());
  EXPECT_EQ(uncalibrated_operations(defaults, true, false, false).size(), 2u);   // stun per GiB, guest memory
  EXPECT_EQ(uncalibrated_operations(defaults, false, true, false).size(), 2u);   // boot, job restart
  OperationsConfig stated = defaults;
  stated.vm_boot_stated = true;  // stated, even at the default's value
  EXPECT_EQ(uncalibrated_operations(stated, false, true, true).size(), 2u);      // job restart, storage
}

}  // namespace
}  // namespace vtsim
