#pragma once
// A training workload as the simulator sees it: layers in forward order, each with its flop, its memory traffic, the
// activations it keeps for backward and its parameters. All per-layer numbers are per sample (one image, one sequence).
//
// Conventions (every builder in layer_builder.hpp follows them; docs cite this header):
// - One multiply-add is 2 flop. Elementwise work (normalisation, activation, softmax...) counts the flop per element
//   listed in layer_builder.hpp; it is small next to the matrix math, but it makes memory-bound layers visible.
// - Backward flop = weight gradient (= forward matrix flop, only when the layer's weights are trained)
//                 + input gradient (= forward flop, only when something before the layer is trained).
//   So a trained conv or linear costs 2x forward in backward, a parameter-free layer 1x, the first conv of a network
//   (its input is the image) 1x, and a frozen prefix of a network 0. A product of two activations (attention's Q.K^T
//   and P.V) has two input gradients: 2x. An embedding's weight gradient is a scatter-add of its output gradient.
// - activation_elements counts activation elements read and written by the forward pass of the layer; weights are not in
//   it (the compute model adds one read of the parameters per batch, since a batch shares them).
// - stored_activation_elements counts the elements a layer keeps for backward: each saved tensor is counted once, at the
//   layer that makes it (a ReLU output saved both by the ReLU and the next conv counts once), plus the layer's own
//   saved temporaries (softmax probabilities, pooling indices). Dropout masks are counted apart, in
//   stored_mask_elements, at one byte each: PyTorch's native_dropout keeps a bool mask, and Korthikanti et al. 2022
//   ("Reducing Activation Recomputation in Large Transformer Models", Sec. 4.1) count a dropout mask at 1 byte per
//   element. Pooling indices count as activation elements (PyTorch keeps int64 indices; cuDNN's pooling none).
// - Weights used by several layers (an LM head tied to the token embedding, one RPN head over five feature levels) are
//   owned by their first user in forward order: its backward runs last, so the gradient it reports is complete.
// - Bytes per element come from the precision (activation_bytes() in precision.hpp); gradients are fp32.

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/scenario/framework.hpp"

