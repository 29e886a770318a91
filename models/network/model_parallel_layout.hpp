#pragma once
// Where a job with tensor, pipeline or sharded parallelism puts its ranks, its groups' rings, and the bytes its
// collectives and pipeline transfers carry per iteration (sim/training/model_parallel_plan.hpp builds the engine's plan
// on them; docs/large-models.md describes the model). No SimGrid.
//
// Placement follows Megatron-LM's rank order (tensor fastest, then data, then pipeline, over the job's GPUs in index
// order): each tensor group is t consecutive GPUs of one host (the loader checks that hosts hold whole groups), so it
// runs over the host's NVLink where it has one (a vGPU VM's GPUs are its NVLink domain); the ranks of one pipeline
// stage are consecutive, so stages fill hosts and pipelines cross them; each data-parallel group takes one GPU of the
// same tensor slice from every replica of its stage.

#include <utility>
#include <vector>

#include "models/collectives/nccl_tuning.hpp"
#include "models/compute/job_compute.hpp"
#include "models/network/flow_analysis.hpp"
#include "models/network/rings.hpp"
#include "models/network/topology.hpp"
#include "models/scenario/job_config.hpp"

namespace vtsim {

/// The connection id (GpuFlow::flow) of pipeline transfers: ECMP hashes them as a collective's first channel.
constexpr int kPipelineFlow = 0;

/// Ranks and groups of a model-parallel job.
struct ModelParallelLayout {
  std::vector<int> rank_gpu;            ///< rank r's GPU: tensor index r % t, data index (r / t) % d, stage r / (t d)
  std::vector<JobRings> tensor_groups;  ///< per tensor group, ranks r / t
  std::vector<JobRings> data_groups;    ///< per (stage, tensor index): stage x t + tensor index
  std::vector<int> rank_tensor_group, rank_tensor_position, rank_data_group, rank_data_position, rank_stage;
  /// Per rank: the rank with the same slice in the next and the previous stage (wrapping round; -1 when p = 1).
  std::vector<int> rank_next_stage, rank_previous_stage;
  /// What NCCL sees of each tensor and data group, the job's forced choices included (models/resolve/resolve.cpp fills
  /// them in; a group of one rank has a communicator of one rank, unused).
  std::vector<NcclCommunicator> tensor_nccl, data_nccl;
};

/// The layout of `job` over hosts of `nics` NICs, without the groups' communicators. REQUIRES: the job has
/// parallelism.
ModelParallelLayout model_parallel_layout(const JobConfig& job, int nics, const Topology& topology);

/// The port hosts (GPU, uplink port) the layout's group collectives and pipeline transfers need between racks.
std::vector<std::pair<int, int>> model_parallel_ports(const JobConfig& job, const ModelParallelLayout& layout,
                                                      const Topology& topology);

/// The group whose communicator NCCL's choices are reported for: the one that reduces gradients (data group 0), or
/// tensor group 0 when d = 1.
const JobRings& reducing_group(const ModelParallelLayout& layout);

/// Bytes each flow of the job carries per iteration: the data groups' gradients (and ZeRO's weights), the tensor
/// groups' collectives, the pipeline's activations and gradients.
std::vector<std::pair<GpuFlow, double>> model_parallel_traffic(const JobConfig& job, const JobCompute& compute,
                                                               const ModelParallelLayout& layout);

}  // namespace vtsim
