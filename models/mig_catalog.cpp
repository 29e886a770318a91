#include "models/mig_catalog.hpp"

#include <initializer_list>

#include "models/units.hpp"

// Sources. [S] marks a secondary source. Slice fractions and instance counts of every GPU below are from the NVIDIA
// MIG user guide, "Supported MIG Profiles" (tables for A100, H100 and H200: fraction of memory in eighths, fraction
// of SMs in sevenths, number of instances); the guide notes that A100-SXM4-80GB profiles are the 40GB ones renamed
// for twice the memory. SM counts and memory sizes are `nvidia-smi mig -lgip` output (memory is printed in GiB with
// two decimals, and shifts by a few hundredths between driver releases):
//   A100 40GB  MIG user guide, "List GPU Instance Profiles", A100-SXM4-40GB (also docs/hardware-facts.md).
//   A100 80GB  [S] -lgip on an A100 80GB (PCIe card, same GA100 and 80 GB as the SXM4) with driver 515.86.01, quoted
//              in a public GPU Operator tutorial, and an identical listing labelled A100-SXM4-80GB in public notes.
//              That listing has no 1g.20gb row.
//   H100 80GB  [S] -lgip on "NVIDIA H100 80GB HBM3" quoted in public nvidia-smi usage notes.
//   H200 141GB [S] -lgip on H200 quoted in a public repository's parser test (1g.18gb, 2g.35gb, 7g.141gb); [S] SM
//              counts of 3g.71gb (60) and 4g.71gb (64) from public vLLM benchmark notes run on an H200.
// Entries marked uncalibrated derive what no listing gave: a profile with the same memory slices as a listed one
// gets its memory (every published listing prints equal memory for equal memory slices: 1g.10gb = 2g.10gb on A100
// 40GB, 1g.20gb = 2g.20gb on H100); A100 80GB 1g.20gb gets the 14 SMs every listed A100 1g profile has; H200
// 1g.35gb gets the SMs of the same profile on the H100, the same GH100 silicon (1g.20gb, 26 SMs).

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
             const std::string& source) {
  for (const Row& row : rows) {
    profiles.push_back({.id = row.id,
                        .gpu_id = gpu_id,
                        .compute_slices = row.compute_slices,
                        .memory_slices = row.memory_slices,
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
  add_gpu(profiles, "h100-sxm5",
          {{"1g.10gb", 1, 1, 16, 9.75, 7, false},
           {"1g.20gb", 1, 2, 26, 19.62, 4, false},
           {"2g.20gb", 2, 2, 32, 19.62, 3, false},
           {"3g.40gb", 3, 4, 60, 39.50, 2, false},
           {"4g.40gb", 4, 4, 64, 39.50, 1, false},
           {"7g.80gb", 7, 8, 132, 79.25, 1, false}},
          "MIG user guide; -lgip on H100 80GB HBM3 [S]");
  add_gpu(profiles, "h200-sxm",
          {{"1g.18gb", 1, 1, 16, 16.00, 7, false},
           {"1g.35gb", 1, 2, 26, 32.50, 4, true},   // memory of 2g.35gb, SMs of H100's 1g.20gb
           {"2g.35gb", 2, 2, 32, 32.50, 3, false},
           {"3g.71gb", 3, 4, 60, 65.00, 2, true},   // SMs [S]; memory 2 x 2g.35gb's, no listing found
           {"4g.71gb", 4, 4, 64, 65.00, 1, true},   // SMs [S]; memory 2 x 2g.35gb's, no listing found
           {"7g.141gb", 7, 8, 132, 140.00, 1, false}},
          "MIG user guide; -lgip on H200 [S]");
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
