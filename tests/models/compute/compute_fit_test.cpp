// The joint fit of the compute model's parameters, its published rows, and how a job's parameters are resolved.

#include "models/compute/compute_fit.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/catalog/gpu_catalog.hpp"
#include "models/compute/kernel_parameters.hpp"
#include "models/core/error.hpp"
#include "models/traces/chakra_trace.hpp"
#include "models/traces/kineto_trace.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

ThroughputRow row(const char* workload, const char* gpu, Framework framework, Precision precision, Pass pass,
                  int batch) {
  return {workload, gpu, framework, precision, pass, batch, 1, 1.0, "synthetic"};
}

// Rows spanning two architectures, both kinds and two frameworks: inference batch sweeps and training points.
// What the kernel model gives a family for a GPU without rows, by hand: its peak efficiency at the intensity of the
// 128 x 128 tile the end-to-end model's waves count, 128 x 128 / (128 + 128) = 64 values per loaded value, at the boost
// clock.
double at_a_128_tile(const KernelFamilyParameters& family) {
  return family.peak_efficiency * std::min(1.0, 64.0 / family.tile_knee);
}

std::vector<ThroughputRow> synthetic_rows() {
  std::vector<ThroughputRow> rows;
  for (const char* gpu : {"v100-sxm2-16gb", "a100-40gb-sxm4"}) {
    for (int batch : {1, 4, 16, 64, 256}) {
      rows.push_back(row("resnet-50", gpu, Framework::pytorch, Precision::fp16, Pass::inference, batch));
    }
    rows.push_back(row("resnet-50", gpu, Framework::tensorflow, Precision::fp16, Pass::training, 128));
    rows.push_back(row("resnet-50", gpu, Framework::tensorflow, Precision::fp16, Pass::inference, 1));
    for (int batch : {1, 8}) {
      rows.push_back(
          row("bert-large-squad-seq384", gpu, Framework::tensorflow, Precision::fp16, Pass::inference, batch));
    }
    rows.push_back(row("bert-large-squad-seq384", gpu, Framework::pytorch, Precision::fp16, Pass::training, 16));
  }
  return rows;
}

ComputeFit known_parameters() {
  ComputeFit fit;
  fit.efficiency[{"Volta", PrecisionPath::tensor16, KernelKind::gemm}] = 0.55;
  fit.efficiency[{"Volta", PrecisionPath::tensor16, KernelKind::convolution}] = 0.35;
  fit.efficiency[{"Ampere", PrecisionPath::tensor16, KernelKind::gemm}] = 0.62;
  fit.efficiency[{"Ampere", PrecisionPath::tensor16, KernelKind::convolution}] = 0.21;
  fit.host_dispatch_s[Framework::pytorch] = 40e-6;
  fit.host_dispatch_s[Framework::tensorflow] = 12e-6;
  return fit;
}

TEST(ComputeFit, RecoversTheParametersSyntheticRowsWereMadeWith) {
  std::vector<ThroughputRow> rows = synthetic_rows();
  const ComputeFit truth = known_parameters();
  for (ThroughputRow& r : rows) r.samples_per_s = predict_samples_per_s(r, truth);
  const ComputeFit fit = fit_compute(rows);
  ASSERT_EQ(fit.efficiency.size(), truth.efficiency.size());
  for (const auto& [key, value] : truth.efficiency) EXPECT_NEAR(fit.efficiency.at(key), value, 1e-4 * value);
  for (const auto& [framework, value] : truth.host_dispatch_s) {
    EXPECT_NEAR(fit.host_dispatch_s.at(framework), value, 1e-4 * value);
  }
  EXPECT_LT(fit.rms_log_error, 1e-6);
}

TEST(ComputeFit, LeaveOneOutPredictsExactDataExactly) {
  // Every row twice: leaving one out keeps its twin, so the remaining rows still determine every parameter.
  std::vector<ThroughputRow> rows = synthetic_rows();
  const std::vector<ThroughputRow> twins = rows;
  rows.insert(rows.end(), twins.begin(), twins.end());
  const ComputeFit truth = known_parameters();
  for (ThroughputRow& r : rows) r.samples_per_s = predict_samples_per_s(r, truth);
  for (const RowError& error : leave_one_out(rows, fit_compute(rows))) {
    ASSERT_TRUE(error.left_out_samples_per_s.has_value());
    EXPECT_NEAR(*error.left_out_samples_per_s, error.row->samples_per_s, 1e-3 * error.row->samples_per_s);
    EXPECT_NEAR(error.fitted_samples_per_s, error.row->samples_per_s, 1e-4 * error.row->samples_per_s);
  }
}

TEST(ComputeFit, AnArchitectureLeftOutIsPredictedWithWhatTheKernelModelDerivesForIt) {
  // Ampere's rows made with the kernel model's derivations for their A100 (what a GPU of an architecture without
  // rows gets), Volta's with efficiencies far below the derivations (0.55 and 0.35, against 0.8-0.9 at a full tile).
  // Left out, Ampere's rows come back as made (the host's dispatch pinned by Volta's rows of both frameworks), and
  // Volta's come out faster than made, never slower.
  std::vector<ThroughputRow> rows = synthetic_rows();
  ComputeFit truth = known_parameters();
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  for (KernelKind kind : {KernelKind::gemm, KernelKind::convolution}) {
    const auto derived = resolved_efficiency(a100, PrecisionPath::tensor16, kind, ComputeFit{});
    ASSERT_TRUE(derived.has_value());
    ASSERT_EQ(derived->kind, EfficiencyProvenance::Kind::derived);
    truth.efficiency[{"Ampere", PrecisionPath::tensor16, kind}] = derived->value;
  }
  // By hand for the convolutions: the family's efficiency at a 128 x 128 tile, at the boost clock (the A100 SXM4 is not
  // in the kernel data), under the convolutions' cap of 2.25.
  EXPECT_DOUBLE_EQ((truth.efficiency[{"Ampere", PrecisionPath::tensor16, KernelKind::convolution}]),
                   at_a_128_tile(fitted_kernel_parameters().parameters.of(KernelFamily::tensor_convolution)));
  for (ThroughputRow& r : rows) r.samples_per_s = predict_samples_per_s(r, truth);
  const std::vector<std::optional<double>> predicted = leave_one_architecture_out(rows, fit_compute(rows));
  ASSERT_EQ(predicted.size(), rows.size());
  // What a V100 gets with no Volta efficiency fitted and the host's true dispatch: the kernel model's derivations.
  ComputeFit dispatch_only = truth;
  dispatch_only.efficiency.clear();
  int faster = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_TRUE(predicted[i].has_value()) << rows[i].gpu_id;
    const double published = rows[i].samples_per_s;
    if (rows[i].gpu_id == "a100-40gb-sxm4") {
      EXPECT_NEAR(*predicted[i], published, 1e-3 * published);
    } else {
      const double derived = predict_samples_per_s(rows[i], dispatch_only);
      EXPECT_NEAR(*predicted[i], derived, 1e-3 * derived);
      EXPECT_GE(*predicted[i], published * (1 - 1e-6));
      if (*predicted[i] > 1.1 * published) ++faster;
    }
  }
  EXPECT_GT(faster, 0);
  // One architecture alone leaves nothing to fit the host's dispatch to: no row can be predicted.
  std::vector<ThroughputRow> volta;
  for (const ThroughputRow& r : rows) {
    if (r.gpu_id == "v100-sxm2-16gb") volta.push_back(r);
  }
  for (const std::optional<double>& p : leave_one_architecture_out(volta, fit_compute(volta))) {
    EXPECT_FALSE(p.has_value());
  }
}

TEST(ComputeFit, NoSixteenBitGemmIsFittedAboveTheBestMatmulPublishedForItsArchitecture) {
  // Rows made with known parameters, then the A100's BERT training rows made 60% faster than they can be: the fit
  // wants a faster GEMM there, but an Ampere 16-bit product runs at most at 271.2 of 312 TFLOP/s (S. Bekman's
  // brute-force search over torch.matmul shapes, compute_fit.cpp's published_large_gemm_efficiency).
  std::vector<ThroughputRow> rows = synthetic_rows();
  const ComputeFit truth = known_parameters();
  for (ThroughputRow& r : rows) {
    r.samples_per_s = predict_samples_per_s(r, truth);
    if (r.gpu_id == "a100-40gb-sxm4" && r.pass == Pass::training && r.workload_id == "bert-large-squad-seq384") {
      r.samples_per_s *= 1.6;
    }
  }
  const ComputeFit fit = fit_compute(rows);
  const double best = 271.2 / 312.0;
  const double ampere_gemm = fit.efficiency.at({"Ampere", PrecisionPath::tensor16, KernelKind::gemm});
  EXPECT_LE(ampere_gemm, best);
  EXPECT_NEAR(ampere_gemm, best, 1e-3);  // held at the bound, not short of it
}

