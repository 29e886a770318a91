// What each ZeRO stage does at run time (models/parallel/zero_sharding.hpp), against ZERO's description of the stages
// (Rajbhandari et al., SC'20, section 5) and counts worked by hand.

#include "models/parallel/zero_sharding.hpp"

#include <gtest/gtest.h>

namespace vtsim {
namespace {

TEST(ZeroSharding, WhatEachStageShardsAndWhenItReduces) {
  const ZeroSharding none{0, 8}, one{1, 8}, two{2, 8}, three{3, 8};
  EXPECT_EQ(none.gradient_collective(), Collective::allreduce);
  for (const ZeroSharding& zero : {one, two, three}) {
    EXPECT_EQ(zero.gradient_collective(), Collective::reduce_scatter);
    EXPECT_DOUBLE_EQ(zero.optimizer_share(), 1.0 / 8);
  }
  EXPECT_DOUBLE_EQ(none.optimizer_share(), 1.0);
  EXPECT_FALSE(none.shards_optimizer());
  EXPECT_FALSE(none.reduces_every_micro_batch());
  EXPECT_FALSE(none.gathers_after_step());
  EXPECT_FALSE(none.gathers_per_layer());
  EXPECT_FALSE(one.reduces_every_micro_batch());
  EXPECT_TRUE(two.reduces_every_micro_batch());
  EXPECT_TRUE(three.reduces_every_micro_batch());
  // The weights are gathered once after the step under stages 1 and 2, per layer under stage 3.
  EXPECT_TRUE(one.gathers_after_step());
  EXPECT_TRUE(two.gathers_after_step());
  EXPECT_FALSE(three.gathers_after_step());
  EXPECT_TRUE(three.gathers_per_layer());
  EXPECT_TRUE(three.shards_weights());
  for (const ZeroSharding& zero : {none, one, two}) {
    EXPECT_FALSE(zero.gathers_per_layer());
    EXPECT_FALSE(zero.shards_weights());
  }
  // Over one rank nothing is gathered.
  EXPECT_FALSE((ZeroSharding{2, 1}.gathers_after_step()));
  EXPECT_FALSE((ZeroSharding{3, 1}.gathers_per_layer()));
  EXPECT_TRUE((ZeroSharding{3, 1}.shards_weights()));
}

TEST(ZeroSharding, BytesInAllreduceEquivalents) {
  // 100 bytes of gradients, 300 of weights, 4 micro-batches; a reduce-scatter or an allgather is half an allreduce.
  EXPECT_DOUBLE_EQ((ZeroSharding{0, 4}.allreduce_equivalents(100, 300, 4)), 100);
  EXPECT_DOUBLE_EQ((ZeroSharding{1, 4}.allreduce_equivalents(100, 300, 4)), 50 + 150);
  EXPECT_DOUBLE_EQ((ZeroSharding{2, 4}.allreduce_equivalents(100, 300, 4)), 4 * 50 + 150);
  // Stage 3 gathers the weights before each of the 4 forward and 4 backward passes.
  EXPECT_DOUBLE_EQ((ZeroSharding{3, 4}.allreduce_equivalents(100, 300, 4)), 4 * 50 + 8 * 150);
}

TEST(ZeroSharding, OfAStrategy) {
  ParallelStrategy strategy;
  strategy.data = 16;
  strategy.zero_stage = 2;
  const ZeroSharding zero = ZeroSharding::of(strategy);
  EXPECT_EQ(zero.stage, 2);
  EXPECT_EQ(zero.data, 16);
}

}  // namespace
}  // namespace vtsim
