#include "models/catalog/vgpu_catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "models/catalog/gpu_catalog.hpp"

namespace vtsim {
namespace {

std::vector<std::string> ids_of(const std::vector<const VgpuProfile*>& profiles) {
  std::vector<std::string> ids;
  for (const VgpuProfile* profile : profiles) ids.push_back(profile->id);
  return ids;
}

TEST(VgpuCatalog, IdsAreUniqueAndEveryEntryIsSourced) {
  std::set<std::string> ids;
  for (const VgpuProfile& profile : vgpu_catalog()) {
    EXPECT_TRUE(ids.insert(profile.id).second) << "duplicate " << profile.id;
    EXPECT_FALSE(profile.source.empty()) << profile.id;
    EXPECT_GE(profile.max_per_gpu, 1) << profile.id;
  }
}

TEST(VgpuCatalog, EveryGpuIdExistsInGpuCatalog) {
  for (const VgpuProfile& profile : vgpu_catalog()) EXPECT_NE(find_gpu(profile.gpu_id), nullptr) << profile.id;
}

TEST(VgpuCatalog, MemoryTimesMaxPerGpuFitsInGpuMemory) {
  for (const VgpuProfile& profile : vgpu_catalog()) {
    const GpuSpec& gpu = *find_gpu(profile.gpu_id);
    EXPECT_LE(profile.memory_bytes * profile.max_per_gpu, gpu.memory_bytes) << profile.id;
  }
}

TEST(VgpuCatalog, EachGpuHasExactlyOneFullFramebufferProfile) {
  // The scenario loader's default vGPU profile, and the only kind that may use NVLink P2P (vGPU user guide).
  for (const GpuSpec& gpu : gpu_catalog()) {
    const std::vector<const VgpuProfile*> profiles = vgpu_profiles_for(gpu.id);
    if (profiles.empty()) continue;
    int full = 0;
    for (const VgpuProfile* profile : profiles) {
      if (profile->max_per_gpu != 1) continue;
      ++full;
      // The whole frame buffer; NVIDIA's table gives the H100 NVL's as 96,246 MiB, 10 MiB short of its 94 GiB.
      EXPECT_NEAR(profile->memory_bytes / gpu.memory_bytes, 1.0, 1.1e-4) << profile->id;
    }
    EXPECT_EQ(full, 1) << gpu.id;
  }
}

TEST(VgpuCatalog, DefaultTimeSliceIs1msForA100X4CWithTenPerGpu) {
  const VgpuProfile* profile = find_vgpu_profile("A100X-4C");
  ASSERT_NE(profile, nullptr);
  EXPECT_EQ(profile->max_per_gpu, 10);  // AI Enterprise 5.0 user guide, A.5
  EXPECT_DOUBLE_EQ(profile->default_time_slice_s(), 1e-3);
}

TEST(VgpuCatalog, DefaultTimeSliceIs2msForA100X5CWithEightPerGpu) {
  const VgpuProfile* profile = find_vgpu_profile("A100X-5C");
  ASSERT_NE(profile, nullptr);
  EXPECT_EQ(profile->max_per_gpu, 8);  // AI Enterprise 5.0 user guide, A.5
  EXPECT_DOUBLE_EQ(profile->default_time_slice_s(), 2e-3);
}

TEST(VgpuCatalog, DefaultTimeSliceFollowsDensityRuleForEveryProfile) {
  // User guide 7.3, table 1: <= 8 vGPUs per GPU -> 2 ms, more -> 1 ms.
  for (const VgpuProfile& profile : vgpu_catalog()) {
    EXPECT_DOUBLE_EQ(profile.default_time_slice_s(), profile.max_per_gpu <= 8 ? 2e-3 : 1e-3) << profile.id;
  }
}

TEST(VgpuCatalog, A100SxmProfilesAreTheSixTimeSlicedTypesOfTheUserGuide) {
  EXPECT_EQ(ids_of(vgpu_profiles_for("a100-40gb-sxm4")),
            (std::vector<std::string>{"A100X-40C", "A100X-20C", "A100X-10C", "A100X-8C", "A100X-5C", "A100X-4C"}));
}

TEST(VgpuCatalog, H100SxmProfilesRunFrom80CTo4C) {
  EXPECT_EQ(ids_of(vgpu_profiles_for("h100-sxm5")),
            (std::vector<std::string>{"H100XM-80C", "H100XM-40C", "H100XM-20C", "H100XM-16C", "H100XM-10C",
                                      "H100XM-8C", "H100XM-5C", "H100XM-4C"}));
  EXPECT_EQ(find_vgpu_profile("H100XM-4C")->max_per_gpu, 20);
}

TEST(VgpuCatalog, AdaCardsCarryTheirAiEnterpriseTables) {
  // NVIDIA AI Enterprise 6, vGPU (C-Series), tables 39 (L40S) and 42 (L4), equal-size mode.
  EXPECT_EQ(ids_of(vgpu_profiles_for("l40s")),
            (std::vector<std::string>{"L40S-48C", "L40S-24C", "L40S-16C", "L40S-12C", "L40S-8C", "L40S-6C",
                                      "L40S-4C"}));
  EXPECT_EQ(find_vgpu_profile("L40S-4C")->max_per_gpu, 12);
  EXPECT_EQ(ids_of(vgpu_profiles_for("l4")),
            (std::vector<std::string>{"L4-24C", "L4-12C", "L4-8C", "L4-6C", "L4-4C"}));
  EXPECT_EQ(find_vgpu_profile("L4-8C")->max_per_gpu, 3);
}

TEST(VgpuCatalog, A16sTypesArePerGpuOfItsBoard) {
  // NVIDIA AI Enterprise 6.2, "NVIDIA vGPU (C-Series) for NVIDIA A16": 16C, 8C and 4C, at most 1, 2 and 4 per GPU
  // (the board's four GPUs hold four times as many).
  EXPECT_EQ(ids_of(vgpu_profiles_for("a16")), (std::vector<std::string>{"A16-16C", "A16-8C", "A16-4C"}));
  EXPECT_EQ(find_vgpu_profile("A16-4C")->max_per_gpu, 4);
  EXPECT_EQ(find_vgpu_profile("A16-8C")->max_per_gpu, 2);
}

TEST(VgpuCatalog, FixedShareOfT4_4CIsOneQuarter) {
  // User guide 7.1: "the maximum number of T4-4C vGPUs per physical GPU is 4 ... each T4-4C vGPU is given one
  // quarter, or 25%".
  EXPECT_DOUBLE_EQ(1.0 / find_vgpu_profile("T4-4C")->max_per_gpu, 0.25);
}

// Frame buffers from the user guide's "Frame Buffer (MB)" column, which counts MiB.
struct FrameBufferCase {
  const char* id;
  double frame_buffer_mib;
};

class VgpuFrameBuffer : public testing::TestWithParam<FrameBufferCase> {};

TEST_P(VgpuFrameBuffer, MatchesUserGuideMiB) {
  const VgpuProfile* profile = find_vgpu_profile(GetParam().id);
  ASSERT_NE(profile, nullptr) << GetParam().id;
  EXPECT_DOUBLE_EQ(profile->memory_bytes, GetParam().frame_buffer_mib * 1024 * 1024);
}

INSTANTIATE_TEST_SUITE_P(UserGuide, VgpuFrameBuffer,
                         testing::Values(FrameBufferCase{"A100X-40C", 40960}, FrameBufferCase{"A100X-8C", 8192},
                                         FrameBufferCase{"A100DX-16C", 16384}, FrameBufferCase{"H100XM-80C", 81920},
                                         FrameBufferCase{"T4-16C", 16384}, FrameBufferCase{"V100DX-4C", 4096},
                                         FrameBufferCase{"L40-12C", 12288}, FrameBufferCase{"L4-6C", 6144},
                                         FrameBufferCase{"RTXA6000-16C", 16384}, FrameBufferCase{"A16-8C", 8192}));

TEST(VgpuCatalog, LookupsReturnNothingForUnknownNames) {
  EXPECT_EQ(find_vgpu_profile("A100-7-40C"), nullptr);  // MIG-backed types are MIG instances, not listed here
  EXPECT_EQ(find_vgpu_profile("a100x-40c"), nullptr);
  EXPECT_TRUE(vgpu_profiles_for("p100-sxm2").empty());
  EXPECT_TRUE(vgpu_profiles_for("no-such-gpu").empty());
}

}  // namespace
}  // namespace vtsim
