#include "models/network/model_parallel_layout.hpp"

#include <algorithm>
#include <cassert>

#include "models/compute/memory_model.hpp"
#include "models/parallel/zero_sharding.hpp"

namespace vtsim {
namespace {

/// What one iteration's tensor-group collectives move, in allreduce equivalents (an allgather or a reduce-scatter
/// moves half an allreduce's bytes), per rank of a stage, for `micro_batches` micro-batches of `micro_batch_size`.
double tensor_allreduce_equivalent_bytes(const StageCompute& stage, const ParallelStrategy& strategy) {
  double bytes = 0;
  const auto add = [&](const std::vector<TensorCall>& calls, double times) {
    for (const TensorCall& call : calls) {
      bytes += times * call.bytes_per_sample * (call.kind == TensorCollective::all_reduce ? 1.0 : 0.5);
    }
  };
  const double forwards = strategy.recompute == Recompute::full ? 2.0 : 1.0;
  for (const LayerCalls& calls : stage.part.calls) {
    add(calls.forward_before, forwards);
    add(calls.forward_after, forwards);
    add(calls.backward_before, 1.0);
    add(calls.backward_after, 1.0);
  }
  return bytes * strategy.micro_batch_size * strategy.micro_batches;
}

}  // namespace

ModelParallelLayout model_parallel_layout(const JobConfig& job, int nics, const Topology& topology) {
  assert(job.parallelism);
  const ParallelStrategy& strategy = *job.parallelism;
  const int t = strategy.tensor;
  const int d = strategy.data;
  const int p = strategy.pipeline;
  ModelParallelLayout layout;
  layout.rank_gpu = job.gpu_ids;
  std::sort(layout.rank_gpu.begin(), layout.rank_gpu.end());
  const int ranks = static_cast<int>(layout.rank_gpu.size());
  std::vector<std::vector<int>> tensor_gpus(static_cast<std::size_t>(ranks / t));
  std::vector<std::vector<int>> data_gpus(static_cast<std::size_t>(p * t));
  for (int r = 0; r < ranks; ++r) {
    const int stage = r / (t * d);
    const int tensor_index = r % t;
    const int data_group = stage * t + tensor_index;
    const int gpu = layout.rank_gpu[static_cast<std::size_t>(r)];
    layout.rank_stage.push_back(stage);
    layout.rank_tensor_group.push_back(r / t);
    layout.rank_tensor_position.push_back(tensor_index);
    layout.rank_data_group.push_back(data_group);
    layout.rank_data_position.push_back((r / t) % d);
    tensor_gpus[static_cast<std::size_t>(r / t)].push_back(gpu);
    data_gpus[static_cast<std::size_t>(data_group)].push_back(gpu);
    const int stride = t * d;
    layout.rank_next_stage.push_back(p > 1 ? (r + stride) % ranks : -1);
    layout.rank_previous_stage.push_back(p > 1 ? (r - stride + ranks) % ranks : -1);
  }
  // Each group's positions are its members in rank order (tensor index; data index): its ring keeps NCCL's order.
  for (const std::vector<int>& gpus : tensor_gpus) {
    layout.tensor_groups.push_back(group_rings(gpus, nics, topology));
    layout.tensor_groups.back().ring = gpus;
  }
  for (const std::vector<int>& gpus : data_gpus) {
    layout.data_groups.push_back(group_rings(gpus, nics, topology));
    layout.data_groups.back().ring = gpus;
  }
  return layout;
}

std::vector<std::pair<int, int>> model_parallel_ports(const JobConfig& job, const ModelParallelLayout& layout,
                                                      const Topology& topology) {
  std::vector<std::pair<int, int>> ports;
  for (const auto* groups : {&layout.tensor_groups, &layout.data_groups}) {
    for (const JobRings& rings : *groups) {
      if (rings.ring.size() < 2) continue;
      const auto more = cross_rack_ports(job, rings, topology);
      ports.insert(ports.end(), more.begin(), more.end());
    }
  }
  std::vector<GpuFlow> pipeline;
  for (std::size_t r = 0; r < layout.rank_gpu.size(); ++r) {
    if (layout.rank_next_stage[r] < 0) continue;
    const int from = layout.rank_gpu[r];
    const int to = layout.rank_gpu[static_cast<std::size_t>(layout.rank_next_stage[r])];
    pipeline.push_back({from, to, kPipelineFlow});
    pipeline.push_back({to, from, kPipelineFlow});
  }
  const auto more = ports_between_racks(pipeline, topology);
  ports.insert(ports.end(), more.begin(), more.end());
  return ports;
}

const JobRings& reducing_group(const ModelParallelLayout& layout) {
  return layout.data_groups.front().ring.size() > 1 ? layout.data_groups.front() : layout.tensor_groups.front();
}

std::vector<std::pair<GpuFlow, double>> model_parallel_traffic(const JobConfig& job, const JobCompute& compute,
                                                               const ModelParallelLayout& layout) {
  const ParallelStrategy& strategy = *job.parallelism;
  const int p = strategy.pipeline;
  std::vector<std::pair<GpuFlow, double>> traffic;
  const auto add_group = [&](const JobRings& rings, double allreduce_bytes) {
    if (rings.ring.size() < 2 || allreduce_bytes <= 0) return;
    for (const auto& [flow, share] : job_flows(job, rings)) traffic.push_back({flow, share * allreduce_bytes});
  };
  const double gathered = gathered_bytes_per_parameter(compute.workload, job.precision);
  for (std::size_t g = 0; g < layout.data_groups.size(); ++g) {
    // Data group g holds stage g / t's chunks: their gradients, and under ZeRO their weights.
    double gradients = 0;
    double weights = 0;
    const int stage = static_cast<int>(g) / strategy.tensor;
    for (std::size_t k = static_cast<std::size_t>(stage); k < compute.stages.size(); k += static_cast<std::size_t>(p)) {
      gradients += compute.stages[k].part.workload.trainable_parameters() * gathered;
      weights += compute.stages[k].part.workload.parameters() * gathered;
    }
    add_group(layout.data_groups[g],
              ZeroSharding::of(strategy).allreduce_equivalents(gradients, weights, strategy.micro_batches));
  }
  for (std::size_t g = 0; g < layout.tensor_groups.size(); ++g) {
    const int stage = layout.rank_stage[g * static_cast<std::size_t>(strategy.tensor)];
    double bytes = 0;
    for (std::size_t k = static_cast<std::size_t>(stage); k < compute.stages.size(); k += static_cast<std::size_t>(p)) {
      bytes += tensor_allreduce_equivalent_bytes(compute.stages[k], strategy);
      // Scatter-gather: an allgather (half an allreduce) after each forward and each backward receive.
      const double receives = (k > 0 ? 1.0 : 0.0) + (k + 1 < compute.stages.size() ? 1.0 : 0.0);
      bytes += receives * compute.stages[k].part.received_gather_bytes_per_sample / 2 * strategy.micro_batch_size *
               strategy.micro_batches;
    }
    add_group(layout.tensor_groups[g], bytes);
  }
  if (p > 1) {
    // Each micro-batch crosses every boundary between virtual stages forward and back.
    const double chunks = static_cast<double>(compute.stages.size() / static_cast<std::size_t>(p));
    const double per_boundary = compute.stages.front().part.boundary_bytes_per_sample * strategy.micro_batch_size *
                                strategy.micro_batches * chunks;
    for (std::size_t r = 0; r < layout.rank_gpu.size(); ++r) {
      const int next = layout.rank_next_stage[r];
      const int from = layout.rank_gpu[r];
      const int to = layout.rank_gpu[static_cast<std::size_t>(next)];
      // From the last stage back to the first only between chunks: one boundary fewer than the chunks.
      const bool wraps = layout.rank_stage[r] == p - 1;
      const double bytes = wraps ? per_boundary * (chunks - 1) / chunks : per_boundary;
      if (bytes <= 0) continue;
      traffic.push_back({{from, to, kPipelineFlow}, bytes});
      traffic.push_back({{to, from, kPipelineFlow}, bytes});
    }
  }
  return traffic;
}

}  // namespace vtsim
