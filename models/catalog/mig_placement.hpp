#pragma once
// Where MIG instances may sit on one GPU, and whether a set of them fits.
//
// A MIG-capable GPU has 8 memory slices and 7 compute slices (NVIDIA MIG user guide). An instance occupies a run of
// memory slices of its profile's size, starting only at the positions NVIDIA allows for that size (what
// `nvidia-smi mig -lgipp` lists as "Placements"): 7g and 4g at 0; 3g at 0 or 4; 2g at 0, 2 or 4; 1g with two memory
// slices at 0, 2, 4 or 6; 1g with one memory slice at 0 to 6. The same rules hold on A100, H100 and H200. An A30 has
// 4 memory and 4 compute slices: 4g at 0, 2g at 0 or 2, 1g at 0 to 3 (the same pattern on quarters; no -lgipp
// listing of an A30 was found to confirm it).

#include <string>
#include <vector>

#include "models/catalog/mig_catalog.hpp"

namespace vtsim {

/// Memory-slice positions at which an instance of `profile` may start.
std::vector<int> mig_placement_starts(const MigProfile& profile);

/// A placement of instances on one GPU: the start slice of each (in the order given), or why none exists.
struct MigPlacement {
  std::vector<int> starts;
  std::string problem;  ///< "" when the instances fit
};

/// Finds a placement for `instances` on one GPU, or says why there is none.
MigPlacement place_mig_instances(const std::vector<const MigProfile*>& instances);

}  // namespace vtsim
