// Layer and Workload totals, the layer builder's per-operation costs, and the catalog's contract.

#include "models/workload/workload.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "models/workload/layer_builder.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

Layer make_layer(std::string name, std::string block, double parameters, bool trainable) {
  Layer layer;
  layer.name = std::move(name);
  layer.block = std::move(block);
  layer.forward_flop = 10.0;
  layer.backward_flop = 20.0;
  layer.activation_elements = 3.0;
  layer.stored_activation_elements = 2.0;
  layer.parameters = parameters;
  layer.trainable = trainable;
  return layer;
}

TEST(Layer, GradientBytesAreFourPerTrainableParameter) {
  EXPECT_DOUBLE_EQ(make_layer("fc", "", 1000.0, true).gradient_bytes(), 4000.0);
  EXPECT_DOUBLE_EQ(make_layer("conv1", "", 1000.0, false).gradient_bytes(), 0.0);
}

TEST(Workload, TotalsSumTheLayers) {
  Workload w;
  w.layers = {make_layer("a", "x", 100.0, false), make_layer("b", "x", 50.0, true), make_layer("c", "y", 0.0, true)};
  w.layers[2].stored_mask_elements = 5.0;
  EXPECT_DOUBLE_EQ(w.parameters(), 150.0);
  EXPECT_DOUBLE_EQ(w.trainable_parameters(), 50.0);
  EXPECT_DOUBLE_EQ(w.gradient_bytes(), 200.0);
  EXPECT_DOUBLE_EQ(w.forward_flop(), 30.0);
  EXPECT_DOUBLE_EQ(w.backward_flop(), 60.0);
  EXPECT_DOUBLE_EQ(w.activation_elements(), 9.0);
  EXPECT_DOUBLE_EQ(w.stored_activation_bytes(2.0), 6.0 * 2 + 5.0);  // 3 x 2 elements at 2 B, the mask at 1 B
}

// ResNet's stem conv by hand: 7x7x3x64 = 9,408 weights; 224 -> floor((224 + 6 - 7) / 2) + 1 = 112.
TEST(LayerBuilder, ConvShapeAndCostsMatchAHandCount) {
  LayerBuilder b;
  const Tensor image = LayerBuilder::input(3, 224, 224);
  const Tensor y = b.conv2d(image, "conv1", Conv2d::square(64, 7, 2, 3));
  EXPECT_EQ(y.height, 112);
  EXPECT_EQ(y.width, 112);
  const std::vector<Layer> layers = b.take_layers();
  const Layer& conv = layers.at(0);
  EXPECT_DOUBLE_EQ(conv.parameters, 9408.0);
  EXPECT_DOUBLE_EQ(conv.forward_flop, 2.0 * 9408.0 * 112 * 112);
  // The image needs no gradient: backward is the weight gradient only.
  EXPECT_DOUBLE_EQ(conv.backward_flop, conv.forward_flop);
  EXPECT_DOUBLE_EQ(conv.activation_elements, 3.0 * 224 * 224 + 64.0 * 112 * 112);
  // Saves the image for the weight gradient; its own output is not needed by anyone yet.
  EXPECT_DOUBLE_EQ(conv.stored_activation_elements, 3.0 * 224 * 224);
  // Its implicit GEMM reduces over 3 channels x 7 x 7 filter taps.
  EXPECT_DOUBLE_EQ(conv.gemm.depth, 147.0);
}

TEST(LayerBuilder, ALinearLayersProductReducesOverItsInputFeatures) {
  LayerBuilder b;
  const Tensor tokens = LayerBuilder::input(768, 1, 128);
  b.linear(tokens, "fc", 3072, true);
  EXPECT_DOUBLE_EQ(b.take_layers().at(0).gemm.depth, 768.0);
}

TEST(LayerBuilder, TrainedLayerAfterTheFirstCostsTwiceForwardInBackward) {
  LayerBuilder b;
  Tensor x = b.conv2d(LayerBuilder::input(3, 8, 8), "conv1", Conv2d::square(4, 3, 1, 1));
  x = b.conv2d(x, "conv2", Conv2d::square(4, 3, 1, 1).with_bias());
  const std::vector<Layer> layers = b.take_layers();
  // 3x3x4x4 weights + 4 biases; 2 flop per multiply-add + 1 per bias add.
  EXPECT_DOUBLE_EQ(layers[1].parameters, 148.0);
  EXPECT_DOUBLE_EQ(layers[1].forward_flop, 2.0 * 144 * 64 + 4 * 64);
  EXPECT_DOUBLE_EQ(layers[1].backward_flop, 2.0 * layers[1].forward_flop);
}

