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

/// Where a job's input batches are prepared (docs/compute-model.md, "Data loading").
enum class DataLoader {
  cpu,        ///< the framework's loader workers on the host's CPU cores: read, decode, augment (PyTorch DataLoader)
  gpu,        ///< images decoded and augmented on the GPU (NVIDIA DALI with nvJPEG): device time per image
  synthetic,  ///< no input pipeline (synthetic or pre-loaded data)
};

/// Spellings in scenario JSON ("cpu", "gpu", "synthetic"), paired with the value.
std::span<const std::pair<std::string, DataLoader>> data_loader_names();
/// The scenario spelling.
std::string_view to_string(DataLoader loader);

}  // namespace vtsim
