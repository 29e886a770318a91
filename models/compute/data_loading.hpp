#pragma once
// Published input-pipeline rates: how many images per second NVIDIA DALI prepares on one GPU for ResNet-50 training
// (decode, random resized crop, flip, normalize), where a measurement exists. The gpu data loader
// (JobConfig::data_loader) runs beside the device at this rate; docs/compute-model.md, "Data loading".

#include <optional>
#include <string>

#include "models/catalog/gpu_spec.hpp"

namespace vtsim {

/// A pipeline rate with where it came from.
struct PublishedRate {
  double images_per_s = 0;
  std::string source;
};

/// DALI's ResNet-50 training pipeline on one `gpu`, images/s; nullopt where no rate is published for its
/// architecture (the scenario must then state data_loader_images_per_s).
std::optional<PublishedRate> dali_images_per_s(const GpuSpec& gpu);

}  // namespace vtsim
