#pragma once
// The collective algorithms vtsim runs, one type each: its closed form (alpha-beta), the bytes each rank sends, and
// the steps the engine simulates (sim/collectives/collective.cpp). The closed forms are the `analytic` fidelity
// (models/network/analytic_collectives.hpp) and the reference the `step` and `flow` levels are tested against
// (docs/design.md, "The model", items 5 and 6); the engine's schedule and the traffic report call the same type.
//
// S is the buffer every rank contributes (bytes), N the ranks, B the bandwidth of the slowest link (bytes/s) and
// alpha its per-step latency (seconds). A ring moves S/N per step:
//   ring allreduce       = reduce-scatter + allgather  = 2 (N-1)/N x S/B + 2 (N-1) alpha
//   ring reduce-scatter  = ring allgather              =   (N-1)/N x S/B +   (N-1) alpha
// (Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms"; NCCL's ring). One rank: 0 s, nothing moves.
// NCCL's tree, NVLS and CollNet algorithms are its own tuning model's (models/collectives/nccl_tuning.hpp
// nccl_running_time_s): vtsim does not simulate them as flows. Bandwidth conventions are nccl-tests'
// doc/PERFORMANCE.md: algbw = S / time, busbw = algbw x the collective's factor.

namespace vtsim {

/// A collective, for the algorithm that runs it and its nccl-tests bus-bandwidth factor.
enum class Collective { allreduce, reduce_scatter, allgather, alltoall, sendrecv, broadcast, reduce };

/// A ring over N ranks: `passes` passes (2 for an allreduce: a reduce-scatter, then an allgather; 1 for a
/// reduce-scatter or an allgather), each of N-1 steps that move S/N over every edge and pay alpha once.
class RingAlgorithm {
 public:
  /// REQUIRES: `collective` is allreduce, reduce_scatter or allgather; ranks >= 1.
  RingAlgorithm(Collective collective, int ranks);
  int ranks() const { return ranks_; }
  int passes() const { return passes_; }
  /// N-1: the steps of one pass.
  int steps_per_pass() const { return ranks_ - 1; }
  /// 2(N-1) for an allreduce, N-1 for a reduce-scatter or an allgather. The one place this count is written: the
  /// closed form and the calibration's per-step latency (an nccl-tests alpha over its steps) call it; NCCL's tuning
  /// model keeps its transcription of NCCL's own nsteps (models/collectives/nccl_tuning.cpp), which counts a chain as
  /// N.
  int steps() const { return passes_ * steps_per_pass(); }
  /// What one step moves over each edge for a buffer of `bytes`: S/N.
  double step_bytes(double bytes) const { return bytes / ranks_; }
  /// The fraction of the buffer each rank sends (and receives): passes x (N-1)/N.
  double sent_fraction() const;
  /// Seconds: steps x (S/N / B + alpha). REQUIRES: bytes >= 0, latency_s >= 0, bandwidth_Bps > 0 when ranks > 1.
  double time_s(double bytes, double bandwidth_Bps, double latency_s) const;
  /// The `flow` fidelity runs a pass as one transfer per edge of the pass's N-1 steps of `step_bytes` each.
  double flow_pass_bytes(double one_step_bytes) const { return (ranks_ - 1) * one_step_bytes; }
  /// What follows that transfer, which paid its route's latency once: the other N-2 steps' `link_latency_s` and all
  /// N-1 steps' protocol latency `step_extra_s`, as the step-by-step ring pays them. REQUIRES: ranks >= 2.
  double flow_pass_tail_s(double link_latency_s, double step_extra_s) const;

