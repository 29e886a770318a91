#include "models/parallel/model_partition.hpp"

#include <algorithm>
#include <cassert>
#include <string_view>

namespace vtsim {
namespace {

/// How tensor parallelism treats a layer.
enum class Split {
  column,      ///< column-parallel GEMM: 1/t of its output features
  row,         ///< row-parallel GEMM: 1/t of its input features
  heads,       ///< 1/t of its work, no collective of its own (attention core, GELU between fc1 and fc2)
  vocabulary,  ///< the token embedding, split over the vocabulary (an allreduce of its output)
  sequence,    ///< norms, dropouts, residual adds: whole on each GPU, 1/t of the sequence with sequence parallelism
  replicated,  ///< whole on every GPU of the group
};

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

Split split_of(const Layer& layer, const TransformerShape& shape) {
  if (is_block_layer(layer)) {
    if (ends_with(layer.name, ".attn.qkv") || ends_with(layer.name, ".mlp.fc1")) return Split::column;
    if (ends_with(layer.name, ".attn.proj") || ends_with(layer.name, ".mlp.fc2")) return Split::row;
    if (ends_with(layer.name, ".attn.core") || ends_with(layer.name, ".mlp.gelu") ||
        ends_with(layer.name, ".mlp.swiglu")) {
      return Split::heads;
    }
    return Split::sequence;
  }
  if (layer.block == "embeddings") return layer.parameters > 0 ? Split::vocabulary : Split::sequence;
  // The LM head (a GEMM over the vocabulary) is column-parallel over it; the cross-entropy after it runs on each
  // GPU's share of the logits (Megatron's vocab-parallel cross entropy).
  if (layer.kind == KernelKind::gemm && layer.gemm.columns == shape.vocab) return Split::column;
  if (layer.block == "head") return ends_with(layer.name, "loss") ? Split::heads : Split::sequence;
  return Split::replicated;
}

Layer scaled(Layer layer, double fraction) {
  layer.forward_flop *= fraction;
  layer.backward_flop *= fraction;
  layer.activation_elements *= fraction;
  layer.score_elements *= fraction;
  layer.loss_logits *= fraction;
  layer.stored_activation_elements *= fraction;
  layer.stored_mask_elements *= fraction;
  layer.parameters *= fraction;
  return layer;
}

/// The layer as one of t GPUs runs it, and the collectives around it.
std::pair<Layer, LayerCalls> split_layer(const Layer& layer, const ParallelStrategy& strategy,
                                         const TransformerShape& shape, double activation_bytes_per_sample) {
  const double t = strategy.tensor;
  const bool sp = strategy.sequence_parallel;
  if (strategy.tensor == 1) return {layer, {}};
  const TensorCall all_reduce{TensorCollective::all_reduce, activation_bytes_per_sample};
  const TensorCall all_gather{TensorCollective::all_gather, activation_bytes_per_sample};
  const TensorCall reduce_scatter{TensorCollective::reduce_scatter, activation_bytes_per_sample};
  LayerCalls calls;
  Layer split = layer;
  switch (split_of(layer, shape)) {
    case Split::column:
      split = scaled(layer, 1.0 / t);
      split.gemm.columns /= t;
      if (sp) {
        calls.forward_before.push_back(all_gather);
        calls.backward_after.push_back(reduce_scatter);
      } else {
        calls.backward_after.push_back(all_reduce);
      }
      break;
    case Split::row:
      split = scaled(layer, 1.0 / t);
      split.gemm.depth /= t;  // each GPU reduces over its 1/t of the input features
      calls.forward_after.push_back(sp ? reduce_scatter : all_reduce);
      if (sp) calls.backward_before.push_back(all_gather);
      break;
    case Split::heads:
      split = scaled(layer, 1.0 / t);
      if (split.gemm.problems_per_sample > 0) split.gemm.problems_per_sample /= t;
      break;
    case Split::vocabulary:
      split = scaled(layer, 1.0 / t);
      calls.forward_after.push_back(sp ? reduce_scatter : all_reduce);
      if (sp) calls.backward_before.push_back(all_gather);  // a reduce-scatter's backward is an allgather
      break;
    case Split::sequence:
      if (sp) split = scaled(layer, 1.0 / t);
      break;
    case Split::replicated: break;
  }
  return {split, calls};
}

}  // namespace

bool is_block_layer(const Layer& layer) { return layer.block.rfind("block", 0) == 0; }

std::string partition_problem(const Workload& workload, const ParallelStrategy& strategy) {
  const TransformerShape& shape = workload.transformer;
  if (shape.layers <= 0) return workload.id + " is not a transformer: only data parallelism splits it";
  const int stages = strategy.pipeline * strategy.virtual_stages;
  const std::string stage_kind = strategy.virtual_stages > 1 ? "virtual stages" : "stages";
  if (!strategy.stage_layers.empty()) {
    if (strategy.stage_layers.size() != static_cast<std::size_t>(stages)) {
      return "stage_layers: expected " + std::to_string(stages) + " entries (pipeline " +
             std::to_string(strategy.pipeline) + " x virtual stages " + std::to_string(strategy.virtual_stages) +
             "), got " + std::to_string(strategy.stage_layers.size());
    }
    int sum = 0;
    for (int blocks : strategy.stage_layers) sum += blocks;
    if (sum != shape.layers) {
      return "stage_layers: expected entries summing to the model's " + std::to_string(shape.layers) +
             " layers, got " + std::to_string(sum);
    }
  } else if (shape.layers % stages != 0) {
    return "pipeline: " + std::to_string(shape.layers) + " layers do not split into " + std::to_string(stages) +
           " equal " + stage_kind + "; give parallelism.stage_layers (blocks per " +
           (strategy.virtual_stages > 1 ? "virtual stage" : "stage") + ") for an uneven split";
  }
  if (shape.heads % strategy.tensor != 0) {
    return "tensor: " + std::to_string(shape.heads) + " attention heads do not split over " +
           std::to_string(strategy.tensor) + " GPUs";
  }
  if (shape.kv_heads > 0 && shape.kv_heads % strategy.tensor != 0) {
    // Megatron-LM requires it of --num-query-groups: each GPU keeps whole key-value heads.
    return "tensor: " + std::to_string(shape.kv_heads) + " key-value heads do not split over " +
           std::to_string(strategy.tensor) + " GPUs";
  }
  if (strategy.sequence_parallel && strategy.tensor == 1) return "sequence_parallel: needs tensor >= 2";
  if (strategy.schedule == PipelineSchedule::interleaved) {
    if (strategy.pipeline < 2) return "schedule: 'interleaved' needs pipeline >= 2";
    if (strategy.micro_batches % strategy.pipeline != 0) {
      return "schedule: 'interleaved' needs the micro-batches per step (" + std::to_string(strategy.micro_batches) +
             ") to be a multiple of pipeline (" + std::to_string(strategy.pipeline) + ")";
    }
  } else if (strategy.virtual_stages != 1) {
    return "virtual_stages: only the 'interleaved' schedule has virtual stages";
  }
  return "";
}

std::vector<StagePart> partition_model(const Workload& workload, const ParallelStrategy& strategy,
                                       Precision precision) {
  assert(partition_problem(workload, strategy).empty());
  const TransformerShape& shape = workload.transformer;
  const double element_bytes = activation_bytes(precision);
  const double activation_bytes_per_sample = static_cast<double>(shape.sequence) * shape.hidden * element_bytes;
  const int stages = strategy.pipeline * strategy.virtual_stages;
  // stage_of_block[i]: the virtual stage running block i.
  std::vector<int> stage_of_block;
  const std::vector<int> blocks = blocks_per_virtual_stage(strategy, shape.layers);
  for (int k = 0; k < stages; ++k) stage_of_block.insert(stage_of_block.end(), blocks[static_cast<std::size_t>(k)], k);
  // The block index each layer belongs to: -1 before the first block, `layers` after the last.
  std::vector<StagePart> parts(static_cast<std::size_t>(stages));
  int block = -1;
  std::string current;
  for (std::size_t l = 0; l < workload.layers.size(); ++l) {
    const Layer& layer = workload.layers[l];
    if (is_block_layer(layer) && layer.block != current) {
      current = layer.block;
      ++block;
    } else if (!is_block_layer(layer) && block >= 0) {
      block = shape.layers;
    }
    int stage = 0;
    if (block >= shape.layers) {
      stage = stages - 1;
    } else if (block >= 0) {
      stage = stage_of_block[static_cast<std::size_t>(block)];
    }
    StagePart& part = parts[static_cast<std::size_t>(stage)];
    if (part.workload.layers.empty()) part.first_layer = l;
    part.end_layer = l + 1;
    auto [split, calls] = split_layer(layer, strategy, shape, activation_bytes_per_sample);
    part.workload.layers.push_back(std::move(split));
    part.calls.push_back(std::move(calls));
  }
  for (std::size_t k = 0; k < parts.size(); ++k) {
    Workload& stage = parts[k].workload;
    stage.id = workload.id + " stage " + std::to_string(k);
    stage.name = workload.name;
    stage.sample_unit = workload.sample_unit;
    stage.input = workload.input;
    stage.source = workload.source;
    stage.optimizer = workload.optimizer;
    stage.transformer = workload.transformer;
    // Split over the tensor group under sequence parallelism, or scattered and allgathered on arrival.
    const bool scattered = !strategy.sequence_parallel && strategy.scatter_gather && strategy.tensor > 1;
    parts[k].boundary_bytes_per_sample = strategy.sequence_parallel || scattered
                                             ? activation_bytes_per_sample / strategy.tensor
                                             : activation_bytes_per_sample;
    parts[k].received_gather_bytes_per_sample = scattered ? activation_bytes_per_sample : 0.0;
  }
  return parts;
}

std::vector<PipelinePass> pipeline_schedule(const ParallelStrategy& strategy, int stage) {
  const int p = strategy.pipeline;
  const int m = strategy.micro_batches;
  std::vector<PipelinePass> passes;
  if (strategy.schedule == PipelineSchedule::gpipe) {
    for (int micro = 0; micro < m; ++micro) passes.push_back({true, micro, 0});
    for (int micro = 0; micro < m; ++micro) passes.push_back({false, micro, 0});
    return passes;
  }
  const int v = strategy.schedule == PipelineSchedule::interleaved ? strategy.virtual_stages : 1;
  const int total = m * v;
  // Megatron-LM's get_model_chunk_id and micro-batch order: in turns of p micro-batches per chunk.
  const auto pass = [&](int k, bool forward) {
    const int in_group = k % (p * v);
    int chunk = in_group / p;
    if (!forward) chunk = v - 1 - chunk;
    return PipelinePass{forward, (k / (p * v)) * p + in_group % p, chunk};
  };
  int warmup = v == 1 ? p - stage - 1 : (m == p ? total : 2 * (p - stage - 1) + (v - 1) * p);
  warmup = std::min(warmup, total);
  const int steady = total - warmup;
  for (int k = 0; k < warmup; ++k) passes.push_back(pass(k, true));
  for (int k = 0; k < steady; ++k) {
    passes.push_back(pass(warmup + k, true));
    passes.push_back(pass(k, false));
  }
  for (int k = steady; k < total; ++k) passes.push_back(pass(k, false));
  return passes;
}

}  // namespace vtsim
