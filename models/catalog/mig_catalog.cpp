#include "models/catalog/mig_catalog.hpp"

#include <initializer_list>

#include "models/core/units.hpp"

// Sources. [S] marks a secondary source. Slice fractions and instance counts of every GPU below are from the NVIDIA
// MIG user guide, "Supported MIG Profiles" (tables for A100, H100, H200 and B200: fraction of memory in eighths,
// fraction of SMs in sevenths, number of instances); the guide notes that A100-SXM4-80GB profiles are the 40GB ones
// renamed for twice the memory. SM counts and memory sizes are `nvidia-smi mig -lgip` output (memory is printed in
// GiB with two decimals, and shifts by a few hundredths between driver releases):
//   A100 40GB  MIG user guide, "List GPU Instance Profiles", A100-SXM4-40GB (also docs/hardware-facts.md).
//   A100 80GB  [S] -lgip on an A100 80GB (PCIe card, same GA100 and 80 GB as the SXM4) with driver 515.86.01, quoted
//              in a public GPU Operator tutorial, and an identical listing labelled A100-SXM4-80GB in public notes.
//              That listing has no 1g.20gb row.
//   H100 80GB  [S] -lgip on "NVIDIA H100 80GB HBM3" quoted in public nvidia-smi usage notes.
//   A30 24GB   The guide's A30 table: four compute and four memory slices, 1g.6gb x4, 2g.12gb x2, 4g.24gb x1. [S]
//              -lgip on an A30 in a public repository's notes (github.com/Summer-Lo/Docker_configuration,
//              000-MIG/README.md): 14, 28 and 56 SMs, 5.81, 11.69 and 23.50 GiB.
//   H100 PCIe  [S] -lgip on "NVIDIA H100 PCIe", driver 525.125.06, in Scaleway's documentation ("How to use NVIDIA
//              MIG technology", scaleway.com/en/docs/gpu/how-to/use-nvidia-mig-technology). Its 1g.20gb has the
//              1g.10gb's 14 SMs, not the SXM5's 26.
//   H100 NVL   [S] -lgip on an H100 NVL (0x232110DE) in NVIDIA/gpu-operator pull request #900 (1g.12gb, 1g.24gb,
//              2g.24gb); 3g.47gb's memory (46.38 GiB) also in NVIDIA/mig-parted pull request #101. The 3g, 4g and 7g
//              rows' SMs (60, 64, 132) are the H100 SXM5's (the same 132-SM GH100 configuration, whose 1g and 2g
//              rows the NVL's match); a listing of an Azure H100 NVL VM with those values was found without a
//              confirmable source, so they are marked derived.
//   H200 141GB [S] -lgip on H200 in NVIDIA/mig-parted issue #120 (every profile; memory as that driver prints it).
//   B200 180GB The guide's B200 table (fractions and instances: 1g.23gb x7, 1g.45gb x4, 2g.45gb x3, 3g.90gb x2,
//              4g.90gb x1, 7g.180gb x1). [S] -lgip on a B200 in NVIDIA/gpu-operator pull requests #1242 (2025-01)
//              and #1351 (2025-03), also NVIDIA/mig-parted #166 and #187: 1g.23gb 18 SMs, 1g.45gb 30, 2g.45gb 36,
//              44.25 GiB; 1g.23gb 22.00 GiB under the first driver, 20.50 under the second. The 3g, 4g and 7g rows
//              (70, 72 and 148 SMs; 89.00, 89.00 and 178.50 GiB) are from the table of -lgip output on a B200
//              180 GB in NVIDIA/trt-samples-for-hackathon-cn, cookbook/08-Advance/MIG/README.md (commit 85ce6efc,
//              "re-measured 2026-09-06"; its 1g and 2g rows match the pull requests' second listing), and agree
//              with an example listing captured on an AWS p6-b200.48xlarge in aws/karpenter-provider-aws
//              (pkg/providers/nvidiadra, commit 971ab0b0, marked by its authors as possibly incorrect).
// Entries marked uncalibrated derive what no listing gave: a profile with the same memory slices as a listed one
// gets its memory (every published listing prints equal memory for equal memory slices: 1g.10gb = 2g.10gb on A100
// 40GB, 1g.20gb = 2g.20gb on H100); A100 80GB 1g.20gb gets the 14 SMs every listed A100 1g profile has; the H100
// NVL's 3g, 4g and 7g rows are said above.

