#pragma once
// The deep-learning framework a job trains with, and how it submits kernels: together they set the host's cost to
// issue each kernel (compute_fit.hpp).

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

/// How the host submits a job's kernels (compute_fit.hpp gives each its cost per kernel).
enum class Execution {
  eager,        ///< one launch per kernel from the framework's dispatcher: the framework's fitted cost
  cuda_graphs,  ///< the iteration captured once and replayed: the GPU's cost per graph node, not the host's
};

/// Spellings in scenario JSON ("eager", "cuda_graphs"), paired with the value.
std::span<const std::pair<std::string, Execution>> execution_names();
/// The scenario spelling.
std::string_view to_string(Execution execution);

}  // namespace vtsim
