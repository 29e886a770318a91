#pragma once
// PyTorch DDP's reduction policy (c10d's Reducer): each rank launches a bucket's collective as soon as all of the
// bucket's gradients are ready on it, buckets in the order DDP assigned them (models/parallel/ddp_buckets.hpp); a full
// bucket behind one that is not waits for it. There is no coordinator: the ranks meet in the collective itself. Each
// round of gradients (an iteration's, or under ZeRO-2/3 a micro-batch's) fills its own buckets.

#include <cstddef>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "sim/training/gradient_reduction.hpp"

namespace vtsim::sim {

class DdpReducer final : public GradientReduction {
 public:
  /// One rank's buckets: indices into its gradients, in launch order, over gradients of `tensor_bytes`.
  /// REQUIRES: every index in range.
  class Layout {
   public:
    Layout(const std::vector<std::vector<int>>& buckets, const std::vector<double>& tensor_bytes);

   private:
    friend class DdpReducer;
    std::vector<int> bucket_of_tensor_;
    std::vector<int> bucket_sizes_;     ///< gradients per bucket
    std::vector<double> bucket_bytes_;  ///< the bucket's gradients' bytes, summed in its order
  };

  /// Hands a full bucket of rank `position` to the communication actors.
  using Dispatch = std::function<void(int position, const FusionBuffer& bucket)>;

  /// A reducer over `layouts`, rank position k using layouts[layout_of[k]] (under data parallelism every rank shares
  /// one; -1: the rank reports no gradients). REQUIRES: every index of layout_of is -1 or in range.
  DdpReducer(std::vector<Layout> layouts, std::vector<int> layout_of, Dispatch dispatch);

  /// Counts the gradient in its bucket and dispatches, in order, every bucket of its round now full.
  /// REQUIRES: the rank has a layout; the gradient not reported before in its round.
  void gradient_ready(const ReadyGradient& gradient) override;

 private:
  /// The buckets of one round on one rank: gradients ready per bucket, the next bucket to launch.
  struct Round {
    std::vector<int> ready;
    std::size_t next = 0;
  };

  std::vector<Layout> layouts_;
  std::vector<int> layout_of_;
  Dispatch dispatch_;
  /// Per rank position, its rounds under way by (iteration, micro-batch); a round leaves once its buckets are out.
  std::vector<std::map<std::pair<int, int>, Round>> rounds_;
};

}  // namespace vtsim::sim
