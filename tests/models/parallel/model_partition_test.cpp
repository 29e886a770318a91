// Megatron-style splits of a transformer (models/parallel/model_partition.hpp) against counts derived by hand from
// Shoeybi et al. 2019, Korthikanti et al. 2023 and Narayanan et al. 2021.

#include "models/parallel/model_partition.hpp"

#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "models/parallel/parallel_strategy.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

/// A small GPT: 8 blocks of width 64, 4 heads, 32 tokens, vocabulary 100.
Workload eight_block_gpt() {
  TransformerConfig config;
  config.layers = 8;
  config.hidden_size = 64;
  config.heads = 4;
  config.sequence_length = 32;
  config.vocab_size = 100;
  return make_transformer(config, "small", "small GPT");
}

ParallelStrategy strategy(int tensor, int pipeline, int micro_batches, bool sequence_parallel = false) {
  ParallelStrategy s;
  s.tensor = tensor;
  s.pipeline = pipeline;
  s.micro_batches = micro_batches;
  s.sequence_parallel = sequence_parallel;
  return s;
}

std::size_t layer_index(const Workload& workload, const std::string& name) {
  for (std::size_t l = 0; l < workload.layers.size(); ++l) {
    if (workload.layers[l].name == name) return l;
  }
  ADD_FAILURE() << "no layer " << name;
  return 0;
}

std::tuple<int, int, int> count(const std::vector<StagePart>& parts, TensorCollective kind, bool forward) {
  int calls = 0;
  int layers = 0;
  double bytes = 0;
  for (const StagePart& part : parts) {
    for (const LayerCalls& calls_of : part.calls) {
      const auto& a = forward ? calls_of.forward_before : calls_of.backward_before;
      const auto& b = forward ? calls_of.forward_after : calls_of.backward_after;
      for (const auto* list : {&a, &b}) {
        for (const TensorCall& call : *list) {
          if (call.kind != kind) continue;
          ++calls;
          bytes += call.bytes_per_sample;
        }
      }
      ++layers;
    }
  }
  return {calls, layers, static_cast<int>(bytes)};
}

TEST(ModelPartition, TensorParallelBlocksAllreduceTwiceEachWayOnSequenceTimesHidden) {
  const Workload gpt = eight_block_gpt();
  const auto parts = partition_model(gpt, strategy(4, 1, 1), Precision::fp16);
  ASSERT_EQ(parts.size(), 1u);
  // Per block: after attn.proj and mlp.fc2 forward, after attn.qkv and mlp.fc1 backward; plus the vocabulary-split
  // embedding's forward and the LM head's input gradient: 8 x 2 + 1 each way, of s h = 32 x 64 fp16 elements.
  const auto [forward, layers, forward_bytes] = count(parts, TensorCollective::all_reduce, true);
  const auto [backward, layers_b, backward_bytes] = count(parts, TensorCollective::all_reduce, false);
  EXPECT_EQ(layers, static_cast<int>(gpt.layers.size()));
  EXPECT_EQ(forward, 17);
  EXPECT_EQ(backward, 17);
  EXPECT_EQ(forward_bytes, 17 * 32 * 64 * 2);
  EXPECT_EQ(backward_bytes, 17 * 32 * 64 * 2);
  EXPECT_EQ(std::get<0>(count(parts, TensorCollective::all_gather, true)), 0);
}

TEST(ModelPartition, SequenceParallelTurnsEachAllreduceIntoAnAllgatherAndAReduceScatter) {
  const auto parts = partition_model(eight_block_gpt(), strategy(4, 1, 1, true), Precision::fp16);
  // Forward: an allgather before each column-parallel layer (qkv, fc1, LM head) and a reduce-scatter after each
  // row-parallel one (proj, fc2) and the embedding; backward the mirror image.
  EXPECT_EQ(std::get<0>(count(parts, TensorCollective::all_gather, true)), 17);
  EXPECT_EQ(std::get<0>(count(parts, TensorCollective::reduce_scatter, true)), 17);
  // Backward: an allgather before proj's, fc2's and the embedding's backward (a reduce-scatter's backward).
  EXPECT_EQ(std::get<0>(count(parts, TensorCollective::all_gather, false)), 17);
  EXPECT_EQ(std::get<0>(count(parts, TensorCollective::reduce_scatter, false)), 17);
  EXPECT_EQ(std::get<0>(count(parts, TensorCollective::all_reduce, true)), 0);
}

