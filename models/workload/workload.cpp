#include "models/workload/workload.hpp"

#include <algorithm>
#include <array>
#include <numeric>

#include "models/core/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, Optimizer>, 6> kOptimizerNames = {{{"sgd", Optimizer::sgd},
                                                                          {"momentum", Optimizer::sgd_momentum},
                                                                          {"adam", Optimizer::adam},
                                                                          {"adamw", Optimizer::adamw},
                                                                          {"lamb", Optimizer::lamb},
                                                                          {"adafactor", Optimizer::adafactor}}};

const std::array<std::pair<std::string, OptimizerImplementation>, 6> kOptimizerImplementationNames = {
    {{"fused", OptimizerImplementation::fused},
     {"foreach", OptimizerImplementation::foreach},
     {"for_loop", OptimizerImplementation::for_loop},
     {"bert_adam", OptimizerImplementation::bert_adam},
     {"bert_adam_sync", OptimizerImplementation::bert_adam_sync},
     {"bert_fused_adam", OptimizerImplementation::bert_fused_adam}}};

const std::array<std::pair<std::string, TensorLayout>, 2> kTensorLayoutNames = {{{"nchw", TensorLayout::nchw},
                                                                                 {"nhwc", TensorLayout::nhwc}}};

constexpr double kGradientBytesPerParameter = 4.0;  // fp32 gradients; AMP keeps fp32 master weights and gradients
constexpr double kMaskBytesPerElement = 1.0;        // a bool dropout mask (workload.hpp)

template <typename Field>
double sum_over(const std::vector<Layer>& layers, Field field) {
  return std::accumulate(layers.begin(), layers.end(), 0.0,
                         [&](double total, const Layer& layer) { return total + field(layer); });
}

}  // namespace

std::span<const std::pair<std::string, Optimizer>> optimizer_names() { return kOptimizerNames; }

std::string_view to_string(Optimizer optimizer) { return name_of(kOptimizerNames, optimizer); }

std::span<const std::pair<std::string, OptimizerImplementation>> optimizer_implementation_names() {
  return kOptimizerImplementationNames;
}

std::string_view to_string(OptimizerImplementation implementation) {
  return name_of(kOptimizerImplementationNames, implementation);
}

OptimizerKernelsChoice optimizer_kernels_for(OptimizerImplementation implementation, Framework framework,
                                             Optimizer optimizer) {
  const std::string name(to_string(implementation));
  const std::string named_optimizer(to_string(optimizer));
  switch (implementation) {
    case OptimizerImplementation::fused: return {OptimizerKernels::multi_tensor, ""};
    case OptimizerImplementation::bert_adam:
    case OptimizerImplementation::bert_adam_sync:
      if (framework != Framework::pytorch || (optimizer != Optimizer::adam && optimizer != Optimizer::adamw)) {
        return {OptimizerKernels::multi_tensor, name + " is DeepLearningExamples' PyTorch BertAdam, an Adam: a " +
                                                    std::string(to_string(framework)) + " job with " + named_optimizer +
                                                    " cannot run it"};
      }
      return {implementation == OptimizerImplementation::bert_adam ? OptimizerKernels::bert_adam
                                                                   : OptimizerKernels::bert_adam_sync,
              ""};
    case OptimizerImplementation::bert_fused_adam:
      if (framework != Framework::pytorch || (optimizer != Optimizer::adam && optimizer != Optimizer::adamw)) {
        return {OptimizerKernels::multi_tensor, name + " is DeepLearningExamples' PyTorch BERT step with Apex's " +
                                                    "FusedAdam, an Adam: a " + std::string(to_string(framework)) +
                                                    " job with " + named_optimizer + " cannot run it"};
      }
      return {OptimizerKernels::bert_fused_adam, ""};
    case OptimizerImplementation::foreach:
    case OptimizerImplementation::for_loop:
      if (framework == Framework::pytorch) {
        if (optimizer == Optimizer::lamb || optimizer == Optimizer::adafactor) {
          return {OptimizerKernels::multi_tensor,
                  name + " is counted from torch.optim's SGD, Adam and AdamW code; " + named_optimizer +
                      " runs here as one fused pass: use 'fused'"};
        }
        return {implementation == OptimizerImplementation::foreach ? OptimizerKernels::torch_foreach
                                                                   : OptimizerKernels::torch_for_loop,
                ""};
      }
      if (framework == Framework::tensorflow && implementation == OptimizerImplementation::for_loop) {
        if (optimizer == Optimizer::adam || optimizer == Optimizer::adamw || optimizer == Optimizer::lamb) {
          return {OptimizerKernels::per_tensor_ops, ""};
        }
        return {OptimizerKernels::multi_tensor, "TensorFlow's for_loop is counted from NVIDIA's Adam and LAMB code; " +
                                                    named_optimizer + " runs here as one fused pass: use 'fused'"};
      }
      return {OptimizerKernels::multi_tensor, name + " is torch.optim's; a " + std::string(to_string(framework)) +
                                                  " job's optimizer runs here as 'fused'" +
                                                  (framework == Framework::tensorflow ? " or 'for_loop'" : "")};
  }
  return {};
}

