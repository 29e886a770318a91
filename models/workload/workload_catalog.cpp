#include "models/workload/workload_catalog.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <utility>

namespace vtsim {
namespace {

TransformerConfig gpt(int layers, int hidden_size, int heads, int sequence_length) {
  TransformerConfig config;
  config.layers = layers;
  config.hidden_size = hidden_size;
  config.heads = heads;
  config.sequence_length = sequence_length;
  config.vocab_size = 50257;  // GPT-2 BPE vocabulary, also GPT-3's (Brown et al. 2020, Sec. 2.1)
  return config;
}

// BERT-large (Devlin et al. 2019, Sec. 3): 24 layers, hidden 1024, 16 heads, FFN 4096, WordPiece vocabulary 30522,
// 512 positions, 2 token types. masked_positions: NVIDIA DeepLearningExamples BERT pre-training uses
// max_predictions_per_seq 20 at sequence 128 (phase 1) and 80 at 512 (phase 2).
TransformerConfig bert_large(int sequence_length, int masked_positions) {
  TransformerConfig config;
  config.layers = 24;
  config.hidden_size = 1024;
  config.heads = 16;
  config.sequence_length = sequence_length;
  config.vocab_size = 30522;
  config.ffn_size = 4096;
  config.max_positions = 512;
  config.token_types = 2;
  config.masked_positions = masked_positions;
  return config;
}

Workload with_source(Workload workload, std::string source, double published_parameters) {
  workload.source = std::move(source);
  workload.published_parameters = published_parameters;
  return workload;
}

constexpr double kBertLargePublished = 340e6;  // Devlin et al. 2019, Sec. 3: "BERT_LARGE ... Total Parameters=340M"

}  // namespace

Workload make_bert_large_pretraining(int sequence_length, int masked_positions) {
  assert(masked_positions >= 0 && masked_positions <= sequence_length);
  const std::string seq = std::to_string(sequence_length);
  const std::string masked_lm =
      masked_positions > 0 ? "masked LM on " + std::to_string(masked_positions) +
                                 " positions per sequence (NVIDIA DeepLearningExamples max_predictions_per_seq)"
                           : std::string(
                                 "masked LM's head and loss over every position (DeepLearningExamples' "
                                 "2020 BERT, which does not gather the masked ones)");
  return with_source(make_bert(bert_large(sequence_length, masked_positions), BertTask::pretraining,
                               "bert-large-pretrain-seq" + seq, "BERT-large pre-training, sequence " + seq),
                     "Devlin et al. 2019 (BERT-large, 340M); " + masked_lm + " and next-sentence prediction",
                     kBertLargePublished);
}

namespace {

struct Entry {
  std::string_view id;
  Workload (*make)();
};

const std::array<Entry, 13> kEntries = {{
    {"resnet-50", make_resnet50},
    {"resnet-101", make_resnet101},
    {"vgg-16", make_vgg16},
    {"inception-v3", make_inception_v3},
    {"mask-rcnn-r50-fpn", make_mask_rcnn_r50_fpn},
    {"bert-large-pretrain-seq128", [] { return make_bert_large_pretraining(128, 20); }},
    {"bert-large-pretrain-seq512", [] { return make_bert_large_pretraining(512, 80); }},
    {"bert-large-squad-seq384",
     [] {
       return with_source(make_bert(bert_large(384, 0), BertTask::squad, "bert-large-squad-seq384",
                                    "BERT-large SQuAD fine-tuning, sequence 384"),
                          "Devlin et al. 2019 (BERT-large, 340M), SQuAD v1.1 span head (Sec. 4.2)",
                          kBertLargePublished);
     }},
    {"gpt2-small",
     [] {
       return with_source(make_transformer(gpt(12, 768, 12, 1024), "gpt2-small", "GPT-2 small (124M)"),
                          "Radford et al. 2019 (Table 2 says 117M); Hugging Face \"gpt2\" checkpoint: 124,439,808",
                          124'439'808);
     }},
    {"gpt2-xl",
     [] {
       return with_source(make_transformer(gpt(48, 1600, 25, 1024), "gpt2-xl", "GPT-2 XL (1.5B)"),
                          "Radford et al. 2019 (Table 2 says 1542M); Hugging Face \"gpt2-xl\" checkpoint: "
                          "1,557,611,200",
                          1'557'611'200);
     }},
    {"gpt3-1.3b",
     [] {
       // Table 2.1 gives 24 heads of 128 for d_model 2048, which do not tile it; 16 x 128 as Megatron-LM runs it.
       return with_source(make_transformer(gpt(24, 2048, 16, 2048), "gpt3-1.3b", "GPT-3 XL (1.3B)"),
                          "Brown et al. 2020, Table 2.1 (GPT-3 XL: 24 layers, d_model 2048, context 2048), dense "
                          "attention in every layer",
                          1.3e9);
     }},
    {"gpt3-6.7b",
     [] {
       return with_source(make_transformer(gpt(32, 4096, 32, 2048), "gpt3-6.7b", "GPT-3 6.7B"),
                          "Brown et al. 2020, Table 2.1 (32 layers, d_model 4096, 32 heads, context 2048), dense "
                          "attention in every layer",
                          6.7e9);
     }},
    {"gpt3-175b",
     [] {
       return with_source(make_transformer(gpt(96, 12288, 96, 2048), "gpt3-175b", "GPT-3 175B"),
                          "Brown et al. 2020, Table 2.1 (96 layers, d_model 12288, 96 heads, context 2048); dense "
                          "attention in every layer (the paper alternates dense and locally banded sparse layers)",
                          175.0e9);
     }},
}};

}  // namespace

const std::vector<std::string>& workload_ids() {
  static const std::vector<std::string> ids = [] {
    std::vector<std::string> all;
    for (const Entry& entry : kEntries) all.emplace_back(entry.id);
    return all;
  }();
  return ids;
}

std::optional<Workload> make_workload(std::string_view id) {
  const auto entry =
      std::find_if(kEntries.begin(), kEntries.end(), [&](const Entry& e) { return e.id == id; });
  if (entry == kEntries.end()) return std::nullopt;
  return entry->make();
}

}  // namespace vtsim
