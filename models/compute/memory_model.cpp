#include "models/compute/memory_model.hpp"

#include <cassert>
#include <cstdio>

#include "models/core/units.hpp"

namespace vtsim {
namespace {

constexpr double kMasterWeightBytes = 4.0;   // fp32 weights, also the master copy under AMP
constexpr double kHalfWeightBytes = 2.0;     // the fp16/bf16 copy AMP's kernels read
constexpr double kGradientBytes = 4.0;       // fp32 gradients (workload.hpp)
constexpr double kAdamStateBytes = 8.0;      // two fp32 moments (Kingma & Ba 2015; AdamW and LAMB keep the same two)
constexpr double kMomentumStateBytes = 4.0;  // one fp32 momentum buffer (torch.optim.SGD momentum_buffer)

// fp32 optimizer state per parameter. Adafactor without a first moment (Shazeer and Stern 2018, Sec. 4 and 7: beta1
// = 0) keeps a factored second moment, one row and one column vector per matrix: r + c values against r c
// parameters, counted as none.
double optimizer_state_bytes(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd: return 0.0;
    case Optimizer::sgd_momentum: return kMomentumStateBytes;
    case Optimizer::adam:
    case Optimizer::adamw:
    case Optimizer::lamb: return kAdamStateBytes;
    case Optimizer::adafactor: return 0.0;
  }
  return kAdamStateBytes;
}

// UNCALIBRATED allowance for what is not a tensor of the model: the CUDA context (with every kernel of the
// framework loaded, ~1 GB before CUDA 11.7's lazy loading, ~300 MB after: [S] pytorch/pytorch issues #28394 and
// #107667), cuBLAS and cuDNN workspaces and the caching allocator's slack. 1 GiB; measure it for a given stack.
constexpr double kWorkspaceBytes = 1.0 * units::kBytesPerGiB;

}  // namespace

double MemoryFootprint::total_bytes() const {
  return weights_bytes + gradients_bytes + optimizer_bytes + activations_bytes + workspace_bytes;
}

double workspace_allowance_bytes() { return kWorkspaceBytes; }

StateBytesPerParameter state_bytes_per_parameter(const Workload& workload, Precision precision) {
  return {.master = kMasterWeightBytes,
          .half = is_mixed_precision(precision) ? kHalfWeightBytes : 0.0,
          .gradient = kGradientBytes,
          .optimizer = optimizer_state_bytes(workload.optimizer)};
}

double gathered_bytes_per_parameter(const Workload& workload, Precision precision) {
  const StateBytesPerParameter state = state_bytes_per_parameter(workload, precision);
  return state.half > 0 ? state.half : state.master;
}

MemoryFootprint memory_footprint(const Workload& workload, int batch, Precision precision) {
  assert(batch >= 1);
  const StateBytesPerParameter bytes = state_bytes_per_parameter(workload, precision);
  return {.weights_bytes = workload.parameters() * (bytes.master + bytes.half),
          .gradients_bytes = workload.trainable_parameters() * bytes.gradient,
          .optimizer_bytes = workload.trainable_parameters() * bytes.optimizer,
          .activations_bytes = batch * workload.stored_activation_bytes(activation_bytes(precision)),
          .workspace_bytes = kWorkspaceBytes};
}

std::string memory_shortfall(const MemoryFootprint& footprint, double capacity_bytes, const std::string& device) {
  if (footprint.total_bytes() <= capacity_bytes) return {};
  const auto gib = [](double bytes) { return bytes / units::kBytesPerGiB; };
  char numbers[256];
  std::snprintf(numbers, sizeof numbers,
                "needs %.1f GiB per GPU (weights %.1f, gradients %.1f, optimizer %.1f, activations %.1f, "
                "workspace %.1f)",
                gib(footprint.total_bytes()), gib(footprint.weights_bytes), gib(footprint.gradients_bytes),
                gib(footprint.optimizer_bytes), gib(footprint.activations_bytes), gib(footprint.workspace_bytes));
  char capacity[64];
  std::snprintf(capacity, sizeof capacity, " has %.1f GiB", gib(capacity_bytes));
  return std::string(numbers) + " but " + device + capacity;
}

}  // namespace vtsim