TEST(ComputeFitJson, ReadsBackWhatItWroteBitForBit) {
  // Values without a short decimal form: the file must give back the same doubles, not ones within a rounding.
  ComputeFit fit = known_parameters();
  fit.efficiency[{"Turing", PrecisionPath::fp32, KernelKind::gemm}] = 1.0 / 3.0;
  fit.efficiency[{"Hopper", PrecisionPath::tf32, KernelKind::convolution}] = std::sqrt(2.0) / 2.0;
  fit.host_dispatch_s[Framework::pytorch] = 1e-6 * std::acos(-1.0);
  fit.rows = 7;
  fit.rms_log_error = 0.1 + 0.2;
  const ComputeFit back = compute_fit_from_json(to_json(fit).dump(2), "fit.json");
  EXPECT_EQ(back.efficiency, fit.efficiency);
  EXPECT_EQ(back.host_dispatch_s, fit.host_dispatch_s);
  EXPECT_EQ(back.rows, 7);
  EXPECT_EQ(back.rms_log_error, 0.1 + 0.2);
}

std::string fit_error_of(const nlohmann::json& document) {
  try {
    compute_fit_from_json(document.dump(), "fit.json");
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ComputeFitJson, RefusesWhatNoFitGivesNamingTheFileAndWhere) {
  // known_parameters()'s efficiencies in key order: Ampere GEMM, Ampere convolution, Volta GEMM, Volta convolution.
  const auto document = [] {
    ComputeFit fit = known_parameters();
    fit.rows = 12;
    return to_json(fit);
  };
  ASSERT_EQ(fit_error_of(document()), "no error");
  const auto expect_error = [](const nlohmann::json& wrong, const std::string& where) {
    const std::string error = fit_error_of(wrong);
    EXPECT_EQ(error.find("fit.json: " + where), 0u) << error;
  };
  nlohmann::json wrong = document();
  wrong["efficiency"][1]["value"] = 0.5;  // an unknown key
  expect_error(wrong, "efficiency[1]");
  wrong = document();
  wrong["efficiency"][0]["path"] = "fp64";
  expect_error(wrong, "efficiency[0].path");
  wrong = document();
  wrong["efficiency"][2]["architecture"] = "Volt";  // no catalog GPU's
  expect_error(wrong, "efficiency[2].architecture");
  wrong = document();
  wrong["efficiency"][0]["efficiency"] = 1.2;  // above a GEMM's peak; a convolution may reach 2.25 in its nominal flop
  expect_error(wrong, "efficiency[0].efficiency");
  wrong = document();
  wrong["efficiency"][0]["efficiency"] = 0.9;  // above the best A100 matmul published, 271.2 of 312 TFLOP/s
  expect_error(wrong, "efficiency[0].efficiency");
  wrong = document();
  wrong["efficiency"][3] = wrong["efficiency"][2];
  wrong["efficiency"][3]["efficiency"] = 0.4;  // Volta tensor16 GEMM twice
  expect_error(wrong, "efficiency[3]");
  wrong = document();
  wrong["host_dispatch_s"]["jax"] = 1e-5;
  expect_error(wrong, "host_dispatch_s");
  wrong = document();
  wrong["rows"] = 0;
  expect_error(wrong, "rows");
}

TEST(FitDifferences, NamesWhatMovedBeyondTheToleranceAndWhatOnlyOneSideHas) {
  const ComputeFit committed = known_parameters();
  ComputeFit refit = committed;
  refit.efficiency[{"Volta", PrecisionPath::tensor16, KernelKind::gemm}] = 0.55 * (1 + 2 * kRefitTolerance);
  refit.efficiency[{"Ampere", PrecisionPath::tensor16, KernelKind::gemm}] = 0.62 * (1 + 0.5 * kRefitTolerance);
  refit.host_dispatch_s.erase(Framework::tensorflow);
  const std::vector<std::string> expected = {"Volta tensor16 GEMM efficiency: refit 0.55011, committed 0.55",
                                             "tensorflow host dispatch s: committed 1.2e-05, not refitted"};
  EXPECT_EQ(fit_differences(refit, committed), expected);
  EXPECT_TRUE(fit_differences(committed, committed).empty());
}

TEST(PublishedComputeFit, IsWhatFittingThePublishedRowsGives) {
  // models/compute/compute_fit.json must be the fit of today's rows, catalog and kernel constants: a change to any of
  // them without `vtsim validate --write-fit models/compute/compute_fit.json` fails here.
  const std::vector<ThroughputRow>& rows = published_single_device_throughput();
  const ComputeFit refit = fit_compute(rows);
  EXPECT_EQ(fit_differences(refit, published_compute_fit()), std::vector<std::string>{});
  EXPECT_EQ(published_compute_fit().rows, static_cast<int>(rows.size()));
}

TEST(PublishedComputeFit, TheRecordedErrorsOfDerivedStepsAreWhatLeavingEachArchitectureOutGives) {
  // A derived efficiency's note quotes them (recorded_derived_step_errors); recomputed here from the published rows,
  // each architecture's mean error with its rows left out, the lowest and highest per path, within 0.1 point.
  const std::vector<ThroughputRow>& rows = published_single_device_throughput();
  const std::vector<std::optional<double>> predicted = leave_one_architecture_out(rows, published_compute_fit());
  std::map<std::pair<std::string, PrecisionPath>, std::pair<double, int>> sums;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!predicted[i]) continue;
    auto& [sum, count] = sums[{find_gpu(rows[i].gpu_id)->architecture, precision_path(rows[i].precision)}];
    sum += *predicted[i] / rows[i].samples_per_s - 1;
    ++count;
  }
  std::map<PrecisionPath, std::vector<double>> means;
  for (const auto& [key, sum_count] : sums) means[key.second].push_back(sum_count.first / sum_count.second);
  ASSERT_EQ(means.size(), recorded_derived_step_errors().size());
  for (const auto& [path, recorded] : recorded_derived_step_errors()) {
    ASSERT_TRUE(means.count(path)) << to_string(path);
    EXPECT_NEAR(*std::ranges::min_element(means[path]), recorded.lowest_mean, 1e-3) << to_string(path);
    EXPECT_NEAR(*std::ranges::max_element(means[path]), recorded.highest_mean, 1e-3) << to_string(path);
  }
}

// Every published single-device row: the fitting rows, then the checks.
std::vector<ThroughputRow> all_published_rows() {
  std::vector<ThroughputRow> rows = published_single_device_throughput();
  const std::vector<ThroughputRow>& checks = published_single_device_checks();
  rows.insert(rows.end(), checks.begin(), checks.end());
  return rows;
}

TEST(PublishedRows, AreSingleDeviceRowsOfCatalogWorkloadsAndGpusEachWithASource) {
  // 173 since the TensorFlow BERT XLA rows left; 160 fitted and 13 checks since 2026-12-07 (session 42), 158 and 15
  // since the A100's TF32 inference at batches 4 and 8 (session 45).
  EXPECT_EQ(published_single_device_throughput().size(), 158u);
  EXPECT_EQ(published_single_device_checks().size(), 15u);
  const std::vector<ThroughputRow> rows = all_published_rows();
  ASSERT_EQ(rows.size(), 173u);
  std::set<std::string> architectures;
  for (const ThroughputRow& r : rows) {
    const GpuSpec* gpu = find_gpu(r.gpu_id);
    ASSERT_NE(gpu, nullptr) << r.gpu_id;
    EXPECT_TRUE(make_workload(r.workload_id).has_value()) << r.workload_id;
    EXPECT_TRUE(gpu->peak_flops(r.precision).has_value()) << r.gpu_id;
    EXPECT_GT(r.samples_per_s, 0.0);
    EXPECT_GE(r.batch, 1);
    EXPECT_FALSE(r.source.empty());
    architectures.insert(gpu->architecture);
  }
  // Pascal, Volta, Turing and Ampere have rows; Hopper has Lambda's four H100 SXM5 rows (published_throughput.cpp).
  EXPECT_EQ(architectures, (std::set<std::string>{"Pascal", "Volta", "Turing", "Ampere", "Hopper"}));
}

TEST(PublishedRows, BertPretrainingRowsRunTheMaskedLmWhereTheirCodeDoes) {
  // modeling.py @b2763ae2 (the 20.06 rows) applies the prediction head to every position and run_pretraining.py takes
  // the loss over all of them; @a07d20a1 (the 21.11 rows) gathers the masked positions first, as the catalog does.
  int every_position = 0;
  for (const ThroughputRow& row : published_single_device_throughput()) {
    if (!row.workload_id.starts_with("bert-large-pretrain")) {
      EXPECT_FALSE(row.masked_lm_positions.has_value()) << row.source;
      continue;
    }
    const bool july_2020 = row.source.find("@b2763ae2") != std::string::npos;
    EXPECT_EQ(row.masked_lm_positions, july_2020 ? std::optional<int>(0) : std::nullopt) << row.source;
    every_position += july_2020 ? 1 : 0;
  }
  EXPECT_EQ(every_position, 12);  // A100 40GB, V100 32GB and 16GB; sequence 128 and 512; two precisions each
  // The prediction runs the row's own workload: the head on every position costs a step more time.
  ThroughputRow row = {"bert-large-pretrain-seq128", "a100-40gb-sxm4", Framework::pytorch, Precision::fp16,
                       Pass::training, 64, 1, 1.0, "synthetic"};
  const double gathered = predict_samples_per_s(row, published_compute_fit());
  row.masked_lm_positions = 0;
  EXPECT_LT(predict_samples_per_s(row, published_compute_fit()), 0.95 * gathered);  // about 9% more flop
  EXPECT_EQ(workload_of(row).layers.size(), make_workload(row.workload_id)->layers.size() - 1);  // no gather copy
}

