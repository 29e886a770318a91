#pragma once
// Reads a PyTorch profiler (Kineto) trace of training iterations on one GPU: the GPU work of each iteration, where
// the CPU launched it, and the NCCL collectives among it with their sizes. This is the reading half of replaying a
// profiled iteration (docs/traces.md); the simulator does not use it yet.
//
// The input is the Chrome-trace JSON that torch.profiler writes (export_chrome_trace, tensorboard_trace_handler):
// - "traceEvents": complete events ("ph": "X"), each with "cat", "name", "ts" and "dur" (microseconds) and "args".
//   Read here:
//   - GPU work: "cat" "kernel", "gpu_memcpy" or "gpu_memset", with args "device", "stream" and "correlation" (the id
//     of the CUDA runtime call that launched it);
//   - launches: "cat" "cuda_runtime" or "cuda_driver", with args "correlation";
//   - iterations: "cat" "user_annotation" named "ProfilerStep#N" (one per prof.step());
//   - NCCL: kernels whose name starts with "ncclKernel" or "ncclDevKernel", with args "Collective name", "In msg
//     nelems", "dtype", "Group size" and "Process Group Name" (PyTorch 2.1 and later record them on the kernel);
//   - gradients: "cat" "cpu_op" named "torch::autograd::AccumulateGrad", the autograd engine's record of a
//     parameter's gradient being stored (torch/csrc/autograd/function.h Node::operator() records each node with its
//     inputs), with args "Input Dims" and "Input type" when the profiler ran with record_shapes=True.
// - "distributedInfo": "rank" and "world_size", when torch.distributed ran.
// - "deviceProperties": [{"id", "name"}]: the name of the GPU the work ran on.
// Every other event, category and key is left alone: the format is open-ended (Python frames, CPU ops, flow arrows,
// memory and counter events), and a trace holds far more than a replay needs. Work launched outside every
// ProfilerStep span (before the first, after the last) is not part of an iteration and is dropped, as are gradients
// stored outside them.
//
// Bad input throws one InputError naming the file and, where one is at fault, the event: a field by its JSON path
// ("FILE: traceEvents[12].dur: expected a number >= 0, got -3.0", models/json_reader.hpp), the event as a whole by
// its kind and name ("FILE: traceEvents[12] (kernel 'name'): ..."). Refused: text that is not JSON (a truncated file:
// the line and column where it stops), no traceEvents array, an event read here with a field missing or malformed,
// no ProfilerStep annotation, two annotations of one step number
// (two ranks' traces in one file), GPU work whose correlation no runtime call has (a missing dependency), GPU work on
// more than one device (a trace holds one rank), an NCCL kernel without its collective's args, and a collective or a
// dtype this reader does not know.

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
  /// The iteration it belongs to: the index in KinetoTrace::steps of the step whose span holds its launch.
  std::size_t step = 0;
  /// NCCL kernels: the collective.
  std::optional<TracedCollective> collective;
  /// Its index in traceEvents, for messages.
  std::size_t event = 0;
};

/// A parameter's gradient as the autograd engine stored it (AccumulateGrad).
struct TracedGradient {
  /// When the CPU ran AccumulateGrad, seconds from the first iteration's start: the gradient is ready once the GPU
  /// work launched before then has run.
  double cpu_s = 0;
  /// Its bytes: the product of its "Input Dims" x its "Input type"'s size; nullopt when the trace has no shapes
  /// (profiled without record_shapes=True).
  std::optional<double> bytes;
  std::size_t step = 0;   ///< as TracedWork::step
  std::size_t event = 0;  ///< its index in traceEvents
};

/// One ProfilerStep annotation: an iteration as the CPU ran it.
struct TracedStep {
  int number = 0;  ///< N of "ProfilerStep#N"
  double cpu_start_s = 0;
  double cpu_end_s = 0;
};

/// A profiled run on one GPU.
struct KinetoTrace {
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

/// Reads `text`, the trace file `file`. Throws InputError as the header says.
KinetoTrace read_kineto_trace(std::string_view text, const std::string& file);

/// Step `step`'s time on the GPU: from the start of its first work to the end of its last, seconds; 0 for a step
/// without GPU work. REQUIRES: step < trace.steps.size().
double traced_gpu_span_s(const KinetoTrace& trace, std::size_t step);

/// PyTorch's name of `kind` ("allreduce", "allgather", ...).
std::string_view to_string(TracedCollectiveKind kind);

}  // namespace vtsim
