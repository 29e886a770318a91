// Transformer workloads: a GPT-style decoder and a BERT-style encoder. Sample = one sequence.
//
// Each block is 10 layers, following the kernels Megatron-LM runs (Shoeybi et al. 2019; Narayanan et al. 2021):
// LN, fused QKV projection, attention core, output projection, dropout + residual add, LN, MLP up-projection, GELU,
// down-projection, dropout + residual add. GPT-2 puts each LN before its sub-block, BERT after its residual add.
// Attention is dense: all tokens x tokens scores are computed, also under GPT's causal mask, as Megatron-LM does
// (its flop formula counts them: Narayanan et al. 2021, Sec. 5.1).

#include <cassert>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/workload/layer_builder.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

int ffn_size(const TransformerConfig& config) {
  return config.ffn_size > 0 ? config.ffn_size : 4 * config.hidden_size;
}

int key_value_heads(const TransformerConfig& config) { return config.kv_heads > 0 ? config.kv_heads : config.heads; }

int max_positions(const TransformerConfig& config) {
  return config.max_positions > 0 ? config.max_positions : config.sequence_length;
}

Tensor residual(LayerBuilder& b, const Tensor& x, const Tensor& skip, std::string_view name, bool dropout) {
  return dropout ? b.dropout_residual_add(x, skip, name) : b.residual_add(x, skip, name, false);
}

// One transformer block. pre_ln: GPT-2 (x + f(LN(x))); otherwise BERT (LN(x + f(x))).
Tensor transformer_block(LayerBuilder& b, Tensor x, const TransformerConfig& config, bool pre_ln) {
  const int hidden = config.hidden_size;
  const Tensor attention_in = pre_ln ? b.layer_norm(x, "attn.ln") : x;
  const int kv_heads = key_value_heads(config);
  const int head_width = hidden / config.heads;
  const Tensor qkv = b.linear(attention_in, "attn.qkv", (config.heads + 2 * kv_heads) * head_width, config.bias);
  const Tensor context = config.fused_attention
                             ? b.fused_attention(qkv, "attn.core", config.heads, kv_heads)
                             : b.attention(qkv, "attn.core", config.heads, kv_heads, config.dropout,
                                           config.fused_softmax ? ScorePasses::fused_softmax : ScorePasses::eager);
  x = residual(b, b.linear(context, "attn.proj", hidden, config.bias), x, "attn.residual", config.dropout);
  if (!pre_ln) x = b.layer_norm(x, "attn.ln");

  const Tensor mlp_in = pre_ln ? b.layer_norm(x, "mlp.ln") : x;
  const Tensor inner = config.swiglu
                           ? b.swiglu(b.linear(mlp_in, "mlp.fc1", 2 * ffn_size(config), config.bias), "mlp.swiglu")
                           : b.gelu(b.linear(mlp_in, "mlp.fc1", ffn_size(config), config.bias), "mlp.gelu");
  x = residual(b, b.linear(inner, "mlp.fc2", hidden, config.bias), x, "mlp.residual", config.dropout);
  if (!pre_ln) x = b.layer_norm(x, "mlp.ln");
  return x;
}

Tensor encoder_or_decoder_blocks(LayerBuilder& b, Tensor x, const TransformerConfig& config, bool pre_ln) {
  for (int i = 0; i < config.layers; ++i) {
    b.begin_block("block" + std::to_string(i));
    x = transformer_block(b, x, config, pre_ln);
  }
  return x;
}

Workload sequence_workload(const TransformerConfig& config, std::string id, std::string name, std::string source,
                           std::vector<Layer> layers) {
  Workload workload;
  workload.id = std::move(id);
  workload.name = std::move(name);
  workload.sample_unit = "sequence";
  workload.input = "seq " + std::to_string(config.sequence_length);
  workload.source = std::move(source);
  workload.layers = std::move(layers);
  // BERT: Adam (Devlin et al. 2019, Sec. A.2); NVIDIA DeepLearningExamples pre-trains it with LAMB, whose state is
  // Adam's two moments. GPT-2/GPT-3: Adam (Brown et al. 2020, Appendix B).
  workload.optimizer = Optimizer::adam;
  workload.transformer = {.layers = config.layers,
                          .hidden = config.hidden_size,
                          .heads = config.heads,
                          .sequence = config.sequence_length,
                          .vocab = config.vocab_size,
                          .fused_attention = config.fused_attention,
                          .kv_heads = key_value_heads(config),
                          .ffn = ffn_size(config),
                          .swiglu = config.swiglu};
  return workload;
}

}  // namespace

