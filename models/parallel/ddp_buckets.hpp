#pragma once
// PyTorch DistributedDataParallel's gradient buckets (torch/nn/parallel/distributed.py and c10d's
// compute_bucket_assignment_by_size in reducer.cpp).
//
// DDP walks the parameters in registration order (for a sequential model, forward order) and closes a bucket as soon
// as its size reaches the current cap: the first bucket's cap is _DEFAULT_FIRST_BUCKET_BYTES (1 MiB), every later
// one's bucket_cap_mb (25 MiB). So a bucket may exceed its cap by its last tensor, and the leftovers form a last
// bucket. It then reverses the list, "because we want to approximate the order in which their gradients are
// produced": the small first bucket, holding the first layers' parameters, is reduced last, "such that their
// gradients don't spill into a much larger bucket, adding unnecessary latency after gradient computation finishes".
// Each bucket's allreduce is launched when all its gradients are ready, buckets in order.

#include <vector>

namespace vtsim {

/// The buckets of tensors of `tensor_bytes` (registration order), in the order DDP reduces them; each bucket lists
/// its tensor indices. REQUIRES: caps >= 0 (a cap of 0 puts every tensor in a bucket of its own).
std::vector<std::vector<int>> ddp_buckets(const std::vector<double>& tensor_bytes, double first_bucket_bytes,
                                          double bucket_cap_bytes);

/// ddp_buckets for gradients listed in the order backward makes them (registration order reversed): the buckets'
/// indices refer to `backward_bytes`.
std::vector<std::vector<int>> ddp_buckets_in_backward_order(const std::vector<double>& backward_bytes,
                                                            double first_bucket_bytes, double bucket_cap_bytes);

}  // namespace vtsim
