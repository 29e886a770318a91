#include "calibrate/mig_importer.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::error_of;
using testing::read_fixture;

TEST(MigImporter, ReadsTheA100ProfileTable) {
  const MigSection mig = import_mig_profiles(read_fixture("mig_lgip_a100_40gb.txt"), "mig.txt");
  ASSERT_EQ(mig.profiles.size(), 7u);
  const MigProfileRow& small = mig.profiles[0];
  EXPECT_EQ(small.gpu, 0);
  EXPECT_EQ(small.name, "1g.5gb");
  EXPECT_EQ(small.id, 19);
  EXPECT_EQ(small.instances_free, 7);
  EXPECT_EQ(small.instances_total, 7);
  EXPECT_DOUBLE_EQ(small.memory_gib, 4.75);  // docs/hardware-facts.md: 1g.5gb 4.75 GiB, 14 SMs, 7 instances
  EXPECT_FALSE(small.p2p);
  EXPECT_EQ(small.sms, 14);
  EXPECT_EQ(small.ce, 1);
  EXPECT_EQ(mig.profiles[1].name, "1g.5gb+me");
  EXPECT_EQ(mig.profiles[1].ofa, 1);
  const MigProfileRow& full = mig.profiles[6];
  EXPECT_EQ(full.name, "7g.40gb");
  EXPECT_DOUBLE_EQ(full.memory_gib, 39.25);  // docs/hardware-facts.md: 7g.40gb 39.25 GiB, 98 SMs
  EXPECT_EQ(full.sms, 98);
  EXPECT_EQ(full.dec, 5);
  EXPECT_EQ(full.ce, 7);
  EXPECT_EQ(mig.provenance.tool, "nvidia-smi mig -lgip");
}

TEST(MigImporter, MalformedInstancesIsAnError) {
  EXPECT_EQ(error_of([] { import_mig_profiles(read_fixture("mig_bad_instances.txt"), "mig_bad_instances.txt"); }),
            "mig_bad_instances.txt:15: Instances: expected FREE/TOTAL, got '3-3'");
}

TEST(MigImporter, MissingEngineLineIsAnError) {
  EXPECT_EQ(error_of([] { import_mig_profiles(read_fixture("mig_missing_engines.txt"), "mig_missing_engines.txt"); }),
            "mig_missing_engines.txt:19: expected the profile's second line 'CE JPEG OFA' after 3g.20gb");
}

TEST(MigImporter, NoMigGpuIsAnError) {
  EXPECT_EQ(error_of([] { import_mig_profiles("No MIG-supported devices found.\n", "m.txt"); }),
            "m.txt:1: no MIG profiles: nvidia-smi found no MIG-capable GPU");
}

}  // namespace
}  // namespace vtsim::calibrate
