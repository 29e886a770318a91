#pragma once
// What vtsim keeps of a profiled run on one GPU, whichever trace format it came from: its iterations, the GPU work in
// each with when the CPU released it, the collectives among that work, and where the autograd engine stored
// gradients. models/traces/traced_iteration.hpp cuts an iteration of it for the engine; docs/traces.md says what each
// format gives.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vtsim {

/// What a piece of GPU work is.
enum class TracedWorkKind { kernel, memcpy, memset };

/// An NCCL collective, by PyTorch's name for it.
enum class TracedCollectiveKind { allreduce, allgather, reduce_scatter, broadcast, reduce, all_to_all, send, recv,
                                  gather, scatter, barrier };

/// The collective an NCCL kernel runs.
struct TracedCollective {
  TracedCollectiveKind kind = TracedCollectiveKind::allreduce;
  /// The message each rank puts in: "In msg nelems" x the dtype's size, bytes.
  double bytes = 0;
  /// Ranks in its process group ("Group size").
  int group_size = 1;
  /// Its process group ("Process Group Name"); "" when the trace does not say.
  std::string process_group;
};

/// One kernel, copy or fill on the GPU.
struct TracedWork {
  std::string name;
  TracedWorkKind kind = TracedWorkKind::kernel;
  int stream = 0;
  /// Start and duration on the GPU, seconds; times count from the first iteration's start on the CPU.
  double start_s = 0;
  double duration_s = 0;
  /// When the CPU's runtime call that launched it began and ended, seconds.
  double launch_s = 0;
  double launch_end_s = 0;
  /// The iteration it belongs to: the index in ProfiledRun::steps of the step whose span holds its launch.
  std::size_t step = 0;
  /// NCCL kernels: the collective.
  std::optional<TracedCollective> collective;
  /// Where it is in its file, for messages: "traceEvents[12] (kernel 'name')", "node 57 ('name')".
  std::string origin;
};

/// A parameter's gradient as the autograd engine stored it (AccumulateGrad).
struct TracedGradient {
  /// When the CPU ran AccumulateGrad, seconds from the first iteration's start: the gradient is ready once the GPU
  /// work launched before then has run.
  double cpu_s = 0;
  /// Its bytes: the product of its input's dimensions x its type's size; nullopt when the trace has no shapes
  /// (profiled without record_shapes=True).
  std::optional<double> bytes;
  std::size_t step = 0;  ///< as TracedWork::step
  std::string origin;    ///< as TracedWork::origin
};

/// One ProfilerStep annotation: an iteration as the CPU ran it.
struct TracedStep {
  int number = 0;  ///< N of "ProfilerStep#N"
  double cpu_start_s = 0;
  double cpu_end_s = 0;
};

/// A profiled run on one GPU, as a trace reader gives it (models/traces/kineto_trace.hpp,
/// models/traces/chakra_trace.hpp).
struct ProfiledRun {
  std::string file;
  /// The GPU's name from deviceProperties, "" when the trace has none.
  std::string device_name;
  /// The device index the work ran on.
  int device = 0;
  /// distributedInfo, when present.
  std::optional<int> rank;
  std::optional<int> world_size;
  /// Its iterations, in time order (at least one).
  std::vector<TracedStep> steps;
  /// The GPU work launched within them, by start time.
  std::vector<TracedWork> work;
  /// The gradients stored within them, in time order.
  std::vector<TracedGradient> gradients;
};

/// Step `step`'s time on the GPU: from the start of its first work to the end of its last, seconds; 0 for a step
/// without GPU work. REQUIRES: step < trace.steps.size().
double traced_gpu_span_s(const ProfiledRun& trace, std::size_t step);

/// PyTorch's name of `kind` ("allreduce", "allgather", ...).
std::string_view to_string(TracedCollectiveKind kind);

}  // namespace vtsim
