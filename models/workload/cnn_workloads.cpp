// Convolutional workloads, transcribed from the framework code that defines them (named next to each builder).
// Sample = one image. Every network ends with its loss, except Mask R-CNN (see there).

#include <array>
#include <cassert>
#include <string>
#include <utility>

#include "models/workload/layer_builder.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

constexpr int kImageNetClasses = 1000;

Workload image_workload(std::string id, std::string name, int height, int width, std::string source,
                        double published_parameters, std::vector<Layer> layers) {
  Workload workload;
  workload.id = std::move(id);
  workload.name = std::move(name);
  workload.sample_unit = "image";
  workload.input = std::to_string(height) + "x" + std::to_string(width) + "x3";
  workload.source = std::move(source);
  workload.published_parameters = published_parameters;
  workload.layers = std::move(layers);
  return workload;
}

// ---- ResNet (torchvision/models/resnet.py) ----

// torchvision Bottleneck: 1x1, 3x3 (carrying the stride: "ResNet v1.5"), 1x1 to 4 x width; a 1x1 projection on the
// skip when the shape changes; ReLU after the add.
Tensor bottleneck(LayerBuilder& b, const Tensor& x, int width, int stride, bool project, NormKind norm) {
  Tensor out = b.conv2d(x, "conv1", Conv2d::square(width, 1));
  out = b.batch_norm(out, "bn1", norm, true);
  out = b.conv2d(out, "conv2", Conv2d::square(width, 3, stride, 1));
  out = b.batch_norm(out, "bn2", norm, true);
  out = b.conv2d(out, "conv3", Conv2d::square(4 * width, 1));
  out = b.batch_norm(out, "bn3", norm, false);
  Tensor identity = x;
  if (project) {
    identity = b.conv2d(x, "downsample.0", Conv2d::square(4 * width, 1, stride));
    identity = b.batch_norm(identity, "downsample.1", norm, false);
  }
  return b.residual_add(out, identity, "add_relu", true);
}

// Stem and the four stages of a ResNet; returns each stage's output (C2..C5). With frozen_stem_and_layer1 the stem and
// layer1 get no gradient (torchvision detection models, trainable_backbone_layers=3).
std::array<Tensor, 4> resnet_body(LayerBuilder& b, const Tensor& image, const std::array<int, 4>& blocks,
                                  NormKind norm, bool frozen_stem_and_layer1) {
  b.set_trainable(!frozen_stem_and_layer1);
  b.begin_block("stem");
  Tensor x = b.conv2d(image, "conv1", Conv2d::square(64, 7, 2, 3));
  x = b.batch_norm(x, "bn1", norm, true);
  x = b.max_pool(x, "maxpool", 3, 2, 1);
  std::array<Tensor, 4> stages;
  for (int stage = 0; stage < 4; ++stage) {
    const int width = 64 << stage;
    for (int i = 0; i < blocks[stage]; ++i) {
      b.begin_block("layer" + std::to_string(stage + 1) + "." + std::to_string(i));
      const int stride = (stage > 0 && i == 0) ? 2 : 1;
      x = bottleneck(b, x, width, stride, i == 0, norm);
    }
    stages[stage] = x;
    if (stage == 0) b.set_trainable(true);
  }
  return stages;
}

Workload make_resnet(int depth, const std::array<int, 4>& blocks, double published_parameters) {
  LayerBuilder b;
  const Tensor image = LayerBuilder::input(3, 224, 224);
  const Tensor c5 = resnet_body(b, image, blocks, NormKind::batch_norm, false)[3];
  b.begin_block("head");
  Tensor x = b.adaptive_avg_pool(c5, "avgpool", 1);
  x = b.linear(LayerBuilder::flatten(x), "fc", kImageNetClasses);
  b.softmax_cross_entropy(x, "loss");
  const std::string d = std::to_string(depth);
  return image_workload(
      "resnet-" + d, "ResNet-" + d + " v1.5", 224, 224,
      "torchvision.models.resnet" + d + " (He et al. 2016, stride in the 3x3 conv: v1.5); parameter count from "
      "torchvision's model table",
      published_parameters, b.take_layers());
}

}  // namespace