// The published figure of the row of `workload` on `gpu` in `precision` and `pass` at `batch` from `document`.
double published(const std::string& workload, const std::string& gpu, Precision precision, Pass pass, int batch,
                 const std::string& document) {
  for (const ThroughputRow& r : all_published_rows()) {
    if (r.workload_id == workload && r.gpu_id == gpu && r.precision == precision && r.pass == pass &&
        r.batch == batch && r.source.find(document) != std::string::npos) {
      return r.samples_per_s;
    }
  }
  ADD_FAILURE() << "no row " << workload << " " << gpu << " b" << batch << " in " << document;
  return 1.0;
}

TEST(PublishedRows, TheChecksAreTheRowsWhoseSourcesShowTheirStepIsNotTheirGpus) {
  // Not fitted, each with why: NVIDIA's Mask R-CNN AMP training rows (two READMEs: 2 + 1) and the DGX A100's
  // TensorFlow inference sweep from batch 16 up (2 precisions x 5 batches) and in TF32 at batches 4 and 8; every
  // other row is fitted.
  int mask_rcnn = 0;
  int a100_sweep = 0;
  for (const ThroughputRow& r : published_single_device_checks()) {
    EXPECT_FALSE(r.not_fitted.empty()) << r.workload_id;
    const bool sweep = r.framework == Framework::tensorflow && r.pass == Pass::inference &&
                       r.gpu_id == "a100-40gb-sxm4" &&
                       (r.batch >= 16 || (r.precision == Precision::tf32 && r.batch >= 4));
    const bool mask = r.workload_id == "mask-rcnn-r50-fpn" && r.precision == Precision::fp16;
    mask_rcnn += mask ? 1 : 0;
    a100_sweep += sweep ? 1 : 0;
    EXPECT_TRUE(mask || sweep) << r.workload_id << " " << r.gpu_id;
  }
  EXPECT_EQ(mask_rcnn, 3);
  EXPECT_EQ(a100_sweep, 12);
  for (const ThroughputRow& r : published_single_device_throughput()) EXPECT_TRUE(r.not_fitted.empty());
}

// Whether `row` (of all_published_rows) is a check: it says why it is not fitted, which exactly the checks do
// (TheChecksAreTheRowsWhoseSourcesShowTheirStepIsNotTheirGpus).
bool is_check(const ThroughputRow& row) { return !row.not_fitted.empty(); }

// The repository a row's source names ("NVIDIA/DeepLearningExamples", "lambdal/deeplearning-benchmark"): one
// benchmark, whose precisions may be published in files of their own.
std::string repository_of(const ThroughputRow& row) { return row.source.substr(0, row.source.find(':')); }

TEST(PublishedRows, AMixedPrecisionTrainingRowThatBarelyBeatsItsFp32RowIsACheck) {
  // Every training row in 16 bits with a TF32 or FP32 training row of the same benchmark, framework, workload and GPU
  // (27 pairs): the tensor cores' gain is 1.48-5.56x for every pair but Mask R-CNN's (1.04x, 1.19x, 1.33x), where the
  // step is not theirs to speed up; exactly those, below 1.4x, are checks. The nearest above are Lambda's NCHW
  // ResNet-50 on the A100 80GB and the H100 (1.48x, 1.49x), fitted.
  int pairs = 0;
  int below = 0;
  double lowest_above = 100.0;
  const std::vector<ThroughputRow> rows = all_published_rows();
  for (const ThroughputRow& amp : rows) {
    if (amp.precision != Precision::fp16 || amp.pass != Pass::training) continue;
    for (const ThroughputRow& full : rows) {
      const bool fp32_path = full.precision == Precision::fp32 || full.precision == Precision::tf32;
      if (!fp32_path || full.pass != Pass::training || full.workload_id != amp.workload_id ||
          full.gpu_id != amp.gpu_id || full.framework != amp.framework || repository_of(full) != repository_of(amp)) {
        continue;
      }
      ++pairs;
      const double gain = amp.samples_per_s / full.samples_per_s;
      const bool barely = gain < 1.4;
      below += barely ? 1 : 0;
      if (!barely) lowest_above = std::min(lowest_above, gain);
      EXPECT_EQ(barely, is_check(amp)) << amp.workload_id << " " << amp.gpu_id << " " << amp.source;
      EXPECT_FALSE(is_check(full)) << full.workload_id << " " << full.gpu_id;
    }
  }
  EXPECT_EQ(pairs, 27);
  EXPECT_EQ(below, 3);
  EXPECT_NEAR(lowest_above, 1.48, 0.005);  // Lambda's ResNet-50 AMP over TF32 on the A100 80GB, 1,582 / 1,066
}

TEST(PublishedRows, AnInferenceSweepThatDoesNotLeadASlowerGpuAsItsDatasheetsWouldIsACheck) {
  // DeepLearningExamples' TensorFlow ResNet-50 inference sweep (20.06) on four GPUs. A GPU-bound forward pass on a GPU
  // with more math and more memory bandwidth than another runs at least the smaller of those two ratios faster at
  // equal efficiency. Per batch and precision path, where every pair not led by the DGX A100 keeps that lead (the
  // batch is bound by those GPUs), the A100's rows are checks, its pairs all falling short. Where a V100 falls short of
  // the T4 too (the fp32 path at batches 1 and 2, 16 bits up to batch 8), every GPU is bound by its host, and the rows
  // are fitted (the host's dispatch is fitted to them).
  const std::string sweep = "TensorFlow/Classification/ConvNets/resnet50v1.5/README.md @1d4211fe";
  struct Leads {
    int pairs = 0;
    int a100_short = 0;    // pairs led by the A100 that fall short
    int others_short = 0;  // the other pairs that do
  };
  std::map<std::pair<bool, int>, Leads> by_path_and_batch;  // (16 bits, batch)
  const std::vector<ThroughputRow> rows = all_published_rows();
  const auto in_sweep = [&](const ThroughputRow& r) {
    return r.source.find(sweep) != std::string::npos && r.pass == Pass::inference;
  };
  for (const ThroughputRow& fast : rows) {
    if (!in_sweep(fast)) continue;
    for (const ThroughputRow& slow : rows) {
      if (!in_sweep(slow) || slow.batch != fast.batch ||
          (fast.precision == Precision::fp16) != (slow.precision == Precision::fp16)) {
        continue;
      }
      const GpuSpec& a = *find_gpu(fast.gpu_id);
      const GpuSpec& b = *find_gpu(slow.gpu_id);
      const double math = *a.peak_flops(fast.precision) / *b.peak_flops(slow.precision);
      const double memory = a.memory_bandwidth_Bps / b.memory_bandwidth_Bps;
      if (math <= 1.0 || memory <= 1.0) continue;
      Leads& leads = by_path_and_batch[{fast.precision == Precision::fp16, fast.batch}];
      ++leads.pairs;
      if (fast.samples_per_s / slow.samples_per_s < std::min(math, memory)) {
        ++(fast.gpu_id == "a100-40gb-sxm4" ? leads.a100_short : leads.others_short);
      }
    }
  }
  int pairs = 0;
  int a100_short = 0;
  int others_short = 0;
  for (const auto& [key, leads] : by_path_and_batch) {
    pairs += leads.pairs;
    a100_short += leads.a100_short;
    others_short += leads.others_short;
  }
  EXPECT_EQ(pairs, 90);         // 9 batches (1-256); per path, the A100 over three GPUs and the two V100s over the T4
  EXPECT_EQ(a100_short, 54);    // the A100's, at every batch and in both paths
  EXPECT_EQ(others_short, 11);  // fp32 path: 2 at batch 1, 2 at 2; 16 bits: 2 at 1, 2 and 4, 1 at 8
  int checks = 0;
  for (const ThroughputRow& r : rows) {
    if (!in_sweep(r)) continue;
    const Leads& leads = by_path_and_batch.at({r.precision == Precision::fp16, r.batch});
    const bool check = r.gpu_id == "a100-40gb-sxm4" && leads.others_short == 0 && leads.a100_short == 3;
    checks += check ? 1 : 0;
    EXPECT_EQ(is_check(r), check) << r.gpu_id << " " << to_string(r.precision) << " b" << r.batch;
  }
  EXPECT_EQ(checks, 12);  // TF32 from batch 4, fp16 from batch 16
  // The figures its reasons quote: 1.18x and 1.42x the V100 16GB's at batch 256, the bandwidth's 1.73x; at batch 4 in
  // TF32 1.07x, where the V100 16GB leads the T4 1.94x against their fp32 peaks' 1.94x (15.7 / 8.1 TFLOP/s).
  const auto at = [&](const std::string& gpu, Precision precision, int batch) {
    return published("resnet-50", gpu, precision, Pass::inference, batch, sweep);
  };
  EXPECT_NEAR(at("a100-40gb-sxm4", Precision::fp16, 256) / at("v100-sxm2-16gb", Precision::fp16, 256), 1.18, 0.01);
  EXPECT_NEAR(at("a100-40gb-sxm4", Precision::tf32, 256) / at("v100-sxm2-16gb", Precision::fp32, 256), 1.42, 0.01);
  EXPECT_NEAR(find_gpu("a100-40gb-sxm4")->memory_bandwidth_Bps / find_gpu("v100-sxm2-16gb")->memory_bandwidth_Bps, 1.73,
              0.01);
  EXPECT_NEAR(at("a100-40gb-sxm4", Precision::tf32, 4) / at("v100-sxm2-16gb", Precision::fp32, 4), 1.07, 0.01);
  EXPECT_NEAR(at("v100-sxm2-16gb", Precision::fp32, 4) / at("t4", Precision::fp32, 4), 1.94, 0.005);
}

