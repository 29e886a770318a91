// vSphere operations' closed forms against the published figures they rest on.

#include "models/operations.hpp"

#include <gtest/gtest.h>

#include <utility>

namespace vtsim {
namespace {

TEST(VmotionStun, FollowsVmwaresVgpuTableWithinItsRounding) {
  // VMware vSphere 6.7 documentation, "vMotion of vGPU VMs" (10 GbE, Tesla P40): framebuffer in use -> stun time.
  const OperationsConfig defaults;
  for (auto [gib, published_s] : {std::pair{1.0, 9.0}, {2.0, 16.5}, {4.0, 31.4}, {8.0, 61.3}, {10.0, 76.3},
                                  {12.0, 91.2}}) {
    EXPECT_NEAR(vmotion_stun_s(defaults, gib * 1024 * 1024 * 1024), published_s, 0.05) << gib << " GiB";
  }
  // The table's 16 GB row timed out at vMotion's 100 s limit: so does the line.
  EXPECT_GT(vmotion_stun_s(defaults, 16.0 * 1024 * 1024 * 1024), defaults.stun_limit_s);
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
  EXPECT_EQ(uncalibrated_operations(defaults, true, false, false).size(), 1u);   // guest memory
  EXPECT_EQ(uncalibrated_operations(defaults, false, true, false).size(), 2u);   // boot, job restart
  OperationsConfig stated = defaults;
  stated.vm_boot_stated = true;  // stated, even at the default's value
  EXPECT_EQ(uncalibrated_operations(stated, false, true, true).size(), 2u);      // job restart, storage
}

}  // namespace
}  // namespace vtsim
