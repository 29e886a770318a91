#include "models/workload/layer_builder.hpp"

#include <algorithm>
#include <cassert>
#include <utility>

namespace vtsim {
namespace {

double epilogue_flop_per_element(Epilogue fused) {
  switch (fused) {
    case Epilogue::none: return 0.0;
    case Epilogue::relu: return kReluFlopPerElement;
    case Epilogue::tanh: return kTanhFlopPerElement;
  }
  return 0.0;
}

int pooled_size(int in, int kernel, int stride, int padding) {
  const int out = (in + 2 * padding - kernel) / stride + 1;
  assert(out >= 1 && "window larger than its padded input");
  return out;
}

}  // namespace

Conv2d Conv2d::square(int out_channels, int kernel, int stride, int padding) {
  Conv2d conv;
  conv.out_channels = out_channels;
  conv.kernel_h = kernel;
  conv.kernel_w = kernel;
  conv.stride = stride;
  conv.pad_h = padding;
  conv.pad_w = padding;
  return conv;
}

Conv2d Conv2d::same(int out_channels, int kernel_h, int kernel_w) {
  assert(kernel_h % 2 == 1 && kernel_w % 2 == 1 && "same padding needs odd kernels");
  Conv2d conv;
  conv.out_channels = out_channels;
  conv.kernel_h = kernel_h;
  conv.kernel_w = kernel_w;
  conv.pad_h = kernel_h / 2;
  conv.pad_w = kernel_w / 2;
  return conv;
}

Conv2d Conv2d::with_bias(Epilogue fused) const {
  Conv2d conv = *this;
  conv.bias = true;
  conv.epilogue = fused;
  return conv;
}

Conv2d Conv2d::sharing_weights() const {
  Conv2d conv = *this;
  conv.shared = true;
  return conv;
}

Tensor LayerBuilder::input(int channels, int height, int width) {
  Tensor sample;
  sample.channels = channels;
  sample.height = height;
  sample.width = width;
  return sample;
}

Tensor LayerBuilder::flatten(const Tensor& x) {
  Tensor flat = x;
  flat.channels = static_cast<int>(x.elements() / x.instances);
  flat.height = 1;
  flat.width = 1;
  return flat;
}

void LayerBuilder::begin_block(std::string block) { block_ = std::move(block); }

void LayerBuilder::set_trainable(bool trainable) { trainable_ = trainable; }

Tensor LayerBuilder::emit(std::string_view name, const std::vector<Tensor>& inputs, const Cost& cost, Tensor output) {
  const bool input_gradient =
      std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.requires_grad; });
  const bool trains_weights = cost.has_weights && trainable_;
  Layer layer;
  layer.name = block_.empty() ? std::string(name) : block_ + "." + std::string(name);
  layer.block = block_;
  layer.forward_flop = cost.forward_flop;
  layer.backward_flop = (trains_weights ? cost.weight_gradient_flop : 0.0) +
                        (input_gradient ? cost.input_gradient_flop : 0.0);
  layer.activation_elements = cost.traffic_elements;
  layer.parameters = cost.parameters;
  layer.parameter_tensors = cost.parameter_tensors;
  layer.trainable = trainable_;
  layer.kind = cost.kind;
  layer.memory_pass = cost.pass;
  layer.gemm = cost.gemm;
  // A trained weighted layer runs a weight-gradient kernel, and an input-gradient kernel when its input needs one.
  layer.backward_kernels = (trains_weights ? 1 : 0) + (input_gradient ? 1 : 0);
  output.producer = static_cast<int>(layers_.size());
  output.requires_grad = trains_weights || input_gradient;
  layers_.push_back(std::move(layer));
  output_saved_.push_back(false);
  trains_weights_.push_back(trains_weights);
  return output;
}

void LayerBuilder::save(const Tensor& t) {
  if (t.producer < 0) {
    if (!input_saved_) layers_.back().stored_activation_elements += t.elements();
    input_saved_ = true;
    return;
  }
  const auto producer = static_cast<std::size_t>(t.producer);
  if (output_saved_[producer]) return;
  output_saved_[producer] = true;
  layers_[producer].stored_activation_elements += t.elements();
}

void LayerBuilder::keep(double elements) { layers_.back().stored_activation_elements += elements; }

void LayerBuilder::keep_mask(double elements) { layers_.back().stored_mask_elements += elements; }

bool LayerBuilder::last_trains_weights() const { return trains_weights_.back(); }

