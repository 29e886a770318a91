#pragma once
// The deep-learning framework a job trains with: it sets the host's cost to issue each kernel (compute_fit.hpp).

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace vtsim {

/// The framework issuing a job's kernels.
enum class Framework {
  pytorch,     ///< PyTorch, eager mode
  tensorflow,  ///< TensorFlow (graph mode, as DeepLearningExamples' TF1 models run)
  mxnet,       ///< Apache MXNet
};

/// Spellings in scenario JSON and in the published rows, paired with the value.
std::span<const std::pair<std::string, Framework>> framework_names();
/// The scenario spelling ("pytorch", "tensorflow", "mxnet").
std::string_view to_string(Framework framework);

}  // namespace vtsim
