#pragma once
// vGPU catalog: NVIDIA time-sliced vGPU compute profiles (C-series), from the NVIDIA AI Enterprise user guide.
//
// A time-sliced vGPU owns a fixed slice of the GPU's memory and shares its SMs by time slicing. Profile names are
// NVIDIA's and depend on the board: A100 SXM4 40GB (HGX) profiles are "A100X-*", A100 SXM4 80GB "A100DX-*", H100
// SXM5 80GB "H100XM-*"; the plain "A100-40C" and "H100-80C" belong to the PCIe cards, which are not catalogued.
// MIG-backed vGPUs are not listed here: they are MIG instances (mig_catalog.hpp).

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string>
#include <string_view>
#include <vector>

namespace vtsim {

/// One time-sliced vGPU type.
struct VgpuProfile {
  std::string id;           ///< NVIDIA's vGPU type name, e.g. "A100X-40C"
  std::string gpu_id;       ///< the physical GPU, an id in gpu_catalog()
  double memory_bytes = 0;  ///< frame buffer, bytes (the guide's "Frame Buffer (MB)" is MiB)
  int max_per_gpu = 1;      ///< most vGPUs of this type on one GPU (equal-size mode)
  std::string source;       ///< short citation

  /// Scheduler time slice the vGPU manager defaults to for this type: 2 ms when it allows at most 8 vGPUs per GPU,
  /// else 1 ms (NVIDIA AI Enterprise user guide, "RmPVMRL Registry Key", table 1).
  double default_time_slice_s() const;
};

/// Every catalogued time-sliced vGPU profile, grouped by GPU, largest first. Built once, never changes.
const std::vector<VgpuProfile>& vgpu_catalog();

/// The profile with this id, or nullptr when unknown.
const VgpuProfile* find_vgpu_profile(std::string_view id);

/// The profiles of one GPU, largest first; empty when the GPU has none catalogued.
std::vector<const VgpuProfile*> vgpu_profiles_for(std::string_view gpu_id);

}  // namespace vtsim