TEST(PublishedRows, NoRowComesFromAnXlaRun) {
  // NVIDIA's TensorFlow BERT README publishes XLA runs only: its training scripts enable XLA by default and its
  // inference benchmark passes --use_xla (published_throughput.cpp). XLA fuses kernels the layer lists count one by
  // one, so none of its rows is fitted.
  for (const ThroughputRow& r : all_published_rows()) {
    EXPECT_EQ(r.source.find("TensorFlow/LanguageModeling/BERT"), std::string::npos) << r.source;
  }
}

TEST(PublishedRows, NoRowNeedsItsMatrixProductsToRunAboveItsPrecisionsPeak) {
  // cuBLAS runs a matrix product's nominal flop (no Strassen-like algorithm), so a row whose GEMM layers alone need
  // more than the datasheet peak of its precision path was mis-transcribed. Convolutions are left out: cuDNN's
  // Winograd and FFT algorithms do fewer multiplications than a convolution's nominal flop (workload.hpp).
  for (const ThroughputRow& r : all_published_rows()) {
    const Workload workload = workload_of(r);  // the row's code's: every position's head for some BERT rows
    double gemm_flop_per_sample = 0.0;
    for (const Layer& layer : workload.layers) {
      if (layer.kind != KernelKind::gemm) continue;
      gemm_flop_per_sample += layer.forward_flop + (r.pass == Pass::training ? layer.backward_flop : 0.0);
    }
    const double peak_flops = find_gpu(r.gpu_id)->peak_flops(r.precision).value();
    EXPECT_LE(gemm_flop_per_sample * r.samples_per_s, peak_flops)
        << r.workload_id << " on " << r.gpu_id << " at batch " << r.batch << ": " << r.samples_per_s << " samples/s ("
        << r.source << ")";
  }
}

TEST(ResolveCompute, EachNoteCarriesItsSourceAndTheListsAreItsFilters) {
  // An A100 in fp16: its GEMM efficiency is fitted to Ampere's published rows; a dispatch cost the scenario states is
  // the scenario's; a launch cost the profile measured is measured; the memory efficiency is an uncalibrated default.
  HostSide host;
  host.host_dispatch_s = 12e-6;
  CalibratedParameters calibration;
  calibration.kernel_launch_s = CalibratedValue{4e-6, "test profile: empty kernels"};
  const ResolvedCompute resolved =
      resolve_compute(*find_gpu("a100-40gb-sxm4"), Precision::fp16, *make_workload("resnet-50"), 64, host,
                      known_parameters(), calibration);
  const auto source_of = [&](const std::string& start) {
    const auto note =
        std::ranges::find_if(resolved.notes, [&](const SourcedNote& n) { return n.text.starts_with(start); });
    EXPECT_NE(note, resolved.notes.end()) << start;
    return note == resolved.notes.end() ? Source::published : note->source;
  };
  EXPECT_EQ(source_of("Ampere tensor16 GEMM efficiency"), Source::fitted);
  EXPECT_EQ(source_of("host dispatch 12 us per kernel: given in the scenario"), Source::scenario);
  EXPECT_EQ(source_of("kernel fixed cost 4 us (every kernel): test profile"), Source::measured);
  EXPECT_EQ(source_of("memory efficiency 0.8"), Source::uncalibrated);
  // The three lists a result prints are the notes filtered by source, each note in exactly one.
  EXPECT_EQ(resolved.sources().size() + resolved.calibrated().size() + resolved.uncalibrated().size(),
            resolved.notes.size());
  EXPECT_EQ(resolved.calibrated(), std::vector<std::string>{"kernel fixed cost 4 us (every kernel): test profile: "
                                                            "empty kernels"});
}

TEST(ResolveCompute, AWorkloadThatLeavesWorkOutSaysSoAmongTheUncalibratedNotes) {
  // Mask R-CNN's layer list leaves its proposal stage out (cnn_workloads.cpp), and its run says so; ResNet-50's
  // leaves nothing known out, and says nothing.
  const auto leaves_out_notes = [](const std::string& workload) {
    const ResolvedCompute resolved = resolve_compute(*find_gpu("a100-80gb-sxm4"), Precision::fp16,
                                                     *make_workload(workload), 8, HostSide{}, known_parameters(), {});
    return std::ranges::count_if(resolved.uncalibrated(), [](const std::string& note) {
      return note.find("its layer list leaves out") != std::string::npos;
    });
  };
  EXPECT_FALSE(make_workload("mask-rcnn-r50-fpn")->leaves_out.empty());
  EXPECT_EQ(leaves_out_notes("mask-rcnn-r50-fpn"), 1);
  EXPECT_TRUE(make_workload("resnet-50")->leaves_out.empty());
  EXPECT_EQ(leaves_out_notes("resnet-50"), 0);
}

