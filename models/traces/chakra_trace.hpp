#pragma once
// Reads an MLCommons Chakra execution trace (ET) of one rank into a ProfiledRun (models/traces/profiled_run.hpp), so
// that models/traces/traced_iteration.hpp cuts and replays it as it does a PyTorch profiler trace.
//
// The format (github.com/mlcommons/chakra, schema/protobuf/et_def.proto; vtsim's copy of the fields it reads is
// models/traces/chakra/et_def.proto): a sequence of protobuf records, each preceded by its length as a varint32, the
// first a GlobalMetadata, every other a Node with an id, a name, a type (COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE,
// ...), control and data dependencies (ids of earlier nodes), duration_micros and attributes; the file may be gzip
// compressed. Attributes read: "is_cpu_op" (bool: a CPU operator rather than a GPU kernel; absent, a GPU kernel),
// "stream" (int64: the GPU stream; absent, 0 for kernels and one stream for collectives), "comm_type" (int64, a
// CollectiveCommType) and "comm_size" (int64, bytes) of collectives, "pg_name". The PyTorch converter writes all of
// them (src/converter/pytorch_converter.py).
//
// A Chakra trace holds one iteration and no timestamps to rely on, only durations and dependencies, so the reader
// schedules it: a node starts once every node it depends on has ended, CPU operators one at a time on the CPU, GPU
// kernels and collectives one at a time on their stream, each in the order they became ready (ties by id, which is
// the order the trace recorded them). A GPU node's launch is when its CPU dependencies ended. The result is one step:
// "ProfilerStep#N" names it when a node of that name is in the trace, else step 0. AccumulateGrad CPU operators
// ("torch::autograd::AccumulateGrad") give the gradients: their inputs' shapes ("[[1024, 1024]]") and types
// ("['Tensor(float)']").
//
// Bad input throws one InputError naming the file and the record or node: not gzip-compressed text that inflates
// ("FILE: not a Chakra trace: the gzip stream is damaged"), a record whose length runs past the end ("FILE: record
// 12: truncated: ..."), a record that is not a Node, no nodes, two nodes with one id, a dependency on a node the trace
// does not have ("FILE: node 57 ('aten::mm'): data_deps names node 99, which the trace does not have"), a cycle, and a
// collective without its type or size.

#include <string>
#include <string_view>

#include "models/traces/profiled_run.hpp"

namespace vtsim {

/// Reads `bytes`, the Chakra trace file `file` (gzip-compressed or not). Throws InputError as the header says.
ProfiledRun read_chakra_trace(std::string_view bytes, const std::string& file);

/// `bytes` inflated when they are gzip-compressed (they start with its magic number), else as they are. Throws
/// InputError "FILE: ..." for a damaged gzip stream.
std::string gunzip_if_compressed(std::string_view bytes, const std::string& file);

/// Reads a profiled run from `bytes` of `file`, whichever format it has: a PyTorch profiler trace (JSON) or a Chakra
/// execution trace (protobuf records), either of them gzip-compressed or not.
ProfiledRun read_profiled_run(std::string_view bytes, const std::string& file);

}  // namespace vtsim
