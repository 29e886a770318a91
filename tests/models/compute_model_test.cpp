// The roofline kernel times, the devices (whole GPU, MIG instance), the fit to published single-GPU throughput and
// the transfer of efficiencies. Expected numbers are derived by hand from the formulas in compute_model.hpp and
// datasheet figures, or are the published throughputs themselves.

#include "models/compute_model.hpp"

#include <gtest/gtest.h>

#include <string>

#include "models/gpu_catalog.hpp"
#include "models/mig_catalog.hpp"
#include "models/workload_catalog.hpp"

namespace vtsim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Layer layer(double forward_flop, double backward_flop, double activation_elements, double parameters,
            bool trainable = true) {
  Layer l;
  l.name = "synthetic";
  l.forward_flop = forward_flop;
  l.backward_flop = backward_flop;
  l.activation_elements = activation_elements;
  l.parameters = parameters;
  l.trainable = trainable;
  return l;
}

Workload workload_of(std::vector<Layer> layers, Optimizer optimizer = Optimizer::sgd_momentum) {
  Workload w;
  w.id = "synthetic";
  w.sample_unit = "image";
  w.layers = std::move(layers);
  w.optimizer = optimizer;
  return w;
}

// A made-up device: 100 Tflop/s, 1 TB/s.
const DeviceCompute kDevice{.description = "test", .peak_flops = 100e12, .memory_bandwidth_Bps = 1e12,
                            .memory_bytes = 16 * kGiB};

ComputeEfficiency efficiency(double flop, double memory) {
  ComputeEfficiency e;
  e.flop_efficiency = flop;
  e.memory_efficiency = memory;
  return e;
}

TEST(KernelTimes, ComputeBoundLayerTakesFlopOverPeakTimesEfficiency) {
  // 1 Gflop forward, 2 Gflop backward per sample, a few bytes: batch 4 at 50% of 100 Tflop/s.
  const Workload w = workload_of({layer(1e9, 2e9, 10.0, 0.0)});
  const KernelTimes t = kernel_times(w, 4, Precision::tf32, kDevice, efficiency(0.5, 0.8));
  ASSERT_EQ(t.forward_s.size(), 1u);
  EXPECT_DOUBLE_EQ(t.forward_s[0], 4e9 / 50e12);  // 80 us
  EXPECT_DOUBLE_EQ(t.backward_s[0], 8e9 / 50e12);
  EXPECT_DOUBLE_EQ(t.optimizer_s, 0.0);  // no parameters
  EXPECT_DOUBLE_EQ(t.total_s(), 12e9 / 50e12);
}

TEST(KernelTimes, MemoryBoundLayerTakesBytesOverBandwidthTimesEfficiency) {
  // 1e6 activation elements per sample and 1e5 weights, batch 4, 80% of 1 TB/s.
  const Workload w = workload_of({layer(1.0, 1.0, 1e6, 1e5, false)});
  const KernelTimes tf32 = kernel_times(w, 4, Precision::tf32, kDevice, efficiency(0.5, 0.8));
  const double tf32_bytes = 4 * 1e6 * 4.0 + 1e5 * 4.0;  // fp32 activations and weights
  EXPECT_DOUBLE_EQ(tf32.forward_s[0], tf32_bytes / 0.8e12);
  EXPECT_DOUBLE_EQ(tf32.backward_s[0], 2.0 * tf32_bytes / 0.8e12);
  const KernelTimes amp = kernel_times(w, 4, Precision::fp16, kDevice, efficiency(0.5, 0.8));
  const double amp_bytes = 4 * 1e6 * 2.0 + 1e5 * 2.0;  // 16-bit activations and weight copy
  EXPECT_DOUBLE_EQ(amp.forward_s[0], amp_bytes / 0.8e12);
  EXPECT_DOUBLE_EQ(amp.optimizer_s, 0.0);  // frozen: nothing to update
}

TEST(KernelTimes, LayerWithoutBackwardFlopTakesNoBackwardTime) {
  const Workload w = workload_of({layer(1e9, 0.0, 1e6, 0.0, false), layer(1e9, 2e9, 1e6, 0.0)});
  const KernelTimes t = kernel_times(w, 2, Precision::fp16, kDevice, efficiency(1.0, 1.0));
  EXPECT_DOUBLE_EQ(t.backward_s[0], 0.0);
  EXPECT_GT(t.backward_s[1], 0.0);
}

