// The memory footprint of one rank, by hand for a synthetic workload, and the fit checks the design demands: a model
// that does not fit is an error with its numbers, not a number.

#include "models/compute/memory_model.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "models/workload/workload_catalog.hpp"
#include "tests/models/models_test_support.hpp"

namespace vtsim {
namespace {

using test_support::kGiB;

// 1,000 trainable and 500 frozen parameters; 100 + 50 activation elements kept per sample.
Workload small_workload(Optimizer optimizer) {
  Layer trained;
  trained.parameters = 1000.0;
  trained.stored_activation_elements = 100.0;
  Layer frozen;
  frozen.parameters = 500.0;
  frozen.stored_activation_elements = 50.0;
  frozen.trainable = false;
  Workload w;
  w.layers = {frozen, trained};
  w.optimizer = optimizer;
  return w;
}

TEST(MemoryFootprint, AdamUnderAmpByHand) {
  const MemoryFootprint m = memory_footprint(small_workload(Optimizer::adam), 8, Precision::fp16);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 1500.0 * (4 + 2));  // fp32 master + fp16 copy of every parameter
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 1000.0 * 4);      // fp32 gradients of the trainable ones
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 1000.0 * 8);      // two fp32 moments
  EXPECT_DOUBLE_EQ(m.activations_bytes, 8 * 150.0 * 2);  // batch x kept elements x 2 B
  EXPECT_DOUBLE_EQ(m.workspace_bytes, workspace_allowance_bytes());
  EXPECT_DOUBLE_EQ(m.total_bytes(), 9000.0 + 4000.0 + 8000.0 + 2400.0 + workspace_allowance_bytes());
}

TEST(MemoryFootprint, MomentumInTf32ByHand) {
  const MemoryFootprint m = memory_footprint(small_workload(Optimizer::sgd_momentum), 8, Precision::tf32);
  EXPECT_DOUBLE_EQ(m.weights_bytes, 1500.0 * 4);
  EXPECT_DOUBLE_EQ(m.gradients_bytes, 1000.0 * 4);
  EXPECT_DOUBLE_EQ(m.optimizer_bytes, 1000.0 * 4);      // one fp32 momentum buffer
  EXPECT_DOUBLE_EQ(m.activations_bytes, 8 * 150.0 * 4);  // TF32 keeps fp32 activations
}

TEST(MemoryFootprint, EachOptimizerKeepsItsOwnState) {
  // fp32 state per trainable parameter: SGD none; momentum one buffer; Adam, AdamW and LAMB two moments; Adafactor
  // without a first moment a factored second moment (a row and a column per matrix), counted as none.
  for (const auto& [optimizer, bytes] : std::vector<std::pair<Optimizer, double>>{{Optimizer::sgd, 0},
                                                                                 {Optimizer::sgd_momentum, 4},
                                                                                 {Optimizer::adam, 8},
                                                                                 {Optimizer::adamw, 8},
                                                                                 {Optimizer::lamb, 8},
                                                                                 {Optimizer::adafactor, 0}}) {
    EXPECT_DOUBLE_EQ(memory_footprint(small_workload(optimizer), 8, Precision::fp16).optimizer_bytes, 1000.0 * bytes)
        << to_string(optimizer);
  }
}

TEST(MemoryFootprint, DropoutMasksTakeOneByteInEveryPrecision) {
  Workload w = small_workload(Optimizer::adam);
  w.layers[1].stored_mask_elements = 30.0;  // a bool mask (PyTorch's native_dropout; Korthikanti et al. 2022)
  EXPECT_DOUBLE_EQ(memory_footprint(w, 8, Precision::fp16).activations_bytes, 8 * (150.0 * 2 + 30.0));
  EXPECT_DOUBLE_EQ(memory_footprint(w, 8, Precision::fp32).activations_bytes, 8 * (150.0 * 4 + 30.0));
}

TEST(MemoryShortfall, IsEmptyWhenItFitsAndOneLineWhenNot) {
  const MemoryFootprint m{.weights_bytes = 1.9 * kGiB,
                          .gradients_bytes = 1.3 * kGiB,
                          .optimizer_bytes = 2.5 * kGiB,
                          .activations_bytes = 39.1 * kGiB,
                          .workspace_bytes = 0.5 * kGiB};
  EXPECT_EQ(memory_shortfall(m, 45.3 * kGiB + 1.0, "A100X-40C"), "");
  EXPECT_EQ(memory_shortfall(m, 20.0 * kGiB, "A100X-20C"),
            "needs 45.3 GiB per GPU (weights 1.9, gradients 1.3, optimizer 2.5, activations 39.1, workspace 0.5) but "
            "A100X-20C has 20.0 GiB");
}

TEST(MemoryShortfall, BertLargeSquadBatch32AmpFitsIn40GiB) {
  // The seed study's job on an A100 40GB (NVIDIA DeepLearningExamples trains it at batch 32 with AMP on one GPU).
  const Workload squad = *make_workload("bert-large-squad-seq384");
  const MemoryFootprint m = memory_footprint(squad, 32, Precision::fp16);
  EXPECT_EQ(memory_shortfall(m, 40 * kGiB, "A100 40GB"), "");
  // Model state by hand for ~335M parameters, all trained but the 1M of the unused pooler: 6 + 4 + 8 = 18 B each.
  EXPECT_NEAR(m.weights_bytes + m.gradients_bytes + m.optimizer_bytes, 335e6 * 18, 0.01 * 335e6 * 18);
}

TEST(MemoryShortfall, Gpt3DoesNotFitIn80GiB) {
  // 175e9 parameters x 6 B of weights alone is 978 GiB.
  const MemoryFootprint m = memory_footprint(*make_workload("gpt3-175b"), 1, Precision::fp16);
  EXPECT_GT(m.weights_bytes, 175e9 * 6 * 0.99);
  const std::string message = memory_shortfall(m, 80 * kGiB, "A100 80GB");
  EXPECT_EQ(message.rfind("needs ", 0), 0u) << message;
  EXPECT_NE(message.find("but A100 80GB has 80.0 GiB"), std::string::npos) << message;
}

}  // namespace
}  // namespace vtsim
