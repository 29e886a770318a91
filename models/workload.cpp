#include "models/workload.hpp"

#include <numeric>

namespace vtsim {
namespace {

constexpr double kGradientBytesPerParameter = 4.0;  // fp32 gradients; AMP keeps fp32 master weights and gradients

template <typename Field>
double sum_over(const std::vector<Layer>& layers, Field field) {
  return std::accumulate(layers.begin(), layers.end(), 0.0,
                         [&](double total, const Layer& layer) { return total + field(layer); });
}

}  // namespace

double Layer::gradient_bytes() const { return trainable ? parameters * kGradientBytesPerParameter : 0.0; }

double Workload::parameters() const {
  return sum_over(layers, [](const Layer& l) { return l.parameters; });
}

double Workload::trainable_parameters() const {
  return sum_over(layers, [](const Layer& l) { return l.trainable ? l.parameters : 0.0; });
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

double Workload::stored_activation_elements() const {
  return sum_over(layers, [](const Layer& l) { return l.stored_activation_elements; });
}

Workload coarsened_by_block(const Workload& workload) {
  Workload coarse = workload;
  coarse.layers.clear();
  for (const Layer& layer : workload.layers) {
    const bool joins_previous = !coarse.layers.empty() && !layer.block.empty() &&
                                coarse.layers.back().block == layer.block &&
                                coarse.layers.back().trainable == layer.trainable;
    if (!joins_previous) {
      coarse.layers.push_back(layer);
      if (!layer.block.empty()) coarse.layers.back().name = layer.block;
      continue;
    }
    Layer& merged = coarse.layers.back();
    merged.forward_flop += layer.forward_flop;
    merged.backward_flop += layer.backward_flop;
    merged.activation_elements += layer.activation_elements;
    merged.stored_activation_elements += layer.stored_activation_elements;
    merged.parameters += layer.parameters;
  }
  return coarse;
}

}  // namespace vtsim
