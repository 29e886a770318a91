#include "models/vgpu_catalog.hpp"

#include <initializer_list>
#include <string>

#include "models/units.hpp"

// Source: NVIDIA AI Enterprise v5.0 User Guide, appendix A "Virtual GPU Types for Supported GPUs", tables of
// time-sliced C-series types ("Frame Buffer (MB)", "Maximum vGPUs per GPU [in Equal-Size Mode]"):
//   A.5  NVIDIA A100 HGX 40GB   A100X-40C 40960 x1, 20C x2, 10C x4, 8C x5, 5C x8, 4C x10
//   A.7  NVIDIA A100 HGX 80GB   A100DX-80C 81920 x1, 40C x2, 20C x4, 16C x5, 10C x8, 8C x10, 4C x20
//   A.15 NVIDIA H100 SXM5 80GB  H100XM-80C 81920 x1, 40C x2, 20C x4, 16C x5, 10C x8, 8C x10, 5C x16, 4C x20
//   A.31 Tesla T4               T4-16C 16384 x1, 8C x2, 4C x4
//   A.32 Tesla V100 SXM2        V100X-16C 16384 x1, 8C x2, 4C x4
//   A.33 Tesla V100 SXM2 32GB   V100DX-32C 32768 x1, 16C x2, 8C x4, 4C x8
// The same guide's scheduler chapter (section 7.3, table 1) gives the default time slice: 2 ms for types allowing
// at most 8 vGPUs per GPU, 1 ms above. NVIDIA's newer "Hopper Architecture vGPU Types" reference page lists
// H100XM-16C at 6 per GPU in equal-size mode, which 6 x 16 GiB > 80 GiB contradicts; the v5.0 figure of 5 is kept.

namespace vtsim {
namespace {

constexpr double mib(double value) { return value * units::kBytesPerMiB; }

/// One row of a board's table: frame buffer in MiB and the most vGPUs of that size per GPU.
struct Size {
  int frame_buffer_mib;
  int max_per_gpu;
};

/// Appends one board's profiles, named prefix + frame buffer in GiB + "C", largest first.
void add_board(std::vector<VgpuProfile>& profiles, const std::string& prefix, const std::string& gpu_id,
               std::initializer_list<Size> sizes, const std::string& source) {
  for (const Size& size : sizes) {
    profiles.push_back({.id = prefix + std::to_string(size.frame_buffer_mib / 1024) + "C",
                        .gpu_id = gpu_id,
                        .memory_bytes = mib(size.frame_buffer_mib),
                        .max_per_gpu = size.max_per_gpu,
                        .source = source});
  }
}

std::vector<VgpuProfile> build_vgpu_catalog() {
  std::vector<VgpuProfile> profiles;
  add_board(profiles, "V100X-", "v100-sxm2-16gb", {{16384, 1}, {8192, 2}, {4096, 4}},
            "NVIDIA AI Enterprise 5.0 user guide, A.32");
  add_board(profiles, "V100DX-", "v100-sxm2-32gb", {{32768, 1}, {16384, 2}, {8192, 4}, {4096, 8}},
            "NVIDIA AI Enterprise 5.0 user guide, A.33");
  add_board(profiles, "T4-", "t4", {{16384, 1}, {8192, 2}, {4096, 4}}, "NVIDIA AI Enterprise 5.0 user guide, A.31");
  add_board(profiles, "A100X-", "a100-40gb-sxm4",
            {{40960, 1}, {20480, 2}, {10240, 4}, {8192, 5}, {5120, 8}, {4096, 10}},
            "NVIDIA AI Enterprise 5.0 user guide, A.5");
  add_board(profiles, "A100DX-", "a100-80gb-sxm4",
            {{81920, 1}, {40960, 2}, {20480, 4}, {16384, 5}, {10240, 8}, {8192, 10}, {4096, 20}},
            "NVIDIA AI Enterprise 5.0 user guide, A.7");
  add_board(profiles, "H100XM-", "h100-sxm5",
            {{81920, 1}, {40960, 2}, {20480, 4}, {16384, 5}, {10240, 8}, {8192, 10}, {5120, 16}, {4096, 20}},
            "NVIDIA AI Enterprise 5.0 user guide, A.15");
  return profiles;
}

}  // namespace

double VgpuProfile::default_time_slice_s() const {
  constexpr int kMaxPerGpuForLongSlice = 8;  // AI Enterprise user guide 7.3, table 1
  return (max_per_gpu <= kMaxPerGpuForLongSlice ? 2.0 : 1.0) * units::kSecondsPerMs;
}

const std::vector<VgpuProfile>& vgpu_catalog() {
  static const std::vector<VgpuProfile> catalog = build_vgpu_catalog();
  return catalog;
}

const VgpuProfile* find_vgpu_profile(std::string_view id) {
  for (const VgpuProfile& profile : vgpu_catalog()) {
    if (profile.id == id) return &profile;
  }
  return nullptr;
}

std::vector<const VgpuProfile*> vgpu_profiles_for(std::string_view gpu_id) {
  std::vector<const VgpuProfile*> profiles;
  for (const VgpuProfile& profile : vgpu_catalog()) {
    if (profile.gpu_id == gpu_id) profiles.push_back(&profile);
  }
  return profiles;
}

}  // namespace vtsim
