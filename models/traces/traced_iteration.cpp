#include "models/traces/traced_iteration.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <limits>
#include <map>

#include "models/core/error.hpp"

namespace vtsim {
namespace {

bool contains_any(std::string_view text, std::initializer_list<std::string_view> patterns) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [text](std::string_view pattern) { return text.find(pattern) != std::string_view::npos; });
}

/// Where gradients are ready in an iteration: a CPU time and the bytes ready there.
struct GradientPoint {
  double cpu_s = 0;
  double bytes = 0;
};

[[noreturn]] void fail_at(const ProfiledRun& trace, const std::string& origin, const std::string& message) {
  throw InputError(trace.file + ": " + origin + ": " + message);
}

/// The step's gradient points: its NCCL allreduces when it has NCCL kernels, else its AccumulateGrad ops.
std::vector<GradientPoint> gradient_points(const ProfiledRun& trace, std::size_t step, TracedIteration& cut) {
  std::vector<GradientPoint> points;
  for (const TracedWork& work : trace.work) {
    if (work.step != step || !work.collective) continue;
    // DDP broadcasts the module's buffers (batch-norm statistics) from rank 0 before each forward pass
    // (broadcast_buffers=True, its default), and a program may hold barriers: neither carries gradients.
    if (work.collective->kind == TracedCollectiveKind::broadcast ||
        work.collective->kind == TracedCollectiveKind::barrier) {
      ++cut.skipped_collectives;
      continue;
    }
    if (work.collective->kind != TracedCollectiveKind::allreduce) {
      fail_at(trace, work.origin,
              "its collective is " + std::string(to_string(work.collective->kind)) +
                  ": vtsim replays data-parallel traces, whose collectives are allreduces (DDP, Horovod); sharded "
                  "and model-parallel traces are not replayed yet");
    }
    if (!(work.collective->bytes > 0)) {
      fail_at(trace, work.origin, "an allreduce of no bytes (\"In msg nelems\" 0): no gradient to replay");
    }
    points.push_back({work.launch_s, work.collective->bytes});
    cut.traced_ranks = std::max(cut.traced_ranks, work.collective->group_size);
  }
  if (!points.empty()) {
    cut.traced_buckets = true;
  } else {
    for (const TracedGradient& gradient : trace.gradients) {
      if (gradient.step != step) continue;
      if (!gradient.bytes) {
        fail_at(trace, gradient.origin,
                "no input shapes: profile with record_shapes=True so that the gradients' sizes are in the trace");
      }
      if (!(*gradient.bytes > 0)) {
        fail_at(trace, gradient.origin, "a gradient of no bytes (an input dimension of 0): not a parameter's");
      }
      points.push_back({gradient.cpu_s, *gradient.bytes});
    }
  }
  if (points.empty()) {
    throw InputError(trace.file + ": ProfilerStep#" + std::to_string(trace.steps[step].number) +
                     " has no gradients: neither NCCL allreduce kernels nor AccumulateGrad ops (profile whole "
                     "training iterations, backward included)");
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const GradientPoint& a, const GradientPoint& b) { return a.cpu_s < b.cpu_s; });
  return points;
}

}  // namespace

TracedKernelClass kernel_class(std::string_view name, TracedWorkKind kind) {
  if (kind == TracedWorkKind::memcpy) {
    return contains_any(name, {"HtoD", "DtoH"}) ? TracedKernelClass::host_copy : TracedKernelClass::memory;
  }
  if (kind == TracedWorkKind::memset) return TracedKernelClass::memory;
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // cuDNN's and CUTLASS's convolution kernels name their pass (fprop, dgrad, wgrad) or their implicit GEMM; batch
  // normalisation's cudnn::bn_* kernels are memory-bound and match none of these.
  if (contains_any(lower, {"conv", "fprop", "dgrad", "wgrad", "implicit_gemm"})) return TracedKernelClass::convolution;
  // cuBLAS (sgemm, xmma_gemm, Hopper's nvjet), CUTLASS, tensor-core instruction shapes (884, 1688, 16816) and fused
  // attention (FlashAttention, fmha).
  if (contains_any(lower, {"gemm", "cutlass", "xmma", "nvjet", "cublas", "s884", "h884", "s1688", "h1688", "s16816",
                           "h16816", "flash", "fmha"})) {
    return TracedKernelClass::matrix;
  }
  return TracedKernelClass::memory;
}

