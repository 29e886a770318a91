#include "models/catalog/mig_placement.hpp"

#include <gtest/gtest.h>

namespace vtsim {
namespace {

std::vector<const MigProfile*> a100(std::initializer_list<const char*> ids) {
  std::vector<const MigProfile*> profiles;
  for (const char* id : ids) profiles.push_back(find_mig_profile("a100-40gb-sxm4", id));
  return profiles;
}

TEST(MigPlacement, StartsFollowNvidiaPlacementsPerSize) {
  // nvidia-smi mig -lgipp on A100-SXM4-40GB: 7g {0}:8, 4g {0}:4, 3g {0,4}:4, 2g {0,2,4}:2, 1g.10gb {0,2,4,6}:2,
  // 1g.5gb {0..6}:1.
  EXPECT_EQ(mig_placement_starts(*a100({"7g.40gb"})[0]), (std::vector<int>{0}));
  EXPECT_EQ(mig_placement_starts(*a100({"4g.20gb"})[0]), (std::vector<int>{0}));
  EXPECT_EQ(mig_placement_starts(*a100({"3g.20gb"})[0]), (std::vector<int>{0, 4}));
  EXPECT_EQ(mig_placement_starts(*a100({"2g.10gb"})[0]), (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(mig_placement_starts(*a100({"1g.10gb"})[0]), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(mig_placement_starts(*a100({"1g.5gb"})[0]), (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
}

TEST(MigPlacement, AcceptsTheMixesNvidiaAllows) {
  for (const auto& mix : {a100({"4g.20gb", "3g.20gb"}), a100({"3g.20gb", "3g.20gb"}),
                          a100({"2g.10gb", "2g.10gb", "3g.20gb"}), a100({"3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"}),
                          a100({"4g.20gb", "2g.10gb", "1g.5gb"}), a100({"2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb"}),
                          a100({"1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb"})}) {
    const MigPlacement placement = place_mig_instances(mix);
    EXPECT_EQ(placement.problem, "") << mix.size() << " instances";
    EXPECT_EQ(placement.starts.size(), mix.size());
  }
}

TEST(MigPlacement, RejectsMixesThatExceedTheSlicesAndSaysWhy) {
  // 4g + 4g: 4 + 4 = 8 of 7 compute slices.
  EXPECT_EQ(place_mig_instances(a100({"4g.20gb", "4g.20gb"})).problem,
            "4g.20gb + 4g.20gb need 8/7 compute and 8/8 memory slices");
  // 4g (4 memory slices) + 1g.10gb x 2 (2 each) + 1g.5gb (1): 7/7 compute but 9/8 memory.
  EXPECT_EQ(place_mig_instances(a100({"4g.20gb", "1g.10gb", "1g.10gb", "1g.5gb"})).problem,
            "4g.20gb + 1g.10gb + 1g.10gb + 1g.5gb need 7/7 compute and 9/8 memory slices");
}

TEST(MigPlacement, SearchFindsThePlacementAGreedyOneWouldMiss) {
  // 3g + 2g + 2g fits only with the 3g in the upper half: the 2g instances then take 0-1 and 2-3.
  MigPlacement placement = place_mig_instances(a100({"2g.10gb", "2g.10gb", "3g.20gb"}));
  EXPECT_EQ(placement.problem, "");
  EXPECT_EQ(placement.starts, (std::vector<int>{0, 2, 4}));
  // 3g + 2g + 1g.10gb: 3g at 0 (0-3), 2g at 4 (4-5), 1g.10gb at 6 (6-7), each at an allowed start.
  placement = place_mig_instances(a100({"3g.20gb", "2g.10gb", "1g.10gb"}));
  EXPECT_EQ(placement.problem, "");
  EXPECT_EQ(placement.starts, (std::vector<int>{0, 4, 6}));
}

TEST(MigPlacement, OneSliceInstancesNeverUseTheEighthMemorySlice) {
  // 1g.5gb may start at 0..6 only (compute has 7 slices).
  const MigPlacement placement =
      place_mig_instances(a100({"1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb"}));
  EXPECT_EQ(placement.problem, "");
  for (int start : placement.starts) EXPECT_LE(start, 6);
}

TEST(MigPlacement, MaxInstancesPerProfileIsEnforced) {
  // 1g.10gb allows 4 instances per A100 40GB (nvidia-smi mig -lgip).
  const MigPlacement placement =
      place_mig_instances(a100({"1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb"}));
  EXPECT_NE(placement.problem.find("need 5/7 compute and 10/8 memory slices"), std::string::npos) << placement.problem;
}

}  // namespace
}  // namespace vtsim

namespace vtsim {
namespace {

TEST(MigPlacement, AnA30HasFourSlicesOfEach) {
  // MIG user guide: A30-24GB in quarters (1g.6gb x4, 2g.12gb x2, 4g.24gb x1).
  const MigProfile& one = *find_mig_profile("a30", "1g.6gb");
  const MigProfile& two = *find_mig_profile("a30", "2g.12gb");
  const MigProfile& four = *find_mig_profile("a30", "4g.24gb");
  EXPECT_EQ(mig_placement_starts(one), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(mig_placement_starts(two), (std::vector<int>{0, 2}));
  EXPECT_EQ(mig_placement_starts(four), (std::vector<int>{0}));
  EXPECT_EQ(place_mig_instances({&two, &one, &one}).starts, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(place_mig_instances({&one, &one, &one, &one}).starts.size(), 4u);
  EXPECT_EQ(place_mig_instances({&two, &two, &one}).problem,
            "2g.12gb + 2g.12gb + 1g.6gb need 5/4 compute and 5/4 memory slices");
}

}  // namespace
}  // namespace vtsim
