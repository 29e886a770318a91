#pragma once
// MIG catalog: NVIDIA Multi-Instance GPU instance profiles, as `nvidia-smi mig -lgip` lists them.
//
// A MIG instance owns a fixed share of the GPU: compute in sevenths ("slices") and memory in eighths (an A30: in
// quarters), with its own SMs, L2 and memory bandwidth, and no interference from the other instances. Media-extension profiles ("+me") are
// the same size as their base profile and are not listed. Every number is cited in mig_catalog.cpp.

#include <string>
#include <string_view>
#include <vector>

namespace vtsim {

/// One GPU instance profile of one GPU model.
struct MigProfile {
  std::string id;             ///< NVIDIA's profile name, e.g. "1g.5gb"
  std::string gpu_id;         ///< the physical GPU, an id in gpu_catalog()
  int compute_slices = 1;     ///< compute slices of the GPU's gpu_compute_slices
  int memory_slices = 1;      ///< memory slices of the GPU's gpu_memory_slices
  int gpu_compute_slices = 7;  ///< compute slices of the whole GPU: 7 (A100, H100, H200), 4 (A30)
  int gpu_memory_slices = 8;   ///< memory slices of the whole GPU: 8 (A100, H100, H200), 4 (A30)
  int sm_count = 0;           ///< SMs of the instance (`-lgip` column "SM")
  double memory_bytes = 0;    ///< memory of the instance, bytes (`-lgip` column "Memory", GiB)
  int max_instances = 1;      ///< most instances of this profile on one GPU (`-lgip` "Instances Total")
  bool uncalibrated = false;  ///< true when sm_count or memory_bytes is derived, not read from a published listing
  std::string source;         ///< short citation
};

/// Every catalogued MIG profile, grouped by GPU, smallest first. Built once, never changes.
const std::vector<MigProfile>& mig_catalog();

/// The profile `id` of GPU `gpu_id`, or nullptr when unknown.
const MigProfile* find_mig_profile(std::string_view gpu_id, std::string_view id);

/// The profiles of one GPU, smallest first; empty when the GPU has no MIG.
std::vector<const MigProfile*> mig_profiles_for(std::string_view gpu_id);

}  // namespace vtsim
