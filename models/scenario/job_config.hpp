#pragma once
// One training job of a scenario (a tenant): its workload, batch, framework, how it reduces gradients, what it
// forces NCCL to do, its parallelism and its device. Part of the scenario (models/scenario/scenario.hpp), apart so that
// the engine's communicators and plans can take a job without the whole scenario. Every field states its default.

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/collectives/nccl_tuning.hpp"
#include "models/core/precision.hpp"
#include "models/parallel/parallel_strategy.hpp"
#include "models/scenario/data_parallel.hpp"
#include "models/scenario/framework.hpp"
#include "models/scenario/operations.hpp"
#include "models/traces/traced_iteration.hpp"
#include "models/workload/transformer_config.hpp"

namespace vtsim {

/// Allreduce algorithm used by the Horovod-like coordinator.
enum class AllreduceAlgorithm {
  ring,          ///< NCCL-style ring: reduce-scatter then allgather over all ranks
  hierarchical,  ///< intra-host reduce-scatter, inter-host allreduce, intra-host allgather
};

/// Horovod settings of one job.
struct HorovodConfig {
  /// Tensor fusion threshold. Default 64 MiB (horovod: SetTensorFusionThresholdBytes(64*1024*1024) in older releases).
  double fusion_threshold_bytes = 64.0 * 1024 * 1024;
  /// Coordinator cycle time. Default 5 ms (horovod: SetCycleTimeMs(5) in older releases; newer ones use 1 ms).
  double cycle_time_s = 5e-3;
  /// Default ring.
  AllreduceAlgorithm allreduce = AllreduceAlgorithm::ring;
};

/// PyTorch DistributedDataParallel settings of one job.
struct DdpConfig {
  /// Bucket size cap. Default 25 MiB (torch DistributedDataParallel bucket_cap_mb=25, read as MiB).
  double bucket_cap_bytes = 25.0 * 1024 * 1024;
  /// Cap of the bucket holding the first-registered parameters, reduced last, kept small so that little is left to
  /// reduce after backward. Default 1 MiB (torch.distributed._DEFAULT_FIRST_BUCKET_BYTES).
  double first_bucket_bytes = 1024.0 * 1024;
};

/// A profiled iteration replayed as a job's workload (docs/traces.md), when the scenario gives
/// `"workload": {"trace": PATH, "measured_on": GPU, "step": N}`.
struct TraceWorkloadConfig {
  /// The trace file, resolved against the scenario's folder. Required.
  std::string path;
  /// Catalog id of the GPU the trace was taken on (`vtsim catalog gpus`). Required: a trace names its GPU in the
  /// driver's words, not the catalog's.
  std::string measured_on;
  /// N of the ProfilerStep#N replayed. Default: the trace's last (the first iterations of a run warm up).
  int step = 0;
  /// The iteration, read and cut when the scenario loads; shared by the copies of a job. It is the trace file's
  /// content at `step`, as the scenario's workload is its catalog entry's, not anything derived from the cluster or a
  /// profile: the loader reads the file once, where its errors can name the job's keys (a step the trace lacks, the
  /// trace's own GPU name when measured_on is missing), and resolve() derives what the kernels cost on the cluster's
  /// GPUs (models/resolve/job_compute_plan.cpp). A calibration profile, which is applied to the cluster, is read by
  /// resolve() instead (models/resolve/scenario_calibration.hpp).
  std::shared_ptr<const TracedIteration> iteration;
};

/// One training job (tenant).
struct JobConfig {
  /// Unique name. Default "job<index>".
  std::string name;
  /// Catalog workload id (`vtsim catalog workloads`), "transformer" when `transformer` is set, "trace" when `trace`
  /// is. Required.
  std::string workload_id;
  /// A generated GPT-style transformer, when the scenario gives one instead of a catalog id.
  std::optional<TransformerConfig> transformer;
  /// A profiled iteration, when the scenario gives one instead (workload_id "trace").
  std::optional<TraceWorkloadConfig> trace;
  /// Default fp16 (mixed precision), as the single-GPU throughput figures of NVIDIA DeepLearningExamples use AMP.
  Precision precision = Precision::fp16;
  /// Samples per GPU per iteration. Required.
  int batch_per_gpu = 1;
  /// The framework issuing its kernels, which sets the host's cost per kernel. Default PyTorch.
  Framework framework = Framework::pytorch;
  /// How kernels are submitted: eager (one launch each, the framework's fitted cost) or CUDA Graphs (the iteration
  /// replayed as one graph: the GPU's cost per node, compute_fit.cpp). Default eager.
  Execution execution = Execution::eager;
  /// The layout convolutions keep their activations in, when the scenario states it ("nchw" or "nhwc"): on NCHW
  /// tensors 16-bit and TF32 convolutions pay cuDNN's transposes (models/compute/compute_model.cpp). Default: the
  /// framework's (PyTorch's and MXNet's NCHW, TensorFlow's NHWC; use_framework).
  std::optional<TensorLayout> memory_format;
  /// The optimizer, when the scenario states it: its state in memory and its step's traffic
  /// (models/compute/memory_model.cpp, models/compute/compute_model.cpp). Default: the workload's (SGD with momentum
  /// for CNNs, Adam for transformers).
  std::optional<Optimizer> optimizer;
  /// How the job's code writes the optimizer step, when the scenario states it ("fused", "foreach", "for_loop";
  /// models/workload/workload.hpp OptimizerImplementation, models/compute/compute_model.cpp counts each). Default: the
  /// framework's (use_framework): fused for PyTorch (Apex's and Megatron-LM's optimizers, which the fitted rows ran;
  /// torch.optim's own default since PyTorch 2.0 is foreach) and MXNet, for_loop for TensorFlow's Adam and LAMB.
  std::optional<OptimizerImplementation> optimizer_implementation;
  /// The host's time to issue one kernel, when the scenario states it (a faster or slower CPU than the fitted rows').
  /// Default: from the framework and the execution (models/compute/compute_fit.hpp). Not with execution cuda_graphs.
  std::optional<double> host_dispatch_s;
  /// Where input batches are prepared: "cpu" (loader workers on the CPU cores), "gpu" (DALI: images decoded on the
  /// GPU, image workloads only) or "synthetic" (no loading). Default cpu.
  DataLoader data_loader = DataLoader::cpu;
  /// CPU time to load one sample on one core, when the scenario states it: with the cpu loader read, decode and
  /// augment (default 5 ms per image, 20 us per sequence, uncalibrated); with the gpu loader the CPU's part (reading
  /// files, the hybrid decoder's Huffman stage; default 0, uncalibrated). Not with synthetic data.
  std::optional<double> data_loading_cpu_s_per_sample;
  /// The gpu loader's rate, images/s per GPU, when the scenario states it. Default: DALI's published rate on the GPU
  /// (models/compute/data_loading.hpp); required where none is published.
  std::optional<double> data_loader_images_per_s;
  /// Global GPU indices this job runs on, one rank each. Default: every GPU of the cluster.
  std::vector<int> gpu_ids;
  /// Measured iterations. Default 20.
  int iterations = 20;
  /// Iterations run first and excluded from the figures. Default 2.
  int warmup_iterations = 2;
  /// How gradients are reduced. Default: PyTorch DDP for PyTorch jobs, Horovod for the others; Horovod when the job
  /// gives `horovod` settings, DDP when it gives `ddp` settings.
  DataParallel data_parallel = DataParallel::pytorch_ddp;
  /// Horovod settings.
  HorovodConfig horovod;
  /// DDP settings.
  DdpConfig ddp;
  /// NCCL's choice forced for every communicator of the job, as NCCL_ALGO and NCCL_PROTO force it (`nccl.algorithm`:
  /// "ring", "tree", "nvls", "collnetdirect" or "collnetchain", all_reduce's; `nccl.protocol`: "LL", "LL128" or
  /// "Simple", every collective's). Default: NCCL's own choice per message size (models/collectives/nccl_tuning.hpp).
  std::optional<NcclAlgorithm> nccl_algorithm;
  std::optional<NcclProtocol> nccl_protocol;
  /// The channels every collective of the job runs, as NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS force them
  /// (`nccl.channels`, 1 to 64). Default: NCCL's own count (models/collectives/nccl_tuning.hpp nccl_running_channels).
  std::optional<int> nccl_channels;
  /// NCCL_COLLNET_ENABLE=1 with NCCL's SHARP plugin (`nccl.collnet`): all_reduce may then run with the InfiniBand
  /// switches reducing (CollNet), where NCCL's model finds it faster. Needs the infiniband transport. Default: off,
  /// as in NCCL.
  bool nccl_collnet = false;
  /// Coefficient of variation of the job's per-iteration compute time, when the scenario states it. Default: the
  /// calibration profile's measured spread, else models/compute/variability.hpp's default for the workload class.
  std::optional<double> step_time_cv;
  /// Micro-batches per optimizer step: forward and backward run this many times, the gradients are reduced once, on
  /// the last. Default 1.
  int gradient_accumulation = 1;
  /// Checkpoints (models/scenario/operations.hpp). Default none.
  CheckpointConfig checkpoint;
  /// Tensor, pipeline and sharded data parallelism (models/parallel/parallel_strategy.hpp, docs/large-models.md), when
  /// the scenario gives `parallelism`. The loader fills in the derived counts: `data` = the job's GPUs / (tensor x
  /// pipeline), `micro_batches` = batch_per_gpu / micro_batch_size. With it, batch_per_gpu counts the samples one model
  /// replica (tensor x pipeline GPUs) takes per optimizer step. Default none: plain data parallelism.
  std::optional<ParallelStrategy> parallelism;
  /// vgpu mode: this job's vGPU profile. Default: virtualization.vgpu_profile.
  std::string vgpu_profile;
  /// mig mode: this job's MIG profile. Default: virtualization.mig_profile.
  std::string mig_profile;
  /// A powered-on VM that holds its vGPUs (or MIG instances) but runs no work: it takes its share under equal and fixed
  /// share scheduling and its framebuffer, nothing else. Default false. An idle job needs no workload or batch.
  bool idle = false;
  /// Where the job came from in the file ("jobs[2]"), for error messages; `copies` in the file makes several jobs
  /// from one entry (not part of the format).
  std::string json_path;
};

/// Spellings of each enumeration in scenario JSON, paired with the value (the first spelling is the canonical one).
std::span<const std::pair<std::string, AllreduceAlgorithm>> allreduce_algorithm_names();

/// The scenario spelling of each enumerator.
std::string_view to_string(AllreduceAlgorithm algorithm);

/// The job's ranks on each host it uses, by host index (GPU g sits in host g / gpus_per_host): a VM is a job's group
/// of ranks on one host. REQUIRES: gpus_per_host >= 1.
std::map<int, int> ranks_per_host(const JobConfig& job, int gpus_per_host);

/// Samples per optimizer step (the global batch): the data-parallel degree times the batch per GPU, times the
/// gradient accumulation where the job has no model parallelism (a model-parallel job's pipeline takes its
/// micro-batches from batch_per_gpu instead).
int samples_per_step(const JobConfig& job);

}  // namespace vtsim
