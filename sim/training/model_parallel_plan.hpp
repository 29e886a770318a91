#pragma once
// The engine's plan for a job with tensor, pipeline or sharded parallelism: its stage kernels, its groups' collectives
// at the scenario's fidelity and its pipeline transfers, over the layout of models/network/model_parallel_layout.hpp
// (sim/training/model_parallel_rank.cpp runs them; docs/large-models.md describes the model).

#include <memory>

#include "models/compute/job_compute.hpp"
#include "models/network/model_parallel_layout.hpp"
#include "models/network/topology.hpp"
#include "models/scenario/fidelity.hpp"
#include "models/scenario/job_config.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/engine/platform.hpp"
#include "sim/training/training_job.hpp"

namespace vtsim::sim {

/// The engine's plan for the job: stage kernels, tensor-group and data-group collectives at `fidelity`, gradients
/// and DDP buckets per rank. `counts` (may be null) tallies NCCL's choices for data group 0. REQUIRES: a running
/// engine whose platform holds model_parallel_ports(); the layout's communicators filled in.
std::unique_ptr<ModelParallelPlan> make_model_parallel_plan(const JobConfig& job, Fidelity fidelity,
                                                            const JobCompute& compute,
                                                            const ModelParallelLayout& layout, const Topology& topology,
                                                            const Platform& platform, NcclChoiceCounts* counts);

}  // namespace vtsim::sim