namespace vtsim {

/// What kind of GPU kernel a layer's forward (and backward) runs as (models/compute/compute_model.hpp times each kind).
enum class KernelKind {
  gemm,         ///< a matrix product (linear layers, attention's batched products): cuBLAS, tensor or CUDA cores
  convolution,  ///< a convolution (cuDNN: implicit GEMM, or Winograd/FFT, which need fewer than its nominal flop)
  memory,       ///< a pass over activations bound by memory traffic: normalisation, elementwise, pooling, loss
};

/// What a memory-bound layer's kernels do, for the kernel families whose achieved bandwidth was measured
/// (models/compute/kernel_model.hpp: element-wise, softmax, layer norm); `generic` for the others (pooling, batch norm,
/// embeddings, concatenation, losses other than softmax's). `bias_gradient`: a weighted layer's bias gradient, the sum
/// of its output gradient over the rows (models/compute/compute_model.cpp, bias_gradients), a reduction taken at the
/// layer norm family's efficiency.
enum class MemoryPass { generic, elementwise, softmax, layer_norm, bias_gradient };

/// How an attention core that keeps its tokens x tokens scores in memory (not FlashAttention) passes over them
/// between its two products; the bytes each moves per score are in models/compute/compute_model.cpp (score_bytes).
enum class ScorePasses {
  none,           ///< not such a layer
  eager,          ///< scale, mask, softmax and dropout each a kernel of its own, as Hugging Face's and NVIDIA's BERT
                  ///< implementations write attention; under mixed precision the softmax (and the dropout after it)
                  ///< in fp32 with casts around it where Layer::score_softmax_fp32 says so (PyTorch's autocast)
  fused_softmax,  ///< scale, mask and softmax in one 16-bit kernel (Megatron-LM's scaled masked softmax), dropout apart
};

/// The output of a gemm or convolution layer's forward product (as an implicit GEMM), which sets how many thread-block
/// tiles it exposes to the SMs.
/// Rows stack across the batch (an implicit-GEMM convolution's N x P x Q rows) unless the layer runs
/// `problems_per_sample` independent products per sample (attention: one per head), each rows x columns.
struct GemmShape {
  double rows_per_sample = 0.0;      ///< output rows per sample (positions); per problem if problems_per_sample > 0
  double columns = 0.0;              ///< output columns (output channels / features)
  double problems_per_sample = 0.0;  ///< independent GEMMs per sample (batched GEMM); 0 = rows stack across the batch
  /// The forward product's reduction length K: a linear layer's input features, a convolution's input channels x
  /// filter size. 0 where its K-depth cost is not modelled (attention cores).
  double depth = 0.0;
  /// A convolution's filter positions (height x width; 1 for a linear layer): its input gradient's implicit GEMM
  /// reduces over columns x this (output channels x filter positions).
  double filter_positions = 1.0;
  /// A 3 x 3 convolution at stride 1 (conv2d, not transposed): cuDNN may run it as Winograd's minimal filtering.
  bool winograd = false;
  /// A conv2d's filter height and width and its stride (both directions): what its gradients cost against its
  /// forward pass depends on them (models/compute/kernel_model.hpp, ConvolutionShape). 0: not a conv2d.
  int filter_height = 0;
  int filter_width = 0;
  int stride = 0;
  /// A conv2d's input as it convolves it: images per sample (a detector's regions of interest run through one
  /// head as that many images), their height and width, and its zero padding. 0: not a conv2d.
  double images_per_sample = 0.0;
  int input_height = 0;
  int input_width = 0;
  int pad_h = 0;
  int pad_w = 0;
};

/// One step of the forward pass: a weight-bearing operation (conv, linear, embedding) or a pass over activations.
struct Layer {
  std::string name;                         ///< framework-style name, e.g. "layer3.2.conv2", "block5.attn.qkv"
  std::string block;                        ///< the block it belongs to ("layer3.2", "block5")
  double forward_flop = 0.0;                ///< flop of the forward pass, per sample
  double backward_flop = 0.0;               ///< flop of the backward pass (input and weight gradients), per sample
  double activation_elements = 0.0;         ///< activation elements read + written in forward, per sample
  double stored_activation_elements = 0.0;  ///< activation elements kept for backward, per sample
  double stored_mask_elements = 0.0;        ///< one-byte dropout mask elements kept for backward, per sample
  double parameters = 0.0;                  ///< parameters this layer owns (shared weights belong to their first user)
  int parameter_tensors = 0;                ///< tensors they are kept in: a weight and a bias, a norm's scale and shift
  /// Trained bias tensors added to a weighted layer's output (0 without): backward sums the output gradient over its
  /// rows into each, one reduction kernel per tensor (models/compute/compute_model.cpp, bias_gradients).
  int bias_tensors = 0;
  bool trainable = true;                    ///< false in a frozen part of the network: its parameters get no gradient
  KernelKind kind = KernelKind::memory;     ///< the kind of kernel its forward runs as
  MemoryPass memory_pass = MemoryPass::generic;  ///< memory layers: what their kernels do
  GemmShape gemm;                           ///< gemm and convolution layers: the output's shape; unused otherwise
  int backward_kernels = 0;                 ///< kernels its backward runs: weight gradient and/or input gradient
  /// An attention core keeping its scores: the scores per sample (heads x tokens x tokens), how its passes over them
  /// run and whether they include dropout. Their traffic is counted from these, not from activation_elements.
  double score_elements = 0.0;
  ScorePasses score_passes = ScorePasses::none;
  bool score_dropout = false;
  /// Eager passes under mixed precision: the framework runs the softmax in fp32 (PyTorch's autocast lists softmax
  /// among the ops that autocast to float32; TensorFlow's AMP graph rewrite keeps it 16-bit: see
  /// softmax_in_fp32_under_amp). Set per job by use_framework. A softmax cross-entropy's softmax follows it too.
  bool score_softmax_fp32 = true;
  /// A softmax cross-entropy: its logits per sample. Its traffic is counted from these (loss_bytes in
  /// models/compute/compute_model.hpp), not from activation_elements.
  double loss_logits = 0.0;