TEST(ModelPartition, TensorSplitDividesTheBlocksMathAndKeepsNormsWhole) {
  const Workload gpt = eight_block_gpt();
  const auto parts = partition_model(gpt, strategy(4, 1, 1), Precision::fp16);
  for (std::size_t l = 0; l < gpt.layers.size(); ++l) {
    const Layer& whole = gpt.layers[l];
    const Layer& split = parts[0].workload.layers[l];
    const bool divided = whole.name.ends_with(".attn.qkv") || whole.name.ends_with(".attn.core") ||
                         whole.name.ends_with(".attn.proj") || whole.name.ends_with(".mlp.fc1") ||
                         whole.name.ends_with(".mlp.gelu") || whole.name.ends_with(".mlp.fc2");
    if (divided) {
      EXPECT_DOUBLE_EQ(split.forward_flop * 4, whole.forward_flop) << whole.name;
      EXPECT_DOUBLE_EQ(split.parameters * 4, whole.parameters) << whole.name;
      // Row-parallel layers (the attention output and the MLP's down projection) reduce over a quarter of their input
      // features: 64 / 4 and 256 / 4; column-parallel ones over all of them.
      if (whole.name.ends_with(".attn.proj")) {
        EXPECT_DOUBLE_EQ(split.gemm.depth, 16.0) << whole.name;
      }
      if (whole.name.ends_with(".mlp.fc2")) {
        EXPECT_DOUBLE_EQ(split.gemm.depth, 64.0) << whole.name;
      }
      if (whole.name.ends_with(".attn.qkv") || whole.name.ends_with(".mlp.fc1")) {
        EXPECT_DOUBLE_EQ(split.gemm.depth, 64.0) << whole.name;
      }
    } else if (whole.name.ends_with(".ln")) {
      EXPECT_DOUBLE_EQ(split.forward_flop, whole.forward_flop) << whole.name;
    }
    // The vocabulary-parallel loss: each GPU's softmax over its quarter of the logits.
    if (whole.loss_logits > 0) {
      EXPECT_DOUBLE_EQ(split.loss_logits * 4, whole.loss_logits) << whole.name;
    }
  }
}

TEST(ModelPartition, PipelineStagesTakeEqualRunsOfBlocksWithEmbeddingFirstAndHeadLast) {
  const Workload gpt = eight_block_gpt();
  ParallelStrategy s = strategy(1, 4, 4);
  const auto parts = partition_model(gpt, s, Precision::fp16);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts.front().first_layer, 0u);
  EXPECT_EQ(parts.back().end_layer, gpt.layers.size());
  for (std::size_t k = 1; k < parts.size(); ++k) EXPECT_EQ(parts[k].first_layer, parts[k - 1].end_layer);
  // Two blocks of 10 layers each in the middle stages.
  EXPECT_EQ(parts[1].end_layer - parts[1].first_layer, 20u);
  EXPECT_EQ(parts[2].end_layer - parts[2].first_layer, 20u);
  EXPECT_DOUBLE_EQ(parts[0].boundary_bytes_per_sample, 32.0 * 64 * 2);
  s.virtual_stages = 3;
  s.schedule = PipelineSchedule::interleaved;
  EXPECT_NE(partition_problem(gpt, s), "");  // 8 blocks do not split into 12 virtual stages
}

TEST(ModelPartition, UnevenStagesTakeTheirStatedBlocks) {
  // 8 blocks as BLOOM-176B's run split its 70 (the first and last stage one block short, holding the embedding and
  // the head): 1 / 3 / 3 / 1.
  const Workload gpt = eight_block_gpt();
  ParallelStrategy s = strategy(1, 4, 4);
  s.stage_layers = {1, 3, 3, 1};
  ASSERT_EQ(partition_problem(gpt, s), "");
  const auto parts = partition_model(gpt, s, Precision::fp16);
  ASSERT_EQ(parts.size(), 4u);
  for (std::size_t k = 1; k < parts.size(); ++k) EXPECT_EQ(parts[k].first_layer, parts[k - 1].end_layer);
  const std::size_t embedding = parts[0].end_layer - 10;  // the first stage: the embedding's layers, then one block
  EXPECT_EQ(parts[1].end_layer - parts[1].first_layer, 30u);
  EXPECT_EQ(parts[2].end_layer - parts[2].first_layer, 30u);
  EXPECT_EQ(parts[3].end_layer - parts[3].first_layer, gpt.layers.size() - embedding - 70);  // one block, the head
  EXPECT_EQ(gpt.layers[parts[3].first_layer].block, "block7");
  // The busiest stage holds 3 of the 8 blocks: 3/8 of the weights per GPU where an equal split holds 1/4.
  const MemoryFootprint uneven = strategy_memory(gpt, s, Precision::fp16);
  s.stage_layers.clear();
  const MemoryFootprint equal = strategy_memory(gpt, s, Precision::fp16);
  EXPECT_NEAR(uneven.weights_bytes, equal.weights_bytes * 3.0 / 2.0, 1e-9 * equal.weights_bytes);
  EXPECT_NEAR(uneven.activations_bytes, equal.activations_bytes * 3.0 / 2.0, 1e-9 * equal.activations_bytes);
  s.stage_layers = {2, 3, 3};
  EXPECT_EQ(partition_problem(gpt, s), "stage_layers: expected 4 entries (pipeline 4 x virtual stages 1), got 3");
  s.stage_layers = {2, 3, 3, 1};
  EXPECT_EQ(partition_problem(gpt, s), "stage_layers: expected entries summing to the model's 8 layers, got 9");
  s.stage_layers.clear();
  s.pipeline = 3;
  EXPECT_EQ(partition_problem(gpt, s),
            "pipeline: 8 layers do not split into 3 equal stages; give parallelism.stage_layers (blocks per stage) "
            "for an uneven split");
}

