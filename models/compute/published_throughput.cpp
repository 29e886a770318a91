// The published single-device throughput the compute model is fitted to: one row per figure, each with the document
// it is copied from and the table it stands in. Selection rules (docs/compute-model.md, "Fitting data"):
// - single-device rows only: 1-GPU training rows and inference batch sweeps; no multi-GPU figure enters the fit;
// - GPUs and workloads in vtsim's catalogs (ResNet-50 v1.5, not tf_cnn_benchmarks' v1; BERT-large; VGG-16;
//   Inception V3; Mask R-CNN); precisions whose tensor path is known: A100 rows labelled plain "FP32" in TF1 READMEs
//   (TF32 or not is not stated) are left out, Lambda's A100 "fp32" runs NGC 22.10, where TF32 is on: tf32;
// - no XLA rows (XLA fuses kernels, which this model counts one per layer), no PaddlePaddle rows. NVIDIA's TensorFlow
//   BERT README (TensorFlow/LanguageModeling/BERT/README.md @002bcd8c) labels no table XLA, but every one of them is:
//   its results were "obtained by running" run_pretraining_lamb.sh and run_squad.sh, which the README says are "XLA
//   enabled" by default (use_xla defaults to true in both), and finetune_inference_benchmark.sh passes --use_xla. Its
//   42 single-GPU rows (pre-training, SQuAD training and inference, V100, T4, A100) were fitted until 2026-12-04;
//   they are left out since (docs/compute-model.md, "What is fitted, to what");
// - of two README versions of one table, the newer (PyTorch ResNet-50 21.03 over 19.10, PyTorch BERT 20.06 over 19.07);
// - rows a reviewer flagged as implausible are left out: the 19.10 README's T4 FP32 inference sweep (above the T4's
//   FP32 peak) and the TF BERT README's A100 inference table (fp16 equal to tf32);
// - Mask R-CNN inference rows are left out: they include box decoding, NMS and mask pasting, which its layer list
//   (training's forward) does not have;
// - BERT pre-training at sequence 512 from the 21.11 README is left out: it packs sequences into length bins (LDDL),
//   so a "sequence" there is shorter than 512 tokens;
// - rows whose own sources' figures show a step their GPU does not bound are checks, not fitted (not_fitted_because
//   below): Mask R-CNN's AMP training rows and the DGX A100's TensorFlow inference sweep.
// BERT pre-training micro-batches and accumulation steps are the README's; a row with accumulation A is one
// optimizer step per A micro-batches. DeepLearningExamples' PyTorch ResNet-50 1-GPU training rows accumulate 8: the
// README's benchmark command (`launch.py --mode benchmark_training`, resnet50v1.5/README.md @291f0d02, "Training
// performance benchmark") takes configs.yml's optimizer_batch_size (2,048 for AMP and TF32 at batch 256, 896 for the
// DGX-1's FP32 at batch 112), and main.py divides it by the GPUs' batch (batch_size_multiplier, main.py @291f0d02):
// 8 on one GPU, 1 on eight (the validation rows).
// Every row was checked against its source at the cited commit (2026-12-03); test
// PublishedRows.NoRowNeedsItsMatrixProductsToRunAboveItsPrecisionsPeak holds each row's matrix products under its
// precision's datasheet peak (the TensorFlow BERT V100 32GB SQuAD FP32 row had NVIDIA's pre-2020-11-03 figure, 31.33).
// Generated from a reviewed extraction of the sources (batch sizes as the tables give them); edit by hand.

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/compute/compute_fit.hpp"

