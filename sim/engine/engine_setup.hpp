#pragma once
// The SimGrid configuration vtsim runs under, chosen deliberately rather than inherited.

#include <cstddef>

namespace vtsim::sim {

/// Sets SimGrid's models and stack size. Call once, after creating the Engine and before building the platform.
/// A process that started with SIGINT ignored (a backgrounded job) keeps ignoring it: the Engine's handler is undone.
///
/// Network model: CM02 with cross-traffic off and an unbounded TCP window (gamma). That is the pure alpha-beta model:
/// a flow takes sum(latency) + bytes / (its max-min fair share of bandwidth). SimGrid's default LV08 model multiplies
/// latencies by 13.01, bandwidths by 0.97 and adds reverse cross-traffic to imitate wide-area TCP; a probe on this
/// machine kind found it 2.6x off the closed form of a 1,024-GPU ring (docs/simgrid-notes.md). vtsim models each transport's
/// own overheads explicitly instead (per-message latency and bandwidth efficiency in models/catalog/nic_catalog), for
/// RDMA and TCP alike, so every transport runs on the same exact alpha-beta network. tests/sim prove the closed form
/// holds.
void configure_engine();

/// Sets how actors' stacks are allocated for `actor_count` actors in all. Call after configure_engine() and before
/// the first actor is created: with a guard page each stack takes two of the kernel's memory mappings, so above
/// 30,000 actors stacks have none (docs/scale.md, "Memory at 16,384 GPUs").
void configure_stacks(std::size_t actor_count);

}  // namespace vtsim::sim