TEST(ResolveCompute, AGpuWithoutRowsTakesTheKernelModelsEfficiencyOrTheNearestFitAndSaysSo) {
  const GpuSpec& h100 = *find_gpu("h100-sxm5");
  const Workload rn50 = *make_workload("resnet-50");
  const ComputeFit fit = known_parameters();
  const ResolvedCompute resolved =
      resolve_compute(h100, Precision::bf16, rn50, 64, HostSide{}, fit, CalibratedParameters{});
  // 16-bit GEMMs: the kernel model's tensor-core constants at a 128 x 128 tile, whose intensity is
  // 128 x 128 / (128 + 128) = 64 values per loaded value, held under the best H100 matmul published (794.5 of 989
  // TFLOP/s), as a fitted value is.
  const KernelFamilyParameters& tensor = fitted_kernel_parameters().parameters.of(KernelFamily::tensor_gemm);
  const double derived_gemm = at_a_128_tile(tensor);
  ASSERT_GT(derived_gemm, 794.5 / 989.0);
  EXPECT_DOUBLE_EQ(resolved.parameters.gemm_efficiency, 794.5 / 989.0);
  // 16-bit convolutions likewise, with the tensor_convolution family's constants.
  const KernelFamilyParameters& convolution =
      fitted_kernel_parameters().parameters.of(KernelFamily::tensor_convolution);
  EXPECT_DOUBLE_EQ(resolved.parameters.convolution_efficiency, at_a_128_tile(convolution));
  EXPECT_DOUBLE_EQ(resolved.parameters.host_dispatch_s, 40e-6);
  const auto says = [](const ResolvedCompute& r, const std::string& what) {
    return std::ranges::any_of(r.uncalibrated(),
                               [&](const std::string& note) { return note.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(says(resolved, "Hopper tensor16 GEMM efficiency"));
  EXPECT_TRUE(says(resolved, "Hopper tensor16 convolution efficiency"));
  EXPECT_TRUE(says(resolved, "derived by the kernel model"));
  EXPECT_FALSE(says(resolved, "transferred"));
  EXPECT_TRUE(resolved.calibrated().empty());
  // TF32 runs on the same tensor cores: without Hopper TF32 rows it is derived from the same constants at the TF32
  // peak (no published TF32 matmul figure caps it), not Ampere's fitted TF32 efficiency carried over.
  ComputeFit with_tf32 = fit;
  with_tf32.efficiency[{"Ampere", PrecisionPath::tf32, KernelKind::gemm}] = 0.5;
  with_tf32.efficiency[{"Ampere", PrecisionPath::tf32, KernelKind::convolution}] = 0.2;
  const ResolvedCompute tf32 =
      resolve_compute(h100, Precision::tf32, rn50, 64, HostSide{}, with_tf32, CalibratedParameters{});
  EXPECT_DOUBLE_EQ(tf32.parameters.gemm_efficiency, derived_gemm);
  EXPECT_DOUBLE_EQ(tf32.parameters.convolution_efficiency, at_a_128_tile(convolution));
  EXPECT_DOUBLE_EQ(tf32.parameters.gemm_depth_overhead, tensor.k_overhead);
  EXPECT_TRUE(says(tf32, "Hopper tf32 GEMM efficiency"));
  EXPECT_TRUE(says(tf32, "for TF32 (the 16-bit kernels' constants"));
  EXPECT_FALSE(says(tf32, "transferred"));
}

TEST(ResolveCompute, MeasuredPassesRunAtTheKernelModelsFittedBandwidth) {
  // Element-wise, softmax and layer-norm layers take the kernel model's fitted memory efficiencies (NeuSight's
  // kernels) times the GPU's memory share measured there (the A100 PCIe's; an H100 has none: 1), said as measured on a
  // GPU of the data and derived on one outside it; a profile's measured bandwidth replaces them all.
  const Workload bert = *make_workload("bert-large-squad-seq384");
  const KernelModelParameters& kernels = fitted_kernel_parameters().parameters;
  const auto resolved = [&](const std::string& gpu, const CalibratedParameters& calibration) {
    return resolve_compute(*find_gpu(gpu), Precision::fp16, bert, 1, HostSide{}, known_parameters(), calibration);
  };
  const ResolvedCompute a100 = resolved("a100-40gb-pcie", CalibratedParameters{});
  const auto share = [](const std::string& gpu, KernelFamily family) {
    for (const SustainedClock& clock : fitted_kernel_parameters().clocks) {
      if (clock.gpu_id == gpu && clock.family == family) return clock.fraction;
    }
    return 1.0;
  };
  EXPECT_DOUBLE_EQ(a100.parameters.memory_efficiency_of(MemoryPass::layer_norm),
                   kernels.of(KernelFamily::layer_norm).memory_efficiency * share("a100-40gb-pcie",
                                                                                   KernelFamily::layer_norm));
  EXPECT_DOUBLE_EQ(a100.parameters.memory_efficiency_of(MemoryPass::softmax),
                   kernels.of(KernelFamily::softmax).memory_efficiency * share("a100-40gb-pcie", KernelFamily::softmax));
  EXPECT_LT(share("a100-40gb-pcie", KernelFamily::elementwise), 1.0);  // the V100's passes are the best measured
  EXPECT_DOUBLE_EQ(a100.parameters.memory_efficiency_of(MemoryPass::elementwise),
                   kernels.of(KernelFamily::elementwise).memory_efficiency *
                       share("a100-40gb-pcie", KernelFamily::elementwise));
  const auto mentions = [](const std::vector<std::string>& notes, const std::string& text) {
    return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != n.npos; });
  };
  EXPECT_TRUE(mentions(a100.sources(), "layer_norm passes"));
  EXPECT_TRUE(mentions(a100.sources(), "sustained there"));
  const ResolvedCompute h100 = resolved("h100-sxm5", CalibratedParameters{});
  EXPECT_DOUBLE_EQ(h100.parameters.memory_efficiency_of(MemoryPass::elementwise),
                   kernels.of(KernelFamily::elementwise).memory_efficiency);
  EXPECT_TRUE(mentions(h100.uncalibrated(), "layer_norm passes"));
  EXPECT_TRUE(mentions(h100.uncalibrated(), "none measured on h100-sxm5"));
  CalibratedParameters measured;
  measured.memory_bandwidth_Bps = CalibratedValue{1.2e12, "a test's copy"};
  const ResolvedCompute profiled = resolved("a100-40gb-pcie", measured);
  EXPECT_DOUBLE_EQ(profiled.parameters.memory_efficiency_of(MemoryPass::layer_norm),
                   profiled.parameters.memory_efficiency);
}

TEST(ResolveCompute, GemmsCarryTheDepthOverheadOfTheKernelFamilyThatTimesThem) {
  // 16-bit and TF32 GEMMs on tensor cores take the tensor_gemm family's fitted constant (TF32's: the same tensor
  // cores, no TF32 kernel fitted), fp32 GEMMs the gemm family's, and so do a GPU's without tensor cores in 16 bits.
  const Workload bert = *make_workload("bert-large-squad-seq384");
  const KernelModelParameters& kernels = fitted_kernel_parameters().parameters;
  ComputeFit fit = known_parameters();  // with TF32 rows, whose fitted values keep the family's depth overhead
  fit.efficiency[{"Ampere", PrecisionPath::tf32, KernelKind::gemm}] = 0.5;
  fit.efficiency[{"Ampere", PrecisionPath::tf32, KernelKind::convolution}] = 0.2;
  const auto overhead = [&](const std::string& gpu, Precision precision) {
    return resolve_compute(*find_gpu(gpu), precision, bert, 1, HostSide{}, fit, CalibratedParameters{})
        .parameters.gemm_depth_overhead;
  };
  ASSERT_GT(kernels.of(KernelFamily::tensor_gemm).k_overhead, 0.0);
  EXPECT_DOUBLE_EQ(overhead("a100-80gb-sxm4", Precision::bf16), kernels.of(KernelFamily::tensor_gemm).k_overhead);
  EXPECT_DOUBLE_EQ(overhead("h100-sxm5", Precision::fp16), kernels.of(KernelFamily::tensor_gemm).k_overhead);
  EXPECT_DOUBLE_EQ(overhead("v100-sxm2-16gb", Precision::fp32), kernels.of(KernelFamily::gemm).k_overhead);
  EXPECT_DOUBLE_EQ(overhead("a100-80gb-sxm4", Precision::tf32), kernels.of(KernelFamily::tensor_gemm).k_overhead);
  EXPECT_DOUBLE_EQ(overhead("p100-sxm2", Precision::fp16), kernels.of(KernelFamily::gemm).k_overhead);
  // Fitted on a V100 and a T4: a source for the V100, carried (uncalibrated) to the A100.
  const auto notes = [&](const std::string& gpu) {
    return resolve_compute(*find_gpu(gpu), Precision::fp16, bert, 1, HostSide{}, known_parameters(),
                           CalibratedParameters{});
  };
  const auto says = [](const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(),
                       [](const std::string& n) { return n.find("GEMM depth overhead") == 0; });
  };
  EXPECT_TRUE(says(notes("v100-sxm2-32gb").sources()));
  EXPECT_FALSE(says(notes("v100-sxm2-32gb").uncalibrated()));
  EXPECT_TRUE(says(notes("a100-80gb-sxm4").uncalibrated()));
  EXPECT_FALSE(says(notes("a100-80gb-sxm4").sources()));
}

TEST(ResolveCompute, CudaGraphsReplaceTheHostsCostPerKernelWithTheGraphsCostPerNode) {
  const Workload rn50 = *make_workload("resnet-50");
  const ComputeFit fit = known_parameters();
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  HostSide host;
  host.vm_cpu_overhead = 0.02;
  const ResolvedCompute eager = resolve_compute(a100, Precision::fp16, rn50, 1, host, fit, CalibratedParameters{});
  EXPECT_DOUBLE_EQ(eager.parameters.host_dispatch_s, 40e-6 * 1.02);  // fitted, with the VM's CPU overhead
  host.execution = Execution::cuda_graphs;
  const ResolvedCompute graphs = resolve_compute(a100, Precision::fp16, rn50, 1, host, fit, CalibratedParameters{});
  // 0.556 us per node (measured on one H200 host, data/measured/h200-sxm-2026-12-04-host), not the framework's and
  // not slowed by the VM: the GPU submits.
  EXPECT_DOUBLE_EQ(graphs.parameters.host_dispatch_s, 0.556e-6);
  bool said = false;
  for (const std::string& note : graphs.uncalibrated()) said |= note.find("under CUDA Graphs") != std::string::npos;
  EXPECT_TRUE(said);
  // Every kernel's fixed device cost (3 us) exceeds it, so at batch 1 the device paces the step, not the host:
  // the step is the sum of the kernels' device times.
  const DeviceCompute device = whole_gpu(a100, Precision::fp16, a100.memory_bytes);
  const KernelTimes times = kernel_times(rn50, 1, Precision::fp16, device, graphs.parameters, Pass::training);
  // (A kernel standing for several launches, as the optimizer's multi-tensor groups, pays its fixed cost per launch.)
  double device_s = 0;
  for (Kernel kernel : iteration_kernels(rn50, 1, Precision::fp16, Pass::training)) {
    const int launches = kernel.launches;
    kernel.flop /= launches;
    kernel.bytes /= launches;
    device_s += launches * kernel_time_s(kernel, device, graphs.parameters);
  }
  EXPECT_NEAR(times.total_s(), device_s, 1e-12);
  const KernelTimes eager_times = kernel_times(rn50, 1, Precision::fp16, device, eager.parameters, Pass::training);
  // Eager at batch 1 the host binds: 40 us per launch, about 1.45x the device's time here.
  EXPECT_GT(eager_times.total_s(), 1.3 * device_s);
}

