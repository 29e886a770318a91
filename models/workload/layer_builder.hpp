#pragma once
// Builds a workload's layers from shapes. Each call appends one Layer (in forward order) and returns the tensor it
// makes, so branches, concatenations and skips read like the framework code they transcribe.
//
// Granularity: one Layer per weight-bearing operation (conv, linear, embedding, with its bias and a fused ReLU/tanh,
// which GEMM epilogues do) and one per pass over activations that cannot be a GEMM epilogue: batch normalisation
// (its statistics need the whole batch; with its ReLU, as cuDNN fuses them), layer normalisation, GELU, dropout,
// residual adds, pooling, concatenation, attention's score/softmax/context, losses. Matrix math is compute-bound and
// those passes are memory-bound: one roofline per layer would hide the second behind the first.
//
// The builder also tracks what backward needs (see the conventions in workload.hpp): whether each tensor needs a
// gradient (frozen prefixes cost no backward), and which tensors are saved (each counted once, at its producer).

#include <string>
#include <string_view>
#include <vector>

#include "models/workload/workload.hpp"

namespace vtsim {

// Forward flop per element of the elementwise passes (backward counts the same again). Rough operation counts: they
// matter little, since these passes are bound by memory traffic, which activation_elements carries.
inline constexpr double kBatchNormFlopPerElement = 7.0;   // statistics: add, square, add; normalise: 2; affine: 2
inline constexpr double kLayerNormFlopPerElement = 7.0;   // the same over each token's features
inline constexpr double kFrozenNormFlopPerElement = 2.0;  // a fixed scale and shift (torchvision FrozenBatchNorm2d)
inline constexpr double kReluFlopPerElement = 1.0;
inline constexpr double kTanhFlopPerElement = 4.0;
inline constexpr double kGeluFlopPerElement = 8.0;     // tanh form: x^3, three multiply-adds, tanh, product
inline constexpr double kSoftmaxFlopPerElement = 5.0;  // max, subtract, exp, sum, divide (scale and mask folded in)
inline constexpr double kSiluFlopPerElement = 4.0;     // x / (1 + exp(-x)): exp, add, divide, and the gate's product
inline constexpr double kDropoutFlopPerElement = 1.0;  // multiply by the scaled mask; random numbers not counted
inline constexpr double kAddFlopPerElement = 1.0;
inline constexpr double kBilinearFlopPerSample = 8.0;  // RoIAlign: 4 taps, one multiply-add each

/// An activation tensor of one sample: `channels` features at height x width positions, repeated `instances` times
/// (regions of interest per image). A token sequence is channels = hidden size, height = tokens, width = 1.
struct Tensor {
  int channels = 0;
  int height = 1;
  int width = 1;
  double instances = 1.0;
  int producer = -1;           ///< index of the layer that made it; -1 for the sample
  bool requires_grad = false;  ///< whether backward computes its gradient

  /// Positions per sample: height x width x instances.
  double positions() const { return static_cast<double>(height) * width * instances; }
  /// Elements per sample.
  double elements() const { return channels * positions(); }
};

/// An activation fused into a conv or linear layer's epilogue.
enum class Epilogue { none, relu, tanh };

/// Which parameters a batch-normalisation layer has.
enum class NormKind {
  batch_norm,           ///< gamma and beta per channel, batch statistics (PyTorch BatchNorm2d)
  batch_norm_no_scale,  ///< beta only, batch statistics (Keras BatchNormalization(scale=False))
  frozen_batch_norm,    ///< fixed scale and shift, no parameters (torchvision FrozenBatchNorm2d)
};

/// A 2-D convolution's shape (groups = 1). Output size: floor((in + 2 pad - kernel) / stride) + 1.
struct Conv2d {
  int out_channels = 0;
  int kernel_h = 1;
  int kernel_w = 1;
  int stride = 1;
  int pad_h = 0;
  int pad_w = 0;
  bool bias = false;
  Epilogue epilogue = Epilogue::none;
  bool shared = false;  ///< weights and bias belong to an earlier layer (one head run over several feature levels)