// A conv or linear layer of `macs` multiply-adds owning `parameters` (weights and bias; 0 when they are shared);
// `filter_positions`: a convolution's filter height x width (GemmShape::filter_positions), 1 for a linear layer.
Tensor LayerBuilder::weighted(const Tensor& x, std::string_view name, Tensor out, double macs, double parameters,
                              bool bias, Epilogue fused, KernelKind kind, double filter_positions) {
  Cost cost;
  const double epilogue_flop = (bias ? kAddFlopPerElement : 0.0) + epilogue_flop_per_element(fused);
  cost.forward_flop = 2.0 * macs + out.elements() * epilogue_flop;
  cost.weight_gradient_flop = cost.forward_flop;
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = x.elements() + out.elements();
  cost.parameters = parameters;
  // A weight matrix unless it is shared (it belongs to its first user), and a bias.
  const double bias_parameters = bias ? static_cast<double>(out.channels) : 0.0;
  cost.parameter_tensors = parameters > 0.0 ? (parameters > bias_parameters ? 1 : 0) + (bias ? 1 : 0) : 0;
  cost.has_weights = true;
  cost.kind = kind;
  cost.gemm = {.rows_per_sample = out.positions(),
               .columns = static_cast<double>(out.channels),
               .depth = macs / out.elements(),
               .filter_positions = filter_positions};
  out = emit(name, {x}, cost, out);
  if (bias && last_trains_weights()) layers_.back().bias_tensors = 1;
  if (last_trains_weights()) save(x);
  if (fused != Epilogue::none && out.requires_grad) save(out);
  return out;
}

Tensor LayerBuilder::conv2d(const Tensor& x, std::string_view name, const Conv2d& conv) {
  Tensor out = x;
  out.channels = conv.out_channels;
  out.height = pooled_size(x.height, conv.kernel_h, conv.stride, conv.pad_h);
  out.width = pooled_size(x.width, conv.kernel_w, conv.stride, conv.pad_w);
  const double kernel = static_cast<double>(x.channels) * conv.kernel_h * conv.kernel_w * conv.out_channels;
  const double parameters = conv.shared ? 0.0 : kernel + (conv.bias ? conv.out_channels : 0.0);
  out = weighted(x, name, out, out.positions() * kernel, parameters, conv.bias, conv.epilogue, KernelKind::convolution,
                 static_cast<double>(conv.kernel_h) * conv.kernel_w);
  GemmShape& gemm = layers_.back().gemm;
  gemm.winograd = conv.kernel_h == 3 && conv.kernel_w == 3 && conv.stride == 1;
  gemm.filter_height = conv.kernel_h;
  gemm.filter_width = conv.kernel_w;
  gemm.stride = conv.stride;
  gemm.images_per_sample = x.instances;
  gemm.input_height = x.height;
  gemm.input_width = x.width;
  gemm.pad_h = conv.pad_h;
  gemm.pad_w = conv.pad_w;
  return out;
}

Tensor LayerBuilder::conv_transpose2d(const Tensor& x, std::string_view name, const Conv2d& conv) {
  Tensor out = x;
  out.channels = conv.out_channels;
  out.height = (x.height - 1) * conv.stride - 2 * conv.pad_h + conv.kernel_h;
  out.width = (x.width - 1) * conv.stride - 2 * conv.pad_w + conv.kernel_w;
  const double kernel = static_cast<double>(x.channels) * conv.kernel_h * conv.kernel_w * conv.out_channels;
  const double parameters = conv.shared ? 0.0 : kernel + (conv.bias ? conv.out_channels : 0.0);
  return weighted(x, name, out, x.positions() * kernel, parameters, conv.bias, conv.epilogue,
                  KernelKind::convolution, static_cast<double>(conv.kernel_h) * conv.kernel_w);
}

Tensor LayerBuilder::linear(const Tensor& x, std::string_view name, int out_features, bool bias, Epilogue fused) {
  Tensor out = x;
  out.channels = out_features;
  const double matrix = static_cast<double>(x.channels) * out_features;
  return weighted(x, name, out, x.positions() * matrix, matrix + (bias ? out_features : 0.0), bias, fused,
                  KernelKind::gemm);
}

Tensor LayerBuilder::tied_linear(const Tensor& x, std::string_view name, int out_features, bool bias) {
  Tensor out = x;
  out.channels = out_features;
  const double matrix = static_cast<double>(x.channels) * out_features;
  return weighted(x, name, out, x.positions() * matrix, bias ? out_features : 0.0, bias, Epilogue::none,
                  KernelKind::gemm);
}

