#pragma once
// The shape of a transformer, as a scenario states it (the type; models/workload/workload_catalog.hpp builds the
// workload).

#include <string>

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
  /// which leaves out the biases' parameters and, in training, their gradients' reductions
  /// (models/compute/compute_model.cpp, bias_gradients). The norms keep their beta either way (Llama's RMSNorm has
  /// none; not modelled).
  bool bias = true;
};

/// Why a config cannot be built, as "field: expected ..., got ..." (the scenario loader prefixes its JSON path);
/// empty when it can. make_transformer and make_bert REQUIRE an empty answer.
std::string transformer_config_problem(const TransformerConfig& config);

}  // namespace vtsim