  /// A kernel x kernel convolution without bias.
  static Conv2d square(int out_channels, int kernel, int stride = 1, int padding = 0);
  /// A kernel_h x kernel_w convolution, stride 1, padded to keep the size ("same"), without bias.
  static Conv2d same(int out_channels, int kernel_h, int kernel_w);
  /// This convolution with a bias and the given fused activation.
  Conv2d with_bias(Epilogue fused = Epilogue::none) const;
  /// This convolution reusing an earlier layer's weights (its parameters are counted there).
  Conv2d sharing_weights() const;
};

/// Appends layers in forward order and hands them over with take_layers().
class LayerBuilder {
 public:
  /// The sample entering the network: an image (channels, height, width) or token ids (1, tokens).
  static Tensor input(int channels, int height, int width = 1);
  /// A tensor reshaped to channels x 1 x 1 (no layer: a view).
  static Tensor flatten(const Tensor& x);

  /// Names the block the following layers belong to; their names become "block.name".
  void begin_block(std::string block);
  /// Trains (true, the default) or freezes (false) the weights of the layers that follow.
  void set_trainable(bool trainable);

  /// A convolution; saves its input when its weights are trained.
  Tensor conv2d(const Tensor& x, std::string_view name, const Conv2d& conv);
  /// A transposed convolution (output size (in - 1) stride - 2 pad + kernel).
  Tensor conv_transpose2d(const Tensor& x, std::string_view name, const Conv2d& conv);
  /// A fully connected layer applied at every position of x.
  Tensor linear(const Tensor& x, std::string_view name, int out_features, bool bias = true,
                Epilogue fused = Epilogue::none);
  /// A linear layer whose weight matrix is an earlier layer's (an LM head tied to the token embedding); a bias, if
  /// any, is its own. Its weight gradient is computed here and accumulated into the owner's.
  Tensor tied_linear(const Tensor& x, std::string_view name, int out_features, bool bias);
  /// Embedding tables summed per token (token, position, token type): tables[i] rows of `hidden` features each.
  Tensor embedding(const Tensor& token_ids, std::string_view name, const std::vector<int>& table_rows, int hidden);

  /// Batch normalisation, optionally followed by a fused ReLU.
  Tensor batch_norm(const Tensor& x, std::string_view name, NormKind kind, bool relu);
  /// Layer normalisation over each position's channels (gamma and beta).
  Tensor layer_norm(const Tensor& x, std::string_view name);
  /// GELU activation.
  Tensor gelu(const Tensor& x, std::string_view name);
  /// SwiGLU's gate (Shazeer 2020): the input holds the gate and the up-projection side by side (2 f channels, one
  /// GEMM as Megatron-LM's --swiglu runs them); out = SiLU(gate) x up, f channels.
  Tensor swiglu(const Tensor& x, std::string_view name);
  /// Dropout (keeps its mask).
  Tensor dropout(const Tensor& x, std::string_view name);
  /// x + skip, optionally followed by a fused ReLU (the end of a ResNet bottleneck).
  Tensor residual_add(const Tensor& x, const Tensor& skip, std::string_view name, bool relu);
  /// dropout(x) + skip in one pass (Megatron-LM's bias-dropout-add).
  Tensor dropout_residual_add(const Tensor& x, const Tensor& skip, std::string_view name);
  /// Nearest-neighbour upsampling of `coarse` to `lateral`'s size, added to it (an FPN top-down step).
  Tensor upsample_add(const Tensor& coarse, const Tensor& lateral, std::string_view name);

