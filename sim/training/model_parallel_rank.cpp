// One rank of a job with tensor, pipeline or sharded data parallelism (JobPlan::model_parallel; the model is in
// docs/large-models.md). Per iteration the rank runs its pipeline stage's schedule
// (models/parallel/model_partition.hpp):
// - a forward pass of a micro-batch through a model chunk first takes the previous virtual stage's activations (the
//   rank moves them from the sender's GPU when it asks for them: NCCL's send waits for its receiver; between racks
//   over the spine ECMP hashes the transfer onto, as a collective's flows), then runs the
//   chunk's layers with their tensor-group collectives, on the critical path, and posts its output to the next virtual
//   stage without waiting for it to be taken;
// - a backward pass takes the next virtual stage's gradients, runs the layers last to first (recomputation included
//   in their kernels, and under full recomputation the forward's collectives again) and posts its input gradients
//   back; in the last micro-batch's backward (under ZeRO-2/3 in every micro-batch's, whose gradients are sharded)
//   each layer's gradient becomes ready for the data-parallel group's DDP buckets (reduce-scatter under ZeRO), which
//   the communication actor runs while backward goes on;
// - then the rank waits for its buckets, runs its optimizer step (over 1/d of its weights under ZeRO), and under
//   ZeRO-1/2 allgathers its stage's updated 16-bit weights. Under ZeRO-3 a gather actor fetches each layer's
//   weights one layer ahead of the compute, before each forward and each backward pass.

#include "sim/training/training_job_state.hpp"