TEST(ModelPartition, ScatterGatherSendsATensorGroupsShareAndGathersItOnArrival) {
  // Megatron-LM's default without sequence parallelism: each of t GPUs sends 1/t of the b s h activations and the
  // receivers allgather the whole; with sequence parallelism they are split already; turned off, each sends all.
  const Workload gpt = eight_block_gpt();
  const double activations = 32.0 * 64 * 2;  // s h 16-bit values per sequence
  ParallelStrategy s = strategy(4, 2, 2);
  auto parts = partition_model(gpt, s, Precision::fp16);
  EXPECT_DOUBLE_EQ(parts[0].boundary_bytes_per_sample, activations / 4);
  EXPECT_DOUBLE_EQ(parts[0].received_gather_bytes_per_sample, activations);
  s.sequence_parallel = true;
  parts = partition_model(gpt, s, Precision::fp16);
  EXPECT_DOUBLE_EQ(parts[0].boundary_bytes_per_sample, activations / 4);
  EXPECT_DOUBLE_EQ(parts[0].received_gather_bytes_per_sample, 0.0);
  s.sequence_parallel = false;
  s.scatter_gather = false;
  parts = partition_model(gpt, s, Precision::fp16);
  EXPECT_DOUBLE_EQ(parts[0].boundary_bytes_per_sample, activations);
  EXPECT_DOUBLE_EQ(parts[0].received_gather_bytes_per_sample, 0.0);
}

TEST(ModelPartition, TensorGroupsKeepWholeKeyValueHeads) {
  // 8 query heads in 2 key-value groups: 2 GPUs split them, 4 would split a key-value head (Megatron-LM refuses it).
  TransformerConfig config;
  config.layers = 2;
  config.hidden_size = 64;
  config.heads = 8;
  config.kv_heads = 2;
  config.swiglu = true;
  config.sequence_length = 32;
  config.vocab_size = 100;
  const Workload llama = make_transformer(config, "small", "small Llama");
  EXPECT_EQ(partition_problem(llama, strategy(2, 1, 1)), "");
  EXPECT_EQ(partition_problem(llama, strategy(4, 1, 1)), "tensor: 2 key-value heads do not split over 4 GPUs");
  // SwiGLU's gate is split with the MLP: half its work on each of 2 GPUs.
  const auto parts = partition_model(llama, strategy(2, 1, 1), Precision::fp16);
  for (const Layer& layer : parts.front().workload.layers) {
    if (layer.name == "block0.mlp.swiglu") {
      EXPECT_DOUBLE_EQ(layer.forward_flop, llama.layers[layer_index(llama, "block0.mlp.swiglu")].forward_flop / 2);
    }
  }
}

TEST(PipelineSchedule, OneForwardOneBackwardWarmsUpWithTheStagesAfterIt) {
  const ParallelStrategy s = strategy(1, 4, 8);
  for (int stage = 0; stage < 4; ++stage) {
    const auto passes = pipeline_schedule(s, stage);
    ASSERT_EQ(passes.size(), 16u);
    const int warmup = 4 - stage - 1;
    for (int k = 0; k < warmup; ++k) EXPECT_TRUE(passes[static_cast<std::size_t>(k)].forward);
    // Then alternately: forward warmup + i, backward i.
    for (int i = 0; i < 8 - warmup; ++i) {
      EXPECT_TRUE(passes[static_cast<std::size_t>(warmup + 2 * i)].forward);
      EXPECT_EQ(passes[static_cast<std::size_t>(warmup + 2 * i)].micro, warmup + i);
      EXPECT_FALSE(passes[static_cast<std::size_t>(warmup + 2 * i + 1)].forward);
      EXPECT_EQ(passes[static_cast<std::size_t>(warmup + 2 * i + 1)].micro, i);
    }
  }
}

TEST(PipelineSchedule, InterleavedRunsEveryChunkOfEveryMicroBatchOnceEachWayForwardFirst) {
  ParallelStrategy s = strategy(1, 2, 4);
  s.schedule = PipelineSchedule::interleaved;
  s.virtual_stages = 2;
  for (int stage = 0; stage < 2; ++stage) {
    const auto passes = pipeline_schedule(s, stage);
    ASSERT_EQ(passes.size(), 16u);
    std::set<std::tuple<bool, int, int>> seen;
    std::set<std::pair<int, int>> forwarded;
    for (const PipelinePass& pass : passes) {
      EXPECT_TRUE(seen.insert({pass.forward, pass.micro, pass.chunk}).second);
      if (pass.forward) forwarded.insert({pass.micro, pass.chunk});
      if (!pass.forward) {
        EXPECT_TRUE(forwarded.contains({pass.micro, pass.chunk}));
      }
    }
    // Megatron's warm-up: 2 (p - stage - 1) + (v - 1) p forwards.
    const int warmup = 2 * (2 - stage - 1) + 2;
    for (int k = 0; k < warmup; ++k) EXPECT_TRUE(passes[static_cast<std::size_t>(k)].forward);
    EXPECT_FALSE(passes[static_cast<std::size_t>(warmup + 1)].forward);
  }
}

}  // namespace
}  // namespace vtsim
