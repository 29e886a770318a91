#include "models/catalog/vgpu_catalog.hpp"

#include <cmath>
#include <initializer_list>
#include <string>

#include "models/catalog/catalog_lookup.hpp"
#include "models/core/units.hpp"

// Source: NVIDIA AI Enterprise v5.0 User Guide, appendix A "Virtual GPU Types for Supported GPUs", tables of
// time-sliced C-series types ("Frame Buffer (MB)", "Maximum vGPUs per GPU [in Equal-Size Mode]"):
//   A.5  NVIDIA A100 HGX 40GB   A100X-40C 40960 x1, 20C x2, 10C x4, 8C x5, 5C x8, 4C x10
//   A.7  NVIDIA A100 HGX 80GB   A100DX-80C 81920 x1, 40C x2, 20C x4, 16C x5, 10C x8, 8C x10, 4C x20
//   A.15 NVIDIA H100 SXM5 80GB  H100XM-80C 81920 x1, 40C x2, 20C x4, 16C x5, 10C x8, 8C x10, 5C x16, 4C x20
//   A.31 Tesla T4               T4-16C 16384 x1, 8C x2, 4C x4
//   A.32 Tesla V100 SXM2        V100X-16C 16384 x1, 8C x2, 4C x4
//   A.33 Tesla V100 SXM2 32GB   V100DX-32C 32768 x1, 16C x2, 8C x4, 4C x8
// NVIDIA AI Enterprise 6.2, appendix "Virtual GPU Types for Supported GPUs" (docs.nvidia.com/ai-enterprise/release-6/
// 6.2/appendix/vgpu.html; read from a public snapshot of that page [S], its H100 rows matching release 7's "Hopper
// Architecture vGPU Types" page), C-series, equal-size mode:
//   A10                A10-24C 24576 x1, 12C x2, 8C x3, 6C x4, 4C x6
//   A30                A30-24C 24576 x1, 12C x2, 8C x3, 6C x4, 4C x6
//   A40                A40-48C 49152 x1, 24C x2, 16C x3, 12C x4, 8C x6, 6C x8, 4C x12 (12: "limited to 12 vGPUs per
//                      physical GPU" whatever the frame buffer allows)
//   A100 PCIe 40GB     A100-40C 40960 x1, 20C x2, 10C x4, 8C x5, 5C x8, 4C x10
//   A100 PCIe 80GB     A100D-80C 81920 x1, 40C x2, 20C x4, 16C x5, 10C x8, 8C x10, 4C x20
//   H100 PCIe 80GB     H100-80C 81920 x1 (printed "H100-80"), 40C x2, 20C x4, 16C x6 (sic: 6 x 16 GiB > 80 GiB; 5 is
//                      kept, as for H100XM-16C), 10C x8, 8C x10, 5C x16, 4C x20
//   A16                A16-16C 16384 x1, 8C x2, 4C x4 per GPU (four GPUs per board, so 4, 8 and 16 per board; no
//                      smaller type)
//   H100 NVL (94GB)    H100L-94C 96246 x1, 47C 48128 x2, 23C 23552 x4, 15C 15360 x6, 11C 11264 x8, 6C 6144 x15,
//                      4C 4096 x23
// NVIDIA AI Enterprise release 6 ("latest"), "NVIDIA AI Enterprise and NVIDIA vGPU (C-Series)", time-sliced tables
// (docs.nvidia.com/ai-enterprise/release-6/latest/appendix/vgpu.html, read from a public snapshot of that page [S]),
// equal-size mode:
//   Table 38 L40       L40-48C 49152 x1, 24C x2, 16C x3, 12C x4, 8C x6, 6C x8, 4C x12
//   Table 39 L40S      L40S-48C 49152 x1, 24C x2, 16C x3, 12C x4, 8C x6, 6C x8, 4C x12
//   Table 42 L4        L4-24C 24576 x1, 12C x2, 8C x3, 6C x4, 4C x6
//   Table 50 RTX A6000 RTXA6000-48C 49152 x1, 24C x2, 16C x3, 12C x4, 8C x6, 6C x8, 4C x12
// (its A10, A40 and A16 tables match the 6.2 rows above).
// The same guide's scheduler chapter (section 7.3, table 1) gives the default time slice: 2 ms for types allowing
// at most 8 vGPUs per GPU, 1 ms above. NVIDIA's newer "Hopper Architecture vGPU Types" reference page lists
// H100XM-16C at 6 per GPU in equal-size mode, which 6 x 16 GiB > 80 GiB contradicts; the v5.0 figure of 5 is kept.