Tensor LayerBuilder::embedding(const Tensor& token_ids, std::string_view name, const std::vector<int>& table_rows,
                               int hidden) {
  Tensor out = token_ids;
  out.channels = hidden;
  const double tables = static_cast<double>(table_rows.size());
  const double gathered = tables * out.elements();
  Cost cost;
  cost.forward_flop = (tables - 1.0) * out.elements();  // sum of the rows looked up
  cost.weight_gradient_flop = gathered;                  // scatter-add of the output gradient into each table
  cost.traffic_elements = token_ids.elements() + gathered + out.elements();
  for (int rows : table_rows) cost.parameters += static_cast<double>(rows) * hidden;
  cost.parameter_tensors = static_cast<int>(table_rows.size());
  cost.has_weights = true;
  out = emit(name, {token_ids}, cost, out);
  if (last_trains_weights()) save(token_ids);
  return out;
}

Tensor LayerBuilder::batch_norm(const Tensor& x, std::string_view name, NormKind kind, bool relu) {
  const bool frozen = kind == NormKind::frozen_batch_norm;
  const double e = x.elements();
  Cost cost;
  cost.forward_flop = e * ((frozen ? kFrozenNormFlopPerElement : kBatchNormFlopPerElement) +
                           (relu ? kReluFlopPerElement : 0.0));
  cost.weight_gradient_flop = cost.forward_flop;
  cost.input_gradient_flop = cost.forward_flop;
  // Batch statistics read the input twice (statistics, then normalise) and write once; a fixed affine reads once.
  cost.traffic_elements = (frozen ? 2.0 : 3.0) * e;
  const double per_channel = kind == NormKind::batch_norm ? 2.0 : kind == NormKind::batch_norm_no_scale ? 1.0 : 0.0;
  cost.parameters = per_channel * x.channels;
  cost.parameter_tensors = static_cast<int>(per_channel);
  cost.has_weights = !frozen;
  Tensor out = emit(name, {x}, cost, x);
  if (out.requires_grad) {
    if (!frozen) save(x);  // a fixed affine needs only its scale for backward
    if (relu) save(out);
  }
  return out;
}

Tensor LayerBuilder::layer_norm(const Tensor& x, std::string_view name) {
  Cost cost;
  cost.forward_flop = x.elements() * kLayerNormFlopPerElement;
  cost.weight_gradient_flop = cost.forward_flop;
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = 2.0 * x.elements();  // one fused pass per token
  cost.pass = MemoryPass::layer_norm;
  cost.parameters = 2.0 * x.channels;
  cost.parameter_tensors = 2;
  cost.has_weights = true;
  Tensor out = emit(name, {x}, cost, x);
  if (out.requires_grad) {
    save(x);
    keep(2.0 * x.positions());  // mean and 1/std per token
  }
  return out;
}

Tensor LayerBuilder::gelu(const Tensor& x, std::string_view name) {
  Cost cost;
  cost.forward_flop = x.elements() * kGeluFlopPerElement;
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = 2.0 * x.elements();
  cost.pass = MemoryPass::elementwise;
  Tensor out = emit(name, {x}, cost, x);
  if (out.requires_grad) save(x);
  return out;
}

Tensor LayerBuilder::swiglu(const Tensor& x, std::string_view name) {
  assert(x.channels % 2 == 0);
  Tensor out = x;
  out.channels = x.channels / 2;
  Cost cost;
  cost.forward_flop = out.elements() * (kSiluFlopPerElement + 1.0);
  cost.input_gradient_flop = 2.0 * cost.forward_flop;  // the gate's and the up-projection's gradients
  cost.traffic_elements = x.elements() + out.elements();
  cost.pass = MemoryPass::elementwise;
  out = emit(name, {x}, cost, out);
  if (out.requires_grad) save(x);
  return out;
}

Tensor LayerBuilder::dropout(const Tensor& x, std::string_view name) {
  Cost cost;
  cost.forward_flop = x.elements() * kDropoutFlopPerElement;
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = 3.0 * x.elements();  // read x, write the output and the mask
  cost.pass = MemoryPass::elementwise;
  Tensor out = emit(name, {x}, cost, x);
  if (out.requires_grad) keep_mask(x.elements());  // its backward multiplies by the mask alone
  return out;
}

Tensor LayerBuilder::residual_add(const Tensor& x, const Tensor& skip, std::string_view name, bool relu) {
  assert(x.elements() == skip.elements());
  Cost cost;
  cost.forward_flop = x.elements() * (kAddFlopPerElement + (relu ? kReluFlopPerElement : 0.0));
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = 3.0 * x.elements();
  cost.pass = MemoryPass::elementwise;
  Tensor out = emit(name, {x, skip}, cost, x);
  if (relu && out.requires_grad) save(out);
  return out;
}

