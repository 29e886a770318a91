#include "sim/training/horovod_coordinator.hpp"

#include <cassert>
#include <cmath>
#include <cstddef>
#include <utility>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace vtsim::sim {

namespace sg4 = simgrid::s4u;

HorovodCoordinator::HorovodCoordinator(Settings settings, std::vector<double> tensor_bytes, int ranks,
                                       std::function<void(const FusionBuffer&)> dispatch)
    : settings_(settings),
      tensor_bytes_(std::move(tensor_bytes)),
      ranks_(ranks),
      dispatch_(std::move(dispatch)),
      ready_ranks_(tensor_bytes_.size(), 0) {
  assert(ranks >= 1);
}

void HorovodCoordinator::gradient_ready(const ReadyGradient& gradient) {
  int& ready = ready_ranks_[static_cast<std::size_t>(gradient.tensor)];
  ready += gradient.ranks;
  if (ready < ranks_) return;
  ready = 0;
  ready_everywhere_.push_back(gradient.tensor);
  ready_events_.add(1);
}

void HorovodCoordinator::run() {
  long seen = 0;
  while (true) {
    ready_events_.wait_for(seen + 1);
    if (settings_.cycle_time_s > 0) {  // wait for the next tick of the cycle
      const double now = sg4::Engine::get_clock();
      const double tick = std::ceil(now / settings_.cycle_time_s) * settings_.cycle_time_s;
      if (tick > now) sg4::this_actor::sleep_for(tick - now);
    }
    seen = ready_events_.value();
    // The ranks agree on which gradients are ready everywhere before any is reduced.
    const std::size_t agreed = ready_everywhere_.size();
    if (settings_.negotiation_s > 0) sg4::this_actor::sleep_for(settings_.negotiation_s);
    dispatch_ready(agreed);
  }
}

void HorovodCoordinator::dispatch_ready(std::size_t count) {
  const long tensors = static_cast<long>(tensor_bytes_.size());
  FusionBuffer buffer{static_cast<int>(tensors_dispatched_ / tensors), 0, 0.0};
  const auto flush = [&] {
    if (buffer.tensor_count == 0) return;
    dispatch_(buffer);
    buffer.tensor_count = 0;
    buffer.bytes = 0;
  };
  for (std::size_t k = 0; k < count; ++k) {
    const double bytes = tensor_bytes_[static_cast<std::size_t>(ready_everywhere_[k])];
    if (buffer.tensor_count > 0 && buffer.bytes + bytes > settings_.fusion_threshold_bytes) flush();
    buffer.bytes += bytes;
    ++buffer.tensor_count;
    ++tensors_dispatched_;
  }
  flush();
  ready_everywhere_.erase(ready_everywhere_.begin(), ready_everywhere_.begin() + static_cast<std::ptrdiff_t>(count));
}

}  // namespace vtsim::sim