  /// Bytes of this layer's gradient: 4 per trainable parameter (fp32 gradients, also under AMP), 0 when frozen.
  double gradient_bytes() const;
};

/// The optimizer a workload trains with: it sets the optimizer's state in memory and its step's memory traffic.
enum class Optimizer {
  sgd,           ///< plain SGD: no state
  sgd_momentum,  ///< SGD with momentum: one fp32 state tensor per parameter (torchvision, DeepLearningExamples CNNs)
  adam,          ///< Adam (Kingma and Ba 2015): two fp32 moment tensors per parameter
  adamw,         ///< AdamW (Loshchilov and Hutter 2019): Adam's state, weight decay decoupled (no more traffic)
  lamb,          ///< LAMB (You et al. 2020): Adam's state, and a second pass for each layer's trust ratio
  adafactor,     ///< Adafactor (Shazeer and Stern 2018), no first moment: factored second moments, r + c per matrix
};

/// How an optimizer step runs as kernels.
enum class OptimizerKernels {
  multi_tensor,  ///< one fused pass over every parameter (Apex's FusedAdam and FusedLAMB as NVIDIA's and Megatron-LM's
                 ///< PyTorch code runs them, torch.optim's fused=True): optimizer_bytes_per_parameter, launched in
                 ///< multi-tensor groups (models/compute/compute_model.cpp, multi_tensor_launches)
  per_tensor_ops,   ///< each parameter tensor's update written as the framework's element-wise operations, a kernel
                    ///< each, as NVIDIA's TensorFlow BERT writes Adam and LAMB (models/compute/compute_model.cpp counts
                    ///< them)
  torch_foreach,    ///< torch.optim's foreach implementation (its default on CUDA since PyTorch 2.0): each element-wise
                    ///< operation of the update one multi-tensor pass over every parameter tensor
  torch_for_loop,   ///< torch.optim's for-loop implementation (foreach=False): the same operations, tensor by tensor
  bert_adam,        ///< DeepLearningExamples' PyTorch BertAdam (BERT/optimization.py), tensor by tensor, each tensor's
                    ///< gradient clipped by torch.nn.utils.clip_grad_norm_ first, after run_squad.py's global clip
                    ///< (models/compute/compute_model.cpp counts them)
  bert_adam_sync,   ///< the same under a PyTorch whose clip_grad_norm_ reads `clip_coef < 1` on the host, waiting for
                    ///< the GPU once per tensor (before pytorch/pytorch PR #61042, 2021-07: NGC 20.06's PyTorch 1.6)
  bert_fused_adam,  ///< DeepLearningExamples' PyTorch BERT fine-tuning under --fp16: Apex AMP O2's unscaling into fp32
                    ///< master gradients, run_squad.py's GradientClipper, Apex's FusedAdam, O2's master-to-model copy
                    ///< and its zero_grad (models/compute/compute_model.cpp counts them)
};

/// How the job's code writes its optimizer step, as a scenario states it (`jobs[i].optimizer_implementation`); with
/// the framework it gives OptimizerKernels (optimizer_kernels_for).
enum class OptimizerImplementation {
  fused,     ///< one multi-tensor pass: Apex's fused optimizers, torch.optim's fused=True, a fused TensorFlow optimizer
  foreach,   ///< torch.optim's foreach implementation
  for_loop,  ///< operation by operation, tensor by tensor: torch.optim's foreach=False, TensorFlow's Python optimizers
  bert_adam,        ///< DeepLearningExamples' PyTorch BertAdam, as its BERT scripts run it without --fp16 (--amp)
  bert_adam_sync,   ///< the same under a PyTorch whose clip_grad_norm_ waits for the GPU (before mid-2021)
  bert_fused_adam,  ///< DeepLearningExamples' PyTorch BERT fine-tuning step under --fp16 (Apex AMP O2, FusedAdam)
};

/// The scenario spellings: "fused", "foreach", "for_loop", "bert_adam", "bert_adam_sync", "bert_fused_adam".
std::span<const std::pair<std::string, OptimizerImplementation>> optimizer_implementation_names();
/// The scenario spelling of `implementation`.
std::string_view to_string(OptimizerImplementation implementation);
/// The kernels `implementation` runs in `framework`'s code, or why vtsim does not count them (an empty reason when
/// it does). PyTorch's foreach and for-loop steps are counted for torch.optim's SGD, SGD with momentum, Adam and
/// AdamW, its BertAdam steps for Adam and AdamW; TensorFlow's for-loop for NVIDIA's Adam and LAMB; every framework's
/// fused pass for every optimizer.
struct OptimizerKernelsChoice {
  OptimizerKernels kernels = OptimizerKernels::multi_tensor;
  std::string refused;  ///< non-empty: the implementation is not counted for this framework and optimizer
};
OptimizerKernelsChoice optimizer_kernels_for(OptimizerImplementation implementation, Framework framework,
                                             Optimizer optimizer);
/// Whether `kernels` has the update issued by a Python loop over the parameter tensors, an operation at a time
/// (torch.optim's for-loop implementation, DeepLearningExamples' BertAdam).
bool steps_in_a_python_loop(OptimizerKernels kernels);

/// How a job keeps convolutions' activations in memory. Tensor-core convolutions are NHWC kernels: on NCHW tensors
/// cuDNN transposes a convolution's operands before it and its result after it (models/compute/compute_model.cpp counts
/// those passes; docs/compute-model.md, "Memory layout").
enum class TensorLayout {
  nchw,  ///< channels first: PyTorch's and MXNet's default
  nhwc,  ///< channels last: PyTorch's `channels_last`; TensorFlow's default `data_format` (a TensorFlow job is taken
         ///< to run NHWC unless it states otherwise; the published rows state theirs, published_throughput.cpp)
};

/// The scenario spellings of the layouts: "nchw", "nhwc".
std::span<const std::pair<std::string, TensorLayout>> tensor_layout_names();
/// The scenario spelling of `layout`.
std::string_view to_string(TensorLayout layout);

/// The scenario spellings of the optimizers: "sgd", "momentum", "adam", "adamw", "lamb", "adafactor".
std::span<const std::pair<std::string, Optimizer>> optimizer_names();
/// The scenario spelling of `optimizer`.
std::string_view to_string(Optimizer optimizer);

/// The shape of a transformer, which parallel strategies split (models/parallel/parallel_strategy.hpp); all 0 for other
/// models.
struct TransformerShape {
  int layers = 0;    ///< transformer blocks
  int hidden = 0;    ///< model width h
  int heads = 0;     ///< attention heads a
  int sequence = 0;  ///< tokens per sample s
  int vocab = 0;     ///< vocabulary V
  bool fused_attention = false;  ///< attention never stores the tokens x tokens scores (FlashAttention)
  int kv_heads = 0;              ///< key-value heads (grouped-query attention); heads without it
  int ffn = 0;                   ///< MLP inner width
  bool swiglu = false;           ///< SwiGLU MLP: three ffn x hidden matrices instead of two
};

/// A model with its training input, the source of its architecture and its layers in forward order.
struct Workload {
  std::string id;                     ///< catalog id, e.g. "resnet-50"
  std::string name;                   ///< human name, e.g. "ResNet-50 v1.5"
  std::string sample_unit;            ///< "image" or "sequence"
  std::string input;                  ///< the sample's shape, e.g. "224x224x3", "seq 384"
  std::string source;                 ///< where the architecture and its published parameter count come from
  double published_parameters = 0.0;  ///< the parameter count the source gives (0 when it gives none)
  std::vector<Layer> layers;          ///< forward order
  Optimizer optimizer = Optimizer::sgd_momentum;  ///< default SGD with momentum; the transformer builders set adam
  OptimizerKernels optimizer_kernels = OptimizerKernels::multi_tensor;  ///< set per job by use_framework
  /// Convolutions' activation layout: set per job by use_framework (the framework's default), or as the job states it.
  TensorLayout layout = TensorLayout::nhwc;
  bool layout_stated = false;  ///< the job states it (jobs[].memory_format)
  /// Under mixed precision its fp32 weights are cast to 16 bits at every forward (PyTorch's autocast, as
  /// DeepLearningExamples' CNN code trains and infers with torch.cuda.amp) rather than kept in 16 bits (Apex's O2,
  /// model.half(), Megatron-LM's Float16Module, as NVIDIA's BERT and Megatron-LM run transformers): set per job by
  /// use_framework (PyTorch jobs with convolutions). models/compute/compute_model.cpp counts the casts.
  bool autocast_weight_casts = false;
  /// Under mixed precision it keeps 16-bit weights beside fp32 master weights, and after each optimizer step copies
  /// the updated masters into them as a multi-tensor pass of its own (read 4, write 2 bytes per parameter): Apex
  /// amp's O2 (`_master_params_to_model_params`, multi_tensor_scale over [fp32 masters, 16-bit weights]) and
  /// Megatron-LM's 16-bit optimizer (`_copy_main_params_to_model_params`, `_multi_tensor_copy_this_to_that`), as
  /// NVIDIA's PyTorch BERT and Megatron-LM run transformers. Set per job by use_framework (PyTorch jobs without
  /// autocast's casts). models/compute/compute_model.cpp counts the pass.
  bool master_weight_copy = false;
  /// Whether its samples vary in shape from batch to batch (detection on COCO: images of many sizes, a varying number
  /// of objects), so that its step times spread more than a fixed-shape model's. Default false.
  bool variable_input = false;
  /// What its training step does that its layer list leaves out, in words; empty when nothing known. A run lists it
  /// among its uncalibrated notes: the predicted step is short of that work (Mask R-CNN's proposal stage).
  std::string leaves_out;
  /// Transformers: their shape (layers 0 for the others).
  TransformerShape transformer;

