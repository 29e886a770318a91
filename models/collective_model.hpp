#pragma once
// Closed forms (alpha-beta) of the collectives the training loop runs: the `analytic` fidelity level, and the
// reference the `step` and `flow` levels are tested against (docs/design.md, "The model", items 5 and 6).
//
// S is the buffer every rank contributes (bytes), N the ranks, B the bandwidth of the ring's slowest link (bytes/s)
// and alpha its per-step latency (seconds). A ring moves S/N per step:
//   ring allreduce       = reduce-scatter + allgather  = 2 (N-1)/N x S/B + 2 (N-1) alpha
//   ring reduce-scatter  = ring allgather              =   (N-1)/N x S/B +   (N-1) alpha
// (Patarasuk & Yuan 2009, "Bandwidth optimal all-reduce algorithms"; NCCL's ring). One rank: 0 s, nothing moves.
// Bandwidth conventions are nccl-tests' doc/PERFORMANCE.md: algbw = S / time, busbw = algbw x the collective's factor.

namespace vtsim {

/// Seconds of a ring allreduce of `bytes` over `ranks` ranks. REQUIRES: ranks >= 1, bytes >= 0, bandwidth_Bps > 0.
double ring_allreduce_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s);

/// Seconds of a ring reduce-scatter of a `bytes` buffer (each rank ends with bytes / ranks of the reduced result).
double ring_reduce_scatter_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s);

/// Seconds of a ring allgather into a `bytes` buffer (each rank contributes bytes / ranks).
double ring_allgather_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s);

/// Seconds of a hierarchical allreduce (Horovod HOROVOD_HIERARCHICAL_ALLREDUCE): reduce-scatter of S over the
/// gpus_per_host ranks of each host, ring allreduce of the S / gpus_per_host shard over the hosts (one ring per
/// local rank, all in parallel), allgather of S within each host. With one GPU per host it is the flat ring.
/// REQUIRES: hosts >= 1, gpus_per_host >= 1.
double hierarchical_allreduce_time_s(int hosts, int gpus_per_host, double bytes, double intra_bandwidth_Bps,
                                     double intra_latency_s, double inter_bandwidth_Bps, double inter_latency_s);

/// Seconds of a pipelined chain (NCCL's ring broadcast and reduce) of `bytes` over `ranks` ranks: every rank but the
/// last passes on all of the data, chunk by chunk, so the data crosses one link's bandwidth once and the first chunk
/// pays ranks - 1 hops: S/B + (N-1) alpha (small chunks; NCCL's chunks are at most 512 KiB per channel for Simple).
/// REQUIRES: ranks >= 1, bandwidth_Bps > 0.
double chain_time_s(int ranks, double bytes, double bandwidth_Bps, double latency_s);

/// A collective, for its nccl-tests bus-bandwidth factor.
enum class Collective { allreduce, reduce_scatter, allgather, alltoall, sendrecv, broadcast, reduce };

/// nccl-tests algorithm bandwidth: bytes / time_s (bytes as nccl-tests counts them: the full buffer S).
double algbw_Bps(double bytes, double time_s);

/// The fraction of the buffer each of `ranks` ranks sends (and receives) in `collective` run as a ring: 2(N-1)/N for
/// an allreduce, (N-1)/N for a reduce-scatter, an allgather or an alltoall, 1 for a sendrecv, a broadcast or a reduce
/// (a chain passes all of it on). The one place this factor is written: the engine's per-edge traffic and bytes sent,
/// the parallel strategy's byte estimates and the importer's test of a log all call it. REQUIRES: ranks >= 1.
double ring_sent_fraction(Collective collective, int ranks);

/// The steps of `collective` run as a ring over `ranks` ranks, each moving 1/N of the buffer over every edge and
/// paying the latency once: 2(N-1) for an allreduce, N-1 for a reduce-scatter or an allgather. The one place this
/// count is written: the closed forms above and the calibration's per-step latency (an nccl-tests alpha over its
/// steps) call it; NCCL's tuning model keeps its transcription of NCCL's own nsteps (models/nccl_tuning.cpp), which
/// counts a chain as N. REQUIRES: one of those three collectives; ranks >= 1.
int ring_steps(Collective collective, int ranks);

/// nccl-tests bus-bandwidth factor: ring_sent_fraction, from which nccl-tests defines it (doc/PERFORMANCE.md).
double busbw_factor(Collective collective, int ranks);

/// nccl-tests bus bandwidth: algbw x busbw_factor; on a homogeneous ring with no latency it equals the link bandwidth.
double busbw_Bps(Collective collective, int ranks, double algorithm_bandwidth_Bps);

}  // namespace vtsim