TEST(LayerBuilder, BatchNormParametersFollowItsKind) {
  LayerBuilder b;
  const Tensor x = b.conv2d(LayerBuilder::input(3, 8, 8), "conv", Conv2d::square(16, 1));
  b.batch_norm(x, "bn", NormKind::batch_norm, true);
  b.batch_norm(x, "bn_keras", NormKind::batch_norm_no_scale, true);
  b.batch_norm(x, "bn_frozen", NormKind::frozen_batch_norm, true);
  const std::vector<Layer> layers = b.take_layers();
  EXPECT_DOUBLE_EQ(layers[1].parameters, 32.0);  // gamma and beta
  EXPECT_DOUBLE_EQ(layers[2].parameters, 16.0);  // beta only
  EXPECT_DOUBLE_EQ(layers[3].parameters, 0.0);   // buffers only
}

// conv1 -> bn1+relu -> conv2 -> bn2: each saved tensor counted once, at the layer that makes it.
TEST(LayerBuilder, SavedTensorsAreCountedOnceAtTheirProducer) {
  LayerBuilder b;
  const Tensor image = LayerBuilder::input(3, 8, 8);
  Tensor x = b.conv2d(image, "conv1", Conv2d::square(4, 3, 1, 1));
  x = b.batch_norm(x, "bn1", NormKind::batch_norm, true);
  x = b.conv2d(x, "conv2", Conv2d::square(4, 3, 1, 1));
  b.batch_norm(x, "bn2", NormKind::batch_norm, false);
  const std::vector<Layer> layers = b.take_layers();
  const double map = 4.0 * 8 * 8;
  EXPECT_DOUBLE_EQ(layers[0].stored_activation_elements, 3.0 * 8 * 8 + map);  // image; its output, bn1's input
  EXPECT_DOUBLE_EQ(layers[1].stored_activation_elements, map);  // relu output, also conv2's input: once
  EXPECT_DOUBLE_EQ(layers[2].stored_activation_elements, map);  // bn2's input
  EXPECT_DOUBLE_EQ(layers[3].stored_activation_elements, 0.0);
}

TEST(LayerBuilder, FrozenPrefixHasNoGradientAndNoBackward) {
  LayerBuilder b;
  b.set_trainable(false);
  Tensor x = b.conv2d(LayerBuilder::input(3, 8, 8), "conv1", Conv2d::square(4, 3, 1, 1));
  x = b.batch_norm(x, "bn1", NormKind::frozen_batch_norm, true);
  b.set_trainable(true);
  b.conv2d(x, "conv2", Conv2d::square(4, 3, 1, 1));
  const std::vector<Layer> layers = b.take_layers();
  EXPECT_FALSE(layers[0].trainable);
  EXPECT_DOUBLE_EQ(layers[0].gradient_bytes(), 0.0);
  EXPECT_DOUBLE_EQ(layers[0].backward_flop, 0.0);
  EXPECT_DOUBLE_EQ(layers[1].backward_flop, 0.0);
  EXPECT_DOUBLE_EQ(layers[0].stored_activation_elements, 0.0);
  EXPECT_DOUBLE_EQ(layers[1].stored_activation_elements, 4.0 * 8 * 8);  // conv2 needs it for its weight gradient
  EXPECT_DOUBLE_EQ(layers[2].backward_flop, layers[2].forward_flop);    // weight gradient only
}

TEST(LayerBuilder, SharedWeightsAreCountedAtTheFirstUser) {
  LayerBuilder b;
  const Conv2d head = Conv2d::square(8, 3, 1, 1).with_bias(Epilogue::relu);
  const Tensor fine = b.conv2d(LayerBuilder::input(8, 16, 16), "p2", Conv2d::square(8, 1));
  b.conv2d(fine, "head.p2", head);
  b.conv2d(b.max_pool(fine, "pool", 2, 2, 0), "head.p3", head.sharing_weights());
  const std::vector<Layer> layers = b.take_layers();
  EXPECT_DOUBLE_EQ(layers[1].parameters, 8.0 * 8 * 9 + 8);
  EXPECT_DOUBLE_EQ(layers[3].parameters, 0.0);
  EXPECT_DOUBLE_EQ(layers[3].backward_flop, 2.0 * layers[3].forward_flop);  // still computes a weight gradient
}

TEST(LayerBuilder, PoolingAndConcatShapes) {
  LayerBuilder b;
  const Tensor x = b.conv2d(LayerBuilder::input(3, 147, 147), "conv", Conv2d::square(64, 1));
  const Tensor valid = b.max_pool(x, "keras_pool", 3, 2, 0);  // floor((147 - 3) / 2) + 1
  EXPECT_EQ(valid.height, 73);
  const Tensor torch = b.max_pool(LayerBuilder::input(64, 112, 112), "torch_pool", 3, 2, 1);
  EXPECT_EQ(torch.height, 56);
  const Tensor same = b.avg_pool(x, "avg", 3, 1, 1);
  EXPECT_EQ(same.height, 147);
  const Tensor joined = b.concat({x, same}, "concat");
  EXPECT_EQ(joined.channels, 128);
}

