#pragma once
// One MIG instance profile (the type; models/catalog/mig_catalog.hpp holds the catalogued profiles and the look-ups).
// A MIG instance owns a fixed share of the GPU: compute in sevenths ("slices") and memory in eighths (an A30: in
// quarters), with its own SMs, L2 and memory bandwidth, and no interference from the other instances.

#include <string>

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

}  // namespace vtsim