bool steps_in_a_python_loop(OptimizerKernels kernels) {
  return kernels == OptimizerKernels::torch_for_loop || kernels == OptimizerKernels::bert_adam ||
         kernels == OptimizerKernels::bert_adam_sync || kernels == OptimizerKernels::bert_fused_adam;
}

std::span<const std::pair<std::string, TensorLayout>> tensor_layout_names() { return kTensorLayoutNames; }

std::string_view to_string(TensorLayout layout) { return name_of(kTensorLayoutNames, layout); }

double Layer::gradient_bytes() const { return trainable ? parameters * kGradientBytesPerParameter : 0.0; }

double Workload::parameters() const {
  return sum_over(layers, [](const Layer& l) { return l.parameters; });
}

double Workload::trainable_parameters() const {
  return sum_over(layers, [](const Layer& l) { return l.trainable ? l.parameters : 0.0; });
}

int Workload::trainable_parameter_tensors() const {
  int tensors = 0;
  for (const Layer& l : layers) tensors += l.trainable ? l.parameter_tensors : 0;
  return tensors;
}

double Workload::forward_flop() const {
  return sum_over(layers, [](const Layer& l) { return l.forward_flop; });
}

double Workload::backward_flop() const {
  return sum_over(layers, [](const Layer& l) { return l.backward_flop; });
}

double Workload::gradient_bytes() const {
  return sum_over(layers, [](const Layer& l) { return l.gradient_bytes(); });
}

double Workload::activation_elements() const {
  return sum_over(layers, [](const Layer& l) { return l.activation_elements; });
}

double Workload::stored_activation_bytes(double element_bytes) const {
  return sum_over(layers, [&](const Layer& l) {
    return l.stored_activation_elements * element_bytes + l.stored_mask_elements * kMaskBytesPerElement;
  });
}

bool softmax_in_fp32_under_amp(Framework framework) { return framework != Framework::tensorflow; }

void use_framework(Workload& workload, Framework framework) {
  for (Layer& layer : workload.layers) layer.score_softmax_fp32 = softmax_in_fp32_under_amp(framework);
  const bool adam_or_lamb = workload.optimizer == Optimizer::adam || workload.optimizer == Optimizer::adamw ||
                            workload.optimizer == Optimizer::lamb;
  workload.optimizer_kernels = framework == Framework::tensorflow && adam_or_lamb ? OptimizerKernels::per_tensor_ops
                                                                                  : OptimizerKernels::multi_tensor;
  workload.layout = framework == Framework::tensorflow ? TensorLayout::nhwc : TensorLayout::nchw;
  workload.autocast_weight_casts =
      framework == Framework::pytorch && std::any_of(workload.layers.begin(), workload.layers.end(), [](const Layer& l) {
        return l.kind == KernelKind::convolution;
      });
  workload.master_weight_copy = framework == Framework::pytorch && !workload.autocast_weight_casts;
}

}  // namespace vtsim
