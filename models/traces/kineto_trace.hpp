#pragma once
// Reads a PyTorch profiler (Kineto) trace of training iterations on one GPU into a ProfiledRun
// (models/traces/profiled_run.hpp): the GPU work of each iteration, where the CPU launched it, the NCCL collectives
// among it with their sizes, and the gradients the autograd engine stored. docs/traces.md says how an iteration is
// replayed.
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
// ("FILE: traceEvents[12].dur: expected a number >= 0, got -3.0", models/core/json_reader.hpp), the event as a whole by
// its kind and name ("FILE: traceEvents[12] (kernel 'name'): ..."). Refused: text that is not JSON (a truncated file:
// the line and column where it stops), no traceEvents array, an event read here with a field missing or malformed,
// no ProfilerStep annotation, two annotations of one step number
// (two ranks' traces in one file), GPU work whose correlation no runtime call has (a missing dependency), GPU work on
// more than one device (a trace holds one rank), an NCCL kernel without its collective's args, and a collective or a
// dtype this reader does not know.

#include <string>
#include <string_view>

#include "models/traces/profiled_run.hpp"

namespace vtsim {

/// Reads `text`, the trace file `file`. Throws InputError as the header says.
ProfiledRun read_kineto_trace(std::string_view text, const std::string& file);

}  // namespace vtsim