Workload make_resnet50() { return make_resnet(50, {3, 4, 6, 3}, 25'557'032); }

Workload make_resnet101() { return make_resnet(101, {3, 4, 23, 3}, 44'549'160); }

// torchvision/models/vgg.py, configuration "D": 3x3 convolutions with bias and ReLU, 2x2 max pooling, an adaptive
// average pool to 7x7 (an identity at 224x224, still a pass over the map) and three fully connected layers.
Workload make_vgg16() {
  constexpr std::array<std::array<int, 3>, 5> kStages = {{{64, 64, 0}, {128, 128, 0}, {256, 256, 256},
                                                          {512, 512, 512}, {512, 512, 512}}};
  LayerBuilder b;
  Tensor x = LayerBuilder::input(3, 224, 224);
  for (int stage = 0; stage < 5; ++stage) {
    const std::string id = std::to_string(stage + 1);
    b.begin_block("conv" + id);
    for (int i = 0; i < 3 && kStages[stage][i] > 0; ++i) {
      x = b.conv2d(x, "conv" + id + "_" + std::to_string(i + 1),
                   Conv2d::square(kStages[stage][i], 3, 1, 1).with_bias(Epilogue::relu));
    }
    x = b.max_pool(x, "pool" + id, 2, 2, 0);
  }
  b.begin_block("classifier");
  x = b.adaptive_avg_pool(x, "avgpool", 7);
  x = b.linear(LayerBuilder::flatten(x), "fc6", 4096, true, Epilogue::relu);
  x = b.dropout(x, "dropout6");
  x = b.linear(x, "fc7", 4096, true, Epilogue::relu);
  x = b.dropout(x, "dropout7");
  x = b.linear(x, "fc8", kImageNetClasses);
  b.softmax_cross_entropy(x, "loss");
  return image_workload("vgg-16", "VGG-16", 224, 224,
                        "torchvision.models.vgg16 (Simonyan & Zisserman 2015, configuration D); parameter count "
                        "from torchvision's model table",
                        138'357'544, b.take_layers());
}

