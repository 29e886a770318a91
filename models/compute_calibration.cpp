// Calibration of the compute model's flop efficiency against published single-GPU throughput, and the rules that
// transfer a fit to the workloads, precisions and GPUs no figure covers.
//
// Transfer rules (compute_efficiency), applied in this order; every transferred efficiency is marked uncalibrated and
// its provenance names the point it came from and each rule used:
//   1. workload: its own points when published_single_gpu_throughput() has any; else its family's: a sequence
//      workload (GPT, a generated transformer) takes BERT-large pre-training at sequence 128 or 512, whichever is
//      closer to its sequence length (ties go to 512), unless that one's fit is unreached (efficiency clamped to 1,
//      see fit()) and the other's is not; any other workload (ResNet-101, VGG-16, Inception V3) takes ResNet-50.
//      A sequence workload whose input does not say its length ("seq N") is treated as long: 512 first.
//   2. precision: the point of the job's precision; bf16 takes fp16's (same tensor-core rate on A100 and H100) and
//      fp32 takes tf32's (the only fp32-storage points), applied to the GPU's own peak for the job's precision.
//   3. GPU: a point measured on another GPU lends its efficiency (a fraction of peak) as is: every point is an A100's.

#include <cassert>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/compute_model.hpp"
#include "models/workload_catalog.hpp"