TEST(KernelTimes, OptimizerIsOneMemoryBoundPassOverTrainableParameters) {
  // 1e6 trainable and 5e5 frozen parameters. Adam under AMP: read p, g, m, v (16 B), write p, m, v (12 B) and the
  // fp16 copy (2 B) = 30 B each; SGD with momentum in fp32: read p, g, v (12 B), write p, v (8 B) = 20 B.
  const std::vector<Layer> layers = {layer(1.0, 1.0, 0.0, 1e6), layer(1.0, 1.0, 0.0, 5e5, false)};
  const Workload adam = workload_of(layers, Optimizer::adam);
  EXPECT_DOUBLE_EQ(kernel_times(adam, 1, Precision::fp16, kDevice, efficiency(1.0, 0.8)).optimizer_s,
                   1e6 * 30.0 / 0.8e12);
  const Workload sgd = workload_of(layers, Optimizer::sgd_momentum);
  EXPECT_DOUBLE_EQ(kernel_times(sgd, 1, Precision::tf32, kDevice, efficiency(1.0, 0.8)).optimizer_s,
                   1e6 * 20.0 / 0.8e12);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::adam, Precision::fp32), 28.0);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::sgd_momentum, Precision::bf16), 22.0);
}

TEST(Devices, WholeGpuHasTheDatasheetPeakAndTheGivenMemory) {
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const DeviceCompute vgpu = whole_gpu(a100, Precision::tf32, 20 * kGiB);  // A100X-20C: half the framebuffer
  EXPECT_DOUBLE_EQ(vgpu.peak_flops, 156e12);            // A100 datasheet, TF32 dense
  EXPECT_DOUBLE_EQ(vgpu.memory_bandwidth_Bps, 1555e9);  // A100 40GB datasheet
  EXPECT_DOUBLE_EQ(vgpu.memory_bytes, 20 * kGiB);
}

TEST(Devices, Mig1g5gbRunsComputeAt14Of98AndMemoryAtOneEighth) {
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const DeviceCompute small = mig_instance(a100, *find_mig_profile("a100-40gb-sxm4", "1g.5gb"), Precision::fp16);
  const DeviceCompute full = mig_instance(a100, *find_mig_profile("a100-40gb-sxm4", "7g.40gb"), Precision::fp16);
  // MIG on leaves 98 of 108 SMs: the MIG-enabled GPU (the 7g.40gb instance) has 312 x 98/108 Tflop/s.
  EXPECT_DOUBLE_EQ(full.peak_flops, 312e12 * 98.0 / 108.0);
  EXPECT_DOUBLE_EQ(small.peak_flops, 312e12 * 98.0 / 108.0 * 14.0 / 98.0);
  EXPECT_DOUBLE_EQ(small.memory_bandwidth_Bps, 1555e9 / 8.0);
  EXPECT_DOUBLE_EQ(small.memory_bytes, 4.75 * kGiB);  // nvidia-smi mig -lgip

  const Workload compute_bound = workload_of({layer(1e12, 0.0, 0.0, 0.0)});
  const Workload memory_bound = workload_of({layer(0.0, 0.0, 1e9, 0.0)});
  const ComputeEfficiency e = efficiency(0.6, 0.8);
  const double mig_gpu_compute_s = 1e12 / (312e12 * 98.0 / 108.0 * 0.6);
  EXPECT_NEAR(kernel_times(compute_bound, 1, Precision::fp16, small, e).forward_s[0], mig_gpu_compute_s * 98.0 / 14.0,
              1e-12);
  const double gpu_memory_s = 1e9 * 2.0 / (1555e9 * 0.8);
  EXPECT_NEAR(kernel_times(memory_bound, 1, Precision::fp16, small, e).forward_s[0], gpu_memory_s * 8.0, 1e-12);
}

// A compute-bound layer of 2 Gflop (forward + backward) and a memory-bound one moving 3 x 4e6 bytes per sample.
Workload mixed_workload() {
  return workload_of({layer(1e9, 1e9, 0.0, 0.0), layer(0.0, 1.0, 1e6, 0.0), layer(0.0, 0.0, 0.0, 1e6)});
}

TEST(Calibration, RecoversTheEfficiencyAThroughputWasMadeWith) {
  // By hand at batch 8, flop efficiency 0.37, memory efficiency 0.8, tf32, SGD, 4 micro-batches per optimizer step:
  const double compute_s = 8 * 2e9 / (100e12 * 0.37);
  const double memory_s = 8 * 3.0 * 1e6 * 4.0 / 0.8e12 + 1e6 * 4.0 / 0.8e12;  // forward+backward; weight read
  const double optimizer_s = 1e6 * 20.0 / 0.8e12;
  const ThroughputPoint point{"synthetic", "none", Precision::tf32, 8, 8 / (compute_s + memory_s + optimizer_s / 4),
                              "hand", 4};
  EXPECT_NEAR(calibrate_flop_efficiency(mixed_workload(), point, kDevice, 0.8), 0.37, 1e-9);
}

