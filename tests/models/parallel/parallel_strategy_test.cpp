// Parallel strategies' closed forms (models/parallel/parallel_strategy.hpp) against hand derivations from their
// sources.

#include "models/parallel/parallel_strategy.hpp"

#include <gtest/gtest.h>

#include "models/catalog/gpu_catalog.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

/// A small GPT: 4 blocks of width 64, 4 heads, 32 tokens, vocabulary 100. Its attention term 5 a s / h = 10, so an
/// unsplit layer keeps s b h (34 + 10) = 44 s b h bytes (KORTHIKANTI).
Workload four_block_gpt() {
  TransformerConfig config;
  config.layers = 4;
  config.hidden_size = 64;
  config.heads = 4;
  config.sequence_length = 32;
  config.vocab_size = 100;
  return make_transformer(config, "small", "small GPT");
}

TEST(ParallelStrategy, PlainDataParallelismIsTheMemoryModelsFootprint) {
  const Workload gpt = four_block_gpt();
  ParallelStrategy plain;
  plain.micro_batch_size = 8;
  const MemoryFootprint split = strategy_memory(gpt, plain, Precision::fp16);
  const MemoryFootprint whole = memory_footprint(gpt, 8, Precision::fp16);
  EXPECT_DOUBLE_EQ(split.total_bytes(), whole.total_bytes());
  EXPECT_DOUBLE_EQ(split.activations_bytes, whole.activations_bytes);
}

TEST(ParallelStrategy, ActivationFractionsFollowKorthikanti) {
  const TransformerShape shape = four_block_gpt().transformer;
  ParallelStrategy strategy;
  strategy.tensor = 2;
  EXPECT_DOUBLE_EQ(activation_fraction(shape, strategy), (10.0 + 24.0 / 2 + 10.0 / 2) / 44.0);  // TP 2: 27 / 44
  strategy.sequence_parallel = true;
  EXPECT_DOUBLE_EQ(activation_fraction(shape, strategy), 0.5);  // all of it split: 44 / 2
  strategy.recompute = Recompute::selective;
  EXPECT_DOUBLE_EQ(activation_fraction(shape, strategy), 17.0 / 44.0);  // 34 / 2
  strategy.recompute = Recompute::full;
  EXPECT_DOUBLE_EQ(activation_fraction(shape, strategy), 1.0 / 44.0);  // the input, 2 / 2
  // Fused attention keeps no scores: 34 s b h unsplit, which selective recomputation leaves as it is.
  TransformerShape fused = shape;
  fused.fused_attention = true;
  strategy.recompute = Recompute::selective;
  EXPECT_DOUBLE_EQ(activation_fraction(fused, strategy), 0.5);  // 34 / 2 of 34
  strategy.recompute = Recompute::none;
  EXPECT_DOUBLE_EQ(activation_fraction(fused, strategy), 0.5);
}

TEST(ParallelStrategy, ModelStatesSplitByTensorAndPipelineAndShardByZero) {
  // Mixed precision Adam: 4 B fp32 master + 2 B half weights, 4 B gradients, 8 B moments per parameter.
  const Workload gpt = four_block_gpt();
  const double psi = gpt.parameters();
  ParallelStrategy strategy;
  strategy.tensor = 2;
  strategy.pipeline = 2;
  strategy.data = 4;
  for (int zero = 0; zero <= 3; ++zero) {
    strategy.zero_stage = zero;
    const MemoryFootprint memory = strategy_memory(gpt, strategy, Precision::fp16);
    const double master = zero >= 1 ? 4.0 / 4 : 4.0;
    const double half = zero >= 3 ? 2.0 / 4 : 2.0;
    EXPECT_DOUBLE_EQ(memory.weights_bytes, psi / 4 * (master + half)) << zero;
    EXPECT_DOUBLE_EQ(memory.gradients_bytes, psi / 4 * (zero >= 2 ? 1.0 : 4.0)) << zero;
    EXPECT_DOUBLE_EQ(memory.optimizer_bytes, psi / 4 * (zero >= 1 ? 2.0 : 8.0)) << zero;
  }
}

TEST(ParallelStrategy, PipelineStagesHoldTheirScheduleMicroBatches) {
  ParallelStrategy strategy;
  strategy.pipeline = 4;
  strategy.micro_batches = 8;
  EXPECT_DOUBLE_EQ(activations_in_flight(strategy), 1.0);  // 1F1B: p micro-batches of L / p layers
  strategy.schedule = PipelineSchedule::gpipe;
  EXPECT_DOUBLE_EQ(activations_in_flight(strategy), 2.0);  // all m: 8 of L / 4
  strategy.schedule = PipelineSchedule::interleaved;
  strategy.virtual_stages = 2;
  EXPECT_DOUBLE_EQ(activations_in_flight(strategy), 1.0 + 3.0 / 8);
}

TEST(ParallelStrategy, OneFOneBBubbleIsPMinusOneOverMPlusPMinusOne) {
  ParallelStrategy strategy;
  strategy.pipeline = 4;
  strategy.micro_batches = 8;
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(strategy), 3.0 / 11);
  strategy.schedule = PipelineSchedule::gpipe;
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(strategy), 3.0 / 11);
  strategy.schedule = PipelineSchedule::interleaved;
  strategy.virtual_stages = 2;
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(strategy), 3.0 / 19);  // (p - 1) / (v m + p - 1)
  strategy.pipeline = 1;
  EXPECT_DOUBLE_EQ(pipeline_bubble_fraction(strategy), 0.0);
}