namespace vtsim {
namespace {

using units::mib;

/// One row of a board's table: frame buffer in MiB and the most vGPUs of that size per GPU.
struct Size {
  int frame_buffer_mib;
  int max_per_gpu;
};

/// Appends one board's profiles, named prefix + frame buffer in GiB + "C", largest first.
void add_board(std::vector<VgpuProfile>& profiles, const std::string& prefix, const std::string& gpu_id,
               std::initializer_list<Size> sizes, const std::string& source) {
  for (const Size& size : sizes) {
    // Named by the frame buffer in GiB, rounded: H100L-94C has 96,246 MiB.
    const long gib = std::lround(size.frame_buffer_mib / 1024.0);
    profiles.push_back({.id = prefix + std::to_string(gib) + "C",
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
  const std::string ai_enterprise_62 = "NVIDIA AI Enterprise 6.2, vGPU types appendix [S]";
  add_board(profiles, "A10-", "a10", {{24576, 1}, {12288, 2}, {8192, 3}, {6144, 4}, {4096, 6}}, ai_enterprise_62);
  add_board(profiles, "A16-", "a16", {{16384, 1}, {8192, 2}, {4096, 4}}, ai_enterprise_62);
  add_board(profiles, "A30-", "a30", {{24576, 1}, {12288, 2}, {8192, 3}, {6144, 4}, {4096, 6}}, ai_enterprise_62);
  add_board(profiles, "A40-", "a40",
            {{49152, 1}, {24576, 2}, {16384, 3}, {12288, 4}, {8192, 6}, {6144, 8}, {4096, 12}}, ai_enterprise_62);
  add_board(profiles, "A100-", "a100-40gb-pcie",
            {{40960, 1}, {20480, 2}, {10240, 4}, {8192, 5}, {5120, 8}, {4096, 10}}, ai_enterprise_62);
  add_board(profiles, "A100D-", "a100-80gb-pcie",
            {{81920, 1}, {40960, 2}, {20480, 4}, {16384, 5}, {10240, 8}, {8192, 10}, {4096, 20}}, ai_enterprise_62);
  add_board(profiles, "H100-", "h100-pcie",
            {{81920, 1}, {40960, 2}, {20480, 4}, {16384, 5}, {10240, 8}, {8192, 10}, {5120, 16}, {4096, 20}},
            ai_enterprise_62);
  add_board(profiles, "H100L-", "h100-nvl",
            {{96246, 1}, {48128, 2}, {23552, 4}, {15360, 6}, {11264, 8}, {6144, 15}, {4096, 23}}, ai_enterprise_62);
  const std::string ai_enterprise_6 = "NVIDIA AI Enterprise 6, vGPU (C-Series) tables [S]";
  const std::initializer_list<Size> sizes_48gb = {{49152, 1}, {24576, 2}, {16384, 3}, {12288, 4},
                                                {8192, 6},  {6144, 8},  {4096, 12}};
  add_board(profiles, "L40-", "l40", sizes_48gb, ai_enterprise_6 + ", table 38");
  add_board(profiles, "L40S-", "l40s", sizes_48gb, ai_enterprise_6 + ", table 39");
  add_board(profiles, "L4-", "l4", {{24576, 1}, {12288, 2}, {8192, 3}, {6144, 4}, {4096, 6}},
            ai_enterprise_6 + ", table 42");
  add_board(profiles, "RTXA6000-", "rtx-a6000", sizes_48gb, ai_enterprise_6 + ", table 50");
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

const VgpuProfile* find_vgpu_profile(std::string_view id) { return find_by_id(vgpu_catalog(), id); }

std::vector<const VgpuProfile*> vgpu_profiles_for(std::string_view gpu_id) {
  std::vector<const VgpuProfile*> profiles;
  for (const VgpuProfile& profile : vgpu_catalog()) {
    if (profile.gpu_id == gpu_id) profiles.push_back(&profile);
  }
  return profiles;
}

}  // namespace vtsim