TEST(ResolveCompute, CudnnsOwnLaunchesCostTheHostTheLaunchAlone) {
  // cuDNN's transposes around a tensor-core convolution on NCHW tensors are launched inside the framework's call: the
  // host pays the launch measured on one H200 host (8.19 us), or a graph node's cost under CUDA Graphs, and nothing
  // where there are none (NHWC, or convolutions on the CUDA cores).
  Workload rn50 = *make_workload("resnet-50");
  rn50.layout = TensorLayout::nchw;
  const ComputeFit fit = known_parameters();
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  HostSide host;
  const auto said = [](const ResolvedCompute& resolved) {
    const std::vector<std::string> notes = resolved.uncalibrated();
    return std::any_of(notes.begin(), notes.end(),
                       [](const std::string& n) { return n.starts_with("host dispatch of cuDNN's own launches"); });
  };
  const ResolvedCompute eager = resolve_compute(a100, Precision::tf32, rn50, 8, host, fit, CalibratedParameters{});
  EXPECT_DOUBLE_EQ(eager.parameters.library_launch_host_s, 8.19e-6);
  EXPECT_TRUE(said(eager));
  host.execution = Execution::cuda_graphs;
  const ResolvedCompute graphs = resolve_compute(a100, Precision::fp16, rn50, 8, host, fit, CalibratedParameters{});
  EXPECT_DOUBLE_EQ(graphs.parameters.library_launch_host_s, 0.556e-6);
  EXPECT_TRUE(said(graphs));
  host.execution = Execution::eager;
  const ResolvedCompute fp32 = resolve_compute(a100, Precision::fp32, rn50, 8, host, fit, CalibratedParameters{});
  EXPECT_EQ(fp32.parameters.library_launch_host_s, 0.0);
  EXPECT_FALSE(said(fp32));
  // Never more than a framework's whole dispatch of a kernel, which includes a launch.
  host.host_dispatch_s = 3e-6;
  EXPECT_DOUBLE_EQ(resolve_compute(a100, Precision::tf32, rn50, 8, host, fit, CalibratedParameters{})
                       .parameters.library_launch_host_s,
                   3e-6);
  host.host_dispatch_s.reset();
  // A profile's measured launch call replaces the constant, whichever framework its host section measured.
  CalibratedParameters measured;
  measured.host_dispatch = CalibratedDispatch{.framework = Framework::tensorflow,
                                              .eager_s = CalibratedValue{30e-6, "p.json: host.eager_us_per_launch"},
                                              .graph_node_s = std::nullopt,
                                              .launch_call_s = CalibratedValue{5e-6, "p.json: host.launch_call_us"}};
  const ResolvedCompute profiled = resolve_compute(a100, Precision::tf32, rn50, 8, host, fit, measured);
  EXPECT_DOUBLE_EQ(profiled.parameters.library_launch_host_s, 5e-6);
  EXPECT_DOUBLE_EQ(profiled.parameters.host_dispatch_s, fit.host_dispatch_s.at(Framework::pytorch));
  EXPECT_TRUE(std::ranges::any_of(profiled.calibrated(), [](const std::string& n) {
    return n.starts_with("host dispatch of cuDNN's own launches") && n.find("p.json: host.launch_call_us") != n.npos;
  }));
  rn50.layout = TensorLayout::nhwc;
  const ResolvedCompute nhwc = resolve_compute(a100, Precision::tf32, rn50, 8, host, fit, CalibratedParameters{});
  EXPECT_EQ(nhwc.parameters.library_launch_host_s, 0.0);
  EXPECT_FALSE(said(nhwc));
}

TEST(ResolveCompute, ALibrarysLaunchCostIsTheMedianLaunchOfTheProfiledH200Steps) {
  // The median time of the runtime or driver call that launched each kernel, over every kernel of the profiled steps
  // on the H200 host (ProfiledRun's launch_s to launch_end_s).
  std::vector<double> launches;
  for (const char* file : {"h200-sxm-2026-12-04/traces/gpt2-seq1024-amp-b16.trace.json.gz",
                           "h200-sxm-2026-12-04/traces/gpt2-seq1024-fp32-b8.trace.json.gz",
                           "h200-sxm-2026-12-04/traces/gpt2-vocab50304-seq1024-amp-b16.trace.json.gz",
                           "h200-sxm-2026-12-04/traces/gpt2-vocab50304-seq1024-fp32-b8.trace.json.gz",
                           "h200-sxm-2026-12-04/traces/resnet50-amp-b256.trace.json.gz",
                           "h200-sxm-2026-12-04-bert/bert-large-seq128-amp-b64.trace.json.gz",
                           "h200-sxm-2026-12-04-bert/bert-large-seq512-fp32-b8.trace.json.gz"}) {
    const std::string path = std::string(VTSIM_SOURCE_DIR) + "/data/measured/" + file;
    std::ifstream in(path, std::ios::binary);
    ASSERT_TRUE(in) << path;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const ProfiledRun run = read_kineto_trace(gunzip_if_compressed(bytes.str(), path), path);
    for (const TracedWork& work : run.work) {
      if (work.kind == TracedWorkKind::kernel) launches.push_back(work.launch_end_s - work.launch_s);
    }
  }
  ASSERT_GT(launches.size(), 10000u);
  std::sort(launches.begin(), launches.end());
  const std::size_t n = launches.size();
  const double median = n % 2 == 1 ? launches[n / 2] : (launches[n / 2 - 1] + launches[n / 2]) / 2;
  EXPECT_NEAR(library_launch_host_s(), median, 0.005e-6);
}

TEST(ResolveCompute, AnArchitectureWithoutRowsGetsOnlyWhatTheKernelModelDerives) {
  // Ada and Blackwell have no published rows. A transformer's 16-bit and TF32 GEMMs and a CNN's 16-bit convolutions
  // are derived from the datasheet (tensor_gemm, tensor_convolution), never Hopper's or Ampere's fitted value
  // (AWouldBeTransferIsRefusedWhereTheArchitectureHasNoRows holds the rule for a path with no family).
  const ComputeFit fit = published_compute_fit();
  const Workload bert = *make_workload("bert-large-squad-seq384");
  const Workload rn50 = *make_workload("resnet-50");
  const auto resolve = [&](const char* gpu, Precision precision, const Workload& workload) {
    return resolve_compute(*find_gpu(gpu), precision, workload, 8, HostSide{}, fit, CalibratedParameters{});
  };
  const ResolvedCompute derived = resolve("l40s", Precision::fp16, bert);
  EXPECT_TRUE(derived.refused.empty());
  EXPECT_TRUE(std::ranges::any_of(derived.uncalibrated(), [](const std::string& note) {
    return note.find("Ada tensor16 GEMM efficiency") == 0 && note.find("derived by the kernel model") != std::string::npos;
  }));
  const ResolvedCompute convolution = resolve("l4", Precision::fp16, rn50);
  EXPECT_TRUE(convolution.refused.empty());
  const KernelFamilyParameters& tensor = fitted_kernel_parameters().parameters.of(KernelFamily::tensor_convolution);
  // 0.915 x min(1, 64 / 68.4) at the L4's boost clock (no measured clock for it), and the family's depth overhead.
  EXPECT_DOUBLE_EQ(convolution.parameters.convolution_efficiency, at_a_128_tile(tensor));
  EXPECT_DOUBLE_EQ(convolution.parameters.convolution_depth_overhead, tensor.k_overhead);
  EXPECT_TRUE(std::ranges::any_of(convolution.uncalibrated(), [](const std::string& n) {
    return n.find("Ada tensor16 convolution efficiency") == 0 &&
           n.find("derived by the kernel model") != std::string::npos;
  }));
  const ResolvedCompute tf32 = resolve("b200-sxm", Precision::tf32, bert);
  EXPECT_TRUE(tf32.refused.empty());
  const KernelFamilyParameters& gemm = fitted_kernel_parameters().parameters.of(KernelFamily::tensor_gemm);
  EXPECT_DOUBLE_EQ(tf32.parameters.gemm_efficiency, at_a_128_tile(gemm));
  EXPECT_TRUE(std::ranges::any_of(tf32.uncalibrated(), [](const std::string& note) {
    return note.find("Blackwell tf32 GEMM efficiency") == 0 && note.find("for TF32") != std::string::npos;
  }));
  // An architecture with rows keeps its own fitted value.
  EXPECT_TRUE(resolve("a100-80gb-sxm4", Precision::fp16, rn50).refused.empty());
  // Pascal has rows, but none in 16 bits and no tensor cores: its fp16 products run on the CUDA cores in fp32
  // arithmetic (at the fp32 peak, not the P100's half2 fp16 one), derived from the CUDA-core families, not Volta's
  // tensor-core fit carried over.
  const ResolvedCompute pascal = resolve("p100-sxm2", Precision::fp16, rn50);
  EXPECT_TRUE(pascal.refused.empty());
  const KernelFamilyParameters& cuda_convolution = fitted_kernel_parameters().parameters.of(KernelFamily::convolution);
  EXPECT_DOUBLE_EQ(pascal.parameters.convolution_efficiency, at_a_128_tile(cuda_convolution));
  EXPECT_TRUE(std::ranges::any_of(pascal.uncalibrated(), [](const std::string& note) {
    return note.find("Pascal tensor16 convolution efficiency") == 0 &&
           note.find("for fp32 arithmetic on its CUDA cores (no tensor cores") != std::string::npos;
  }));
  EXPECT_FALSE(std::ranges::any_of(
      pascal.uncalibrated(), [](const std::string& note) { return note.find("transferred") != std::string::npos; }));
  EXPECT_DOUBLE_EQ(pascal.parameters.convolution_depth_overhead, cuda_convolution.k_overhead);
  const GpuSpec& p100 = *find_gpu("p100-sxm2");
  EXPECT_DOUBLE_EQ(whole_gpu(p100, Precision::fp16, p100.memory_bytes).peak_flops, p100.fp32_flops);
}