Tensor LayerBuilder::dropout_residual_add(const Tensor& x, const Tensor& skip, std::string_view name) {
  assert(x.elements() == skip.elements());
  Cost cost;
  cost.forward_flop = x.elements() * (kDropoutFlopPerElement + kAddFlopPerElement);
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = 4.0 * x.elements();  // read x and skip, write the output and the mask
  cost.pass = MemoryPass::elementwise;
  Tensor out = emit(name, {x, skip}, cost, x);
  if (out.requires_grad) keep_mask(x.elements());
  return out;
}

Tensor LayerBuilder::upsample_add(const Tensor& coarse, const Tensor& lateral, std::string_view name) {
  assert(coarse.channels == lateral.channels);
  Cost cost;
  cost.forward_flop = lateral.elements() * kAddFlopPerElement;
  cost.input_gradient_flop = cost.forward_flop;
  // F.interpolate materialises the upsampled map (read coarse, write one lateral-sized map), then the add.
  cost.traffic_elements = coarse.elements() + 4.0 * lateral.elements();
  return emit(name, {coarse, lateral}, cost, lateral);
}

Tensor LayerBuilder::max_pool(const Tensor& x, std::string_view name, int kernel, int stride, int padding) {
  Tensor out = x;
  out.height = pooled_size(x.height, kernel, stride, padding);
  out.width = pooled_size(x.width, kernel, stride, padding);
  Cost cost;
  cost.forward_flop = out.elements() * kernel * kernel;  // comparisons
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = x.elements() + 2.0 * out.elements();  // the output and its argmax indices
  out = emit(name, {x}, cost, out);
  if (out.requires_grad) keep(out.elements());
  return out;
}

Tensor LayerBuilder::avg_pool(const Tensor& x, std::string_view name, int kernel, int stride, int padding) {
  Tensor out = x;
  out.height = pooled_size(x.height, kernel, stride, padding);
  out.width = pooled_size(x.width, kernel, stride, padding);
  Cost cost;
  cost.forward_flop = out.elements() * kernel * kernel;
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = x.elements() + out.elements();
  return emit(name, {x}, cost, out);
}

Tensor LayerBuilder::adaptive_avg_pool(const Tensor& x, std::string_view name, int output_size) {
  assert(x.height >= output_size && x.width >= output_size);
  Tensor out = x;
  out.height = output_size;
  out.width = output_size;
  Cost cost;
  cost.forward_flop = x.elements() + out.elements();  // sum each input once, divide each output once
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = x.elements() + out.elements();
  return emit(name, {x}, cost, out);
}

Tensor LayerBuilder::concat(const std::vector<Tensor>& parts, std::string_view name) {
  assert(!parts.empty());
  Tensor out = parts.front();
  out.channels = 0;
  for (const Tensor& part : parts) {
    assert(part.height == out.height && part.width == out.width && part.instances == out.instances);
    out.channels += part.channels;
  }
  Cost cost;
  cost.traffic_elements = 2.0 * out.elements();
  return emit(name, parts, cost, out);
}

Tensor LayerBuilder::gather_positions(const Tensor& x, std::string_view name, int positions) {
  Tensor out = x;
  out.height = positions;
  out.width = 1;
  assert(out.positions() <= x.positions());
  Cost cost;
  cost.traffic_elements = 2.0 * out.elements();
  return emit(name, {x}, cost, out);
}

namespace {

/// The attention output of `qkv` (query heads x head width channels) with `heads` query and `kv_heads` key-value heads.
Tensor attention_output(const Tensor& qkv, int heads, int kv_heads) {
  assert(heads >= 1 && kv_heads >= 1 && heads % kv_heads == 0 && qkv.channels % (heads + 2 * kv_heads) == 0);
  Tensor out = qkv;
  out.channels = qkv.channels / (heads + 2 * kv_heads) * heads;
  return out;
}

}  // namespace

