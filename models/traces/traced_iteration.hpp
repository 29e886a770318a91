#pragma once
// A profiled training iteration (models/traces/kineto_trace.hpp) cut into the pieces the engine's data-parallel loop
// runs, and each piece's time on another device by the compute model's rule. docs/traces.md derives the rules.
//
// The cut. An iteration's gradients become ready at points the trace shows: DDP launches each bucket's allreduce
// (an NCCL kernel) once the bucket's gradients are ready, and the autograd engine stores each parameter's gradient
// in an AccumulateGrad op. The GPU work (NCCL kernels aside) launched up to the first point is the first backward
// stretch (the forward pass is in it: nothing in the engine starts before the first gradient), the work launched up
// to the next point the next stretch, and so on; the work launched after the last point is the optimizer's stretch,
// which the engine starts once the gradients are reduced. A trace with NCCL kernels gives DDP's buckets as traced;
// one without gives every parameter's gradient, which the engine buckets as the scenario's DDP or Horovod settings
// say.
//
// The replay of a stretch. Each piece of work keeps what held it back in the trace: the CPU (its launch call ended
// after its stream went idle, so it started `release_s` after its stretch began: the launch, its latency, any wait
// on another stream) or its stream (it was queued behind the previous work on its stream and started `gap_s` after
// that ended; its launch had ended `release_s` after the stretch began). Replayed, it starts at the later of its
// release and its stream's end plus its gap. On the GPU the trace was taken on this reproduces the traced times
// exactly; on a faster GPU work queued behind its stream moves up, no earlier than its launch, while work the CPU held
// back keeps its time: the host paces the GPU as compute_model.hpp says.
// Stretches start with every stream idle (each begins where the last work of the previous one ended); work on two
// streams that overlapped across that boundary is replayed one after the other, a limit of the cut.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "models/compute/compute_model.hpp"
#include "models/traces/profiled_run.hpp"
#include "models/workload/workload.hpp"

namespace vtsim {

/// How a traced kernel's time changes on another device, told by its name (docs/traces.md lists the patterns).
enum class TracedKernelClass {
  matrix,       ///< GEMM and attention kernels: the device's matrix rate x its GEMM efficiency
  convolution,  ///< cuDNN convolutions: the device's matrix rate x its convolution efficiency
  memory,       ///< everything else on the device, copies and fills within it: its memory bandwidth x efficiency
  host_copy,    ///< copies between the host and the device: the host link's, unchanged
};

/// One piece of GPU work of a stretch, as its replay needs it.
struct ReplayWork {
  TracedKernelClass kernel_class = TracedKernelClass::memory;
  int stream = 0;
  double duration_s = 0;  ///< on the traced device
  /// True: the CPU released it, `release_s` after its stretch began (gap_s is 0). False: it was queued behind the
  /// previous work on its stream and started `gap_s` after that ended; its launch ended `release_s` after the stretch
  /// began. Either way it starts at max(its stream's end + gap_s, release_s).
  bool host_released = true;
  double release_s = 0;
  double gap_s = 0;
};

/// One stretch: GPU work that ends where gradients are ready (or the optimizer's).
struct TracedStretch {
  std::vector<ReplayWork> work;  ///< in traced start order
  /// Bytes of gradient ready at its end (a DDP bucket, or one parameter's gradient); 0 for the optimizer's.
  double gradient_bytes = 0;
};

/// One traced iteration, cut as the file comment says.
struct TracedIteration {
  std::string file;
  int step_number = 0;  ///< N of its ProfilerStep#N
  /// In the order backward runs them; the first holds the forward pass too.
  std::vector<TracedStretch> backward;
  TracedStretch optimizer;
  /// True when the stretches end at NCCL allreduces (DDP's buckets as traced); false when at AccumulateGrad ops.
  bool traced_buckets = false;
  int traced_ranks = 1;  ///< the allreduces' group size; 1 without NCCL kernels
  /// The traced iteration: from its ProfilerStep's start on the CPU to the end of its last GPU work, seconds.
  double iteration_s = 0;
  /// Of that, the time the optimizer waited for the last allreduce after backward ended, seconds.
  double exposed_communication_s = 0;
  int kernels = 0;  ///< GPU work items outside NCCL
  /// Broadcasts and barriers in the iteration (DDP's buffer broadcast before forward): not replayed, since they carry
  /// no gradient; the engine does not simulate them either.
  int skipped_collectives = 0;
};

/// Cuts step `step` of `trace`. Throws InputError "FILE: ..." when the step has no gradient points (neither NCCL
/// allreduces nor AccumulateGrad ops), when its AccumulateGrad ops have no shapes, or when it runs a collective other
/// than allreduce, broadcast or barrier (a model-parallel or sharded program, which this cut does not replay). REQUIRES: step <
/// trace.steps.size().
TracedIteration traced_iteration(const ProfiledRun& trace, std::size_t step);

/// The class of a piece of work, by its kind and name.
TracedKernelClass kernel_class(std::string_view name, TracedWorkKind kind);

/// How long each class's work takes on the target device per second on the traced one, above a kernel's fixed cost:
/// a kernel of d seconds becomes to.kernel_fixed_s + (d - from_kernel_fixed_s) x scale (d itself when d <= the
/// fixed cost).
struct KernelClassScale {
  double matrix = 1;
  double convolution = 1;
  double memory = 1;
  double from_kernel_fixed_s = 0;
  double to_kernel_fixed_s = 0;

  /// `work`'s duration on the target device.
  double duration_s(const ReplayWork& work) const;
};

/// A stretch replayed on the target device.
struct StretchTime {
  double span_s = 0;    ///< from its start to the end of its last work
  double gpu_s = 0;     ///< sum of its work's durations
  double memory_s = 0;  ///< of that, the memory-class kernels' (whose bytes contend with collectives for HBM)
};

/// Replays `stretch` with its work's durations scaled by `scale` (the file comment gives the rule).
StretchTime replay_stretch(const TracedStretch& stretch, const KernelClassScale& scale);

/// The workload the engine runs for `cut`: one layer per backward stretch (forward order: the last stretch is the
/// first layer), whose gradient is the stretch's bytes (its `parameters` are those bytes / 4, the fp32 gradient the
/// engine assumes) and which does no flop. Its optimizer is Adam, which only sizes its state in memory.
Workload traced_workload(const TracedIteration& cut);

/// The kernel times of traced_workload(cut) on the target device: each stretch replayed with `scale`, as that
/// workload's backward layers and optimizer (forward times are 0: the forward pass is in the first stretch). A
/// memory-class kernel's bytes are its time there x `memory_Bps` (the target's bandwidth x efficiency, what the
/// compute model's memory-bound kernel moves).
KernelTimes traced_kernel_times(const TracedIteration& cut, const KernelClassScale& scale, double memory_Bps);

}  // namespace vtsim