TEST(ResolveCompute, AWouldBeTransferIsRefusedWhereTheArchitectureHasNoRows) {
  // No catalogued GPU has a path without a kernel family any more; a made-up V100 with a TF32 peak has one (TF32
  // before Ampere): Volta has rows, so Ampere's fitted TF32 value is carried over and said to be; a made-up
  // architecture without rows gets it refused instead.
  const Workload bert = *make_workload("bert-large-squad-seq384");
  ComputeFit fit = known_parameters();
  fit.efficiency[{"Ampere", PrecisionPath::tf32, KernelKind::gemm}] = 0.5;
  fit.efficiency[{"Ampere", PrecisionPath::tf32, KernelKind::convolution}] = 0.2;
  GpuSpec volta = *find_gpu("v100-sxm2-16gb");
  volta.tf32_flops = 100e12;
  const ResolvedCompute carried =
      resolve_compute(volta, Precision::tf32, bert, 1, HostSide{}, fit, CalibratedParameters{});
  EXPECT_TRUE(carried.refused.empty());
  EXPECT_DOUBLE_EQ(carried.parameters.gemm_efficiency, 0.5);
  EXPECT_TRUE(std::ranges::any_of(carried.uncalibrated(), [](const std::string& note) {
    return note.find("Volta tf32 GEMM efficiency 0.5: transferred") == 0;
  }));
  GpuSpec future = volta;
  future.architecture = "Kepler";
  const ResolvedCompute refused =
      resolve_compute(future, Precision::tf32, bert, 1, HostSide{}, fit, CalibratedParameters{});
  ASSERT_FALSE(refused.refused.empty());
  EXPECT_EQ(refused.refused.front().find("Kepler tf32 GEMM: no rows of Kepler"), 0u);
}

