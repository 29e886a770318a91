// Transformer workloads against published parameter counts, hand derivations and closed-form flop and activation
// counts (Kaplan et al. 2020; Narayanan et al. 2021; Korthikanti et al. 2022).

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "models/workload/workload_catalog.hpp"
#include "tests/models/models_test_support.hpp"

namespace vtsim {
namespace {

double block_parameters(const Workload& w, std::string_view block) {
  double total = 0.0;
  for (const Layer& layer : w.layers) total += layer.block == block ? layer.parameters : 0.0;
  return total;
}

double block_stored_elements(const Workload& w, std::string_view block) {
  double total = 0.0;
  for (const Layer& layer : w.layers) total += layer.block == block ? layer.stored_activation_elements : 0.0;
  return total;
}

double block_stored_masks(const Workload& w, std::string_view block) {
  double total = 0.0;
  for (const Layer& layer : w.layers) total += layer.block == block ? layer.stored_mask_elements : 0.0;
  return total;
}

using test_support::layer_named;

Workload catalog(std::string_view id) {
  std::optional<Workload> w = make_workload(id);
  EXPECT_TRUE(w.has_value()) << id;
  return w ? *w : Workload{};
}

TransformerConfig gpt_config(int layers, int hidden, int heads, int sequence, bool dropout = true) {
  TransformerConfig config;
  config.layers = layers;
  config.hidden_size = hidden;
  config.heads = heads;
  config.sequence_length = sequence;
  config.vocab_size = 50257;
  config.dropout = dropout;
  return config;
}

// A pre-LN GPT block of width h: QKV 3h^2 + 3h, projection h^2 + h, MLP 8h^2 + 5h, two LNs 4h.
double gpt_block_parameters(double h) { return 12 * h * h + 13 * h; }

// Megatron-LM's forward flop per sequence (Narayanan et al. 2021, Sec. 5.1: 96 B s l h^2 (1 + s/6h + V/16lh) for
// training with recomputation, i.e. 4 forward passes): 24 l s h^2 + 4 l s^2 h + 2 s h V. GEMMs only.
double megatron_forward_flop(double l, double h, double s, double v) {
  return 24 * l * s * h * h + 4 * l * s * s * h + 2 * s * h * v;
}

TEST(Gpt2Small, MatchesTheHuggingFaceParameterCount) {
  const Workload w = catalog("gpt2-small");
  // Hugging Face "gpt2": 124,439,808 = wte 50257 x 768 + wpe 1024 x 768 + 12 blocks + ln_f; lm_head tied.
  EXPECT_DOUBLE_EQ(w.parameters(), 124'439'808);
  EXPECT_DOUBLE_EQ(block_parameters(w, "block0"), 7'087'872);
  EXPECT_DOUBLE_EQ(block_parameters(w, "block0"), gpt_block_parameters(768));
  EXPECT_DOUBLE_EQ(block_parameters(w, "embeddings"), 50257.0 * 768 + 1024.0 * 768);
  EXPECT_DOUBLE_EQ(layer_named(w, "head.lm_head").parameters, 0.0);
  EXPECT_EQ(w.input, "seq 1024");
  EXPECT_EQ(w.sample_unit, "sequence");
}

TEST(Gpt2Xl, MatchesTheHuggingFaceParameterCount) {
  const Workload w = catalog("gpt2-xl");
  // Hugging Face "gpt2-xl": 1,557,611,200 (48 layers, 1600 wide, 25 heads).
  EXPECT_DOUBLE_EQ(w.parameters(), 1'557'611'200);
  EXPECT_DOUBLE_EQ(w.parameters(), 48 * gpt_block_parameters(1600) + (50257.0 + 1024) * 1600 + 2 * 1600);
}

TEST(Gpt3, ParameterCountsMatchBrownEtAl) {
  // Brown et al. 2020, Table 2.1: 175.0B, 6.7B and 1.3B.
  EXPECT_NEAR(catalog("gpt3-175b").parameters(), 175.0e9, 0.005 * 175.0e9);
  EXPECT_NEAR(catalog("gpt3-6.7b").parameters(), 6.7e9, 0.02 * 6.7e9);
  EXPECT_NEAR(catalog("gpt3-1.3b").parameters(), 1.3e9, 0.02 * 1.3e9);
}

TEST(Gpt3, ForwardFlopMatchMegatronClosedForm) {
  for (const auto& [id, l, h, s] : {std::tuple{"gpt2-small", 12.0, 768.0, 1024.0},
                                    std::tuple{"gpt3-175b", 96.0, 12288.0, 2048.0}}) {
    SCOPED_TRACE(id);
    // Ours adds biases, normalisations, softmax, dropout and the loss to the closed form's GEMMs: under 1%.
    const double closed_form = megatron_forward_flop(l, h, s, 50257);
    EXPECT_NEAR(catalog(id).forward_flop(), closed_form, 0.01 * closed_form);
  }
}

TEST(Gpt3, ForwardFlopPerTokenMatchKaplan) {
  // Kaplan et al. 2020, Table 1: forward flop per token ~ 2 N + 2 n_layer n_ctx d_attn + 2 d_model n_vocab, with N the
  // non-embedding parameters. Its attention term counts one of the two tokens x tokens products (the causal half of
  // both); dense attention computes both in full, adding another 2 n_layer n_ctx d.
  for (const auto& [id, l, h, s] : {std::tuple{"gpt2-small", 12.0, 768.0, 1024.0},
                                    std::tuple{"gpt3-175b", 96.0, 12288.0, 2048.0}}) {
    SCOPED_TRACE(id);
    const Workload w = catalog(id);
    const double non_embedding = w.parameters() - block_parameters(w, "embeddings");
    const double kaplan = 2 * non_embedding + 2 * l * s * h + 2 * h * 50257;
    const double per_token = w.forward_flop() / s;
    EXPECT_NEAR(per_token, kaplan + 2 * l * s * h, 0.01 * kaplan);
    EXPECT_NEAR(per_token, kaplan, 0.10 * kaplan);
  }
}

TEST(Gpt3, TrainingFlopPerTokenIsAboutSixTimesParameters) {
  // Kaplan et al. 2020: C ~ 6 N per token for training; attention adds 2.8% at 175B and context 2048.
  const Workload w = catalog("gpt3-175b");
  const double per_token = (w.forward_flop() + w.backward_flop()) / 2048;
  EXPECT_NEAR(per_token, 6 * w.parameters(), 0.10 * 6 * w.parameters());
  EXPECT_GT(per_token, 6 * w.parameters());
}

// Korthikanti et al. 2022, Eq. 1: a block keeps s b h (34 + 5 a s / h) bytes in fp16 with 1-byte dropout masks, i.e.
// 16 s h + 2 a s^2 two-byte elements (probabilities and dropped probabilities among them) and 2 s h + a s^2 one-byte
// masks (after attention, after the MLP, on the probabilities). We also keep each LN's mean and 1/std per token: 4 s.
TEST(TransformerBlock, StoresKorthikantiActivations) {
  const double s = 1024, h = 768, a = 12;
  const Workload gpt = catalog("gpt2-small");
  EXPECT_DOUBLE_EQ(block_stored_elements(gpt, "block5"), 16 * s * h + 2 * a * s * s + 4 * s);
  EXPECT_DOUBLE_EQ(block_stored_masks(gpt, "block5"), 2 * s * h + a * s * s);
  // In fp16 bytes, Eq. 1 itself (plus the LN statistics).
  EXPECT_DOUBLE_EQ(2 * block_stored_elements(gpt, "block5") + block_stored_masks(gpt, "block5"),
                   s * h * (34 + 5 * a * s / h) + 8 * s);
  // Without dropout the masks and the dropped probabilities go: 16 s h + a s^2.
  const Workload no_dropout = make_transformer(gpt_config(12, 768, 12, 1024, false), "x", "x");
  EXPECT_DOUBLE_EQ(block_stored_elements(no_dropout, "block5"), 16 * s * h + a * s * s + 4 * s);
  EXPECT_DOUBLE_EQ(block_stored_masks(no_dropout, "block5"), 0.0);
  // BERT's post-LN block keeps the same tensors.
  const Workload bert = catalog("bert-large-pretrain-seq128");
  EXPECT_DOUBLE_EQ(block_stored_elements(bert, "block5"), 16 * 128.0 * 1024 + 2 * 16.0 * 128 * 128 + 4 * 128.0);
  EXPECT_DOUBLE_EQ(block_stored_masks(bert, "block5"), 2 * 128.0 * 1024 + 16.0 * 128 * 128);
}

// Fused attention (FlashAttention, Dao et al. 2022) stores no scores: of Eq. 1 the 5 a s / h term goes (the
// probabilities, the dropped ones and their mask), and the fused kernel keeps its output (which the projection would
// otherwise keep) and one log-sum-exp per head and token: 16 s h + 4 s + a s elements, 2 s h masks.
TEST(TransformerBlock, FusedAttentionStoresNoScores) {
  const double s = 1024, h = 768, a = 12;
  TransformerConfig config = gpt_config(12, 768, 12, 1024, true);
  config.fused_attention = true;
  const Workload fused = make_transformer(config, "x", "x");
  EXPECT_DOUBLE_EQ(block_stored_elements(fused, "block5"), 16 * s * h + 4 * s + a * s);
  EXPECT_DOUBLE_EQ(block_stored_masks(fused, "block5"), 2 * s * h);
  EXPECT_TRUE(fused.transformer.fused_attention);
  // The same flop forward (two products and the softmax), three more products in backward, which recomputes the
  // scores: 5 s^2 h multiply-adds against eager's 4.
  const Workload gpt2 = catalog("gpt2-small");
  const Layer& core = layer_named(fused, "block5.attn.core");
  const Layer& eager = layer_named(gpt2, "block5.attn.core");
  EXPECT_DOUBLE_EQ(core.forward_flop, eager.forward_flop);
  EXPECT_DOUBLE_EQ(core.backward_flop - eager.backward_flop, 2.0 * s * s * h);
  EXPECT_DOUBLE_EQ(core.activation_elements, 4 * s * h);  // Q, K, V read, the output written: no scores
}

TEST(MakeTransformer, BuildsTenLayersPerBlockAndHonoursTheFfnSize) {
  TransformerConfig config = gpt_config(3, 64, 4, 32, false);
  config.vocab_size = 1000;
  config.ffn_size = 100;
  const Workload w = make_transformer(config, "tiny", "tiny");
  // embedding; 10 per block; ln_f, lm_head, loss.
  EXPECT_EQ(w.layers.size(), 1u + 10 * 3 + 3);
  EXPECT_DOUBLE_EQ(layer_named(w, "block0.mlp.fc1").parameters, 64.0 * 100 + 100);
  EXPECT_DOUBLE_EQ(block_parameters(w, "block0"), 4 * 64.0 * 64 + 4 * 64 + 2 * 64.0 * 100 + 100 + 64 + 4 * 64);
  // The tied head computes the logits of every token: 2 s h V flop, and a weight gradient for the embedding.
  EXPECT_DOUBLE_EQ(layer_named(w, "head.lm_head").forward_flop, 2.0 * 32 * 64 * 1000);
  EXPECT_DOUBLE_EQ(layer_named(w, "head.lm_head").backward_flop, 2 * 2.0 * 32 * 64 * 1000);
}

TEST(TransformerConfigProblem, NamesTheFieldAndWhatWasExpected) {
  TransformerConfig config = gpt_config(12, 768, 12, 1024);
  EXPECT_EQ(transformer_config_problem(config), "");
  config.heads = 10;
  EXPECT_EQ(transformer_config_problem(config), "hidden_size: expected a multiple of heads (10), got 768");
  config = gpt_config(0, 768, 12, 1024);
  EXPECT_EQ(transformer_config_problem(config), "layers: expected an integer >= 1, got 0");
  config = gpt_config(12, 768, 12, 1024);
  config.max_positions = 512;
  EXPECT_EQ(transformer_config_problem(config), "sequence_length: expected at most max_positions (512), got 1024");
}

/// Llama 2 (Touvron et al. 2023) as its Hugging Face config states it: SwiGLU MLP of `ffn`, rotary positions, an LM
/// head of its own, no dropout; `kv_heads` key-value heads.
TransformerConfig llama_config(int layers, int hidden, int heads, int kv_heads, int ffn) {
  TransformerConfig config = gpt_config(layers, hidden, heads, 4096, false);
  config.vocab_size = 32000;
  config.kv_heads = kv_heads;
  config.ffn_size = ffn;
  config.swiglu = true;
  config.tied_embeddings = false;
  config.learned_positions = false;
  return config;
}

TEST(Llama2, SevenBMatchesTheHuggingFaceParameterCountPlusTheBiasesItHasNot) {
  // meta-llama/Llama-2-7b-hf (32 x 4096, 32 heads, FFN 11008, vocabulary 32000): embedding and head 32000 x 4096
  // each, per block Q, K, V, O 4 x 4096^2, gate, up and down 3 x 4096 x 11008 and two RMSNorms 2 x 4096, a final
  // norm 4096: 6,738,415,616. vtsim's linear layers carry biases and its norms a beta, which Llama's do not: per block
  // QKV 3 x 4096, O 4096, gate and up 2 x 11008, down 4096, two betas 2 x 4096; the final norm's beta 4096.
  const Workload w = make_transformer(llama_config(32, 4096, 32, 0, 11008), "llama-2-7b", "Llama 2 7B");
  const double biases = 32.0 * (3 * 4096 + 4096 + 2 * 11008 + 4096 + 2 * 4096) + 4096;
  EXPECT_DOUBLE_EQ(w.parameters(), 6'738'415'616.0 + biases);
  EXPECT_DOUBLE_EQ(layer_named(w, "head.lm_head").parameters, 32000.0 * 4096);
  EXPECT_DOUBLE_EQ(block_parameters(w, "embeddings"), 32000.0 * 4096);  // no position table
  EXPECT_NE(w.source.find("SwiGLU"), std::string::npos);
  // Without the linear layers' biases (Llama has none) only the norms' betas remain: 32 x 2 x 4096 + 4096. And in
  // training no bias gradient is summed.
  TransformerConfig without = llama_config(32, 4096, 32, 0, 11008);
  without.bias = false;
  const Workload llama = make_transformer(without, "llama-2-7b", "Llama 2 7B");
  EXPECT_DOUBLE_EQ(llama.parameters(), 6'738'415'616.0 + 32.0 * 2 * 4096 + 4096);
  for (const Layer& layer : llama.layers) EXPECT_EQ(layer.bias_tensors, 0) << layer.name;
  EXPECT_EQ(layer_named(w, "block0.attn.qkv").bias_tensors, 1);
}

TEST(Llama2, GroupedQueryAttentionShrinksKeysAndValuesOnly) {
  // Llama 2 70B's blocks (8192 wide, 64 heads of 128, 8 key-value heads, FFN 28672): QKV 8192 x (8192 + 2 x 8 x 128)
  // weights, and 8192 x 8192 in Q.K^T and P.V per token and layer, as with 64 key-value heads.
  const Workload grouped = make_transformer(llama_config(2, 8192, 64, 8, 28672), "g", "g");
  const Workload full = make_transformer(llama_config(2, 8192, 64, 0, 28672), "f", "f");
  EXPECT_DOUBLE_EQ(layer_named(grouped, "block0.attn.qkv").parameters, 8192.0 * (8192 + 2 * 8 * 128) + 10240);
  EXPECT_DOUBLE_EQ(layer_named(grouped, "block0.attn.core").forward_flop,
                   layer_named(full, "block0.attn.core").forward_flop);
  EXPECT_DOUBLE_EQ(layer_named(grouped, "block0.mlp.fc1").parameters, 8192.0 * 2 * 28672 + 2 * 28672);
  EXPECT_DOUBLE_EQ(layer_named(grouped, "block0.mlp.fc2").parameters, 28672.0 * 8192 + 8192);
  // The gate reads 2 x 28672 values per token and writes 28672.
  EXPECT_DOUBLE_EQ(layer_named(grouped, "block0.mlp.swiglu").activation_elements, 3.0 * 28672 * 4096);
  TransformerConfig bad = llama_config(2, 8192, 64, 6, 28672);
  EXPECT_EQ(transformer_config_problem(bad), "kv_heads: expected a divisor of heads (64), got 6");
}

// BERT-large (Devlin et al. 2019): 24 layers, hidden 1024, 16 heads, FFN 4096, vocab 30522, 512 positions, 2 types.
TEST(BertLarge, EncoderMatchesTheHandDerivation) {
  const Workload w = catalog("bert-large-pretrain-seq128");
  // Embeddings: (30522 + 512 + 2) x 1024 + LN 2048 = 31,782,912.
  EXPECT_DOUBLE_EQ(block_parameters(w, "embeddings"), 31'782'912);
  // Per layer: QKV 3 (1024^2 + 1024) + output 1024^2 + 1024 + LN 2048 + 1024 x 4096 + 4096 + 4096 x 1024 + 1024
  // + LN 2048 = 12,596,224.
  for (int i = 0; i < 24; ++i) {
    EXPECT_DOUBLE_EQ(block_parameters(w, "block" + std::to_string(i)), 12'596'224) << i;
  }
  EXPECT_DOUBLE_EQ(block_parameters(w, "pooler"), 1'049'600);
  EXPECT_DOUBLE_EQ(31'782'912 + 24 * 12'596'224.0 + 1'049'600, 335'141'888);
}

TEST(BertLarge, PretrainingAddsTheMaskedLmAndNextSentenceHeads) {
  for (std::string_view id : {"bert-large-pretrain-seq128", "bert-large-pretrain-seq512"}) {
    SCOPED_TRACE(id);
    const Workload w = catalog(id);
    // MLM transform 1024^2 + 1024 and LN 2048; decoder bias 30522 (its weight is the word embedding); NSP 1024x2+2.
    EXPECT_DOUBLE_EQ(block_parameters(w, "mlm"), 1'049'600 + 2'048 + 30'522);
    EXPECT_DOUBLE_EQ(block_parameters(w, "nsp"), 2'050);
    EXPECT_DOUBLE_EQ(w.parameters(), 335'141'888 + 1'049'600 + 2'048 + 30'522 + 2'050);
    EXPECT_DOUBLE_EQ(w.trainable_parameters(), w.parameters());
    EXPECT_NEAR(w.parameters(), 340e6, 0.02 * 340e6);  // Devlin et al. 2019: 340M
  }
  // The masked LM predicts 20 positions at sequence 128 (NVIDIA DeepLearningExamples max_predictions_per_seq).
  const Workload pretraining = catalog("bert-large-pretrain-seq128");
  const Layer& decoder = layer_named(pretraining, "mlm.decoder");
  EXPECT_DOUBLE_EQ(decoder.forward_flop, 20 * (2.0 * 1024 * 30522 + 30522));
  // DeepLearningExamples' 2020 code runs the head and its loss on all 128 positions: the same parameters, 128 rows.
  const Workload every_position = make_bert_large_pretraining(128, 0);
  EXPECT_DOUBLE_EQ(layer_named(every_position, "mlm.decoder").forward_flop, 128 * (2.0 * 1024 * 30522 + 30522));
  EXPECT_DOUBLE_EQ(layer_named(every_position, "mlm.loss").loss_logits, 128.0 * 30522);
  EXPECT_DOUBLE_EQ(every_position.parameters(), pretraining.parameters());
  EXPECT_EQ(every_position.id, pretraining.id);
}

TEST(BertLarge, SquadAddsASpanHeadAndLeavesThePoolerUntrained) {
  const Workload w = catalog("bert-large-squad-seq384");
  EXPECT_EQ(w.input, "seq 384");
  EXPECT_DOUBLE_EQ(block_parameters(w, "qa"), 1024 * 2 + 2);
  EXPECT_DOUBLE_EQ(w.parameters(), 335'141'888 + 2'050);
  EXPECT_DOUBLE_EQ(w.trainable_parameters(), 335'141'888 + 2'050 - 1'049'600);
  EXPECT_NEAR(w.parameters(), 340e6, 0.02 * 340e6);
  const Layer& pooler = layer_named(w, "pooler.dense");
  EXPECT_FALSE(pooler.trainable);
  EXPECT_DOUBLE_EQ(pooler.forward_flop, 0.0);
}

TEST(BertLarge, ForwardFlopMatchTheEncoderClosedForm) {
  // Encoder GEMMs per sequence, as Megatron-LM counts them, without the vocabulary term (the MLM head sees 20
  // positions, not s): 24 l s h^2 + 4 l s^2 h; heads and elementwise work add under 2%.
  const double l = 24, h = 1024, s = 128;
  const double encoder = 24 * l * s * h * h + 4 * l * s * s * h;
  const double heads = 20 * 2.0 * h * (h + 30522);
  const Workload w = catalog("bert-large-pretrain-seq128");
  EXPECT_NEAR(w.forward_flop(), encoder + heads, 0.02 * (encoder + heads));
  EXPECT_NEAR(w.backward_flop() / w.forward_flop(), 2.0, 0.01);
}

}  // namespace
}  // namespace vtsim

namespace vtsim {
namespace {

TEST(TransformerBlock, AttentionCoreCountsItsScoresAndHowTheyAreProcessed) {
  // GPT-2 small: 12 heads x 1,024 x 1,024 scores per sample, eager passes with dropout; Megatron's fused softmax
  // when asked; FlashAttention keeps none.
  const Workload gpt2 = catalog("gpt2-small");
  const Layer& eager = layer_named(gpt2, "block5.attn.core");
  EXPECT_DOUBLE_EQ(eager.score_elements, 12.0 * 1024 * 1024);
  EXPECT_EQ(eager.score_passes, ScorePasses::eager);
  EXPECT_TRUE(eager.score_dropout);
  TransformerConfig config = gpt_config(12, 768, 12, 1024, true);
  config.fused_softmax = true;
  const Workload megatron = make_transformer(config, "x", "x");
  EXPECT_EQ(layer_named(megatron, "block5.attn.core").score_passes, ScorePasses::fused_softmax);
  config.fused_attention = true;
  const Workload flash = make_transformer(config, "x", "x");
  EXPECT_EQ(layer_named(flash, "block5.attn.core").score_passes, ScorePasses::none);
  EXPECT_EQ(layer_named(flash, "block5.attn.core").score_elements, 0.0);
}

}  // namespace
}  // namespace vtsim
