#pragma once
// The workload catalog: builders of published architectures (cnn_workloads.cpp, transformer_workloads.cpp) and the
// lookup by id that scenarios use. Each builder reproduces its source's parameter count exactly, or within the
// rounding of the figure the source gives; tests/models/workload/*_workloads_test.cpp derive both by hand.

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/workload/transformer_config.hpp"
#include "models/workload/workload.hpp"

namespace vtsim {

/// GPT-style decoder (GPT-2 layout, Radford et al. 2019): token + learned position embeddings, `layers` pre-LN blocks
/// (LN, fused QKV, attention, projection, residual; LN, MLP with GELU, residual), final LN, LM head tied to the token
/// embedding (its flop counted, no parameters of its own), softmax cross-entropy over every token.
Workload make_transformer(const TransformerConfig& config, std::string id, std::string name);

/// What a BERT encoder is trained for.
enum class BertTask {
  pretraining,  ///< masked LM (transform, decoder tied to the word embedding, own bias) and next-sentence prediction
  squad,        ///< SQuAD span head (hidden x 2 + 2); the pooler stays in the model, frozen and unused
};

/// BERT-style encoder (Devlin et al. 2019): word + position + token-type embeddings with LN, post-LN blocks, pooler,
/// and the task's heads.
Workload make_bert(const TransformerConfig& config, BertTask task, std::string id, std::string name);

/// BERT-large pre-training at `sequence_length` (the catalog's bert-large-pretrain-seq128 and -seq512), its masked-LM
/// head and loss over `masked_positions` per sequence, gathered first as Google's BERT does, or over every position
/// for 0, as DeepLearningExamples' PyTorch BERT did in 2020. REQUIRES: 0 <= masked_positions <= sequence_length.
Workload make_bert_large_pretraining(int sequence_length, int masked_positions);

/// ResNet-50 v1.5 (torchvision resnet50), 224x224.
Workload make_resnet50();
/// ResNet-101 v1.5 (torchvision resnet101), 224x224.
Workload make_resnet101();
/// VGG-16 (torchvision vgg16, convolutions with bias), 224x224.
Workload make_vgg16();
/// Inception V3 (Keras applications InceptionV3, no auxiliary head), 299x299.
Workload make_inception_v3();
/// Mask R-CNN with a ResNet-50-FPN backbone (torchvision maskrcnn_resnet50_fpn, 91 classes), training on 800x1344.
Workload make_mask_rcnn_r50_fpn();

/// Every catalog id, in a stable order.
const std::vector<std::string>& workload_ids();
/// The catalog workload with this id; nullopt when the id is unknown.
std::optional<Workload> make_workload(std::string_view id);

}  // namespace vtsim