namespace vtsim {
namespace {

constexpr std::string_view k1 =
    "NVIDIA/DeepLearningExamples:PyTorch/Classification/ConvNets/resnet50v1.5/README.md @291f0d02 (pytorch-21.03 container)";
constexpr std::string_view k2 =
    "NVIDIA/DeepLearningExamples:TensorFlow/Classification/ConvNets/resnet50v1.5/README.md @1d4211fe (TF 20.06-tf1-py3 container)";
constexpr std::string_view k4 =
    "NVIDIA/DeepLearningExamples:PyTorch/LanguageModeling/BERT/README.md @b2763ae2 (July-2020 README version pytorch:20.06-py3 container)";
constexpr std::string_view k5 =
    "lambdal/deeplearning-benchmark:pytorch/pytorch-train-throughput-fp32.csv @0551cb70 (Lambda PyTorch benchmark, NGC PyTorch 22.10 per lambdalabs.com/gpu-benchmarks); batch from pytorch/pytorch-train-bs-fp32.csv @08d77c41";
constexpr std::string_view k6 =
    "lambdal/deeplearning-benchmark:pytorch/pytorch-train-throughput-fp16.csv @0551cb70 (Lambda PyTorch benchmark, NGC PyTorch 22.10 per lambdalabs.com/gpu-benchmarks); batch from pytorch/pytorch-train-bs-fp16.csv @08d77c41";
constexpr std::string_view k7 =
    "tensorflow/tensorflow:tensorflow/docs_src/performance/benchmarks.md @5984ffef (tensorflow.org performance benchmarks page, May 2017, tf_cnn_benchmarks, CUDA 8/cuDNN 5.1)";
constexpr std::string_view k8 =
    "NVIDIA/DeepLearningExamples:PyTorch/Segmentation/MaskRCNN/README.md @9a36fc31 (May-2022 version PyTorch 21.12-py3 container)";
constexpr std::string_view k9 =
    "LambdaColdStorage/lambda-tensorflow-benchmark:summary/tf-train-throughput-fp32.csv @70dcdbdd (Lambda tf_cnn_benchmarks, synthetic data); batch from summary/tf-train-bs-fp32.csv";
constexpr std::string_view k10 =
    "LambdaColdStorage/lambda-tensorflow-benchmark:summary/tf-train-throughput-fp16.csv @70dcdbdd (Lambda tf_cnn_benchmarks, synthetic data); batch from summary/tf-train-bs-fp16.csv";
constexpr std::string_view k11 =
    "NVIDIA/DeepLearningExamples:PyTorch/LanguageModeling/BERT/README.md @a07d20a1 (pytorch:21.11 container)";
constexpr std::string_view k12 =
    "NVIDIA/DeepLearningExamples:PyTorch/Segmentation/MaskRCNN/README.md @53f95e5a (pytorch:20.06-py3 container)";

struct RowText {
  const char* workload;
  const char* gpu;
  Framework framework;
  Precision precision;
  Pass pass;
  int batch;
  int accumulation_steps;
  double samples_per_s;
  std::string_view document;
  const char* table;
};

constexpr Framework pytorch = Framework::pytorch;
constexpr Framework tensorflow = Framework::tensorflow;
constexpr Precision fp32 = Precision::fp32;
constexpr Precision tf32 = Precision::tf32;
constexpr Precision amp = Precision::fp16;  // AMP: fp16 tensor-core math with fp32 master weights
constexpr Pass training = Pass::training;
constexpr Pass inference = Pass::inference;

// clang-format off
const RowText kRows[] = {
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 1, 1, 96, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 2, 1, 196, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 4, 1, 386, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 8, 1, 709, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 16, 1, 1023, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 32, 1, 1127, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 64, 1, 1200, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 128, 1, 1229, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, inference, 256, 1, 1261, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 1, 1, 78, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 2, 1, 154, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 4, 1, 300, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 8, 1, 595, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 16, 1, 1178, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 32, 1, 2146, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 64, 1, 2984, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 128, 1, 3249, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, inference, 256, 1, 3382, k1, "'Inference performance: NVIDIA DGX-1 (1x V100 16GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 1, 1, 98, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 2, 1, 186, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 4, 1, 325, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 8, 1, 363, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 16, 1, 409, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 32, 1, 420, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 64, 1, 428, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 128, 1, 426, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, fp32, inference, 256, 1, 415, k1, "'Inference performance: NVIDIA T4 / FP32 Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 1, 1, 79, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 2, 1, 156, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 4, 1, 317, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 8, 1, 652, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 16, 1, 1050, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 32, 1, 1128, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 64, 1, 1165, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 128, 1, 1190, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", pytorch, amp, inference, 256, 1, 1198, k1, "'Inference performance: NVIDIA T4 / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-80gb-sxm4", pytorch, tf32, training, 256, 8, 938, k1, "'Training performance: NVIDIA DGX A100 (8x A100 80GB), GPUs=1 row'"},
    {"resnet-50", "a100-80gb-sxm4", pytorch, amp, training, 256, 8, 2470, k1, "'Training performance: NVIDIA DGX A100 (8x A100 80GB), GPUs=1 row'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, training, 112, 8, 367, k1, "'Training performance: NVIDIA DGX-1 16GB (8x V100 16GB), GPUs=1 row'"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, amp, training, 256, 8, 1200, k1, "'Training performance: NVIDIA DGX-1 16GB (8x V100 16GB), GPUs=1 row'"},
    {"resnet-50", "v100-sxm2-32gb", pytorch, fp32, training, 112, 8, 356, k1, "'Training performance: NVIDIA DGX-1 32GB (8x V100 32GB), GPUs=1 row'"},
    {"resnet-50", "v100-sxm2-32gb", pytorch, amp, training, 256, 8, 1156, k1, "'Training performance: NVIDIA DGX-1 32GB (8x V100 32GB), GPUs=1 row'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 1, 1, 191.23, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 2, 1, 376.83, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 4, 1, 601.12, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 8, 1, 963.86, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 16, 1, 1361.58, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 32, 1, 1602.09, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 64, 1, 1793.81, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 128, 1, 1876.22, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, tf32, inference, 256, 1, 1911.96, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / TF32 Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 1, 1, 223.35, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 2, 1, 435.51, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 4, 1, 882, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 8, 1, 1503.24, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 16, 1, 1903.58, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 32, 1, 1974.01, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 64, 1, 3570.46, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 128, 1, 3474.94, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "a100-40gb-sxm4", tensorflow, amp, inference, 256, 1, 3229.32, k2, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 1, 1, 173.35, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 2, 1, 303.65, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 4, 1, 562.35, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 8, 1, 783.24, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 16, 1, 1003.1, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 32, 1, 1140.12, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 64, 1, 1252.06, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 128, 1, 1324.91, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, fp32, inference, 256, 1, 1348.52, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 1, 1, 237.35, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 2, 1, 464.94, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 4, 1, 942.44, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 8, 1, 1454.93, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 16, 1, 2003.75, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 32, 1, 2356.17, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 64, 1, 2706.11, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 128, 1, 2770.61, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-16gb", tensorflow, amp, inference, 256, 1, 2742.14, k2, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 1, 1, 187.41, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 2, 1, 339.52, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 4, 1, 577.5, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 8, 1, 821.15, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 16, 1, 1055.64, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 32, 1, 1195.74, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 64, 1, 1313.83, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 128, 1, 1372.58, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, fp32, inference, 256, 1, 1414.99, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / FP32 Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 1, 1, 289.89, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 2, 1, 606.27, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 4, 1, 982.92, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 8, 1, 1553.34, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 16, 1, 2091.27, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 32, 1, 2457.61, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 64, 1, 2746.11, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 128, 1, 2937.2, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "v100-sxm2-32gb", tensorflow, amp, inference, 256, 1, 3009.83, k2, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 1, 1, 136.44, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 2, 1, 215.38, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 4, 1, 289.29, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 8, 1, 341.77, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 16, 1, 394.36, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 32, 1, 414.66, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 64, 1, 424.42, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 128, 1, 429.83, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, fp32, inference, 256, 1, 425.72, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / FP32 Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 1, 1, 211.04, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 2, 1, 381.23, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 4, 1, 593.13, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 8, 1, 791.12, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 16, 1, 914.26, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 32, 1, 972.36, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 64, 1, 991.39, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 128, 1, 995.81, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"resnet-50", "t4", tensorflow, amp, inference, 256, 1, 993.39, k2, "'Inference performance: NVIDIA T4 (1x T4 16G) / Mixed Precision Inference Latency'"},
    {"bert-large-pretrain-seq128", "a100-40gb-sxm4", pytorch, tf32, training, 54, 1208, 234, k4, "'Training performance: NVIDIA DGX A100 (8x A100 40GB) / Pre-training NVIDIA DGX A100 (8x A100 40GB), GPUs=1 row'"},
    {"bert-large-pretrain-seq128", "a100-40gb-sxm4", pytorch, amp, training, 64, 1024, 415, k4, "'Training performance: NVIDIA DGX A100 (8x A100 40GB) / Pre-training NVIDIA DGX A100 (8x A100 40GB), GPUs=1 row'"},
    {"bert-large-pretrain-seq512", "a100-40gb-sxm4", pytorch, tf32, training, 8, 4096, 41, k4, "'Training performance: NVIDIA DGX A100 (8x A100 40GB) / Pre-training NVIDIA DGX A100 (8x A100 40GB), GPUs=1 row'"},
    {"bert-large-pretrain-seq512", "a100-40gb-sxm4", pytorch, amp, training, 16, 2048, 78, k4, "'Training performance: NVIDIA DGX A100 (8x A100 40GB) / Pre-training NVIDIA DGX A100 (8x A100 40GB), GPUs=1 row'"},
    {"bert-large-squad-seq384", "a100-40gb-sxm4", pytorch, tf32, training, 16, 1, 44, k4, "'Training performance: NVIDIA DGX A100 (8x A100 40GB) / Fine-tuning NVIDIA DGX A100 (8x A100 40GB) SQuAD, GPUs=1 row'"},
    {"bert-large-squad-seq384", "a100-40gb-sxm4", pytorch, amp, training, 32, 1, 116, k4, "'Training performance: NVIDIA DGX A100 (8x A100 40GB) / Fine-tuning NVIDIA DGX A100 (8x A100 40GB) SQuAD, GPUs=1 row'"},
    {"bert-large-pretrain-seq128", "v100-sxm2-32gb", pytorch, fp32, training, 8, 8192, 42, k4, "'Training performance: NVIDIA DGX-2 (16x V100 32G) / Pre-training NVIDIA DGX-2 With 32G, GPUs=1 row'"},
    {"bert-large-pretrain-seq128", "v100-sxm2-32gb", pytorch, amp, training, 16, 4096, 173, k4, "'Training performance: NVIDIA DGX-2 (16x V100 32G) / Pre-training NVIDIA DGX-2 With 32G, GPUs=1 row'"},
    {"bert-large-pretrain-seq512", "v100-sxm2-32gb", pytorch, fp32, training, 2, 16384, 10, k4, "'Training performance: NVIDIA DGX-2 (16x V100 32G) / Pre-training NVIDIA DGX-2 With 32G, GPUs=1 row'"},
    {"bert-large-pretrain-seq512", "v100-sxm2-32gb", pytorch, amp, training, 4, 8192, 36, k4, "'Training performance: NVIDIA DGX-2 (16x V100 32G) / Pre-training NVIDIA DGX-2 With 32G, GPUs=1 row'"},
    {"bert-large-pretrain-seq128", "v100-sxm2-16gb", pytorch, fp32, training, 8, 8192, 40, k4, "'Training performance: NVIDIA DGX-1 (8x V100 16G) / Pre-training NVIDIA DGX-1 With 16G, GPUs=1 row'"},
    {"bert-large-pretrain-seq128", "v100-sxm2-16gb", pytorch, amp, training, 16, 4096, 164, k4, "'Training performance: NVIDIA DGX-1 (8x V100 16G) / Pre-training NVIDIA DGX-1 With 16G, GPUs=1 row'"},
    {"bert-large-pretrain-seq512", "v100-sxm2-16gb", pytorch, fp32, training, 2, 16384, 9, k4, "'Training performance: NVIDIA DGX-1 (8x V100 16G) / Pre-training NVIDIA DGX-1 With 16G, GPUs=1 row'"},
    {"bert-large-pretrain-seq512", "v100-sxm2-16gb", pytorch, amp, training, 4, 8192, 34, k4, "'Training performance: NVIDIA DGX-1 (8x V100 16G) / Pre-training NVIDIA DGX-1 With 16G, GPUs=1 row'"},
    {"bert-large-squad-seq384", "v100-sxm2-32gb", pytorch, fp32, training, 8, 1, 12, k4, "'Training performance: NVIDIA DGX-2 (16x V100 32G) / Fine-tuning NVIDIA DGX-2 With 32G SQuAD, GPUs=1 row'"},
    {"bert-large-squad-seq384", "v100-sxm2-32gb", pytorch, amp, training, 10, 1, 53, k4, "'Training performance: NVIDIA DGX-2 (16x V100 32G) / Fine-tuning NVIDIA DGX-2 With 32G SQuAD, GPUs=1 row'"},
    {"bert-large-squad-seq384", "v100-sxm2-16gb", pytorch, fp32, training, 4, 1, 9, k4, "'Training performance: NVIDIA DGX-1 (8x V100 16G) / Fine-tuning NVIDIA DGX-1 With 16G SQuAD, GPUs=1 row'"},
    {"bert-large-squad-seq384", "v100-sxm2-16gb", pytorch, amp, training, 10, 1, 50, k4, "'Training performance: NVIDIA DGX-1 (8x V100 16G) / Fine-tuning NVIDIA DGX-1 With 16G SQuAD, GPUs=1 row'"},
    {"bert-large-squad-seq384", "a100-40gb-sxm4", pytorch, tf32, inference, 8, 1, 188, k4, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Fine-tuning inference on NVIDIA DGX A100 (1x A100 40GB) [text under heading says 'DGX-1 (1x V100 16G)' - copy-paste error in README] SQuAD'"},
    {"bert-large-squad-seq384", "a100-40gb-sxm4", pytorch, amp, inference, 8, 1, 283, k4, "'Inference performance: NVIDIA DGX A100 (1x A100 40GB) / Fine-tuning inference on NVIDIA DGX A100 (1x A100 40GB) [text under heading says 'DGX-1 (1x V100 16G)' - copy-paste error in README] SQuAD'"},
    {"bert-large-squad-seq384", "v100-sxm2-32gb", pytorch, fp32, inference, 8, 1, 43, k4, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Fine-tuning inference on NVIDIA DGX-2 with 32G SQuAD'"},
    {"bert-large-squad-seq384", "v100-sxm2-32gb", pytorch, amp, inference, 8, 1, 148, k4, "'Inference performance: NVIDIA DGX-2 (1x V100 32G) / Fine-tuning inference on NVIDIA DGX-2 with 32G SQuAD'"},
    {"bert-large-squad-seq384", "v100-sxm2-16gb", pytorch, fp32, inference, 8, 1, 42, k4, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Fine-tuning inference on NVIDIA DGX-1 with 16G SQuAD'"},
    {"bert-large-squad-seq384", "v100-sxm2-16gb", pytorch, amp, inference, 8, 1, 153, k4, "'Inference performance: NVIDIA DGX-1 (1x V100 16G) / Fine-tuning inference on NVIDIA DGX-1 with 16G SQuAD'"},
    {"resnet-50", "quadro-rtx-8000", pytorch, fp32, training, 496, 1, 274, k5, "'CSV row 'Quadro RTX 8000', num_gpu=1, column resnet50'"},
    {"bert-large-squad-seq384", "quadro-rtx-8000", pytorch, fp32, training, 32, 1, 12.53, k5, "'CSV row 'Quadro RTX 8000', num_gpu=1, column bert_large_squad' (12): steady state of its log (data/published/lambda-bert-squad)"},
    {"resnet-50", "v100-sxm2-16gb", pytorch, fp32, training, 128, 1, 369, k5, "'CSV row 'LambdaCloud V100 16GB', num_gpu=1, column resnet50'"},
    {"bert-large-squad-seq384", "v100-sxm2-16gb", pytorch, fp32, training, 8, 1, 12.60, k5, "'CSV row 'LambdaCloud V100 16GB', num_gpu=1, column bert_large_squad' (12): steady state of its log (data/published/lambda-bert-squad)"},
    {"resnet-50", "a100-80gb-sxm4", pytorch, tf32, training, 640, 1, 1066, k5, "'CSV row 'A100 80GB SXM4', num_gpu=1, column resnet50'"},
    {"bert-large-squad-seq384", "a100-80gb-sxm4", pytorch, tf32, training, 64, 1, 76.74, k5, "'CSV row 'A100 80GB SXM4', num_gpu=1, column bert_large_squad' (75): steady state of its log (data/published/lambda-bert-squad)"},
    {"resnet-50", "h100-sxm5", pytorch, tf32, training, 640, 1, 1753, k5, "'CSV row 'H100 80GB SXM5', num_gpu=1, column resnet50'; batch from pytorch/pytorch-train-bs-fp32.csv @0551cb70 (the H100 rows came in a8e6d619)"},
    {"bert-large-squad-seq384", "h100-sxm5", pytorch, tf32, training, 64, 1, 148.14, k5, "'CSV row 'H100 80GB SXM5', num_gpu=1, column bert_large_squad' (141): steady state of its log (data/published/lambda-bert-squad); batch from pytorch/pytorch-train-bs-fp32.csv @0551cb70 (the H100 rows came in a8e6d619)"},
    {"resnet-50", "quadro-rtx-8000", pytorch, amp, training, 928, 1, 651, k6, "'CSV row 'Quadro RTX 8000', num_gpu=1, column resnet50'"},
    {"bert-large-squad-seq384", "quadro-rtx-8000", pytorch, amp, training, 64, 1, 50.24, k6, "'CSV row 'Quadro RTX 8000', num_gpu=1, column bert_large_squad' (50): steady state of its log (data/published/lambda-bert-squad)"},
    {"bert-large-squad-seq384", "v100-sxm2-16gb", pytorch, amp, training, 16, 1, 59.22, k6, "'CSV row 'LambdaCloud V100 16GB', num_gpu=1, column bert_large_squad' (57): steady state of its log (data/published/lambda-bert-squad)"},
    {"resnet-50", "a100-80gb-sxm4", pytorch, amp, training, 1280, 1, 1582, k6, "'CSV row 'A100 80GB SXM4', num_gpu=1, column resnet50'"},
    {"bert-large-squad-seq384", "a100-80gb-sxm4", pytorch, amp, training, 112, 1, 155.61, k6, "'CSV row 'A100 80GB SXM4', num_gpu=1, column bert_large_squad' (152): steady state of its log (data/published/lambda-bert-squad)"},
    {"resnet-50", "h100-sxm5", pytorch, amp, training, 1280, 1, 2616, k6, "'CSV row 'H100 80GB SXM5', num_gpu=1, column resnet50'; batch from pytorch/pytorch-train-bs-fp16.csv @0551cb70 (the H100 rows came in a8e6d619)"},
    {"bert-large-squad-seq384", "h100-sxm5", pytorch, amp, training, 112, 1, 316.45, k6, "'CSV row 'H100 80GB SXM5', num_gpu=1, column bert_large_squad' (301): steady state of its log (data/published/lambda-bert-squad); batch from pytorch/pytorch-train-bs-fp16.csv @0551cb70 (the H100 rows came in a8e6d619)"},
    {"inception-v3", "p100-sxm2", tensorflow, fp32, training, 64, 1, 142, k7, "'Details for NVIDIA DGX-1 (NVIDIA Tesla P100) / Training synthetic data, GPUs=1 row'"},
    {"vgg-16", "p100-sxm2", tensorflow, fp32, training, 64, 1, 154, k7, "'Details for NVIDIA DGX-1 (NVIDIA Tesla P100) / Training synthetic data, GPUs=1 row'"},
    {"inception-v3", "p100-sxm2", tensorflow, fp32, training, 32, 1, 128, k7, "'Details for NVIDIA DGX-1 (NVIDIA Tesla P100) / Other Results (batch size 32) / Training synthetic data, GPUs=1 row'"},
    {"vgg-16", "p100-sxm2", tensorflow, fp32, training, 32, 1, 144, k7, "'Details for NVIDIA DGX-1 (NVIDIA Tesla P100) / Other Results (batch size 32) / Training synthetic data, GPUs=1 row'"},
    {"mask-rcnn-r50-fpn", "a100-80gb-sxm4", pytorch, tf32, training, 12, 1, 23, k8, "'Training performance: NVIDIA DGX A100 (8x A100 80GB), GPUs=1 row'"},
    {"mask-rcnn-r50-fpn", "a100-80gb-sxm4", pytorch, amp, training, 12, 1, 24, k8, "'Training performance: NVIDIA DGX A100 (8x A100 80GB), GPUs=1 row'"},
    {"mask-rcnn-r50-fpn", "v100-sxm2-32gb", pytorch, fp32, training, 12, 1, 12, k8, "'Training performance: NVIDIA DGX-1 (8x V100 32GB), GPUs=1 row'"},
    {"mask-rcnn-r50-fpn", "v100-sxm2-32gb", pytorch, amp, training, 12, 1, 16, k8, "'Training performance: NVIDIA DGX-1 (8x V100 32GB), GPUs=1 row'"},
    {"inception-v3", "v100-sxm2-32gb", tensorflow, fp32, training, 192, 1, 273, k9, "'row 'Platinum-Tesla_1xV100-SXM3-32GB_HP16_TF2_2_1x', column inception3'"},
    {"vgg-16", "v100-sxm2-32gb", tensorflow, fp32, training, 192, 1, 249, k9, "'row 'Platinum-Tesla_1xV100-SXM3-32GB_HP16_TF2_2_1x', column vgg16'"},
    {"inception-v3", "quadro-rtx-6000", tensorflow, fp32, training, 128, 1, 223, k9, "'row 'Processor-LambdaCloud_1xQuadro_RTX_6000_1x', column inception3'"},
    {"vgg-16", "quadro-rtx-6000", tensorflow, fp32, training, 128, 1, 197, k9, "'row 'Processor-LambdaCloud_1xQuadro_RTX_6000_1x', column vgg16'"},
    {"inception-v3", "v100-sxm2-32gb", tensorflow, amp, training, 384, 1, 771, k10, "'row 'Platinum-Tesla_1xV100-SXM3-32GB_HP16_TF2_2_1x', column inception3'"},
    {"vgg-16", "v100-sxm2-32gb", tensorflow, amp, training, 384, 1, 456, k10, "'row 'Platinum-Tesla_1xV100-SXM3-32GB_HP16_TF2_2_1x', column vgg16'"},
    {"inception-v3", "quadro-rtx-6000", tensorflow, amp, training, 256, 1, 504, k10, "'row 'Processor-LambdaCloud_1xQuadro_RTX_6000_1x', column inception3'"},
    {"vgg-16", "quadro-rtx-6000", tensorflow, amp, training, 256, 1, 349, k10, "'row 'Processor-LambdaCloud_1xQuadro_RTX_6000_1x', column vgg16'"},
    {"bert-large-pretrain-seq128", "a100-80gb-sxm4", pytorch, tf32, training, 128, 64, 317, k11, "'Pre-training NVIDIA DGX A100 (8x A100 80GB)' table, 1-GPU row; batch / GPU and accumulation steps from the same table"},
    {"bert-large-pretrain-seq128", "a100-80gb-sxm4", pytorch, amp, training, 256, 32, 580, k11, "'Pre-training NVIDIA DGX A100 (8x A100 80GB)' table, 1-GPU row; batch / GPU and accumulation steps from the same table"},
    {"mask-rcnn-r50-fpn", "a100-40gb-sxm4", pytorch, tf32, training, 8, 1, 21, k12, "'Training performance: NVIDIA DGX A100 (8x A100 40GB)' table, 1-GPU row"},
    {"mask-rcnn-r50-fpn", "a100-40gb-sxm4", pytorch, amp, training, 8, 1, 25, k12, "'Training performance: NVIDIA DGX A100 (8x A100 40GB)' table, 1-GPU row"},
};
// clang-format on

// The layout each row's code keeps convolutions' activations in (what matters is the 16-bit and TF32 rows':
// compute_model.cpp, layout_transposes). DeepLearningExamples' PyTorch ResNet-50 runs channels-last under AMP
// (configs.yml @291f0d02: `memory_format: nhwc` in every AMP configuration, its FP32 and TF32 ones NCHW); Lambda's
// PyTorch benchmark runs the same main.py without the option (pytorch/scripts/config_v1/config_pytorch_80GB.sh at
// lambdal/deeplearning-benchmark @d92c6514), whose default is NCHW (main.py `--memory-format` @291f0d02), as Mask
// R-CNN's (PyTorch's default).
// TensorFlow's AMP rows are NHWC, its others NCHW: DeepLearningExamples' TensorFlow ResNet-50 asks for NCHW
// (`--data_format` NCHW, utils/cmdline_helper.py @1d4211fe; tf_cnn_benchmarks defaults to NCHW on GPUs too), and
// TensorFlow 1.15's grappler runs its mixed-precision rewrite before GenericLayoutOptimizer, which turns a graph to
// NHWC when at least half the GPUs are Volta or newer and half its GPU Conv2D nodes fp16 (generic_layout_optimizer.cc,
// kVoltaGPURatioThreshold and kConvGPUFP16Threshold; meta_optimizer.cc's order, tensorflow PR #31087; both in
// NVIDIA/tensorflow v1.15.2+nv20.06, the 20.06-tf1 container's), which an fp32 graph (TF32 on an A100) never has;
// runner.py leaves the layout optimizer on (it turns off only `remapping`). Not profiled: read from the code. (An
// fp32 row's layout matters only on the tensor cores, TF32: compute_model.cpp, layout_transposes.)
TensorLayout layout_of(const RowText& row) {
  if (row.framework != Framework::pytorch) return row.precision == amp ? TensorLayout::nhwc : TensorLayout::nchw;
  return row.document == k1 && row.precision == amp ? TensorLayout::nhwc : TensorLayout::nchw;
}

// How each row's code writes its optimizer step where that is not its framework's default. DeepLearningExamples'
// PyTorch BERT fine-tuning (run_squad.py, which Lambda's benchmark runs too: its logs show BertAdam's warnings from
// optimization.py) updates with Apex's FusedAdam under --fp16 and with BertAdam, tensor by tensor, otherwise
// (compute_model.cpp, bert_adam_kernels). NVIDIA's README rows ran the 20.06 container, whose PyTorch 1.6 waits for
// the GPU in each tensor's clip_grad_norm_; Lambda's ran NGC 22.10's PyTorch 1.13, which does not. Under --fp16 both
// run Apex AMP O2 with FusedAdam and the script's GradientClipper (bert_fused_adam_kernels; Lambda's fp16 logs print
// "Selected optimization level O2").
std::optional<OptimizerImplementation> optimizer_of(const RowText& row) {
  const bool run_squad =
      std::string_view(row.workload) == "bert-large-squad-seq384" && row.pass == training && row.framework == pytorch;
  if (!run_squad) return std::nullopt;
  if (row.precision == amp) {
    assert(row.document == k4 || row.document == k6);
    return OptimizerImplementation::bert_fused_adam;
  }
  assert(row.document == k4 || row.document == k5);
  return row.document == k4 ? OptimizerImplementation::bert_adam_sync : OptimizerImplementation::bert_adam;
}

// The positions each BERT pre-training row's code runs the masked-LM head and its loss over. NVIDIA's README rows of
// July 2020 (k4, the 20.06 container) ran BertForPreTraining as modeling.py @b2763ae2 writes it: BertPreTrainingHeads
// applies the prediction head (transform and the 30,522-word decoder) to the whole sequence output, and
// run_pretraining.py's BertPretrainingCriterion takes CrossEntropyLoss(ignore_index=-1) over every position. The
// 21.11 rows (k11) gather the masked positions first (BertPreTrainingHeads' index_select on masked_lm_labels != -1,
// modeling.py @a07d20a1, when sequence_output_is_dense, run_pretraining.py's default unless
// --no_dense_sequence_output), as the catalog workloads do. Not modelled for the 20.06 fp16 rows: O2's
// cast_model_outputs=torch.float16 leaves the logits and the loss in fp16 (priced as autocast's fp32 softmax, as
// docs/compute-model.md says of O2's softmax), and the decoder's bias is an addition of its own over the logits
// (modeling.py's `+ self.bias`), folded into the product here.
std::optional<int> masked_lm_positions_of(const RowText& row) {
  const bool pretraining = std::string_view(row.workload).starts_with("bert-large-pretrain");
  return pretraining && row.document == k4 ? std::optional<int>(0) : std::nullopt;
}

// Rows that are checks, not fitted (since 2026-12-07; docs/compute-model.md, "Rows whose step is not their GPU's"):
// rows whose own sources' figures show a step their GPU does not bound. Fitted, they set a device efficiency to carry
// that time into every job on its architecture: with them the Ampere 16-bit convolution efficiency was 0.193 (60
// TFLOP/s on an A100), and DeepLearningExamples' PyTorch ResNet-50 AMP row came out 45% slow.
constexpr const char* kMaskRcnnAmpNotFitted =
    "its tensor cores barely speed its step up: AMP over the same table's TF32 or FP32 row 1.04x on the A100 80GB "
    "(24 / 23 img/s), 1.19x on the A100 40GB (25 / 21) and 1.33x on the V100 32GB (16 / 12), where every other such "
    "pair of training rows gains 1.48-5.56x and the same A100's ResNet-50 2.63x (2,470 / 938, k1); time the layer list "
    "does not have (its proposal stage, NMS and losses "
    "are left out) or a depressed figure, which no measurement here tells apart. Its TF32 and FP32 rows stay fitted";
constexpr const char* kA100InferenceSweepNotFitted =
    "from batch 16 up it does not lead the sweep's other GPUs as a GPU-bound forward pass would: at batch 256 it runs "
    "1.18x the DGX-1 V100 16GB's in fp16 (3,229 / 2,742 img/s) and 1.42x in TF32 over FP32 (1,912 / 1,349), less "
    "than the smaller of the A100's math and memory-bandwidth leads (1.73x, bandwidth), and 3.25x the T4's in fp16 "
    "against 4.8x; from batch 16 up every other pair of GPUs in the sweep keeps that lead, and the same README's "
    "1-GPU training puts the A100 1.87x and 2.21x ahead of the V100. What bounds it (its host's input pipeline of 10 "
    "CPU threads, a per-step cost of TensorFlow 1) is not measured";

constexpr const char* kA100Tf32SmallBatchNotFitted =
    "at batches 4 and 8 in TF32 it runs 1.04-1.23x the V100s' FP32 rows and 2.08-2.82x the T4's, against the 1.73x "
    "and 4.86x of the smaller of the A100's math and memory-bandwidth leads, where the V100s already lead the T4 by "
    "their datasheets' 1.94x (1.94-2.40x): its step is not bound by its GPU as theirs are. What bounds it is not "
    "measured (as for its rows from batch 16 up)";

std::string not_fitted_because(const RowText& row) {
  const std::string_view workload = row.workload;
  if (workload == "mask-rcnn-r50-fpn" && row.precision == amp) return kMaskRcnnAmpNotFitted;
  const bool a100 = std::string_view(row.gpu).starts_with("a100");
  if (row.document != k2 || row.pass != inference || !a100) return {};
  if (row.batch >= 16) return kA100InferenceSweepNotFitted;
  // Below batch 16 the rule applies where the sweep's other GPUs keep their leads, so that the batch is theirs to
  // bound: on the fp32 path from batch 4 (the V100s over the T4 1.94x and 2.00x at 4, 2.29x and 2.40x at 8, against
  // the 1.94x of their fp32 peaks). At batches 1 and 2 on the fp32 path, and up to 8 in 16 bits, a V100 falls short of
  // the T4 too: every GPU there is bound by its host, and those rows stay fitted, as what the host's dispatch is
  // fitted to.
  if (row.precision == tf32 && row.batch >= 4) return kA100Tf32SmallBatchNotFitted;
  return {};
}

// Every row of kRows that is (checks false) or is not (checks true) fitted.
std::vector<ThroughputRow> rows_of(bool checks) {
  std::vector<ThroughputRow> all;
  for (const RowText& row : kRows) {
    std::string not_fitted = not_fitted_because(row);
    if (not_fitted.empty() == checks) continue;
    std::string source(row.document);
    if (row.table[0] != '\0') source += "; " + std::string(row.table);
    all.push_back({row.workload, row.gpu, row.framework, row.precision, row.pass, row.batch, row.accumulation_steps,
                   row.samples_per_s, std::move(source), layout_of(row), optimizer_of(row), masked_lm_positions_of(row),
                   std::move(not_fitted)});
  }
  return all;
}

}  // namespace

const std::vector<ThroughputRow>& published_single_device_throughput() {
  static const std::vector<ThroughputRow> rows = rows_of(false);
  return rows;
}

const std::vector<ThroughputRow>& published_single_device_checks() {
  static const std::vector<ThroughputRow> rows = rows_of(true);
  return rows;
}

}  // namespace vtsim