  /// All parameters, trainable or frozen (what sits in GPU memory as weights).
  double parameters() const;
  /// Parameters that receive a gradient.
  double trainable_parameters() const;
  /// Tensors those parameters are kept in (what an optimizer written per tensor launches its kernels for).
  int trainable_parameter_tensors() const;
  /// Forward flop per sample.
  double forward_flop() const;
  /// Backward flop per sample.
  double backward_flop() const;
  /// Bytes of gradient exchanged per step (independent of the batch): 4 per trainable parameter.
  double gradient_bytes() const;
  /// Activation elements read and written in forward, per sample.
  double activation_elements() const;
  /// Bytes kept for backward per sample: activations at `element_bytes` each and one-byte dropout masks.
  double stored_activation_bytes(double element_bytes) const;
};

/// Whether `framework`'s mixed precision runs the softmax in fp32: PyTorch's autocast does ("CUDA Ops that can
/// autocast to float32": softmax), and so does MXNet's AMP (its FP32_FUNCS list, taken as such); TensorFlow's
/// automatic mixed precision graph rewrite keeps Softmax on its gray list (16-bit after 16-bit inputs:
/// tensorflow/core/grappler/optimizers/auto_mixed_precision_lists.h).
bool softmax_in_fp32_under_amp(Framework framework);
/// Sets what depends on how `framework`'s code runs the workload: every eager attention core's score_softmax_fp32,
/// and the optimizer's kernels: TensorFlow's Adam, AdamW and LAMB as per-tensor operations (NVIDIA's TensorFlow BERT,
/// the TensorFlow transformer code vtsim's rows measure, writes them so in optimization.py; its other optimizers are
/// one kernel per tensor, counted as one fused pass), the other frameworks' fused; and the convolutions' layout, the
/// framework's default (PyTorch's and MXNet's NCHW, TensorFlow's NHWC); and whether mixed precision casts the weights
/// at every forward (PyTorch's autocast, for its jobs with convolutions) or copies fp32 master weights into 16-bit
/// ones after each step (PyTorch's other jobs). Call after setting the optimizer.
void use_framework(Workload& workload, Framework framework);

}  // namespace vtsim