TracedIteration traced_iteration(const ProfiledRun& trace, std::size_t step) {
  assert(step < trace.steps.size());
  TracedIteration cut;
  cut.file = trace.file;
  cut.step_number = trace.steps[step].number;
  const std::vector<GradientPoint> points = gradient_points(trace, step, cut);
  for (const GradientPoint& point : points) cut.backward.push_back({{}, point.bytes});

  // Each piece of work's stretch: the first point at or after its launch; past the last, the optimizer's.
  std::vector<const TracedWork*> work;
  std::vector<std::size_t> stretch_of;
  for (const TracedWork& item : trace.work) {
    if (item.step != step || item.collective) continue;
    const auto at = std::lower_bound(points.begin(), points.end(), item.launch_s,
                                     [](const GradientPoint& point, double launch) { return point.cpu_s < launch; });
    work.push_back(&item);
    stretch_of.push_back(static_cast<std::size_t>(at - points.begin()));
  }
  if (work.empty()) {
    throw InputError(trace.file + ": ProfilerStep#" + std::to_string(cut.step_number) +
                     " has no GPU work besides NCCL's: no kernels, copies or fills to replay (profile with the CUDA "
                     "activity on: torch.profiler's ProfilerActivity.CUDA)");
  }
  const std::size_t stretches = points.size() + 1;  // the last is the optimizer's
  std::vector<double> last_end(stretches, -std::numeric_limits<double>::infinity());
  for (std::size_t w = 0; w < work.size(); ++w) {
    last_end[stretch_of[w]] = std::max(last_end[stretch_of[w]], work[w]->start_s + work[w]->duration_s);
  }
  double nccl_end = -std::numeric_limits<double>::infinity();
  double step_end = -std::numeric_limits<double>::infinity();
  for (const TracedWork& item : trace.work) {
    if (item.step != step) continue;
    step_end = std::max(step_end, item.start_s + item.duration_s);
    if (item.collective) nccl_end = std::max(nccl_end, item.start_s + item.duration_s);
  }
  // Each stretch begins where the previous one's work ended; the optimizer's, also not before the last allreduce.
  std::vector<double> origin(stretches, trace.steps[step].cpu_start_s);
  for (std::size_t k = 1; k < stretches; ++k) origin[k] = std::max(origin[k - 1], last_end[k - 1]);
  const double backward_end = origin.back();
  origin.back() = std::max(backward_end, nccl_end);

  std::map<int, std::pair<double, std::size_t>> stream_last;  // stream -> end of its last work and that work's stretch
  for (std::size_t w = 0; w < work.size(); ++w) {
    const TracedWork& item = *work[w];
    const std::size_t k = stretch_of[w];
    ReplayWork replay{.kernel_class = kernel_class(item.name, item.kind),
                      .stream = item.stream,
                      .duration_s = item.duration_s,
                      .host_released = true,
                      .release_s = std::max(0.0, item.start_s - origin[k]),
                      .gap_s = 0};
    const auto previous = stream_last.find(item.stream);
    if (previous != stream_last.end() && previous->second.second == k && item.launch_end_s < previous->second.first) {
      // Launched before its stream was free: it waited for the stream. On a faster device it may wait for its
      // launch instead, which ended at launch_end_s.
      replay.host_released = false;
      replay.release_s = std::max(0.0, item.launch_end_s - origin[k]);
      replay.gap_s = std::max(0.0, item.start_s - previous->second.first);
    }
    stream_last[item.stream] = {item.start_s + item.duration_s, k};
    (k < points.size() ? cut.backward[k] : cut.optimizer).work.push_back(replay);
  }
  cut.kernels = static_cast<int>(work.size());
  cut.iteration_s = std::max(0.0, step_end - trace.steps[step].cpu_start_s);
  cut.exposed_communication_s = std::max(0.0, origin.back() - backward_end);
  return cut;
}

