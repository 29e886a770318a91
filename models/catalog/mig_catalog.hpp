#pragma once
// MIG catalog: NVIDIA Multi-Instance GPU instance profiles, as `nvidia-smi mig -lgip` lists them.
//
// A MIG instance owns a fixed share of the GPU: compute in sevenths ("slices") and memory in eighths (an A30: in
// quarters), with its own SMs, L2 and memory bandwidth, and no interference from the other instances. Media-extension profiles ("+me") are
// the same size as their base profile and are not listed. Every number is cited in mig_catalog.cpp.

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string_view>
#include <vector>

#include "models/catalog/mig_profile.hpp"

namespace vtsim {

/// Every catalogued MIG profile, grouped by GPU, smallest first. Built once, never changes.
const std::vector<MigProfile>& mig_catalog();

/// The profile `id` of GPU `gpu_id`, or nullptr when unknown.
const MigProfile* find_mig_profile(std::string_view gpu_id, std::string_view id);

/// The profiles of one GPU, smallest first; empty when the GPU has no MIG.
std::vector<const MigProfile*> mig_profiles_for(std::string_view gpu_id);

}  // namespace vtsim