namespace vtsim::sim {

namespace {

/// Adds `kernels`' layer `l` forward (or backward) to `stretch`.
void add_layer(Stretch& stretch, const KernelTimes& kernels, std::size_t l, bool forward) {
  if (forward) {
    stretch.add(kernels.forward_s[l], kernels.forward_gpu_s[l], kernels.forward_bytes[l]);
  } else {
    stretch.add(kernels.backward_s[l], kernels.backward_gpu_s[l], kernels.backward_bytes[l]);
  }
}

}  // namespace

void TrainingJob::State::model_parallel_actor(int position) {
  const auto at = static_cast<std::size_t>(position);
  RankRuntime& rank = *ranks[at];
  const ModelParallelPlan& mp = *plan.model_parallel;
  const ParallelStrategy& strategy = mp.strategy;
  const int p = strategy.pipeline;
  const int stage = mp.rank_stage[at];
  const int virtual_stages = static_cast<int>(mp.stages.size());
  const std::vector<PipelinePass> passes = pipeline_schedule(strategy, stage);
  const int chunks = virtual_stages / p;
  // tensor_of[chunk][layer]: the rank's gradient tensor of that layer, or -1.
  std::vector<std::vector<int>> tensor_of(static_cast<std::size_t>(chunks));
  for (int c = 0; c < chunks; ++c) {
    tensor_of[static_cast<std::size_t>(c)].assign(mp.stages[static_cast<std::size_t>(c * p + stage)].calls.size(), -1);
  }
  const std::vector<GradientTensor>& tensors = *rank.gradient_group.tensors;
  for (std::size_t t = 0; t < tensors.size(); ++t) {
    const int chunk = tensors[t].layer / kLayersPerChunk;
    tensor_of[static_cast<std::size_t>(chunk)][static_cast<std::size_t>(tensors[t].layer % kLayersPerChunk)] =
        static_cast<int>(t);
  }
  const bool reduces = strategy.data > 1 && !tensors.empty();
  const ZeroSharding zero = ZeroSharding::of(strategy);
  const bool reduces_every_micro_batch = zero.reduces_every_micro_batch();
  const long reductions_per_iteration =
      static_cast<long>(tensors.size()) * (reduces_every_micro_batch ? strategy.micro_batches : 1);
  const bool gathers_per_layer = zero.gathers_per_layer();
  const int tensor_group = mp.rank_tensor_group[at];
  const int tensor_position = mp.rank_tensor_position[at];
  // The ranks this actor runs for: itself, or its tensor group (tensor_group_classes), each at its tensor position.
  const std::vector<int>& class_members = members[at];
  std::vector<std::uint64_t> streams;
  // Per member, the route its pipeline messages from the previous and from the next stage take (their senders').
  std::vector<TransferEnds> routes_from_previous, routes_from_next;
  for (int member : class_members) {
    const auto m = static_cast<std::size_t>(member);
    streams.push_back(plan.rank_streams[m]);
    if (mp.rank_previous_stage[m] >= 0) {
      routes_from_previous.push_back(mp.rank_to_next[static_cast<std::size_t>(mp.rank_previous_stage[m])]);
    }
    if (mp.rank_next_stage[m] >= 0) {
      routes_from_next.push_back(mp.rank_to_previous[static_cast<std::size_t>(mp.rank_next_stage[m])]);
    }
  }
  LockstepNoise noise(plan.seed, streams, plan.step_time_cv, plan.stalls);
  const double speed = plan.rank_speed[at];

  run_iterations(position, [&](int iteration, IterationRecord& record) {
    IterationSpans spans{"iteration", -1, 0, "wait for gradients", 0};
    record.start_s = sg4::Engine::get_clock();
    if (const double stall_s = noise.next_stall_s(); stall_s > 0) {
      gpu_idle(position);
      sg4::this_actor::sleep_for(stall_s);
      record.compute_s += stall_s;
    }
    double factor = speed;
    // Runs the kernels gathered so far at the pass's draw.
    const auto flush = [&](Stretch& pending) {
      noise.ran(speed * pending.total_s);
      run_kernel(rank, pending.scaled(factor), record);
      pending = Stretch{};
    };

    // Runs one tensor-group collective of the layer at hand, on the critical path.
    const auto tensor_call = [&](const TensorCall& call) {
      SimulatedCollective* collective = nullptr;
      const auto group = static_cast<std::size_t>(tensor_group);
      switch (call.kind) {
        case TensorCollective::all_reduce: collective = mp.tensor_all_reduce[group].get(); break;
        case TensorCollective::all_gather: collective = mp.tensor_all_gather[group].get(); break;
        case TensorCollective::reduce_scatter: collective = mp.tensor_reduce_scatter[group].get(); break;
      }
      gpu_idle(position);
      const double from = sg4::Engine::get_clock();
      collective->run(tensor_position, call.bytes_per_sample);  // per micro-batch (JobPlan: already scaled)
      record.tensor_parallel_s += sg4::Engine::get_clock() - from;
    };
    const auto run_calls = [&](Stretch& pending, const std::vector<TensorCall>& calls) {
      if (calls.empty()) return;
      flush(pending);
      for (const TensorCall& call : calls) tensor_call(call);
    };
    // ZeRO-3: the layer's weights must be gathered before it runs; its start lets the next gather begin.
    const auto gathered = [&](Stretch& pending, double bytes) {
      if (!gathers_per_layer || bytes <= 0) return;
      flush(pending);
      const long needed = rank.layers_begun.value() + 1;
      if (rank.layers_gathered.value() < needed) {
        gpu_idle(position);
        const double from = sg4::Engine::get_clock();
        rank.layers_gathered.wait_for(needed);
        record.data_parallel_wait_s += sg4::Engine::get_clock() - from;
      }
      rank.layers_begun.add(1);
      // Counted as used, not as gathered: the gather actor runs one layer into the next iteration.
      rank.data_parallel_sent_bytes += bytes * collective_sent_fraction(Collective::allgather, strategy.data);
    };
    // Takes the message a neighbouring virtual stage posted, moving its bytes from that stage's GPU (a tensor group
    // standing as one rank: every member's from its sender's, at once).
    const auto receive = [&](Channel<PipeMessage>& inbox, const std::vector<TransferEnds>& routes,
                             double gather_bytes) {
      gpu_idle(position);
      const double from = sg4::Engine::get_clock();
      const PipeMessage message = inbox.pop();
      std::vector<sg4::CommPtr> transfers;
      for (const auto& [source, destination] : routes) {
        transfers.push_back(sg4::Comm::sendto_async(source, destination, whole_bytes(message.bytes)));
      }
      sg4::Comm::wait_all(transfers);
      if (message.extra_latency_s > 0) sg4::this_actor::sleep_for(message.extra_latency_s);
      if (gather_bytes > 0) {
        // Scatter-gather: each GPU received 1/t of the activations; the group allgathers them (tensor position).
        mp.tensor_all_gather[static_cast<std::size_t>(tensor_group)]->run(tensor_position, gather_bytes);
      }
      record.pipeline_wait_s += sg4::Engine::get_clock() - from;
    };

    for (const PipelinePass& pass : passes) {
      const int virtual_stage = pass.chunk * p + stage;
      const StageKernels& part = mp.stages[static_cast<std::size_t>(virtual_stage)];
      const KernelTimes& kernels = part.kernels;
      const std::size_t layers = part.calls.size();
      factor = speed * noise.next_multiplier();
      Stretch pending;
      if (pass.forward) {
        if (virtual_stage > 0) {
          receive(*rank.from_previous[static_cast<std::size_t>(pass.chunk)], routes_from_previous,
                  part.received_gather_bytes);
        } else {
          wait_for_batch(rank, record);  // the first stage reads the micro-batch
        }
        for (std::size_t l = 0; l < layers; ++l) {
          gathered(pending, part.gather_bytes.empty() ? 0.0 : part.gather_bytes[l]);
          run_calls(pending, part.calls[l].forward_before);
          add_layer(pending, kernels, l, true);
          run_calls(pending, part.calls[l].forward_after);
        }
        flush(pending);
        if (virtual_stage + 1 < virtual_stages) {
          const auto next = static_cast<std::size_t>(mp.rank_next_stage[at]);
          ranks[next]->from_previous[static_cast<std::size_t>((virtual_stage + 1) / p)]->push(
              {part.boundary_bytes, mp.p2p_extra_latency_s});
        }
        continue;
      }
      if (virtual_stage + 1 < virtual_stages) {
        receive(*rank.from_next[static_cast<std::size_t>(pass.chunk)], routes_from_next, part.received_gather_bytes);
      }
      // The gradients are reduced in the last micro-batch, or under ZeRO-2/3 in each (a round of buckets each).
      const bool reduced_now = pass.micro + 1 == strategy.micro_batches || reduces_every_micro_batch;
      for (std::size_t l = layers; l-- > 0;) {
        gathered(pending, part.gather_bytes.empty() ? 0.0 : part.gather_bytes[l]);
        run_calls(pending, part.calls[l].backward_before);
        if (part.rerun_forward_calls[l] != 0) {
          run_calls(pending, part.calls[l].forward_before);
          run_calls(pending, part.calls[l].forward_after);
        }
        add_layer(pending, kernels, l, false);
        run_calls(pending, part.calls[l].backward_after);
        const int tensor = tensor_of[static_cast<std::size_t>(pass.chunk)][l];
        if (reduced_now && reduces && tensor >= 0) {
          flush(pending);
          gradient_ready(iteration, pass.micro, position, tensor);
        }
      }
      flush(pending);
      if (virtual_stage > 0) {
        const auto previous = static_cast<std::size_t>(mp.rank_previous_stage[at]);
        ranks[previous]->from_next[static_cast<std::size_t>((virtual_stage - 1) / p)]->push(
            {part.boundary_bytes, mp.p2p_extra_latency_s});
      }
    }

    spans.backward_end_s = sg4::Engine::get_clock();
    if (reduces) {
      gpu_idle(position);
      rank.tensors_reduced.wait_for(static_cast<long>(iteration + 1) * reductions_per_iteration);
    }
    spans.reduced_s = sg4::Engine::get_clock();
    record.data_parallel_wait_s += spans.reduced_s - spans.backward_end_s;
    rank.host_ahead_s += spans.reduced_s - spans.backward_end_s;
    // The optimizer of the rank's chunks (their kernel times hold each chunk's share).
    Stretch optimizer;
    for (int c = 0; c < chunks; ++c) {
      const KernelTimes& kernels = mp.stages[static_cast<std::size_t>(c * p + stage)].kernels;
      optimizer.add(kernels.optimizer_s, kernels.optimizer_gpu_s, kernels.optimizer_bytes);
    }
    flush(optimizer);
    if (zero.gathers_after_step()) {
      // Each rank updated 1/d of the weights: the group allgathers them before the next forward.
      gpu_idle(position);
      const double from = sg4::Engine::get_clock();
      const double weights = mp.rank_weight_bytes[at];
      mp.data_gather[static_cast<std::size_t>(mp.rank_data_group[at])]->run(mp.rank_data_position[at], weights);
      rank.data_parallel_sent_bytes += weights * collective_sent_fraction(Collective::allgather, strategy.data);
      record.data_parallel_wait_s += sg4::Engine::get_clock() - from;
    }
    record.end_s = sg4::Engine::get_clock();
    if (class_members.size() > 1) {
      // The members' compute: the group's, less what each member's own draws would have saved.
      const double size = static_cast<double>(class_members.size());
      record.class_compute_s = size * record.compute_s - noise.take_members_saved_s();
    }
    return spans;
  });
}

void TrainingJob::State::weight_gather_actor(int position) {
  const auto at = static_cast<std::size_t>(position);
  RankRuntime& rank = *ranks[at];
  const ModelParallelPlan& mp = *plan.model_parallel;
  const int p = mp.strategy.pipeline;
  const int stage = mp.rank_stage[at];
  SimulatedCollective& gather = *mp.data_gather[static_cast<std::size_t>(mp.rank_data_group[at])];
  const int data_position = mp.rank_data_position[at];
  const std::vector<PipelinePass> passes = pipeline_schedule(mp.strategy, stage);
  long sequence = 0;  // layer passes with weights to gather, in the order the compute actor meets them
  while (true) {
    for (const PipelinePass& pass : passes) {
      const std::vector<double>& bytes = mp.stages[static_cast<std::size_t>(pass.chunk * p + stage)].gather_bytes;
      for (std::size_t k = 0; k < bytes.size(); ++k) {
        const std::size_t l = pass.forward ? k : bytes.size() - 1 - k;
        if (bytes[l] <= 0) continue;
        rank.layers_begun.wait_for(sequence);  // one layer ahead of the compute
        gather.run(data_position, bytes[l]);
        rank.layers_gathered.add(1);
        ++sequence;
      }
    }
  }
}

}  // namespace vtsim::sim