TEST(ResolveCompute, AProfilesMeasuredHostReplacesTheFittedDispatchForTheFrameworkItMeasured) {
  const Workload rn50 = *make_workload("resnet-50");
  const ComputeFit fit = known_parameters();
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  CalibratedParameters calibration;
  calibration.host_dispatch = CalibratedDispatch{.framework = Framework::pytorch,
                                                 .eager_s = {33.46e-6, "p.json: host.eager_us_per_launch"},
                                                 .graph_node_s = CalibratedValue{0.5e-6, "p.json: host.graph"}};
  HostSide host;
  host.vm_cpu_overhead = 0.02;
  // Listed as calibrated: a measurement, with its provenance.
  const auto sourced = [](const ResolvedCompute& r, const std::string& text) {
    return std::ranges::any_of(r.calibrated(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
  };
  // PyTorch eager: the measured 33.46 us as measured (on the host it describes, VM or not), not 40 us x 1.02.
  const ResolvedCompute eager = resolve_compute(a100, Precision::fp16, rn50, 1, host, fit, calibration);
  EXPECT_DOUBLE_EQ(eager.parameters.host_dispatch_s, 33.46e-6);
  EXPECT_TRUE(sourced(eager, "p.json: host.eager_us_per_launch"));
  // Under CUDA Graphs: the measured cost per node.
  host.execution = Execution::cuda_graphs;
  const ResolvedCompute graphs = resolve_compute(a100, Precision::fp16, rn50, 1, host, fit, calibration);
  EXPECT_DOUBLE_EQ(graphs.parameters.host_dispatch_s, 0.5e-6);
  EXPECT_TRUE(sourced(graphs, "p.json: host.graph"));
  // A value the scenario states wins over the profile.
  host.execution = Execution::eager;
  host.host_dispatch_s = 7e-6;
  EXPECT_DOUBLE_EQ(resolve_compute(a100, Precision::fp16, rn50, 1, host, fit, calibration).parameters.host_dispatch_s,
                   7e-6);
  // Another framework keeps its own fitted value: the profile measured PyTorch.
  host.host_dispatch_s.reset();
  host.framework = Framework::tensorflow;
  EXPECT_DOUBLE_EQ(resolve_compute(a100, Precision::fp16, rn50, 1, host, fit, calibration).parameters.host_dispatch_s,
                   12e-6 * 1.02);
}

TEST(ResolveCompute, ADerivedEfficiencyRunsAtTheSustainedClockTheKernelDataMeasuredOnThatGpu) {
  // The A100 PCIe 40GB is in the kernel data (NeuSight), held below its boost clock in its long fp32 GEMMs; Ampere has
  // no fp32 rows, so its fp32 GEMM efficiency is derived, at that clock; the SXM4 card, not in the data, at its boost.
  const FittedKernelParameters& kernels = fitted_kernel_parameters();
  double clock = 0;
  for (const SustainedClock& measured : kernels.clocks) {
    if (measured.gpu_id == "a100-40gb-pcie" && measured.family == KernelFamily::gemm) clock = measured.fraction;
  }
  ASSERT_GT(clock, 0.0);
  ASSERT_LT(clock, 1.0);
  const KernelFamilyParameters& gemm = kernels.parameters.of(KernelFamily::gemm);
  const double at_boost = std::min(1.0, at_a_128_tile(gemm));
  const Workload bert = *make_workload("bert-large-pretrain-seq128");
  const ComputeFit fit = known_parameters();
  const ResolvedCompute pcie =
      resolve_compute(*find_gpu("a100-40gb-pcie"), Precision::fp32, bert, 8, HostSide{}, fit, CalibratedParameters{});
  const ResolvedCompute sxm4 =
      resolve_compute(*find_gpu("a100-40gb-sxm4"), Precision::fp32, bert, 8, HostSide{}, fit, CalibratedParameters{});
  EXPECT_DOUBLE_EQ(pcie.parameters.gemm_efficiency, std::min(1.0, clock * at_a_128_tile(gemm)));
  EXPECT_DOUBLE_EQ(sxm4.parameters.gemm_efficiency, at_boost);
  bool says_clock = false;
  for (const std::string& note : pcie.uncalibrated()) {
    says_clock |= note.find("sustained clock measured") != std::string::npos;
  }
  EXPECT_TRUE(says_clock);
}

TEST(ResolveCompute, DataLoadingSharesTheVmsCoresLeftByItsRanksTrainingLoops) {
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const Workload rn50 = *make_workload("resnet-50");
  const ComputeFit fit = known_parameters();
  const double per_image_s = data_loading_cpu_s_per_sample(rn50);
  // One rank, 4 cores: 3 loader cores.
  const auto loading_s = [&](int cores, int ranks) {
    HostSide host;
    host.cpu_cores = cores;
    host.ranks_per_vm = ranks;
    return resolve_compute(a100, Precision::fp16, rn50, 256, host, fit, {}).parameters.data_loading_s;
  };
  EXPECT_DOUBLE_EQ(loading_s(4, 1), 256 * per_image_s / 3);
  // Four ranks in a 24-core VM: 20 loader cores, 5 per rank.
  EXPECT_DOUBLE_EQ(loading_s(24, 4), 256 * per_image_s / 5);
  // Fewer cores than ranks: the loaders share one core.
  EXPECT_DOUBLE_EQ(loading_s(2, 4), 256 * per_image_s / 0.25);
}

TEST(ResolveCompute, TheGpuLoaderRunsAtDalisRateUnlessItsCpuPartIsSlowerAndSyntheticDataCostsNothing) {
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const GpuSpec& h100 = *find_gpu("h100-sxm5");
  const Workload rn50 = *make_workload("resnet-50");
  const ComputeFit fit = known_parameters();
  const auto loading_s = [&](const GpuSpec& gpu, HostSide host) {
    return resolve_compute(gpu, Precision::fp16, rn50, 256, host, fit, {}).parameters.data_loading_s;
  };
  HostSide host;
  host.cpu_cores = 4;  // one rank: 3 loader cores
  host.data_loader = DataLoader::gpu;
  // DALI on an A100 with its hardware decoder, about 5,000 images/s (NVIDIA's 2020 blog [S]); on Hopper its CI's
  // floor of 19,000 (qa/TL1_decoder_perf).
  EXPECT_DOUBLE_EQ(loading_s(a100, host), 256 / 5000.0);
  EXPECT_DOUBLE_EQ(loading_s(h100, host), 256 / 19000.0);
  // A stated CPU part of 2 ms per image on 3 cores (170.7 ms per batch) is slower than the GPU's 51.2 ms.
  host.data_loading_cpu_s_per_sample = 2e-3;
  EXPECT_DOUBLE_EQ(loading_s(a100, host), 256 * 2e-3 / 3);
  // A stated rate replaces the published one.
  host.data_loading_cpu_s_per_sample.reset();
  host.data_loader_images_per_s = 1000;
  EXPECT_DOUBLE_EQ(loading_s(a100, host), 256 / 1000.0);
  HostSide synthetic;
  synthetic.data_loader = DataLoader::synthetic;
  EXPECT_DOUBLE_EQ(loading_s(a100, synthetic), 0.0);
}

TEST(ResolveCompute, AProfileGemmEfficiencyWithoutAPublishedReferenceIsNotUsedAndSaysSo) {
  const GpuSpec& v100 = *find_gpu("v100-sxm2-16gb");
  const Workload rn50 = *make_workload("resnet-50");
  ComputeFit fit = known_parameters();
  CalibratedParameters calibration;
  calibration.gemm_flop_efficiency[Precision::fp16] = {0.78, "p.json: gemm"};
  const ResolvedCompute resolved = resolve_compute(v100, Precision::fp16, rn50, 64, HostSide{}, fit, calibration);
  EXPECT_DOUBLE_EQ(resolved.parameters.gemm_efficiency, 0.55);  // Volta's fitted value, unchanged
  EXPECT_TRUE(resolved.calibrated().empty());
  bool said = false;
  for (const std::string& note : resolved.uncalibrated()) said |= note.find("is not used") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(ResolveCompute, AProfileGemmEfficiencyReplacesTheKernelModelsDerivation) {
  // The fit has no Hopper fp32 rows: the H200's fp32 GEMM efficiency is the kernel model's, derived from its
  // datasheet as one large product's; a profile's large-GEMM efficiency measures that product on the GPU itself.
  const GpuSpec& h200 = *find_gpu("h200-sxm");
  const Workload gpt2 = *make_workload("gpt2-small");
  const ComputeFit fit = known_parameters();
  const ResolvedCompute derived = resolve_compute(h200, Precision::fp32, gpt2, 8, HostSide{}, fit, {});
  ASSERT_GT(derived.parameters.gemm_efficiency, 0.8);
  CalibratedParameters calibration;
  calibration.gemm_flop_efficiency[Precision::fp32] = {0.756, "p.json: gemm"};
  const ResolvedCompute resolved = resolve_compute(h200, Precision::fp32, gpt2, 8, HostSide{}, fit, calibration);
  EXPECT_NEAR(resolved.parameters.gemm_efficiency, 0.756, 1e-12);
  EXPECT_NEAR(resolved.parameters.convolution_efficiency,
              derived.parameters.convolution_efficiency * 0.756 / derived.parameters.gemm_efficiency, 1e-12);
  ASSERT_EQ(resolved.calibrated().size(), 1u);
  EXPECT_NE(resolved.calibrated()[0].find("in place of the kernel model's derived"), std::string::npos);
}

TEST(ResolveCompute, AProfileReplacesWhatItMeasuredAndLabelsOnlyThat) {
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const Workload rn50 = *make_workload("resnet-50");
  const ComputeFit fit = known_parameters();
  CalibratedParameters calibration;
  calibration.gemm_flop_efficiency[Precision::fp16] = {0.78, "p.json: gemm"};
  calibration.kernel_launch_s = CalibratedValue{4.5e-6, "p.json: launch"};
  const ResolvedCompute resolved = resolve_compute(a100, Precision::fp16, rn50, 64, HostSide{}, fit, calibration);
  // The profile's GEMMs reach 0.78 of peak where the best published A100 figure is 271.2 of 312 TFLOP/s (0.869): the
  // fitted efficiencies move by 0.78 / 0.869.
  const double ratio = 0.78 / (271.2 / 312.0);
  EXPECT_NEAR(resolved.parameters.gemm_efficiency, 0.62 * ratio, 1e-12);
  EXPECT_NEAR(resolved.parameters.convolution_efficiency, 0.21 * ratio, 1e-12);
  EXPECT_DOUBLE_EQ(resolved.parameters.kernel_fixed_s, 4.5e-6);
  EXPECT_DOUBLE_EQ(resolved.parameters.memory_efficiency, default_memory_efficiency());  // not measured
  ASSERT_EQ(resolved.calibrated().size(), 2u);
  // The fitted efficiencies the profile scaled keep their own line; the fixed cost is no longer a default: what is
  // left uncalibrated is the memory efficiency, the measured passes' (derived: the kernel data have no SXM4 A100),
  // the GEMMs' and the convolutions' depth overheads (fitted on a V100 and a T4), the classifier's bias gradient (a
  // reduction taken at the layer norm family's efficiency) and data loading, which the profile did not measure.
  std::set<std::string> defaults;
  for (const std::string& note : resolved.uncalibrated())
    defaults.insert(note.substr(0, note.find(' ', note.find(' ') + 1)));
  EXPECT_EQ(defaults, (std::set<std::string>{"memory efficiency", "data loading", "elementwise passes",
                                             "layer_norm passes", "softmax passes", "GEMM depth",
                                             "convolution depth", "bias gradients"}));
}

/// One run of data/published/lambda-bert-squad/steady_state.csv.
struct LambdaRun {
  std::string run;
  std::string precision;
  int gpus = 0;
  int batch = 0;
  int steps = 0;       ///< between the two DLL lines
  double seconds = 0;  ///< between their timestamps
  double steady = 0;
};

/// Seconds since 1970 of a DLL timestamp, "2022-12-16 04:57:01.472493" (UTC as written; only differences are used).
double timestamp_s(const std::string& text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  EXPECT_EQ(std::sscanf(text.c_str(), "%d-%d-%d %d:%d:%lf", &year, &month, &day, &hour, &minute, &second), 6) << text;
  // Days from the civil date (H. Hinnant's days_from_civil).
  year -= month <= 2;
  const int era = year / 400;
  const int yoe = year - era * 400;
  const int doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
  return days * 86400.0 + hour * 3600.0 + minute * 60.0 + second;
}

std::vector<LambdaRun> lambda_runs() {
  std::ifstream file(std::string(VTSIM_SOURCE_DIR) + "/data/published/lambda-bert-squad/steady_state.csv");
  std::vector<LambdaRun> runs;
  std::string line;
  std::getline(file, line);  // header
  while (std::getline(file, line)) {
    std::vector<std::string> cells;
    std::stringstream stream(line);
    for (std::string cell; std::getline(stream, cell, ',');) cells.push_back(cell);
    if (cells.size() < 10) continue;
    runs.push_back({cells[0], cells[1], std::stoi(cells[2]), std::stoi(cells[3]),
                    std::stoi(cells[6]) - std::stoi(cells[5]), timestamp_s(cells[8]) - timestamp_s(cells[7]),
                    std::stod(cells[9])});
  }
  return runs;
}

TEST(PublishedRows, LambdasBertSquadRowsTakeTheirLogsSteadyState) {
  // Every run of the steady-state table is one row vtsim uses, at the table's figure: its one-GPU runs fitting rows
  // (published_throughput.cpp), its multi-GPU runs validation rows (scenarios/validation/table.json).
  const std::vector<LambdaRun> runs = lambda_runs();
  ASSERT_EQ(runs.size(), 26u);
  const std::map<std::string, std::string> one_gpu = {{"QuadroRTX8000_v1", "quadro-rtx-8000"},
                                                      {"LambdaCloud_V100_16GB_v1", "v100-sxm2-16gb"},
                                                      {"A100_80GB_SXM4_v1", "a100-80gb-sxm4"},
                                                      {"H100_80GB_SXM5_v1", "h100-sxm5"}};
  std::ifstream table_file(std::string(VTSIM_SOURCE_DIR) + "/scenarios/validation/table.json");
  const nlohmann::json table = nlohmann::json::parse(table_file);
  int fitting = 0;
  int validation = 0;
  for (const LambdaRun& run : runs) {
    // The table's figure is its own columns': steps x batch x GPUs over the seconds between the two lines.
    EXPECT_NEAR(run.steady, run.steps * run.batch * run.gpus / run.seconds, 0.006) << run.run << " " << run.precision;
    const bool amp = run.precision == "FP16";
    if (run.gpus == 1) {
      const auto& rows = published_single_device_throughput();
      const auto row = std::find_if(rows.begin(), rows.end(), [&](const ThroughputRow& r) {
        return r.workload_id == "bert-large-squad-seq384" && r.gpu_id == one_gpu.at(run.run) && r.batch == run.batch &&
               (r.precision == Precision::fp16) == amp && r.pass == Pass::training;
      });
      ASSERT_NE(row, rows.end()) << run.run << " " << run.precision;
      EXPECT_DOUBLE_EQ(row->samples_per_s, run.steady) << run.run << " " << run.precision;
      ++fitting;
      continue;
    }
    const bool v100 = run.run.find("V100") != std::string::npos;
    const std::string gpu = v100                                        ? "V100 16GB (Lambda Cloud)"
                            : run.run.find("A100") != std::string::npos ? "A100 80GB SXM4 (Lambda)"
                                                                        : "H100 SXM5 (Lambda)";
    const std::string name = "BERT-large SQuAD " + std::to_string(run.gpus) + "x " + gpu + " " +
                             (amp    ? "AMP"
                              : v100 ? "FP32"
                                     : "TF32");
    const auto row = std::find_if(table["rows"].begin(), table["rows"].end(),
                                  [&](const nlohmann::json& r) { return r["name"] == name; });
    ASSERT_NE(row, table["rows"].end()) << name;
    EXPECT_DOUBLE_EQ((*row)["measured_samples_per_s"].get<double>(), run.steady) << name;
    ++validation;
  }
  // And no BERT SQuAD row from Lambda's CSVs is left out of the table: 8 fitting rows, 18 validation rows.
  EXPECT_EQ(fitting, 8);
  EXPECT_EQ(validation, 18);
  const auto& rows = published_single_device_throughput();
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(),
                          [](const ThroughputRow& r) {
                            return r.workload_id == "bert-large-squad-seq384" &&
                                   r.source.find("lambdal/deeplearning-benchmark") != std::string::npos;
                          }),
            fitting);
  EXPECT_EQ(std::count_if(table["rows"].begin(), table["rows"].end(),
                          [](const nlohmann::json& r) {
                            return r["name"].get<std::string>().starts_with("BERT") &&
                                   r["source"].get<std::string>().find("lambdal/") != std::string::npos;
                          }),
            validation);
}

}  // namespace

}  // namespace vtsim