// ---- Inception V3 (keras/applications/inception_v3.py) ----
namespace {

// Keras conv2d_bn: a convolution without bias, BatchNormalization(scale=False) (beta only), ReLU. Strided
// convolutions are "valid" (unpadded), the others "same".
Tensor conv_bn(LayerBuilder& b, const Tensor& x, const std::string& name, int filters, int kernel_h, int kernel_w,
               int stride = 1, bool valid = false) {
  assert(!valid || kernel_h == kernel_w);
  const Conv2d conv = valid ? Conv2d::square(filters, kernel_h, stride, 0) : Conv2d::same(filters, kernel_h, kernel_w);
  const Tensor y = b.conv2d(x, name + ".conv", conv);
  return b.batch_norm(y, name + ".bn", NormKind::batch_norm_no_scale, true);
}

Tensor pool_branch(LayerBuilder& b, const Tensor& x, int filters) {
  return conv_bn(b, b.avg_pool(x, "branch_pool.avgpool", 3, 1, 1), "branch_pool", filters, 1, 1);
}

// mixed0..2, 35x35.
Tensor inception_a(LayerBuilder& b, const Tensor& x, int pool_filters) {
  const Tensor b1 = conv_bn(b, x, "branch1x1", 64, 1, 1);
  const Tensor b5 = conv_bn(b, conv_bn(b, x, "branch5x5_1", 48, 1, 1), "branch5x5_2", 64, 5, 5);
  Tensor d = conv_bn(b, x, "branch3x3dbl_1", 64, 1, 1);
  d = conv_bn(b, d, "branch3x3dbl_2", 96, 3, 3);
  d = conv_bn(b, d, "branch3x3dbl_3", 96, 3, 3);
  return b.concat({b1, b5, d, pool_branch(b, x, pool_filters)}, "concat");
}

// mixed3: 35x35 to 17x17.
Tensor reduction_a(LayerBuilder& b, const Tensor& x) {
  const Tensor b3 = conv_bn(b, x, "branch3x3", 384, 3, 3, 2, true);
  Tensor d = conv_bn(b, x, "branch3x3dbl_1", 64, 1, 1);
  d = conv_bn(b, d, "branch3x3dbl_2", 96, 3, 3);
  d = conv_bn(b, d, "branch3x3dbl_3", 96, 3, 3, 2, true);
  return b.concat({b3, d, b.max_pool(x, "branch_pool", 3, 2, 0)}, "concat");
}

// mixed4..7, 17x17, factorised 7x7 convolutions of width c7.
Tensor inception_c(LayerBuilder& b, const Tensor& x, int c7) {
  const Tensor b1 = conv_bn(b, x, "branch1x1", 192, 1, 1);
  Tensor s = conv_bn(b, x, "branch7x7_1", c7, 1, 1);
  s = conv_bn(b, s, "branch7x7_2", c7, 1, 7);
  s = conv_bn(b, s, "branch7x7_3", 192, 7, 1);
  Tensor d = conv_bn(b, x, "branch7x7dbl_1", c7, 1, 1);
  d = conv_bn(b, d, "branch7x7dbl_2", c7, 7, 1);
  d = conv_bn(b, d, "branch7x7dbl_3", c7, 1, 7);
  d = conv_bn(b, d, "branch7x7dbl_4", c7, 7, 1);
  d = conv_bn(b, d, "branch7x7dbl_5", 192, 1, 7);
  return b.concat({b1, s, d, pool_branch(b, x, 192)}, "concat");
}

// mixed8: 17x17 to 8x8.
Tensor reduction_b(LayerBuilder& b, const Tensor& x) {
  const Tensor b3 = conv_bn(b, conv_bn(b, x, "branch3x3_1", 192, 1, 1), "branch3x3_2", 320, 3, 3, 2, true);
  Tensor s = conv_bn(b, x, "branch7x7x3_1", 192, 1, 1);
  s = conv_bn(b, s, "branch7x7x3_2", 192, 1, 7);
  s = conv_bn(b, s, "branch7x7x3_3", 192, 7, 1);
  s = conv_bn(b, s, "branch7x7x3_4", 192, 3, 3, 2, true);
  return b.concat({b3, s, b.max_pool(x, "branch_pool", 3, 2, 0)}, "concat");
}

// mixed9, mixed10, 8x8, with split 1x3 / 3x1 branches.
Tensor inception_e(LayerBuilder& b, const Tensor& x) {
  const Tensor b1 = conv_bn(b, x, "branch1x1", 320, 1, 1);
  const Tensor t = conv_bn(b, x, "branch3x3_1", 384, 1, 1);
  const Tensor t_split = b.concat(
      {conv_bn(b, t, "branch3x3_2a", 384, 1, 3), conv_bn(b, t, "branch3x3_2b", 384, 3, 1)}, "branch3x3.concat");
  Tensor d = conv_bn(b, x, "branch3x3dbl_1", 448, 1, 1);
  d = conv_bn(b, d, "branch3x3dbl_2", 384, 3, 3);
  const Tensor d_split = b.concat(
      {conv_bn(b, d, "branch3x3dbl_3a", 384, 1, 3), conv_bn(b, d, "branch3x3dbl_3b", 384, 3, 1)},
      "branch3x3dbl.concat");
  return b.concat({b1, t_split, d_split, pool_branch(b, x, 192)}, "concat");
}

}  // namespace

