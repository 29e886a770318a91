// CNN workloads against their published parameter counts and multiply-add figures, with the hand derivations.

#include <gtest/gtest.h>

#include <array>
#include <functional>
#include <string>
#include <string_view>

#include "models/workload/workload_catalog.hpp"
#include "tests/models/models_test_support.hpp"

namespace vtsim {
namespace {

double sum_parameters(const Workload& w, const std::function<bool(const Layer&)>& selected) {
  double total = 0.0;
  for (const Layer& layer : w.layers) total += selected(layer) ? layer.parameters : 0.0;
  return total;
}

double sum_forward_flop(const Workload& w, const std::function<bool(const Layer&)>& selected) {
  double total = 0.0;
  for (const Layer& layer : w.layers) total += selected(layer) ? layer.forward_flop : 0.0;
  return total;
}

using test_support::layer_named;

bool in_block(const Layer& layer, std::string_view prefix) { return layer.block.rfind(prefix, 0) == 0; }

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A ResNet backbone convolution (not a normalisation, pool or add).
bool is_backbone_conv(const Layer& layer) {
  if (!in_block(layer, "stem") && !in_block(layer, "layer")) return false;
  for (std::string_view suffix : {".conv1", ".conv2", ".conv3", ".downsample.0"}) {
    if (ends_with(layer.name, suffix)) return true;
  }
  return false;
}

// Weights of a bottleneck ResNet's convolutions, by hand: stem 7x7x3x64; per stage of width w (64, 128, 256, 512)
// the first block 1x1 in->w, 3x3 w->w, 1x1 w->4w and the projection in->4w, the others 4w->w, 3x3, w->4w.
double resnet_conv_weights(const std::array<int, 4>& blocks) {
  double total = 7.0 * 7 * 3 * 64;
  double in = 64;
  for (int stage = 0; stage < 4; ++stage) {
    const double w = 64 << stage;
    total += in * w + 9 * w * w + w * 4 * w + in * 4 * w;
    total += (blocks[stage] - 1) * (4 * w * w + 9 * w * w + w * 4 * w);
    in = 4 * w;
  }
  return total;
}

// gamma + beta of every BatchNorm: stem 64; per block w, w, 4w (+ 4w for the projection).
double resnet_bn_parameters(const std::array<int, 4>& blocks) {
  double total = 2.0 * 64;
  for (int stage = 0; stage < 4; ++stage) {
    const double w = 64 << stage;
    total += blocks[stage] * 2.0 * (6 * w) + 2.0 * 4 * w;
  }
  return total;
}

TEST(ResNet50, MatchesTorchvisionParameterCount) {
  const Workload w = make_resnet50();
  // torchvision resnet50 weights table: 25,557,032 parameters.
  EXPECT_DOUBLE_EQ(w.parameters(), 25'557'032);
  EXPECT_DOUBLE_EQ(w.published_parameters, 25'557'032);
  EXPECT_DOUBLE_EQ(w.trainable_parameters(), w.parameters());
  const std::array<int, 4> blocks = {3, 4, 6, 3};
  EXPECT_DOUBLE_EQ(sum_parameters(w, is_backbone_conv), 23'454'912);
  EXPECT_DOUBLE_EQ(sum_parameters(w, is_backbone_conv), resnet_conv_weights(blocks));
  EXPECT_DOUBLE_EQ(w.parameters(), resnet_conv_weights(blocks) + resnet_bn_parameters(blocks) + 2048.0 * 1000 + 1000);
  EXPECT_DOUBLE_EQ(w.gradient_bytes(), 4.0 * 25'557'032);
  // len(list(torchvision.models.resnet50().parameters())): 53 bias-free convolutions, 53 batch norms' scale and
  // shift, the classifier's weight and bias.
  EXPECT_EQ(w.trainable_parameter_tensors(), 53 + 2 * 53 + 2);
}

TEST(ResNet50, ForwardIsAbout4point1GigaMultiplyAdds) {
  // He et al. 2016, Table 1: 3.8e9 for v1; v1.5 moves the stride into the 3x3 conv: torchvision lists 4.09 GMAC.
  const Workload w = make_resnet50();
  EXPECT_NEAR(w.forward_flop() / 2.0, 4.09e9, 0.03 * 4.09e9);
  EXPECT_NEAR(w.backward_flop() / w.forward_flop(), 2.0, 0.05);  // only the stem conv skips its input gradient
}

TEST(ResNet101, MatchesTorchvisionParameterCountAndMultiplyAdds) {
  const Workload w = make_resnet101();
  // torchvision resnet101 weights table: 44,549,160 parameters, 7.80 GMAC.
  EXPECT_DOUBLE_EQ(w.parameters(), 44'549'160);
  const std::array<int, 4> blocks = {3, 4, 23, 3};
  EXPECT_DOUBLE_EQ(w.parameters(), resnet_conv_weights(blocks) + resnet_bn_parameters(blocks) + 2048.0 * 1000 + 1000);
  EXPECT_NEAR(w.forward_flop() / 2.0, 7.8e9, 0.03 * 7.8e9);
}

TEST(Vgg16, MatchesTorchvisionParameterCountAndMultiplyAdds) {
  const Workload w = make_vgg16();
  // torchvision vgg16 weights table: 138,357,544 parameters. By hand: 13 3x3 convs with bias, then
  // 25088x4096, 4096x4096, 4096x1000 with biases.
  EXPECT_DOUBLE_EQ(w.parameters(), 138'357'544);
  const std::array<std::array<int, 2>, 13> convs = {{{3, 64}, {64, 64}, {64, 128}, {128, 128}, {128, 256},
                                                     {256, 256}, {256, 256}, {256, 512}, {512, 512}, {512, 512},
                                                     {512, 512}, {512, 512}, {512, 512}}};
  double by_hand = 25088.0 * 4096 + 4096 + 4096.0 * 4096 + 4096 + 4096.0 * 1000 + 1000;
  for (const auto& [in, out] : convs) by_hand += 9.0 * in * out + out;
  EXPECT_DOUBLE_EQ(w.parameters(), by_hand);
  // Simonyan & Zisserman 2015 (configuration D); torchvision lists 15.47 GMAC: about 15.5e9.
  EXPECT_NEAR(w.forward_flop() / 2.0, 15.5e9, 0.03 * 15.5e9);
}

TEST(InceptionV3, MatchesKerasTrainableParameterCount) {
  const Workload w = make_inception_v3();
  // Keras InceptionV3 model.summary(): Total params 23,851,784; Trainable params 23,817,352.
  EXPECT_DOUBLE_EQ(w.parameters(), 23'817'352);
  EXPECT_DOUBLE_EQ(w.trainable_parameters(), 23'817'352);
  // The difference is the moving mean and variance of every BatchNormalization(scale=False), which has one
  // trainable beta per channel: total = trainable + 2 x betas.
  const auto is_bn = [](const Layer& layer) { return ends_with(layer.name, ".bn"); };
  EXPECT_DOUBLE_EQ(w.parameters() + 2.0 * sum_parameters(w, is_bn), 23'851'784);
  int convs = 0;
  for (const Layer& layer : w.layers) convs += ends_with(layer.name, ".conv") ? 1 : 0;
  EXPECT_EQ(convs, 94);  // Keras InceptionV3 has 94 Conv2D layers
  EXPECT_DOUBLE_EQ(layer_named(w, "head.predictions").parameters, 2048.0 * 1000 + 1000);  // 8x8x2048 at the end
  // Szegedy et al. 2016 quote about 5 billion multiply-adds; torchvision lists 5.71 GMAC for the same network.
  EXPECT_NEAR(w.forward_flop() / 2.0, 5.71e9, 0.03 * 5.71e9);
}

TEST(MaskRcnn, MatchesTorchvisionParameterCountPartByPart) {
  const Workload w = make_mask_rcnn_r50_fpn();
  // torchvision maskrcnn_resnet50_fpn weights table: 44,401,393 parameters.
  EXPECT_DOUBLE_EQ(w.parameters(), 44'401'393);
  // ResNet-50 body with FrozenBatchNorm2d: convolution weights only.
  EXPECT_DOUBLE_EQ(sum_parameters(w, [](const Layer& l) { return in_block(l, "stem") || in_block(l, "layer"); }),
                   23'454'912);
  // FPN: 1x1 laterals (256, 512, 1024, 2048 -> 256, with bias) and four 3x3 256 -> 256 outputs with bias.
  EXPECT_DOUBLE_EQ(sum_parameters(w, [](const Layer& l) { return l.block == "fpn"; }),
                   (256.0 + 512 + 1024 + 2048) * 256 + 4 * 256 + 4 * (9.0 * 256 * 256 + 256));
  EXPECT_DOUBLE_EQ(sum_parameters(w, [](const Layer& l) { return l.block == "fpn"; }), 3'344'384);
  // RPN head: 3x3 conv 256 -> 256, 1x1 to 3 objectness logits and 12 box deltas, with biases; shared by the levels.
  EXPECT_DOUBLE_EQ(sum_parameters(w, [](const Layer& l) { return l.block == "rpn"; }), 593'935);
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.box.box_head.fc6").parameters, 256.0 * 7 * 7 * 1024 + 1024);
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.box.box_head.fc7").parameters, 1'049'600);
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.box.box_predictor.cls_score").parameters, 93'275);
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.box.box_predictor.bbox_pred").parameters, 373'100);
  EXPECT_DOUBLE_EQ(sum_parameters(w, [](const Layer& l) { return l.name.find("mask_fcn") != std::string::npos &&
                                                                 l.name.find("logits") == std::string::npos; }),
                   2'360'320);
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.mask.mask_predictor.conv5_mask").parameters, 262'400);
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.mask.mask_predictor.mask_fcn_logits").parameters, 23'387);
}

TEST(MaskRcnn, FreezesTheStemAndLayer1) {
  const Workload w = make_mask_rcnn_r50_fpn();
  // Stem 7x7x3x64 = 9,408; layer1 block 0: 64x64 + 9x64x64 + 64x256 + 64x256 (projection) = 73,728; blocks 1 and 2:
  // 256x64 + 9x64x64 + 64x256 = 69,632 each. Frozen: 222,400.
  EXPECT_DOUBLE_EQ(w.trainable_parameters(), 44'401'393 - 222'400);
  EXPECT_DOUBLE_EQ(w.gradient_bytes(), 4.0 * (44'401'393 - 222'400));
  for (const Layer& layer : w.layers) {
    if (!in_block(layer, "stem") && !in_block(layer, "layer1.")) continue;
    SCOPED_TRACE(layer.name);
    EXPECT_FALSE(layer.trainable);
    EXPECT_DOUBLE_EQ(layer.backward_flop, 0.0);
    // Only layer1's output (C2) is kept: layer2 and the FPN lateral need it for their weight gradients.
    const double kept = layer.name == "layer1.2.add_relu" ? 256.0 * 200 * 336 : 0.0;
    EXPECT_DOUBLE_EQ(layer.stored_activation_elements, kept);
  }
  // The first trained conv reads C2, which needs no gradient: backward is its weight gradient only.
  const Layer& first_trained = layer_named(w, "layer2.0.conv1");
  EXPECT_DOUBLE_EQ(first_trained.backward_flop, first_trained.forward_flop);
}

TEST(MaskRcnn, FlopFollowTheImageSizeAndRoiCounts) {
  const Workload w = make_mask_rcnn_r50_fpn();
  const Workload resnet = make_resnet50();
  // 800x1344 halves exactly down to 25x42, as 224x224 does to 7x7: the backbone convs scale with the pixel count.
  EXPECT_NEAR(sum_forward_flop(w, is_backbone_conv),
              sum_forward_flop(resnet, is_backbone_conv) * (800.0 * 1344) / (224.0 * 224), 1e-6 * 1e12);
  // P2 is 200x336: the FPN output conv and the RPN conv there are 3x3x256x256 per position (+ bias; + ReLU).
  const double p2 = 200.0 * 336;
  EXPECT_DOUBLE_EQ(layer_named(w, "fpn.layer_blocks.0").forward_flop, 2.0 * p2 * 9 * 256 * 256 + p2 * 256);
  EXPECT_DOUBLE_EQ(layer_named(w, "rpn.p2.conv").forward_flop, 2.0 * p2 * 9 * 256 * 256 + 2 * p2 * 256);
  // P6 = max_pool(P5, 1, 2): 13x21.
  EXPECT_DOUBLE_EQ(layer_named(w, "rpn.p6.conv").forward_flop, 2.0 * 13 * 21 * 9 * 256 * 256 + 2 * 13 * 21 * 256);
  // Box head on 512 RoIs of 7x7x256; mask head on 128 RoIs of 14x14x256.
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.box.box_head.fc6").forward_flop,
                   512.0 * (2.0 * 12544 * 1024 + 2 * 1024));
  EXPECT_DOUBLE_EQ(layer_named(w, "roi_heads.mask.mask_head.mask_fcn1").forward_flop,
                   128.0 * 14 * 14 * (2.0 * 9 * 256 * 256 + 2 * 256));
}

}  // namespace
}  // namespace vtsim