std::string transformer_config_problem(const TransformerConfig& config) {
  const auto at_least_one = [](std::string_view field, int value) {
    return value >= 1 ? std::string() : std::string(field) + ": expected an integer >= 1, got " + std::to_string(value);
  };
  for (const auto& [field, value] : {std::pair<std::string_view, int>{"layers", config.layers},
                                     {"hidden_size", config.hidden_size},
                                     {"heads", config.heads},
                                     {"sequence_length", config.sequence_length},
                                     {"vocab_size", config.vocab_size}}) {
    if (std::string problem = at_least_one(field, value); !problem.empty()) return problem;
  }
  for (const auto& [field, value] : {std::pair<std::string_view, int>{"ffn_size", config.ffn_size},
                                     {"max_positions", config.max_positions},
                                     {"token_types", config.token_types},
                                     {"masked_positions", config.masked_positions},
                                     {"kv_heads", config.kv_heads}}) {
    if (value < 0) return std::string(field) + ": expected an integer >= 0, got " + std::to_string(value);
  }
  if (config.kv_heads > 0 && config.heads % config.kv_heads != 0) {
    return "kv_heads: expected a divisor of heads (" + std::to_string(config.heads) + "), got " +
           std::to_string(config.kv_heads);
  }
  if (config.hidden_size % config.heads != 0) {
    return "hidden_size: expected a multiple of heads (" + std::to_string(config.heads) + "), got " +
           std::to_string(config.hidden_size);
  }
  if (config.sequence_length > max_positions(config)) {
    return "sequence_length: expected at most max_positions (" + std::to_string(max_positions(config)) + "), got " +
           std::to_string(config.sequence_length);
  }
  if (config.masked_positions > config.sequence_length) {
    return "masked_positions: expected at most sequence_length (" + std::to_string(config.sequence_length) +
           "), got " + std::to_string(config.masked_positions);
  }
  return {};
}

Workload make_transformer(const TransformerConfig& config, std::string id, std::string name) {
  assert(transformer_config_problem(config).empty());
  LayerBuilder b;
  b.begin_block("embeddings");
  std::vector<int> tables = {config.vocab_size};
  if (config.learned_positions) tables.push_back(max_positions(config));
  Tensor x = b.embedding(LayerBuilder::input(1, config.sequence_length), config.learned_positions ? "wte+wpe" : "wte",
                         tables, config.hidden_size);
  if (config.dropout) x = b.dropout(x, "dropout");
  x = encoder_or_decoder_blocks(b, x, config, true);
  b.begin_block("head");
  x = b.layer_norm(x, "ln_f");
  const Tensor logits = config.tied_embeddings ? b.tied_linear(x, "lm_head", config.vocab_size, false)
                                               : b.linear(x, "lm_head", config.vocab_size, false);
  b.softmax_cross_entropy(logits, "loss");
  std::string source = "GPT-2 layout (Radford et al. 2019): ";
  source += config.learned_positions ? "learned positions" : "rotary positions (not costed)";
  source += ", pre-LN blocks";
  if (config.kv_heads > 0 && config.kv_heads != config.heads) source += ", grouped-query attention";
  if (config.swiglu) source += ", SwiGLU MLP";
  source += config.tied_embeddings ? ", LM head tied to the token embedding" : ", LM head of its own";
  return sequence_workload(config, std::move(id), std::move(name), std::move(source), b.take_layers());
}

Workload make_bert(const TransformerConfig& config, BertTask task, std::string id, std::string name) {
  assert(transformer_config_problem(config).empty());
  const int hidden = config.hidden_size;
  LayerBuilder b;
  b.begin_block("embeddings");
  std::vector<int> tables = {config.vocab_size, max_positions(config)};
  if (config.token_types > 0) tables.push_back(config.token_types);
  Tensor x = b.embedding(LayerBuilder::input(1, config.sequence_length), "word+position+token_type", tables, hidden);
  x = b.layer_norm(x, "ln");
  if (config.dropout) x = b.dropout(x, "dropout");
  x = encoder_or_decoder_blocks(b, x, config, false);

  b.begin_block("pooler");
  if (task == BertTask::squad) {
    // The span head reads the sequence output; the pooler's parameters are loaded but get no gradient.
    b.unused_parameters("dense", static_cast<double>(hidden) * hidden + hidden);
    b.begin_block("qa");
    const Tensor span = b.linear(x, "qa_outputs", 2);
    b.softmax_cross_entropy(span, "loss");  // start and end softmaxes over the tokens: the same element count
  } else {
    const Tensor pooled = b.linear(b.gather_positions(x, "cls", 1), "dense", hidden, true, Epilogue::tanh);
    // Masked LM on the masked positions only, as the original BERT code gathers them (run_pretraining.py), or on
    // every position where masked_positions is 0 (DeepLearningExamples' 2020 PyTorch BERT,
    // make_bert_large_pretraining).
    b.begin_block("mlm");
    const Tensor predicted = config.masked_positions > 0 ? b.gather_positions(x, "gather", config.masked_positions) : x;
    Tensor t = b.linear(predicted, "transform.dense", hidden);
    t = b.layer_norm(b.gelu(t, "transform.gelu"), "transform.ln");
    b.softmax_cross_entropy(b.tied_linear(t, "decoder", config.vocab_size, true), "loss");
    b.begin_block("nsp");
    b.softmax_cross_entropy(b.linear(pooled, "seq_relationship", 2), "loss");
  }
  std::vector<Layer> layers = b.take_layers();
  // BERT keeps query, key and value as three dense layers, a weight and a bias each (google-research/bert
  // modeling.py attention_layer; Hugging Face's BertSelfAttention), where GPT-2 and Megatron-LM fuse them into one:
  // the same product here, six parameter tensors (what a per-tensor optimizer launches its kernels for).
  for (Layer& layer : layers) {
    if (layer.name.ends_with(".attn.qkv")) {
      layer.parameter_tensors = 6;
      layer.bias_tensors = layer.bias_tensors > 0 ? 3 : 0;
    }
  }
  return sequence_workload(config, std::move(id), std::move(name),
                           "BERT layout (Devlin et al. 2019): word, position and token-type embeddings, post-LN "
                           "blocks, pooler, task heads",
                           std::move(layers));
}

}  // namespace vtsim