Workload make_inception_v3() {
  LayerBuilder b;
  b.begin_block("stem");
  Tensor x = conv_bn(b, LayerBuilder::input(3, 299, 299), "conv1", 32, 3, 3, 2, true);  // 149x149
  x = conv_bn(b, x, "conv2", 32, 3, 3, 1, true);                                         // 147x147
  x = conv_bn(b, x, "conv3", 64, 3, 3);
  x = b.max_pool(x, "pool1", 3, 2, 0);  // 73x73
  x = conv_bn(b, x, "conv4", 80, 1, 1);
  x = conv_bn(b, x, "conv5", 192, 3, 3, 1, true);  // 71x71
  x = b.max_pool(x, "pool2", 3, 2, 0);              // 35x35
  constexpr std::array<int, 3> kPoolFilters = {32, 64, 64};
  for (int i = 0; i < 3; ++i) {
    b.begin_block("mixed" + std::to_string(i));
    x = inception_a(b, x, kPoolFilters[i]);
  }
  b.begin_block("mixed3");
  x = reduction_a(b, x);
  constexpr std::array<int, 4> kC7 = {128, 160, 160, 192};
  for (int i = 0; i < 4; ++i) {
    b.begin_block("mixed" + std::to_string(4 + i));
    x = inception_c(b, x, kC7[i]);
  }
  b.begin_block("mixed8");
  x = reduction_b(b, x);
  for (int i = 0; i < 2; ++i) {
    b.begin_block("mixed" + std::to_string(9 + i));
    x = inception_e(b, x);
  }
  b.begin_block("head");
  x = b.adaptive_avg_pool(x, "avg_pool", 1);
  x = b.linear(LayerBuilder::flatten(x), "predictions", kImageNetClasses);
  b.softmax_cross_entropy(x, "loss");  // the Dense layer's softmax is folded into the loss
  return image_workload("inception-v3", "Inception V3", 299, 299,
                        "keras.applications.InceptionV3 (Szegedy et al. 2016), no auxiliary head; Keras "
                        "model.summary(): 23,851,784 parameters, of which 23,817,352 trainable (the rest are "
                        "BatchNorm moving statistics, which are buffers)",
                        23'817'352, b.take_layers());
}

// ---- Mask R-CNN ResNet-50-FPN (torchvision/models/detection/mask_rcnn.py, faster_rcnn.py, rpn.py, roi_heads.py,
// backbone_utils.py, torchvision/ops/feature_pyramid_network.py) ----
//
// Training assumptions (sample = one image):
// - the image is resized to min side 800 / max side 1333 and padded to a multiple of 32: 800x1344 (as MLPerf and
//   NVIDIA DeepLearningExamples MaskRCNN batch COCO images);
// - the backbone uses FrozenBatchNorm2d throughout, and the stem and layer1 are frozen (trainable_backbone_layers=3);
// - the RPN head runs over all five levels (P2..P6) with 3 anchors per location; proposal decoding, NMS, anchor
//   matching and sampling are not modelled (small, latency-bound kernels);
// - the box head sees 512 sampled RoIs per image (box_batch_size_per_image), the mask head the positive ones, at most
//   25% = 128 (box_positive_fraction), taken at that bound; RoIAlign with sampling_ratio 2 over P2..P5;
// - the losses are left out: the largest, the mask loss, reads 128 x 28 x 28 elements per image.
namespace {

constexpr int kCocoClasses = 91;            // torchvision counts the background and 11 unused COCO ids
constexpr int kAnchorsPerLocation = 3;      // aspect ratios 0.5, 1, 2; one size per level
constexpr int kBoxRoisPerImage = 512;       // box_batch_size_per_image
constexpr int kMaskRoisPerImage = 128;      // 512 x box_positive_fraction 0.25
constexpr int kFpnChannels = 256;

}  // namespace

