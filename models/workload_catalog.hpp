#pragma once
// The workload catalog: builders of published architectures (cnn_workloads.cpp, transformer_workloads.cpp) and the
// lookup by id that scenarios use. Each builder reproduces its source's parameter count exactly, or within the
// rounding of the figure the source gives; tests/models/*_workloads_test.cpp derive both by hand.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload.hpp"

namespace vtsim {

/// The shape of a transformer: a GPT-style decoder (make_transformer) or a BERT-style encoder (make_bert).
struct TransformerConfig {
  int layers = 0;            ///< transformer blocks
  int hidden_size = 0;       ///< model width
  int heads = 0;             ///< attention heads; hidden_size must divide by it
  int sequence_length = 0;   ///< tokens per training sample
  int vocab_size = 0;        ///< rows of the token embedding
  int ffn_size = 0;          ///< MLP inner width; 0 = 4 x hidden_size
  int max_positions = 0;     ///< rows of the learned position embedding; 0 = sequence_length
  int token_types = 0;       ///< rows of the token-type (segment) embedding; 0 = none (BERT: 2)
  int masked_positions = 0;  ///< BERT pre-training: masked-LM predictions per sequence; 0 = every token
  bool dropout = true;       ///< dropout on embeddings, attention probabilities and residual branches
  /// Attention as one fused kernel that never writes the tokens x tokens scores to memory (FlashAttention, Dao et
  /// al. 2022), instead of the products and the softmax over scores kept in memory; see LayerBuilder::attention.
  bool fused_attention = false;
  /// Without fused_attention: scale, mask and softmax in one 16-bit kernel (Megatron-LM's scaled masked softmax,
  /// its default) instead of a kernel each, the softmax in fp32 under mixed precision (PyTorch and TensorFlow eager).
  bool fused_softmax = false;
  /// Key-value heads (grouped-query attention, Ainslie et al. 2023: each serves heads / kv_heads query heads; 1 is
  /// multi-query attention); 0 = heads. heads must divide by it.
  int kv_heads = 0;
  /// The MLP as SwiGLU (Shazeer 2020; Llama): up-projection and gate in one GEMM of 2 x ffn_size columns, SiLU(gate) x
  /// up, down-projection; instead of GELU between two GEMMs.
  bool swiglu = false;
  /// GPT (make_transformer) only: the LM head shares the token embedding's weights (GPT-2, GPT-3); false: a head of
  /// its own, vocab_size x hidden_size more parameters (Llama).
  bool tied_embeddings = true;
  /// GPT only: a learned position embedding (max_positions rows); false: rotary position embeddings (Su et al. 2021;
  /// Llama), which have no parameters (their rotation of Q and K is not costed).
  bool learned_positions = true;
  /// The blocks' linear layers add a bias (GPT-2, GPT-3, BLOOM, Megatron-LM's GPT, BERT); false: none (Llama, PaLM),
  /// which leaves out the biases' parameters and, in training, their gradients' reductions (models/compute_model.cpp,
  /// bias_gradients). The norms keep their beta either way (Llama's RMSNorm has none; not modelled).
  bool bias = true;
};

/// Why a config cannot be built, as "field: expected ..., got ..." (the scenario loader prefixes its JSON path);
/// empty when it can. make_transformer and make_bert REQUIRE an empty answer.
std::string transformer_config_problem(const TransformerConfig& config);

/// GPT-style decoder (GPT-2 layout, Radford et al. 2019): token + learned position embeddings, `layers` pre-LN blocks
/// (LN, fused QKV, attention, projection, residual; LN, MLP with GELU, residual), final LN, LM head tied to the token
/// embedding (its flop counted, no parameters of its own), softmax cross-entropy over every token.
Workload make_transformer(const TransformerConfig& config, std::string id, std::string name);

/// What a BERT encoder is trained for.
enum class BertTask {
  pretraining,  ///< masked LM (transform, decoder tied to the word embedding, own bias) and next-sentence prediction
  squad,        ///< SQuAD span head (hidden x 2 + 2); the pooler stays in the model, frozen and unused
};

/// BERT-style encoder (Devlin et al. 2019): word + position + token-type embeddings with LN, post-LN blocks, pooler,
/// and the task's heads.
Workload make_bert(const TransformerConfig& config, BertTask task, std::string id, std::string name);

/// ResNet-50 v1.5 (torchvision resnet50), 224x224.
Workload make_resnet50();
/// ResNet-101 v1.5 (torchvision resnet101), 224x224.
Workload make_resnet101();
/// VGG-16 (torchvision vgg16, convolutions with bias), 224x224.
Workload make_vgg16();
/// Inception V3 (Keras applications InceptionV3, no auxiliary head), 299x299.
Workload make_inception_v3();
/// Mask R-CNN with a ResNet-50-FPN backbone (torchvision maskrcnn_resnet50_fpn, 91 classes), training on 800x1344.
Workload make_mask_rcnn_r50_fpn();

/// Every catalog id, in a stable order.
const std::vector<std::string>& workload_ids();
/// The catalog workload with this id; nullopt when the id is unknown.
std::optional<Workload> make_workload(std::string_view id);

}  // namespace vtsim
