#include "models/catalog/mig_catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "models/catalog/gpu_catalog.hpp"

namespace vtsim {
namespace {

constexpr int kComputeSlicesPerGpu = 7;  // MIG user guide: compute in sevenths
constexpr int kMemorySlicesPerGpu = 8;   // MIG user guide: memory in eighths

TEST(MigCatalog, CoversA100H100H200AndB200WithSixProfilesEach) {
  for (const char* gpu_id :
       {"a100-40gb-sxm4", "a100-80gb-sxm4", "h100-sxm5", "h100-pcie", "h100-nvl", "h200-sxm", "b200-sxm"}) {
    EXPECT_EQ(mig_profiles_for(gpu_id).size(), 6u) << gpu_id;
  }
  EXPECT_TRUE(mig_profiles_for("v100-sxm2-16gb").empty());
}

TEST(MigCatalog, EveryGpuIdExistsAndHasMig) {
  for (const MigProfile& profile : mig_catalog()) {
    const GpuSpec* gpu = find_gpu(profile.gpu_id);
    ASSERT_NE(gpu, nullptr) << profile.gpu_id;
    EXPECT_GT(gpu->mig_sm_count, 0) << profile.gpu_id;
  }
}

TEST(MigCatalog, IdsAreUniquePerGpuAndEveryEntryIsSourced) {
  std::set<std::pair<std::string, std::string>> keys;
  for (const MigProfile& profile : mig_catalog()) {
    EXPECT_TRUE(keys.insert({profile.gpu_id, profile.id}).second) << profile.gpu_id << " " << profile.id;
    EXPECT_FALSE(profile.source.empty()) << profile.id;
  }
}

TEST(MigCatalog, InstancesTimesSlicesFitInSevenComputeAndEightMemorySlices) {
  for (const MigProfile& profile : mig_catalog()) {
    // MIG user guide: sevenths and eighths, except the A30's quarters.
    const bool a30 = profile.gpu_id == "a30";
    EXPECT_EQ(profile.gpu_compute_slices, a30 ? 4 : kComputeSlicesPerGpu) << profile.id;
    EXPECT_EQ(profile.gpu_memory_slices, a30 ? 4 : kMemorySlicesPerGpu) << profile.id;
    EXPECT_LE(profile.max_instances * profile.compute_slices, profile.gpu_compute_slices) << profile.id;
    EXPECT_LE(profile.max_instances * profile.memory_slices, profile.gpu_memory_slices) << profile.id;
  }
}

TEST(MigCatalog, ProfileNameStartsWithItsComputeSlices) {
  // "3g.20gb" is 3 compute slices (MIG user guide, "MIG Device Names").
  for (const MigProfile& profile : mig_catalog()) {
    EXPECT_EQ(profile.id.substr(0, 2), std::to_string(profile.compute_slices) + "g") << profile.id;
  }
}

TEST(MigCatalog, OneG5gbRunsOnOneSeventhOfTheMigSms) {
  const MigProfile* profile = find_mig_profile("a100-40gb-sxm4", "1g.5gb");
  ASSERT_NE(profile, nullptr);
  EXPECT_EQ(profile->sm_count, 14);  // MIG user guide -lgip
  EXPECT_DOUBLE_EQ(static_cast<double>(profile->sm_count) / find_gpu("a100-40gb-sxm4")->mig_sm_count, 14.0 / 98.0);
  EXPECT_DOUBLE_EQ(14.0 / 98.0, 1.0 / kComputeSlicesPerGpu);
}

TEST(MigCatalog, FullProfileRunsOnEveryMigSmAndSmsGrowWithSlices) {
  for (const GpuSpec& gpu : gpu_catalog()) {
    int previous_slices = 0;
    int previous_sms = 0;
    for (const MigProfile* profile : mig_profiles_for(gpu.id)) {
      if (profile->compute_slices == kComputeSlicesPerGpu) {
        EXPECT_EQ(profile->sm_count, gpu.mig_sm_count) << gpu.id;
        EXPECT_EQ(profile->memory_slices, kMemorySlicesPerGpu) << gpu.id;
      }
      if (profile->compute_slices > previous_slices) {
        EXPECT_GT(profile->sm_count, previous_sms) << profile->id;
      }
      previous_slices = profile->compute_slices;
      previous_sms = profile->sm_count;
    }
  }
}

TEST(MigCatalog, ProfileMemoryFitsInGpuMemory) {
  for (const MigProfile& profile : mig_catalog()) {
    EXPECT_LE(profile.memory_bytes * profile.max_instances, find_gpu(profile.gpu_id)->memory_bytes) << profile.id;
  }
}

// `nvidia-smi mig -lgip` rows: SMs and memory in GiB, as published.
struct ListingCase {
  const char* gpu_id;
  const char* profile_id;
  int sm_count;
  double memory_gib;
  int instances;
};

class MigListing : public testing::TestWithParam<ListingCase> {};

TEST_P(MigListing, MatchesPublishedLgipRow) {
  const MigProfile* profile = find_mig_profile(GetParam().gpu_id, GetParam().profile_id);
  ASSERT_NE(profile, nullptr) << GetParam().gpu_id << " " << GetParam().profile_id;
  EXPECT_EQ(profile->sm_count, GetParam().sm_count);
  EXPECT_DOUBLE_EQ(profile->memory_bytes, GetParam().memory_gib * 1024 * 1024 * 1024);
  EXPECT_EQ(profile->max_instances, GetParam().instances);
  EXPECT_FALSE(profile->uncalibrated);
}

INSTANTIATE_TEST_SUITE_P(
    Lgip, MigListing,
    testing::Values(ListingCase{"a100-40gb-sxm4", "1g.5gb", 14, 4.75, 7},      // MIG user guide
                    ListingCase{"a100-40gb-sxm4", "1g.10gb", 14, 9.62, 4},     // MIG user guide
                    ListingCase{"a100-40gb-sxm4", "3g.20gb", 42, 19.50, 2},    // MIG user guide
                    ListingCase{"a100-40gb-sxm4", "7g.40gb", 98, 39.25, 1},    // MIG user guide
                    ListingCase{"a100-80gb-sxm4", "1g.10gb", 14, 9.50, 7},     // [S] driver 515 listing
                    ListingCase{"a100-80gb-sxm4", "7g.80gb", 98, 79.00, 1},    // [S] driver 515 listing
                    ListingCase{"h100-sxm5", "1g.10gb", 16, 9.75, 7},          // [S] H100 80GB HBM3 listing
                    ListingCase{"h100-sxm5", "1g.20gb", 26, 19.62, 4},         // [S]
                    ListingCase{"h100-sxm5", "7g.80gb", 132, 79.25, 1},        // [S]
                    ListingCase{"a30", "1g.6gb", 14, 5.81, 4},                 // [S] A30 listing
                    ListingCase{"a30", "2g.12gb", 28, 11.69, 2},               // [S]
                    ListingCase{"a30", "4g.24gb", 56, 23.50, 1},               // [S]
                    ListingCase{"h100-pcie", "1g.10gb", 14, 9.62, 7},          // [S] H100 PCIe listing (Scaleway)
                    ListingCase{"h100-pcie", "1g.20gb", 14, 19.50, 4},         // [S] 14 SMs, not the SXM5's 26
                    ListingCase{"h100-pcie", "7g.80gb", 114, 79.00, 1},        // [S]
                    ListingCase{"h100-nvl", "1g.12gb", 16, 10.75, 7},          // [S] gpu-operator PR #900
                    ListingCase{"h100-nvl", "2g.24gb", 32, 21.62, 3},          // [S]
                    ListingCase{"h200-sxm", "1g.18gb", 16, 16.00, 7},          // [S] mig-parted issue #120
                    ListingCase{"h200-sxm", "1g.35gb", 26, 32.25, 4},          // [S]
                    ListingCase{"h200-sxm", "3g.71gb", 60, 69.50, 2},          // [S]
                    ListingCase{"h200-sxm", "7g.141gb", 132, 139.75, 1},       // [S]
                    ListingCase{"b200-sxm", "1g.23gb", 18, 20.50, 7},          // [S] gpu-operator PR #1351
                    ListingCase{"b200-sxm", "2g.45gb", 36, 44.25, 3},          // [S] gpu-operator PR #1242, #1351
                    ListingCase{"b200-sxm", "3g.90gb", 70, 89.00, 2},          // [S] trt-samples MIG cookbook
                    ListingCase{"b200-sxm", "7g.180gb", 148, 178.50, 1}));     // [S] trt-samples MIG cookbook

TEST(MigCatalog, DerivedEntriesAreMarkedUncalibratedAndSaySo) {
  for (const auto& [gpu_id, profile_id] : {std::pair{"a100-80gb-sxm4", "1g.20gb"}, std::pair{"h100-nvl", "3g.47gb"},
                                          std::pair{"h100-nvl", "4g.47gb"}, std::pair{"h100-nvl", "7g.94gb"}}) {
    const MigProfile* profile = find_mig_profile(gpu_id, profile_id);
    ASSERT_NE(profile, nullptr) << profile_id;
    EXPECT_TRUE(profile->uncalibrated) << profile_id;
    EXPECT_NE(profile->source.find("uncalibrated"), std::string::npos) << profile_id;
  }
}

TEST(MigCatalog, LookupsReturnNothingForUnknownNames) {
  EXPECT_EQ(find_mig_profile("a100-40gb-sxm4", "1g.10gb+me"), nullptr);  // media extensions are not listed
  EXPECT_EQ(find_mig_profile("a100-80gb-sxm4", "1g.5gb"), nullptr);      // a 40GB name on the 80GB card
  EXPECT_EQ(find_mig_profile("t4", "1g.5gb"), nullptr);
}

}  // namespace
}  // namespace vtsim