double KernelClassScale::duration_s(const ReplayWork& work) const {
  double factor = 1;
  switch (work.kernel_class) {
    case TracedKernelClass::matrix: factor = matrix; break;
    case TracedKernelClass::convolution: factor = convolution; break;
    case TracedKernelClass::memory: factor = memory; break;
    case TracedKernelClass::host_copy: return work.duration_s;
  }
  if (work.duration_s <= from_kernel_fixed_s) return work.duration_s;
  return to_kernel_fixed_s + (work.duration_s - from_kernel_fixed_s) * factor;
}

StretchTime replay_stretch(const TracedStretch& stretch, const KernelClassScale& scale) {
  StretchTime time;
  std::map<int, double> stream_end;  // every stream idle at the stretch's start
  for (const ReplayWork& work : stretch.work) {
    const double duration = scale.duration_s(work);
    double& end = stream_end[work.stream];
    const double start = std::max(end + work.gap_s, work.release_s);
    end = start + duration;
    time.span_s = std::max(time.span_s, end);
    time.gpu_s += duration;
    if (work.kernel_class == TracedKernelClass::memory) time.memory_s += duration;
  }
  return time;
}

Workload traced_workload(const TracedIteration& cut) {
  Workload workload;
  workload.id = "trace";
  workload.name = "ProfilerStep#" + std::to_string(cut.step_number) + " of " + cut.file;
  workload.sample_unit = "sample";
  workload.input = "as traced";
  workload.source = cut.file;
  workload.optimizer = Optimizer::adam;
  const std::size_t stretches = cut.backward.size();
  for (std::size_t layer = 0; layer < stretches; ++layer) {
    const TracedStretch& stretch = cut.backward[stretches - 1 - layer];
    Layer pseudo;
    pseudo.name = "traced.stretch" + std::to_string(stretches - 1 - layer);
    pseudo.block = pseudo.name;
    pseudo.parameters = stretch.gradient_bytes / 4;  // Layer::gradient_bytes() is 4 per parameter
    pseudo.trainable = stretch.gradient_bytes > 0;
    workload.layers.push_back(std::move(pseudo));
  }
  return workload;
}

KernelTimes traced_kernel_times(const TracedIteration& cut, const KernelClassScale& scale, double memory_Bps) {
  const std::size_t stretches = cut.backward.size();
  KernelTimes times;
  times.forward_s.assign(stretches, 0.0);
  times.forward_gpu_s.assign(stretches, 0.0);
  times.forward_bytes.assign(stretches, 0.0);
  times.backward_s.assign(stretches, 0.0);
  times.backward_gpu_s.assign(stretches, 0.0);
  times.backward_bytes.assign(stretches, 0.0);
  for (std::size_t k = 0; k < stretches; ++k) {
    const StretchTime time = replay_stretch(cut.backward[k], scale);
    const std::size_t layer = stretches - 1 - k;
    times.backward_s[layer] = time.span_s;
    times.backward_gpu_s[layer] = time.gpu_s;
    times.backward_bytes[layer] = time.memory_s * memory_Bps;
    times.gpu_busy_s += time.gpu_s;
  }
  const StretchTime optimizer = replay_stretch(cut.optimizer, scale);
  times.optimizer_s = optimizer.span_s;
  times.optimizer_gpu_s = optimizer.gpu_s;
  times.optimizer_bytes = optimizer.memory_s * memory_Bps;
  times.gpu_busy_s += optimizer.gpu_s;
  times.kernels = cut.kernels;
  return times;
}

}  // namespace vtsim