namespace vtsim {
namespace {

/// One row of `nvidia-smi mig -lgip`, with the slice counts of the MIG user guide.
struct Row {
  const char* id;
  int compute_slices;
  int memory_slices;
  int sm_count;
  double memory_gib;
  int max_instances;
  bool uncalibrated;
};

/// Appends the profiles of one GPU; a derived row's source says so.
void add_gpu(std::vector<MigProfile>& profiles, const std::string& gpu_id, std::initializer_list<Row> rows,
             const std::string& source, int gpu_compute_slices = 7, int gpu_memory_slices = 8) {
  for (const Row& row : rows) {
    profiles.push_back({.id = row.id,
                        .gpu_id = gpu_id,
                        .compute_slices = row.compute_slices,
                        .memory_slices = row.memory_slices,
                        .gpu_compute_slices = gpu_compute_slices,
                        .gpu_memory_slices = gpu_memory_slices,
                        .sm_count = row.sm_count,
                        .memory_bytes = row.memory_gib * units::kBytesPerGiB,
                        .max_instances = row.max_instances,
                        .uncalibrated = row.uncalibrated,
                        .source = row.uncalibrated ? source + "; derived, uncalibrated" : source});
  }
}

std::vector<MigProfile> build_mig_catalog() {
  std::vector<MigProfile> profiles;
  // Rows: {id, compute slices, memory slices, SMs, memory GiB, max instances, uncalibrated}.
  add_gpu(profiles, "a100-40gb-sxm4",
          {{"1g.5gb", 1, 1, 14, 4.75, 7, false},
           {"1g.10gb", 1, 2, 14, 9.62, 4, false},
           {"2g.10gb", 2, 2, 28, 9.62, 3, false},
           {"3g.20gb", 3, 4, 42, 19.50, 2, false},
           {"4g.20gb", 4, 4, 56, 19.50, 1, false},
           {"7g.40gb", 7, 8, 98, 39.25, 1, false}},
          "NVIDIA MIG user guide (-lgip, A100-SXM4-40GB)");
  add_gpu(profiles, "a100-80gb-sxm4",
          {{"1g.10gb", 1, 1, 14, 9.50, 7, false},
           {"1g.20gb", 1, 2, 14, 19.50, 4, true},  // memory of 2g.20gb, SMs of 1g.10gb
           {"2g.20gb", 2, 2, 28, 19.50, 3, false},
           {"3g.40gb", 3, 4, 42, 39.25, 2, false},
           {"4g.40gb", 4, 4, 56, 39.25, 1, false},
           {"7g.80gb", 7, 8, 98, 79.00, 1, false}},
          "MIG user guide; -lgip on A100 80GB, driver 515 [S]");
  add_gpu(profiles, "a30",
          {{"1g.6gb", 1, 1, 14, 5.81, 4, false},
           {"2g.12gb", 2, 2, 28, 11.69, 2, false},
           {"4g.24gb", 4, 4, 56, 23.50, 1, false}},
          "MIG user guide (A30-24GB: quarters); -lgip on A30 [S]", 4, 4);
  add_gpu(profiles, "h100-sxm5",
          {{"1g.10gb", 1, 1, 16, 9.75, 7, false},
           {"1g.20gb", 1, 2, 26, 19.62, 4, false},
           {"2g.20gb", 2, 2, 32, 19.62, 3, false},
           {"3g.40gb", 3, 4, 60, 39.50, 2, false},
           {"4g.40gb", 4, 4, 64, 39.50, 1, false},
           {"7g.80gb", 7, 8, 132, 79.25, 1, false}},
          "MIG user guide; -lgip on H100 80GB HBM3 [S]");
  add_gpu(profiles, "h100-pcie",
          {{"1g.10gb", 1, 1, 14, 9.62, 7, false},
           {"1g.20gb", 1, 2, 14, 19.50, 4, false},
           {"2g.20gb", 2, 2, 30, 19.50, 3, false},
           {"3g.40gb", 3, 4, 46, 39.25, 2, false},
           {"4g.40gb", 4, 4, 62, 39.25, 1, false},
           {"7g.80gb", 7, 8, 114, 79.00, 1, false}},
          "MIG user guide; -lgip on H100 PCIe, Scaleway documentation [S]");
  add_gpu(profiles, "h100-nvl",
          {{"1g.12gb", 1, 1, 16, 10.75, 7, false},
           {"1g.24gb", 1, 2, 26, 21.62, 4, false},
           {"2g.24gb", 2, 2, 32, 21.62, 3, false},
           {"3g.47gb", 3, 4, 60, 46.38, 2, true},    // SMs of the H100 SXM5's 3g.40gb
           {"4g.47gb", 4, 4, 64, 46.38, 1, true},    // SMs of its 4g.40gb; memory of 3g.47gb (equal slices)
           {"7g.94gb", 7, 8, 132, 93.12, 1, true}},  // every SM of the 132-SM GH100; memory as the Azure listing
          "MIG user guide; -lgip on H100 NVL, NVIDIA/gpu-operator PR #900 [S]");
  add_gpu(profiles, "h200-sxm",
          {{"1g.18gb", 1, 1, 16, 16.00, 7, false},
           {"1g.35gb", 1, 2, 26, 32.25, 4, false},
           {"2g.35gb", 2, 2, 32, 32.25, 3, false},
           {"3g.71gb", 3, 4, 60, 69.50, 2, false},
           {"4g.71gb", 4, 4, 64, 69.50, 1, false},
           {"7g.141gb", 7, 8, 132, 139.75, 1, false}},
          "MIG user guide; -lgip on H200, NVIDIA/mig-parted issue #120 [S]");
  add_gpu(profiles, "b200-sxm",
          {{"1g.23gb", 1, 1, 18, 20.50, 7, false},
           {"1g.45gb", 1, 2, 30, 44.25, 4, false},
           {"2g.45gb", 2, 2, 36, 44.25, 3, false},
           {"3g.90gb", 3, 4, 70, 89.00, 2, false},
           {"4g.90gb", 4, 4, 72, 89.00, 1, false},
           {"7g.180gb", 7, 8, 148, 178.50, 1, false}},
          "MIG user guide; -lgip on B200, NVIDIA/gpu-operator PR #1351 and NVIDIA/trt-samples-for-hackathon-cn's "
          "MIG cookbook [S]");
  return profiles;
}

}  // namespace

const std::vector<MigProfile>& mig_catalog() {
  static const std::vector<MigProfile> catalog = build_mig_catalog();
  return catalog;
}

const MigProfile* find_mig_profile(std::string_view gpu_id, std::string_view id) {
  for (const MigProfile& profile : mig_catalog()) {
    if (profile.gpu_id == gpu_id && profile.id == id) return &profile;
  }
  return nullptr;
}

std::vector<const MigProfile*> mig_profiles_for(std::string_view gpu_id) {
  std::vector<const MigProfile*> profiles;
  for (const MigProfile& profile : mig_catalog()) {
    if (profile.gpu_id == gpu_id) profiles.push_back(&profile);
  }
  return profiles;
}

}  // namespace vtsim