TEST(Calibration, ClampsToOneWhenEvenFullPeakIsTooSlow) {
  const Workload w = workload_of({layer(1.0, 0.0, 1e6, 0.0)});  // 4 MB per sample at 0.8 TB/s: 5 us
  const ThroughputPoint point{"synthetic", "none", Precision::tf32, 1, 1e6, "hand", 1};  // 1 us per sample
  EXPECT_DOUBLE_EQ(calibrate_flop_efficiency(w, point, kDevice, 0.8), 1.0);
  EXPECT_LT(modelled_samples_per_s(w, point, kDevice, efficiency(1.0, 0.8)), point.samples_per_s);
}

TEST(PublishedThroughput, HoldsEveryRowOfTheHardwareTable) {
  const std::vector<ThroughputPoint>& points = published_single_gpu_throughput();
  ASSERT_EQ(points.size(), 10u);
  EXPECT_EQ(points[1].workload_id, "resnet-50");
  EXPECT_DOUBLE_EQ(points[1].samples_per_s, 2470.0);  // HARDWARE.md: ResNet-50 AMP, batch 256
  EXPECT_EQ(points[1].batch, 256);
  EXPECT_DOUBLE_EQ(points[6].samples_per_s, 102.26);  // BERT-large SQuAD AMP, batch 32, A100 40GB
  EXPECT_EQ(points[6].gpu_id, "a100-40gb-sxm4");
  for (const ThroughputPoint& point : points) {
    EXPECT_TRUE(make_workload(point.workload_id).has_value()) << point.workload_id;
    EXPECT_NE(find_gpu(point.gpu_id), nullptr) << point.gpu_id;
    EXPECT_NE(point.source.find("DeepLearningExamples"), std::string::npos);
  }
}

TEST(PublishedThroughput, EachReachablePointIsReproducedWithinOneThousandth) {
  for (const ThroughputPoint& point : published_single_gpu_throughput()) {
    if (point.workload_id == "bert-large-pretrain-seq512") continue;  // see the next test
    const Workload w = *make_workload(point.workload_id);
    const GpuSpec& gpu = *find_gpu(point.gpu_id);
    const DeviceCompute device = whole_gpu(gpu, point.precision, gpu.memory_bytes);
    const double fitted = calibrate_flop_efficiency(w, point, device, default_memory_efficiency());
    EXPECT_GT(fitted, 0.0) << point.workload_id;
    EXPECT_LT(fitted, 1.0) << point.workload_id;
    // Throughput by hand from the kernel times: one optimizer step per accumulation_steps micro-batches.
    const KernelTimes t =
        kernel_times(w, point.batch, point.precision, device, efficiency(fitted, default_memory_efficiency()));
    const double micro_batch_s = t.total_s() - t.optimizer_s + t.optimizer_s / point.accumulation_steps;
    EXPECT_NEAR(point.batch / micro_batch_s / point.samples_per_s, 1.0, 1e-3) << point.workload_id;
    const ComputeEfficiency own = compute_efficiency(w, gpu, point.precision);
    EXPECT_TRUE(own.calibrated) << point.workload_id;
    EXPECT_DOUBLE_EQ(own.flop_efficiency, fitted);
  }
}

TEST(PublishedThroughput, BertSeq512IsOutOfReachOfAnUnfusedRoofline) {
  // A lower bound by hand for BERT-large at sequence 512 on an A100 80GB, AMP batch 32 (published 210 seq/s, i.e.
  // 152.4 ms): the linear layers' 24 h^2 flop per token per block, 3x for forward + backward, at 312 Tflop/s, plus the
  // attention scores (16 heads x 512^2 per block) read or written 7 times in forward and 14 in backward, 2 B each,
  // at 0.8 x 2,039 GB/s.
  const double gemm_s = 24.0 * 1024 * 1024 * 3 * 512 * 24 * 32 / 312e12;         // 95.1 ms
  const double scores_s = 16.0 * 512 * 512 * 21 * 2 * 24 * 32 / (0.8 * 2039e9);  // 82.9 ms
  EXPECT_GT(gemm_s + scores_s, 32 / 210.0);
  for (Precision precision : {Precision::tf32, Precision::fp16}) {
    const Workload w = *make_workload("bert-large-pretrain-seq512");
    const ComputeEfficiency e = compute_efficiency(w, *find_gpu("a100-80gb-sxm4"), precision);
    EXPECT_DOUBLE_EQ(e.flop_efficiency, 1.0);
    EXPECT_FALSE(e.calibrated);
    EXPECT_NE(e.provenance.find("UNREACHED"), std::string::npos) << e.provenance;
  }
}