 private:
  int ranks_;
  int passes_;
};

/// A pipelined chain (NCCL's ring broadcast and reduce) over N ranks: every rank but the last passes on all of the
/// data, chunk by chunk, so the data crosses one link's bandwidth once and the first chunk pays N-1 hops: S/B + (N-1)
/// alpha (small chunks; NCCL's chunks are at most 512 KiB per channel for Simple). Every fidelity runs it as one
/// transfer per edge, all at once.
class ChainAlgorithm {
 public:
  /// REQUIRES: ranks >= 1.
  explicit ChainAlgorithm(int ranks);
  int ranks() const { return ranks_; }
  /// 1: every rank but the last sends all of the buffer.
  double sent_fraction() const { return 1.0; }
  /// Seconds: S/B + (N-1) alpha; 0 with one rank. REQUIRES: bandwidth_Bps > 0.
  double time_s(double bytes, double bandwidth_Bps, double latency_s) const;
  /// What follows the one transfer per edge, which paid its route's latency once: the other N-2 hops' link latency
  /// and the N-1 hops' protocol latency. REQUIRES: ranks >= 2.
  double tail_s(double link_latency_s, double step_extra_s) const;

 private:
  int ranks_;
};

/// Horovod's hierarchical allreduce (HOROVOD_HIERARCHICAL_ALLREDUCE) over H hosts of G GPUs: a ring reduce-scatter
/// of S over each host's G ranks, a ring allreduce of the S/G shard over the hosts (one ring per local rank, all in
/// parallel), a ring allgather of S within each host. With one GPU per host it is the flat ring.
class HierarchicalAllreduceAlgorithm {
 public:
  /// REQUIRES: hosts >= 1, gpus_per_host >= 1.
  HierarchicalAllreduceAlgorithm(int hosts, int gpus_per_host);
  RingAlgorithm intra_reduce_scatter() const { return {Collective::reduce_scatter, gpus_per_host_}; }
  RingAlgorithm inter_allreduce() const { return {Collective::allreduce, hosts_}; }
  RingAlgorithm intra_allgather() const { return {Collective::allgather, gpus_per_host_}; }
  /// What each GPU owns after the intra-host reduce-scatter, and allreduces across the hosts: S/G.
  double shard_bytes(double bytes) const { return bytes / gpus_per_host_; }
  /// Seconds: the three rings' closed forms, the inter-host one on the shard.
  double time_s(double bytes, double intra_bandwidth_Bps, double intra_latency_s, double inter_bandwidth_Bps,
                double inter_latency_s) const;

 private:
  int hosts_;
  int gpus_per_host_;
};

/// nccl-tests' alltoall as a pairwise exchange over N ranks: N-1 shifts at once, rank p sending 1/N of its buffer to
/// rank p + k in shift k.
class AlltoallAlgorithm {
 public:
  /// REQUIRES: ranks >= 1.
  explicit AlltoallAlgorithm(int ranks);
  int shifts() const { return ranks_ - 1; }
  /// What one shift moves: 1/N of the buffer.
  double shift_fraction() const { return 1.0 / static_cast<double>(ranks_); }
  /// (N-1)/N: the buffer less the share a rank keeps.
  double sent_fraction() const { return static_cast<double>(ranks_ - 1) / ranks_; }

 private:
  int ranks_;
};

/// The fraction of the buffer each of `ranks` ranks sends (and receives) in `collective`, run by the algorithm vtsim
/// runs it with: a ring (2(N-1)/N for an allreduce, (N-1)/N for a reduce-scatter or an allgather), the pairwise
/// exchange ((N-1)/N for an alltoall), a chain (1 for a broadcast or a reduce) or one send (1 for a sendrecv). The
/// engine's per-edge traffic and bytes sent, the parallel strategy's byte estimates and the importer's test of a log
/// all call it. REQUIRES: ranks >= 1.
double collective_sent_fraction(Collective collective, int ranks);

/// nccl-tests algorithm bandwidth: bytes / time_s (bytes as nccl-tests counts them: the full buffer S).
double algbw_Bps(double bytes, double time_s);

/// nccl-tests bus-bandwidth factor: collective_sent_fraction, from which nccl-tests defines it (doc/PERFORMANCE.md).
double busbw_factor(Collective collective, int ranks);

/// nccl-tests bus bandwidth: algbw x busbw_factor; on a homogeneous ring with no latency it equals the link bandwidth.
double busbw_Bps(Collective collective, int ranks, double algorithm_bandwidth_Bps);

}  // namespace vtsim
