#pragma once
// Helpers shared by several tests of models/ (one copy: the test files of a target compile in unity batches).

#include <string_view>

#include <gtest/gtest.h>

#include "models/core/units.hpp"
#include "models/workload/workload.hpp"

namespace vtsim::test_support {

inline constexpr double kGiB = units::kBytesPerGiB;
inline constexpr double kUs = units::kSecondsPerUs;

/// The layer of `w` named `name`; a test failure (and the first layer) when there is none.
inline const Layer& layer_named(const Workload& w, std::string_view name) {
  for (const Layer& layer : w.layers) {
    if (layer.name == name) return layer;
  }
  ADD_FAILURE() << "no layer " << name;
  return w.layers.front();
}

}  // namespace vtsim::test_support