// Attention core for s tokens, hidden h, a heads: Q.K^T and P.V are s^2 h multiply-adds each; softmax and dropout
// touch a s^2 scores; backward doubles the products (two activation operands each).
TEST(LayerBuilder, AttentionCoreMatchesItsClosedForm) {
  constexpr double s = 16, h = 64, a = 4;
  LayerBuilder b;
  const Tensor ids = LayerBuilder::input(1, 16);
  const Tensor x = b.embedding(ids, "emb", {100, 16}, 64);
  const Tensor qkv = b.linear(x, "qkv", 192);
  b.attention(qkv, "core", 4, 4, true);
  const std::vector<Layer> layers = b.take_layers();
  const Layer& core = layers.at(2);
  const double products = 2.0 * 2.0 * s * s * h;
  const double scores = a * s * s * (kSoftmaxFlopPerElement + kDropoutFlopPerElement);
  EXPECT_DOUBLE_EQ(core.forward_flop, products + scores);
  EXPECT_DOUBLE_EQ(core.backward_flop, 2.0 * products + scores);
  EXPECT_DOUBLE_EQ(core.stored_activation_elements, 2.0 * a * s * s);  // probabilities, dropped probabilities
  EXPECT_DOUBLE_EQ(core.stored_mask_elements, a * s * s);               // the dropout mask, one byte each
  EXPECT_DOUBLE_EQ(layers.at(1).stored_activation_elements, 3.0 * s * h);  // Q, K, V at the QKV projection
  EXPECT_DOUBLE_EQ(core.parameters, 0.0);
}

TEST(LayerBuilder, EmbeddingBackwardIsAScatterAddPerTable) {
  LayerBuilder b;
  b.embedding(LayerBuilder::input(1, 10), "emb", {1000, 512, 2}, 8);
  const Layer layer = b.take_layers().at(0);
  EXPECT_DOUBLE_EQ(layer.parameters, (1000.0 + 512 + 2) * 8);
  EXPECT_DOUBLE_EQ(layer.forward_flop, 2.0 * 10 * 8);   // two additions per element
  EXPECT_DOUBLE_EQ(layer.backward_flop, 3.0 * 10 * 8);  // one scatter-add per table
}

TEST(WorkloadCatalog, ListsTheRequiredIdsAndBuildsEach) {
  const std::set<std::string> required = {"resnet-50",
                                          "resnet-101",
                                          "vgg-16",
                                          "inception-v3",
                                          "mask-rcnn-r50-fpn",
                                          "bert-large-pretrain-seq128",
                                          "bert-large-pretrain-seq512",
                                          "bert-large-squad-seq384",
                                          "gpt2-small",
                                          "gpt2-xl",
                                          "gpt3-175b"};
  const std::vector<std::string>& ids = workload_ids();
  const std::set<std::string> listed(ids.begin(), ids.end());
  EXPECT_EQ(listed.size(), ids.size()) << "duplicate id";
  for (const std::string& id : required) EXPECT_TRUE(listed.count(id)) << id;
  EXPECT_EQ(&ids, &workload_ids()) << "one stable list";
  EXPECT_FALSE(make_workload("resnet-5O").has_value());
  EXPECT_FALSE(make_workload("").has_value());
}

TEST(WorkloadCatalog, EveryWorkloadIsWellFormed) {
  for (const std::string& id : workload_ids()) {
    SCOPED_TRACE(id);
    const std::optional<Workload> w = make_workload(id);
    ASSERT_TRUE(w.has_value());
    EXPECT_EQ(w->id, id);
    EXPECT_FALSE(w->name.empty());
    EXPECT_FALSE(w->source.empty());
    EXPECT_FALSE(w->input.empty());
    EXPECT_TRUE(w->sample_unit == "image" || w->sample_unit == "sequence");
    EXPECT_GT(w->published_parameters, 0.0);
    ASSERT_FALSE(w->layers.empty());
    std::set<std::string> names;
    for (const Layer& layer : w->layers) {
      EXPECT_TRUE(names.insert(layer.name).second) << "duplicate layer " << layer.name;
      EXPECT_GE(layer.forward_flop, 0.0) << layer.name;
      EXPECT_GE(layer.backward_flop, 0.0) << layer.name;
      EXPECT_LE(layer.backward_flop, 2.0 * layer.forward_flop * (1.0 + 1e-12)) << layer.name;
      EXPECT_GE(layer.activation_elements, 0.0) << layer.name;
      EXPECT_GE(layer.stored_activation_elements, 0.0) << layer.name;
      EXPECT_GE(layer.parameters, 0.0) << layer.name;
    }
    EXPECT_DOUBLE_EQ(w->gradient_bytes(), 4.0 * w->trainable_parameters());
    EXPECT_GT(w->stored_activation_bytes(2.0), 0.0);
    EXPECT_GT(w->activation_elements(), 0.0);
  }
}

}  // namespace
}  // namespace vtsim