Workload make_mask_rcnn_r50_fpn() {
  constexpr int kHeight = 800;
  constexpr int kWidth = 1344;
  LayerBuilder b;
  const std::array<Tensor, 4> c =
      resnet_body(b, LayerBuilder::input(3, kHeight, kWidth), {3, 4, 6, 3}, NormKind::frozen_batch_norm, true);

  // FPN, top-down from C5: a 1x1 lateral per level, upsample-and-add, a 3x3 output conv; P6 = max_pool(P5, 1, 2).
  b.begin_block("fpn");
  const Conv2d lateral = Conv2d::square(kFpnChannels, 1).with_bias();
  const Conv2d output = Conv2d::square(kFpnChannels, 3, 1, 1).with_bias();
  std::array<Tensor, 4> p;
  Tensor inner = b.conv2d(c[3], "inner_blocks.3", lateral);
  p[3] = b.conv2d(inner, "layer_blocks.3", output);
  for (int level = 2; level >= 0; --level) {
    const std::string id = std::to_string(level);
    const Tensor lateral_map = b.conv2d(c[level], "inner_blocks." + id, lateral);
    inner = b.upsample_add(inner, lateral_map, "top_down." + id);
    p[level] = b.conv2d(inner, "layer_blocks." + id, output);
  }
  const Tensor p6 = b.max_pool(p[3], "pool", 1, 2, 0);

  // RPN head: one 3x3 conv + ReLU and two 1x1 predictors, shared over the levels (parameters at P2, whose backward
  // runs last, so the shared gradient is complete when it ends).
  b.begin_block("rpn");
  const std::array<Tensor, 5> levels = {p[0], p[1], p[2], p[3], p6};
  for (int level = 0; level < 5; ++level) {
    const std::string id = "p" + std::to_string(level + 2);
    Conv2d conv = Conv2d::square(kFpnChannels, 3, 1, 1).with_bias(Epilogue::relu);
    Conv2d objectness = Conv2d::square(kAnchorsPerLocation, 1).with_bias();
    Conv2d deltas = Conv2d::square(4 * kAnchorsPerLocation, 1).with_bias();
    if (level > 0) {
      conv = conv.sharing_weights();
      objectness = objectness.sharing_weights();
      deltas = deltas.sharing_weights();
    }
    const Tensor t = b.conv2d(levels[level], id + ".conv", conv);
    b.conv2d(t, id + ".cls_logits", objectness);
    b.conv2d(t, id + ".bbox_pred", deltas);
  }

  const std::vector<Tensor> pooled_levels = {p[0], p[1], p[2], p[3]};
  b.begin_block("roi_heads.box");
  Tensor box = b.roi_align(pooled_levels, "box_roi_pool", 7, kBoxRoisPerImage, 2);
  box = b.linear(LayerBuilder::flatten(box), "box_head.fc6", 1024, true, Epilogue::relu);
  box = b.linear(box, "box_head.fc7", 1024, true, Epilogue::relu);
  b.linear(box, "box_predictor.cls_score", kCocoClasses);
  b.linear(box, "box_predictor.bbox_pred", 4 * kCocoClasses);

  b.begin_block("roi_heads.mask");
  Tensor mask = b.roi_align(pooled_levels, "mask_roi_pool", 14, kMaskRoisPerImage, 2);
  for (int i = 1; i <= 4; ++i) {
    mask = b.conv2d(mask, "mask_head.mask_fcn" + std::to_string(i),
                    Conv2d::square(kFpnChannels, 3, 1, 1).with_bias(Epilogue::relu));
  }
  mask = b.conv_transpose2d(mask, "mask_predictor.conv5_mask",
                            Conv2d::square(kFpnChannels, 2, 2, 0).with_bias(Epilogue::relu));  // 14 to 28
  b.conv2d(mask, "mask_predictor.mask_fcn_logits", Conv2d::square(kCocoClasses, 1).with_bias());

  Workload workload = image_workload("mask-rcnn-r50-fpn", "Mask R-CNN ResNet-50-FPN", kHeight, kWidth,
                                     "torchvision.models.detection.maskrcnn_resnet50_fpn (He et al. 2017; FPN: Lin "
                                     "et al. 2017), 91 classes, trainable_backbone_layers=3; parameter count from "
                                     "torchvision's model table",
                                     44'401'393, b.take_layers());
  workload.variable_input = true;  // COCO images of many sizes, batched with padding; varying objects per image
  workload.leaves_out =
      "proposal decoding, NMS, anchor matching and sampling, and the losses (latency-bound kernels, not modelled); "
      "NVIDIA's 1-GPU AMP rows run 1.3-1.9x slower than predicted (its 4- and 8-GPU V100 AMP rows within 7%): "
      "`vtsim validate`, checks";
  return workload;
}

}  // namespace vtsim
