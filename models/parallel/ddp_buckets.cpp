#include "models/parallel/ddp_buckets.hpp"

#include <algorithm>
#include <cstddef>

namespace vtsim {

std::vector<std::vector<int>> ddp_buckets(const std::vector<double>& tensor_bytes, double first_bucket_bytes,
                                          double bucket_cap_bytes) {
  std::vector<std::vector<int>> buckets;
  std::vector<int> current;
  double size = 0;
  double cap = first_bucket_bytes;
  for (std::size_t i = 0; i < tensor_bytes.size(); ++i) {
    current.push_back(static_cast<int>(i));
    size += tensor_bytes[i];
    if (size >= cap) {  // compute_bucket_assignment_by_size: close once the size reaches the limit
      buckets.push_back(std::move(current));
      current.clear();
      size = 0;
      cap = bucket_cap_bytes;  // the first limit applies once, then bucket_cap_mb
    }
  }
  if (!current.empty()) buckets.push_back(std::move(current));
  std::reverse(buckets.begin(), buckets.end());
  return buckets;
}

std::vector<std::vector<int>> ddp_buckets_in_backward_order(const std::vector<double>& backward_bytes,
                                                            double first_bucket_bytes, double bucket_cap_bytes) {
  const std::vector<double> registered(backward_bytes.rbegin(), backward_bytes.rend());
  const int count = static_cast<int>(backward_bytes.size());
  std::vector<std::vector<int>> buckets = ddp_buckets(registered, first_bucket_bytes, bucket_cap_bytes);
  for (std::vector<int>& bucket : buckets) {
    for (int& index : bucket) index = count - 1 - index;
  }
  return buckets;
}

}  // namespace vtsim