TEST(ParallelStrategy, TensorParallelLayersAllreduceTheirActivationsTwiceEachWay) {
  // GPT-3 6.7B's shape, b = 1, t = 4, fp16: 4 allreduces of 1 x 2048 x 4096 elements, each sending 2 x 3/4 of them.
  const TransformerShape shape{.layers = 32, .hidden = 4096, .heads = 32, .sequence = 2048, .vocab = 50257};
  EXPECT_DOUBLE_EQ(tensor_parallel_bytes_per_layer(shape, 1, 4, 2.0), 4 * 1.5 * 2048 * 4096 * 2.0);
  EXPECT_DOUBLE_EQ(tensor_parallel_bytes_per_layer(shape, 1, 1, 2.0), 0.0);
}

TEST(ParallelStrategy, ZeroThreeMovesOneAndAHalfTimesAnAllreduce) {
  const double psi = 6.7e9;
  EXPECT_DOUBLE_EQ(data_parallel_bytes(psi, 2.0, 8, 0), 2.0 * 7 / 8 * psi * 2.0);
  EXPECT_DOUBLE_EQ(data_parallel_bytes(psi, 2.0, 8, 2), data_parallel_bytes(psi, 2.0, 8, 0));
  EXPECT_DOUBLE_EQ(data_parallel_bytes(psi, 2.0, 8, 3), 1.5 * data_parallel_bytes(psi, 2.0, 8, 0));
}

TEST(ParallelStrategy, NarayanansFlopCountAgreesWithTheLayerByLayerCount) {
  // Two derivations of one iteration's flops: the closed form, and the sum over the generated layers' GEMMs and
  // attention (forward, and backward's two GEMMs per forward GEMM). They differ by what each leaves out (the closed
  // form: element-wise work; the layers: nothing the closed form keeps), a few percent at most.
  const Workload gpt = *make_workload("gpt3-1.3b");
  const double layers_flop = gpt.forward_flop() + gpt.backward_flop();
  EXPECT_NEAR(transformer_iteration_flop(gpt.transformer, 1, false) / layers_flop, 1.0, 0.03);
  // Full recomputation runs forward once more: the closed forms differ by the non-logit part's third.
  const TransformerShape& s = gpt.transformer;
  const double logits = 6.0 * s.sequence * s.hidden * s.vocab;
  EXPECT_NEAR(transformer_iteration_flop(s, 1, true) - logits,
              4.0 / 3 * (transformer_iteration_flop(s, 1, false) - logits), 1e-6 * layers_flop);
}

TEST(ParallelStrategy, TheFlopCountFollowsGroupedQueryAttentionAndSwiglu) {
  // A Llama-style model (SwiGLU, 8 key-value heads of 64 query heads): the closed form's blocks are 2 flop per weight
  // of their matrices and the attention products, so it agrees with the layer-by-layer count as for GPT.
  TransformerConfig config;
  config.layers = 4;
  config.hidden_size = 8192;
  config.heads = 64;
  config.kv_heads = 8;
  config.ffn_size = 28672;
  config.swiglu = true;
  config.sequence_length = 4096;
  config.vocab_size = 32000;
  config.dropout = false;
  config.tied_embeddings = false;
  const Workload llama = make_transformer(config, "llama", "llama");
  const double layers_flop = llama.forward_flop() + llama.backward_flop();
  EXPECT_NEAR(transformer_iteration_flop(llama.transformer, 1, false) / layers_flop, 1.0, 0.03);
  // By hand: per token and block 2 x (8192 x 10240 + 8192^2 + 3 x 8192 x 28672) + 4 x 4096 x 8192, three passes;
  // the head 6 x 32000 x 8192.
  const double block = 2.0 * (8192.0 * 10240 + 8192.0 * 8192 + 3.0 * 8192 * 28672) + 4.0 * 4096 * 8192;
  EXPECT_NEAR(transformer_iteration_flop(llama.transformer, 1, false), 4096.0 * (3 * 4 * block + 6.0 * 32000 * 8192),
              1e-9 * layers_flop);
}

TEST(ParallelStrategy, Gpt3SixPointSevenBFitsTheSeedServerOnlySplit) {
  // 4x A100 40GB at micro-batch 1: plain data parallelism needs ~146 GiB per GPU; some split of the 4 GPUs fits.
  const Workload gpt = *make_workload("gpt3-6.7b");
  const double capacity = find_gpu("a100-40gb-sxm4")->memory_bytes;
  EXPECT_GT(memory_footprint(gpt, 1, Precision::fp16).total_bytes(), capacity);
  const auto fitting = strategies_that_fit(gpt, 4, 4, 1, Precision::fp16, capacity, 10);
  ASSERT_FALSE(fitting.empty());
  for (const auto& [strategy, memory] : fitting) {
    EXPECT_LE(memory.total_bytes(), capacity) << describe(strategy);
    EXPECT_EQ(strategy.tensor * strategy.pipeline * strategy.data, 4) << describe(strategy);
  }
  // GPT-3 175B's states alone (18 B per parameter / 4 GPUs) are ~730 GiB per GPU: nothing fits.
  EXPECT_TRUE(strategies_that_fit(*make_workload("gpt3-175b"), 4, 4, 1, Precision::fp16, capacity, 10).empty());
  // Not a transformer: no strategies to offer.
  EXPECT_TRUE(strategies_that_fit(*make_workload("resnet-50"), 4, 4, 1, Precision::fp16, 1.0, 10).empty());
}

}  // namespace
}  // namespace vtsim
