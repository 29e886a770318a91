#include "sim/training/model_parallel_plan.hpp"

#include <cassert>

#include "models/compute/memory_model.hpp"
#include "models/network/rings.hpp"
#include "models/parallel/ddp_buckets.hpp"
#include "models/parallel/zero_sharding.hpp"
#include "sim/collectives/communicators.hpp"

namespace vtsim::sim {

std::unique_ptr<ModelParallelPlan> make_model_parallel_plan(const JobConfig& job, Fidelity fidelity,
                                                            const JobCompute& compute,
                                                            const ModelParallelLayout& layout, const Topology& topology,
                                                            const Platform& platform, NcclChoiceCounts* counts) {
  const ParallelStrategy& strategy = *job.parallelism;
  auto plan = std::make_unique<ModelParallelPlan>();
  plan->strategy = strategy;
  const double gathered_per_parameter = gathered_bytes_per_parameter(compute.workload, job.precision);
  const double b = strategy.micro_batch_size;
  for (const StageCompute& stage : compute.stages) {
    StageKernels kernels;
    kernels.kernels = stage.kernels;
    kernels.calls = stage.part.calls;
    for (LayerCalls& calls : kernels.calls) {
      for (auto* list : {&calls.forward_before, &calls.forward_after, &calls.backward_before, &calls.backward_after}) {
        for (TensorCall& call : *list) call.bytes_per_sample *= b;  // now per micro-batch
      }
    }
    for (const Layer& layer : stage.part.workload.layers) {
      kernels.rerun_forward_calls.push_back(strategy.recompute == Recompute::full && is_block_layer(layer));
    }
    if (ZeroSharding::of(strategy).shards_weights()) {
      for (const Layer& layer : stage.part.workload.layers) {
        kernels.gather_bytes.push_back(layer.parameters * gathered_per_parameter);
      }
    }
    kernels.boundary_bytes = stage.part.boundary_bytes_per_sample * b;
    kernels.received_gather_bytes = stage.part.received_gather_bytes_per_sample * b;
    plan->stages.push_back(std::move(kernels));
  }
  plan->rank_stage = layout.rank_stage;
  plan->rank_tensor_group = layout.rank_tensor_group;
  plan->rank_tensor_position = layout.rank_tensor_position;
  plan->rank_data_group = layout.rank_data_group;
  plan->rank_data_position = layout.rank_data_position;
  plan->rank_next_stage = layout.rank_next_stage;
  plan->rank_previous_stage = layout.rank_previous_stage;
  plan->rank_gpu = layout.rank_gpu;
  for (std::size_t r = 0; r < layout.rank_gpu.size() && strategy.pipeline > 1; ++r) {
    const int gpu = layout.rank_gpu[r];
    const int next = layout.rank_gpu[static_cast<std::size_t>(layout.rank_next_stage[r])];
    const int previous = layout.rank_gpu[static_cast<std::size_t>(layout.rank_previous_stage[r])];
    plan->rank_to_next.push_back(flow_hosts(gpu, next, kPipelineFlow, topology, platform));
    plan->rank_to_previous.push_back(flow_hosts(gpu, previous, kPipelineFlow, topology, platform));
    // Pipeline transfers are SimGrid communications: no ring edge on their routes is alone.
    for (const TransferEnds& ends : {plan->rank_to_next.back(), plan->rank_to_previous.back()}) {
      platform.route_ledger().add_user(ends.first, ends.second);
    }
  }

  // Per rank: its chunks' gradients in the order backward makes them (the last chunk's final backward comes first),
  // and DDP's buckets over them.
  const int p = strategy.pipeline;
  const int chunks = static_cast<int>(compute.stages.size()) / p;
  for (std::size_t r = 0; r < layout.rank_gpu.size(); ++r) {
    std::vector<GradientTensor> tensors;
    double weights = 0;
    for (int c = chunks; c-- > 0;) {
      const Workload& stage = compute.stages[static_cast<std::size_t>(c * p + layout.rank_stage[r])].part.workload;
      for (std::size_t l = stage.layers.size(); l-- > 0;) {
        weights += stage.layers[l].parameters * gathered_per_parameter;
        // Reduced in the weights' type: 16-bit under mixed precision (DeepSpeed's communication_data_type default).
        if (stage.layers[l].gradient_bytes() > 0) {
          tensors.push_back({c * kLayersPerChunk + static_cast<int>(l),
                             stage.layers[l].parameters * gathered_per_parameter});
        }
      }
    }
    std::vector<double> bytes;
    for (const GradientTensor& tensor : tensors) bytes.push_back(tensor.bytes);
    plan->rank_buckets.push_back(
        ddp_buckets_in_backward_order(bytes, job.ddp.first_bucket_bytes, job.ddp.bucket_cap_bytes));
    plan->rank_tensors.push_back(std::move(tensors));
    plan->rank_weight_bytes.push_back(weights);
  }

  // The groups' collectives, each run as NCCL chooses for its own communicator.
  assert(layout.tensor_nccl.size() == layout.tensor_groups.size() &&
         layout.data_nccl.size() == layout.data_groups.size() &&
         "the groups' communicators resolved (models/resolve/resolve.cpp)");
  for (std::size_t g = 0; g < layout.tensor_groups.size(); ++g) {
    const JobRings& rings = layout.tensor_groups[g];
    if (rings.ring.size() < 2) continue;
    const NcclCommunicator& nccl = layout.tensor_nccl[g];
    plan->tensor_all_reduce.push_back(
        make_collective(NcclCollective::all_reduce, rings, topology, platform, fidelity, nccl, nullptr));
    plan->tensor_all_gather.push_back(
        make_collective(NcclCollective::all_gather, rings, topology, platform, fidelity, nccl, nullptr));
    plan->tensor_reduce_scatter.push_back(
        make_collective(NcclCollective::reduce_scatter, rings, topology, platform, fidelity, nccl, nullptr));
  }
  for (std::size_t g = 0; g < layout.data_groups.size(); ++g) {
    const JobRings& rings = layout.data_groups[g];
    if (rings.ring.size() < 2) continue;
    const NcclCommunicator& nccl = layout.data_nccl[g];
    const ZeroSharding zero = ZeroSharding::of(strategy);
    // NCCL's name for zero.gradient_collective().
    const NcclCollective reduction =
        zero.shards_optimizer() ? NcclCollective::reduce_scatter : NcclCollective::all_reduce;
    plan->data_reduce.push_back(
        make_collective(reduction, rings, topology, platform, fidelity, nccl, g == 0 ? counts : nullptr));
    if (zero.shards_optimizer()) {  // its weights are gathered: after the step (stages 1-2) or per layer (3)
      plan->data_gather.push_back(
          make_collective(NcclCollective::all_gather, rings, topology, platform, fidelity, nccl, nullptr));
    }
  }
  // A point-to-point transfer pays Simple's per-step latency of its hop (as make_sendrecv), beyond its route's.
  if (p > 1) {
    const int from = layout.rank_gpu.front();
    const int to = layout.rank_gpu[static_cast<std::size_t>(layout.rank_next_stage.front())];
    plan->p2p_extra_latency_s = nccl_step_extra_s(step_hop(topology, topology.route(from, to)), NcclProtocol::simple);
  }
  return plan;
}

}  // namespace vtsim::sim