  /// Max pooling (keeps the argmax indices).
  Tensor max_pool(const Tensor& x, std::string_view name, int kernel, int stride, int padding);
  /// Average pooling.
  Tensor avg_pool(const Tensor& x, std::string_view name, int kernel, int stride, int padding);
  /// Adaptive average pooling to output_size x output_size (1 = global average pooling).
  Tensor adaptive_avg_pool(const Tensor& x, std::string_view name, int output_size);
  /// Concatenation along channels (a copy, as torch.cat and tf.concat make one).
  Tensor concat(const std::vector<Tensor>& parts, std::string_view name);
  /// Selects `positions` of x's positions (BERT's masked positions, the [CLS] token).
  Tensor gather_positions(const Tensor& x, std::string_view name, int positions);

  /// Multi-head self-attention core on a fused QKV tensor (heads + 2 kv_heads head widths: 3 x hidden channels when
  /// every head has its own keys and values; fewer under grouped-query attention, Ainslie et al. 2023, where each of
  /// kv_heads key-value heads serves heads / kv_heads query heads): Q.K^T, scaled masked softmax, dropout of the
  /// probabilities, P.V. Dense: all tokens x tokens scores are computed, also under a causal mask.
  Tensor attention(const Tensor& qkv, std::string_view name, int heads, int kv_heads, bool dropout,
                   ScorePasses passes = ScorePasses::eager);
  /// The same attention as one fused kernel (FlashAttention: Dao et al., NeurIPS 2022, Algorithms 1 and 2): the
  /// scores live in on-chip memory tile by tile and are never written out; it keeps the output and the softmax's
  /// per-row statistics (one value per head and token) for backward, which recomputes the scores (5 products against
  /// forward's 2); dropout's mask is regenerated from the random state, not stored.
  Tensor fused_attention(const Tensor& qkv, std::string_view name, int heads, int kv_heads);
  /// RoIAlign of `rois` regions per sample from feature levels (each region samples one level) to
  /// output_size x output_size bins of sampling_ratio^2 bilinear samples each.
  Tensor roi_align(const std::vector<Tensor>& levels, std::string_view name, int output_size, int rois,
                   int sampling_ratio);
  /// Softmax cross-entropy over x's channels at every position (keeps the probabilities for backward).
  Tensor softmax_cross_entropy(const Tensor& logits, std::string_view name);
  /// Parameters that exist in the model but take no part in the loss (no flop, no gradient), e.g. BERT's pooler
  /// under a SQuAD head.
  void unused_parameters(std::string_view name, double parameters);

  /// The layers built so far; the builder is empty afterwards.
  std::vector<Layer> take_layers();

 private:
  struct Cost {
    double forward_flop = 0.0;
    double weight_gradient_flop = 0.0;  // counted when the layer has weights and they are trained
    double input_gradient_flop = 0.0;   // counted when an input requires a gradient
    double traffic_elements = 0.0;
    double parameters = 0.0;
    int parameter_tensors = 0;  // the tensors `parameters` are kept in
    bool has_weights = false;
    KernelKind kind = KernelKind::memory;
    MemoryPass pass = MemoryPass::generic;
    GemmShape gemm;
  };
  // Appends a layer made from `inputs` and returns `output` stamped with its producer and requires_grad.
  Tensor emit(std::string_view name, const std::vector<Tensor>& inputs, const Cost& cost, Tensor output);
  // Marks t as kept for backward, counting it once at the layer that made it (the sample: at the current layer).
  void save(const Tensor& t);
  // Counts temporaries the current layer keeps for backward (probabilities, indices).
  void keep(double elements);
  // Counts a dropout mask the current layer keeps for backward (one byte per element).
  void keep_mask(double elements);
  // Whether the layer just appended trains weights.
  bool last_trains_weights() const;
  Tensor weighted(const Tensor& x, std::string_view name, Tensor out, double macs, double parameters, bool bias,
                  Epilogue fused, KernelKind kind, double filter_positions = 1.0);

  std::vector<Layer> layers_;
  std::vector<bool> output_saved_;  // per layer: its output is already counted as stored
  std::vector<bool> trains_weights_;
  bool input_saved_ = false;
  bool trainable_ = true;
  std::string block_;
};

}  // namespace vtsim