TEST(ComputeEfficiency, NamesThePointItWasFittedTo) {
  const Workload squad = *make_workload("bert-large-squad-seq384");
  const ComputeEfficiency e = compute_efficiency(squad, *find_gpu("a100-40gb-sxm4"), Precision::fp16);
  EXPECT_TRUE(e.calibrated);
  EXPECT_DOUBLE_EQ(e.memory_efficiency, 0.8);
  EXPECT_NE(e.provenance.find("fit to 102.26 seq/s"), std::string::npos) << e.provenance;
  EXPECT_NE(e.provenance.find("AMP batch 32"), std::string::npos) << e.provenance;
}

TEST(ComputeEfficiency, TransfersPrecisionWorkloadAndGpuAndSaysSo) {
  const GpuSpec& a100_40 = *find_gpu("a100-40gb-sxm4");
  const GpuSpec& a100_80 = *find_gpu("a100-80gb-sxm4");
  const Workload squad = *make_workload("bert-large-squad-seq384");
  const ComputeEfficiency amp = compute_efficiency(squad, a100_40, Precision::fp16);
  const ComputeEfficiency bf16 = compute_efficiency(squad, a100_40, Precision::bf16);
  EXPECT_DOUBLE_EQ(bf16.flop_efficiency, amp.flop_efficiency);
  EXPECT_FALSE(bf16.calibrated);
  EXPECT_NE(bf16.provenance.find("bf16 takes fp16's"), std::string::npos) << bf16.provenance;
  const ComputeEfficiency fp32 = compute_efficiency(squad, a100_40, Precision::fp32);
  EXPECT_DOUBLE_EQ(fp32.flop_efficiency, compute_efficiency(squad, a100_40, Precision::tf32).flop_efficiency);

  const ComputeEfficiency resnet = compute_efficiency(*make_workload("resnet-50"), a100_80, Precision::fp16);
  const ComputeEfficiency vgg = compute_efficiency(*make_workload("vgg-16"), a100_80, Precision::fp16);
  EXPECT_DOUBLE_EQ(vgg.flop_efficiency, resnet.flop_efficiency);
  EXPECT_FALSE(vgg.calibrated);
  EXPECT_NE(vgg.provenance.find("takes resnet-50's"), std::string::npos) << vgg.provenance;

  const ComputeEfficiency h100 = compute_efficiency(*make_workload("resnet-50"), *find_gpu("h100-sxm5"),
                                                    Precision::fp16);
  EXPECT_DOUBLE_EQ(h100.flop_efficiency, resnet.flop_efficiency);
  EXPECT_FALSE(h100.calibrated);
  // The same workload on the other A100 is a transfer too: the point was measured on an 80GB card.
  EXPECT_FALSE(compute_efficiency(*make_workload("resnet-50"), a100_40, Precision::fp16).calibrated);
}

TEST(ComputeEfficiency, TransformersTakeTheNearestReachedBertPoint) {
  const GpuSpec& a100 = *find_gpu("a100-80gb-sxm4");
  const double seq128 =
      compute_efficiency(*make_workload("bert-large-pretrain-seq128"), a100, Precision::fp16).flop_efficiency;
  TransformerConfig config;
  config.layers = 2;
  config.hidden_size = 256;
  config.heads = 4;
  config.sequence_length = 160;  // nearer 128 than 512
  config.vocab_size = 1000;
  const ComputeEfficiency near128 =
      compute_efficiency(make_transformer(config, "transformer", "tiny"), a100, Precision::fp16);
  EXPECT_DOUBLE_EQ(near128.flop_efficiency, seq128);
  // GPT-2 at 1,024 tokens is nearer 512, whose fit is unreached: it takes seq128's and says why.
  const ComputeEfficiency gpt2 = compute_efficiency(*make_workload("gpt2-small"), a100, Precision::fp16);
  EXPECT_DOUBLE_EQ(gpt2.flop_efficiency, seq128);
  EXPECT_NE(gpt2.provenance.find("bert-large-pretrain-seq512's own fit is unreached"), std::string::npos);
}

TEST(Workload, TransformersTrainWithAdamAndCnnsWithMomentum) {
  EXPECT_EQ(make_workload("bert-large-squad-seq384")->optimizer, Optimizer::adam);
  EXPECT_EQ(make_workload("gpt3-175b")->optimizer, Optimizer::adam);
  EXPECT_EQ(make_workload("resnet-50")->optimizer, Optimizer::sgd_momentum);
  EXPECT_EQ(make_workload("mask-rcnn-r50-fpn")->optimizer, Optimizer::sgd_momentum);
}

}  // namespace
}  // namespace vtsim
