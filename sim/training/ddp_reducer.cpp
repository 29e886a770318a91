#include "sim/training/ddp_reducer.hpp"

#include <cassert>

namespace vtsim::sim {

DdpReducer::Layout::Layout(const std::vector<std::vector<int>>& buckets, const std::vector<double>& tensor_bytes)
    : bucket_of_tensor_(tensor_bytes.size(), 0) {
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    double bytes = 0;
    for (int t : buckets[b]) {
      assert(t >= 0 && static_cast<std::size_t>(t) < tensor_bytes.size());
      bucket_of_tensor_[static_cast<std::size_t>(t)] = static_cast<int>(b);
      bytes += tensor_bytes[static_cast<std::size_t>(t)];
    }
    bucket_sizes_.push_back(static_cast<int>(buckets[b].size()));
    bucket_bytes_.push_back(bytes);
  }
}

DdpReducer::DdpReducer(std::vector<Layout> layouts, std::vector<int> layout_of, Dispatch dispatch)
    : layouts_(std::move(layouts)),
      layout_of_(std::move(layout_of)),
      dispatch_(std::move(dispatch)),
      rounds_(layout_of_.size()) {}

void DdpReducer::gradient_ready(const ReadyGradient& gradient) {
  const auto position = static_cast<std::size_t>(gradient.position);
  assert(layout_of_[position] >= 0);
  const Layout& layout = layouts_[static_cast<std::size_t>(layout_of_[position])];
  auto& rounds = rounds_[position];
  const auto key = std::make_pair(gradient.iteration, gradient.micro_batch);
  auto round = rounds.find(key);
  if (round == rounds.end()) {
    round = rounds.emplace(key, Round{std::vector<int>(layout.bucket_sizes_.size(), 0), 0}).first;
  }
  Round& r = round->second;
  assert(static_cast<std::size_t>(gradient.tensor) < layout.bucket_of_tensor_.size() && !r.ready.empty());
  ++r.ready[static_cast<std::size_t>(layout.bucket_of_tensor_[static_cast<std::size_t>(gradient.tensor)])];
  while (r.next < layout.bucket_sizes_.size() && r.ready[r.next] >= layout.bucket_sizes_[r.next]) {
    dispatch_(gradient.position, {gradient.iteration, layout.bucket_sizes_[r.next], layout.bucket_bytes_[r.next]});
    ++r.next;
  }
  if (r.next == layout.bucket_sizes_.size()) rounds.erase(round);
}

}  // namespace vtsim::sim