Tensor LayerBuilder::attention(const Tensor& qkv, std::string_view name, int heads, int kv_heads, bool dropout,
                               ScorePasses passes) {
  assert(passes != ScorePasses::none);
  Tensor out = attention_output(qkv, heads, kv_heads);
  const double tokens = static_cast<double>(qkv.height) * qkv.width;
  const double scores = heads * tokens * tokens * qkv.instances;
  // Q.K^T and P.V: tokens x tokens x head_dim multiply-adds per head each, i.e. tokens^2 x hidden per sample.
  const double matmul_flop = 2.0 * 2.0 * tokens * out.elements();
  const double score_flop = scores * (kSoftmaxFlopPerElement + (dropout ? kDropoutFlopPerElement : 0.0));
  Cost cost;
  cost.forward_flop = matmul_flop + score_flop;
  cost.input_gradient_flop = 2.0 * matmul_flop + score_flop;  // both operands of each product are activations
  // Q, K, V read and the context written; the passes over the scores are counted per score (ScorePasses).
  cost.traffic_elements = qkv.elements() + out.elements();
  // Q.K^T is the larger of the two products in tiles: tokens x tokens per head, one problem per head and instance.
  cost.kind = KernelKind::gemm;
  cost.gemm = {.rows_per_sample = tokens, .columns = tokens, .problems_per_sample = heads * qkv.instances};
  out = emit(name, {qkv}, cost, out);
  layers_.back().score_elements = scores;
  layers_.back().score_passes = passes;
  layers_.back().score_dropout = dropout;
  if (out.requires_grad) {
    save(qkv);
    keep(scores * (dropout ? 2.0 : 1.0));  // probabilities, and with dropout the dropped ones (P.V's operand)
    if (dropout) keep_mask(scores);
  }
  return out;
}

Tensor LayerBuilder::fused_attention(const Tensor& qkv, std::string_view name, int heads, int kv_heads) {
  Tensor out = attention_output(qkv, heads, kv_heads);
  const double tokens = static_cast<double>(qkv.height) * qkv.width;
  const double scores = heads * tokens * tokens * qkv.instances;
  const double product_flop = 2.0 * tokens * out.elements();  // Q.K^T or P.V
  Cost cost;
  cost.forward_flop = 2.0 * product_flop + scores * (kSoftmaxFlopPerElement + kDropoutFlopPerElement);
  // Backward: Q.K^T again, then dV, dP, dQ and dK (Dao et al. 2022, Algorithm 2), and the softmax's gradient.
  cost.input_gradient_flop = 5.0 * product_flop + scores * (kSoftmaxFlopPerElement + kDropoutFlopPerElement);
  cost.traffic_elements = qkv.elements() + out.elements();  // Q, K, V read, the output written
  // One thread block per 128 query rows of one head (FlashAttention-2's forward grid), each over the head's width.
  cost.kind = KernelKind::gemm;
  cost.gemm = {.rows_per_sample = tokens,
               .columns = static_cast<double>(out.channels) / heads,
               .problems_per_sample = heads * qkv.instances};
  out = emit(name, {qkv}, cost, out);
  if (out.requires_grad) {
    save(qkv);
    save(out);                                   // the output (counted once, here, whoever else keeps it)
    keep(heads * tokens * qkv.instances);        // the softmax's log-sum-exp per head and row
  }
  return out;
}

Tensor LayerBuilder::roi_align(const std::vector<Tensor>& levels, std::string_view name, int output_size, int rois,
                               int sampling_ratio) {
  assert(!levels.empty());
  Tensor out = levels.front();
  out.height = output_size;
  out.width = output_size;
  out.instances = levels.front().instances * rois;
  const double samples_per_bin = static_cast<double>(sampling_ratio) * sampling_ratio;
  Cost cost;
  cost.forward_flop = out.elements() * (samples_per_bin * kBilinearFlopPerSample + 1.0);
  cost.input_gradient_flop = cost.forward_flop;  // scatter-add of each bin's gradient to its taps
  cost.traffic_elements = out.elements() * (samples_per_bin * 4.0 + 1.0);
  return emit(name, levels, cost, out);
}

Tensor LayerBuilder::softmax_cross_entropy(const Tensor& logits, std::string_view name) {
  Cost cost;
  cost.forward_flop = logits.elements() * kSoftmaxFlopPerElement;
  cost.input_gradient_flop = cost.forward_flop;
  cost.traffic_elements = 2.0 * logits.elements();
  cost.pass = MemoryPass::softmax;
  Tensor loss = emit(name, {logits}, cost, input(1, 1, 1));
  layers_.back().loss_logits = logits.elements();
  if (loss.requires_grad) keep(logits.elements());  // the probabilities
  return loss;
}

void LayerBuilder::unused_parameters(std::string_view name, double parameters) {
  Layer layer;
  layer.name = block_.empty() ? std::string(name) : block_ + "." + std::string(name);
  layer.block = block_;
  layer.parameters = parameters;
  layer.trainable = false;
  layers_.push_back(std::move(layer));
  output_saved_.push_back(false);
  trains_weights_.push_back(false);
}

std::vector<Layer> LayerBuilder::take_layers() {
  output_saved_.clear();
  trains_weights_.clear();
  input_saved_ = false;
  return std::exchange(layers_, {});
}

}  // namespace vtsim