namespace vtsim {
namespace {

// Fraction of datasheet bandwidth a memory-bound kernel reaches. UNCALIBRATED: one constant for every GPU and kernel.
// Published memory-copy measurements put it at 0.75-0.87: ~1,355 of 1,555 GB/s on an A100 40GB (0.87, [S]
// PTsolvers/gpu-workshop-JuliaCon23 issue #7), ~1,500 of 2,039 GB/s on an A100 80GB (0.74, [S] NVIDIA/cuda-samples
// issue #311). Real training kernels (normalisation, elementwise, optimizer) reach less than a copy; 0.8 is the middle.
constexpr double kMemoryEfficiency = 0.8;

constexpr std::string_view kRn50Source =
    "NVIDIA DeepLearningExamples, PyTorch/Classification/ConvNets/resnet50v1.5 README (DGX A100 80GB, 1 GPU)";
constexpr std::string_view kBertPretrainSource =
    "NVIDIA DeepLearningExamples, PyTorch/LanguageModeling/BERT README, pre-training on DGX A100 80GB, 1 GPU "
    "(pytorch:21.11 container)";
constexpr std::string_view kBertSquadSource =
    "NVIDIA DeepLearningExamples, TensorFlow/LanguageModeling/BERT README, SQuAD fine-tuning on DGX A100 40GB, 1 GPU";
constexpr std::string_view kMaskRcnnSource =
    "NVIDIA DeepLearningExamples, PyTorch/Segmentation/MaskRCNN README (DGX A100 40GB, 1 GPU)";

std::vector<ThroughputPoint> build_points() {
  const auto point = [](const char* workload, const char* gpu, Precision precision, int batch, double samples_per_s,
                        std::string_view source, int accumulation_steps) {
    return ThroughputPoint{workload, gpu, precision, batch, samples_per_s, std::string(source), accumulation_steps};
  };
  constexpr Precision tf32 = Precision::tf32;
  constexpr Precision amp = Precision::fp16;  // AMP: fp16 tensor-core math with fp32 master weights
  // BERT pre-training batches and accumulation are the README's "Batch size / GPU (TF32 and FP16)" 128 and 256 at
  // sequence 128, 16 and 32 at 512, with "Accumulation steps" 64 and 32, 256 and 128 (accumulated batch 8192 / 4096).
  // Its phase 2 (sequence 512) likely ran with sequences packed into length bins of 64 (LDDL, added with these tables
  // in the README's January 2022 changelog), i.e. fewer than 512 tokens on average; with full 512-token sequences and
  // unfused attention the roofline cannot reach
  // 110 / 210 seq/s even at 100% of peak, and fit() marks both points unreached (tests/models/compute_model_test.cpp
  // bounds it by hand). Every other row, batch and figure is shared/reference/HARDWARE.md's single-GPU table.
  return {
      point("resnet-50", "a100-80gb-sxm4", tf32, 256, 938.0, kRn50Source, 1),
      point("resnet-50", "a100-80gb-sxm4", amp, 256, 2470.0, kRn50Source, 1),
      point("bert-large-pretrain-seq128", "a100-80gb-sxm4", tf32, 128, 317.0, kBertPretrainSource, 64),
      point("bert-large-pretrain-seq128", "a100-80gb-sxm4", amp, 256, 580.0, kBertPretrainSource, 32),
      point("bert-large-pretrain-seq512", "a100-80gb-sxm4", tf32, 16, 110.0, kBertPretrainSource, 256),
      point("bert-large-pretrain-seq512", "a100-80gb-sxm4", amp, 32, 210.0, kBertPretrainSource, 128),
      point("bert-large-squad-seq384", "a100-40gb-sxm4", amp, 32, 102.26, kBertSquadSource, 1),
      point("bert-large-squad-seq384", "a100-40gb-sxm4", tf32, 16, 61.36, kBertSquadSource, 1),
      point("mask-rcnn-r50-fpn", "a100-40gb-sxm4", tf32, 8, 21.0, kMaskRcnnSource, 1),
      point("mask-rcnn-r50-fpn", "a100-40gb-sxm4", amp, 8, 25.0, kMaskRcnnSource, 1),
  };
}

/// A published point with its fitted flop efficiency.
struct FittedPoint {
  const ThroughputPoint* point;
  double flop_efficiency;
  bool saturated;  ///< even efficiency 1 is slower than the point
  std::string summary;  ///< "fit to 102.26 seq/s, NVIDIA A100 40GB SXM4 AMP batch 32, <source>"
};

std::string format_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string precision_label(Precision precision) {
  if (precision == Precision::fp16) return "AMP";
  if (precision == Precision::tf32) return "TF32";
  return std::string(to_string(precision));
}

FittedPoint fit(const ThroughputPoint& point) {
  const std::optional<Workload> workload = make_workload(point.workload_id);
  const GpuSpec* gpu = find_gpu(point.gpu_id);
  assert(workload && gpu);
  const DeviceCompute device = whole_gpu(*gpu, point.precision, gpu->memory_bytes);
  const double efficiency = calibrate_flop_efficiency(*workload, point, device, kMemoryEfficiency);
  ComputeEfficiency full_peak;
  full_peak.flop_efficiency = 1.0;
  full_peak.memory_efficiency = kMemoryEfficiency;
  const double at_full_peak = modelled_samples_per_s(*workload, point, device, full_peak);
  const bool saturated = at_full_peak < point.samples_per_s;
  std::string summary = "fit to " + format_number(point.samples_per_s) +
                        (workload->sample_unit == "image" ? " img/s, " : " seq/s, ") + gpu->name + " " +
                        precision_label(point.precision) + " batch " + std::to_string(point.batch);
  if (point.accumulation_steps > 1) summary += " x" + std::to_string(point.accumulation_steps) + " accumulated";
  summary += ", " + point.source;
  if (saturated) {
    summary += "; UNREACHED: at 100% of peak the model gives " + format_number(at_full_peak) +
               "/s (its memory-bound kernels alone are too slow), efficiency clamped to 1";
  }
  return {&point, efficiency, saturated, std::move(summary)};
}

// Every point fitted once per process, on first use (a thread-safe local static, immutable afterwards).
const std::vector<FittedPoint>& fitted_points() {
  static const std::vector<FittedPoint> fitted = [] {
    std::vector<FittedPoint> all;
    for (const ThroughputPoint& point : published_single_gpu_throughput()) all.push_back(fit(point));
    return all;
  }();
  return fitted;
}

bool has_points(std::string_view workload_id) {
  for (const ThroughputPoint& point : published_single_gpu_throughput()) {
    if (point.workload_id == workload_id) return true;
  }
  return false;
}

// Tokens per sample of a sequence workload ("seq 384"); 0 when the input says none.
int sequence_length(const Workload& workload) {
  constexpr std::string_view prefix = "seq ";
  const std::string_view input = workload.input;
  if (input.substr(0, prefix.size()) != prefix) return 0;
  int length = 0;
  std::from_chars(input.data() + prefix.size(), input.data() + input.size(), length);
  return length;
}

// Rule 1: the workloads whose points may stand in for this one, best first.
std::vector<std::string> reference_workloads(const Workload& workload) {
  if (has_points(workload.id)) return {workload.id};
  if (workload.sample_unit == "sequence") {
    const int length = sequence_length(workload);
    const bool nearer_128 = length > 0 && std::abs(length - 128) < std::abs(length - 512);
    if (nearer_128) return {"bert-large-pretrain-seq128", "bert-large-pretrain-seq512"};
    return {"bert-large-pretrain-seq512", "bert-large-pretrain-seq128"};
  }
  return {"resnet-50"};
}

// The fit of `workload_id` in `precision`, preferring the one measured on `gpu_id`; nullptr when there is none.
const FittedPoint* find_fit(std::string_view workload_id, Precision precision, std::string_view gpu_id) {
  const FittedPoint* found = nullptr;
  for (const FittedPoint& fitted : fitted_points()) {
    if (fitted.point->workload_id != workload_id || fitted.point->precision != precision) continue;
    if (found == nullptr || fitted.point->gpu_id == gpu_id) found = &fitted;
  }
  return found;
}

// Rule 2: the precision whose point stands in for this one.
Precision reference_precision(Precision precision) {
  if (precision == Precision::bf16) return Precision::fp16;
  if (precision == Precision::fp32) return Precision::tf32;
  return precision;
}

}  // namespace

const std::vector<ThroughputPoint>& published_single_gpu_throughput() {
  static const std::vector<ThroughputPoint> points = build_points();
  return points;
}

double default_memory_efficiency() { return kMemoryEfficiency; }

ComputeEfficiency compute_efficiency(const Workload& workload, const GpuSpec& gpu, Precision precision) {
  assert(gpu.peak_flops(precision).has_value());
  const Precision fit_precision = reference_precision(precision);
  // Rule 1: a donor whose own fit is unreached (efficiency clamped to 1) lends it only when no other can.
  const std::vector<std::string> candidates = reference_workloads(workload);
  const FittedPoint* chosen = nullptr;
  for (const std::string& candidate : candidates) {
    const FittedPoint* fitted = find_fit(candidate, fit_precision, gpu.id);
    if (fitted != nullptr && (chosen == nullptr || (chosen->saturated && !fitted->saturated))) chosen = fitted;
  }
  assert(chosen != nullptr && "every reference workload has tf32 and fp16 points");

  ComputeEfficiency efficiency;
  efficiency.flop_efficiency = chosen->flop_efficiency;
  efficiency.memory_efficiency = kMemoryEfficiency;
  efficiency.provenance = chosen->summary;
  std::vector<std::string> transfers;
  const std::string& donor = chosen->point->workload_id;
  if (donor != workload.id) {
    transfers.push_back("workload " + workload.id + " takes " + donor + "'s");
    if (donor != candidates.front()) transfers.push_back(candidates.front() + "'s own fit is unreached");
  }
  if (fit_precision != precision) {
    transfers.push_back(std::string(to_string(precision)) + " takes " + std::string(to_string(fit_precision)) + "'s");
  }
  if (chosen->point->gpu_id != gpu.id) {
    transfers.push_back("GPU " + gpu.id + " takes the " + chosen->point->gpu_id + "'s");
  }
  if (transfers.empty()) {
    efficiency.calibrated = !chosen->saturated;
    return efficiency;
  }
  std::string rules;
  for (const std::string& transfer : transfers) rules += (rules.empty() ? "" : "; ") + transfer;
  efficiency.provenance = "transferred, uncalibrated (" + rules + "): " + chosen->summary;
  return efficiency;
}

}  // namespace vtsim
