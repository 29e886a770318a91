#include "models/traces/chakra_trace.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>

#include "et_def.pb.h"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/core/units.hpp"
#include "models/traces/kineto_trace.hpp"

namespace vtsim {
namespace {

/// The stream collectives run on when a node does not say (the PyTorch converter always does).
constexpr int kDefaultCollectiveStream = -1;

/// A node's attributes by name, read with their types.
class Attributes {
 public:
  explicit Attributes(const ChakraProtoMsg::Node& node) {
    for (const ChakraProtoMsg::AttributeProto& attribute : node.attr()) by_name_.emplace(attribute.name(), &attribute);
  }

  /// An integer attribute of any protobuf integer type.
  std::optional<std::int64_t> integer(const std::string& name) const {
    const auto found = by_name_.find(name);
    if (found == by_name_.end()) return std::nullopt;
    const ChakraProtoMsg::AttributeProto& a = *found->second;
    using Value = ChakraProtoMsg::AttributeProto;
    switch (a.value_case()) {
      case Value::kInt32Val: return a.int32_val();
      case Value::kInt64Val: return a.int64_val();
      case Value::kUint32Val: return a.uint32_val();
      case Value::kUint64Val:
        return a.uint64_val() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                   ? std::nullopt
                   : std::optional<std::int64_t>(static_cast<std::int64_t>(a.uint64_val()));
      case Value::kSint32Val: return a.sint32_val();
      case Value::kSint64Val: return a.sint64_val();
      default: return std::nullopt;
    }
  }

  std::optional<bool> boolean(const std::string& name) const {
    const auto found = by_name_.find(name);
    if (found == by_name_.end() || !found->second->has_bool_val()) return std::nullopt;
    return found->second->bool_val();
  }

  std::string text(const std::string& name) const {
    const auto found = by_name_.find(name);
    return found == by_name_.end() ? "" : found->second->string_val();
  }

 private:
  std::map<std::string, const ChakraProtoMsg::AttributeProto*> by_name_;
};

/// What a node does in the schedule.
enum class NodeRole { cpu, gpu, marker };

/// "node ID ('name')" for messages.
std::string origin_of(const ChakraProtoMsg::Node& node) {
  std::string name = node.name();
  if (name.size() > 60) name = name.substr(0, 57) + "...";
  std::replace_if(name.begin(), name.end(), [](unsigned char c) { return std::iscntrl(c) != 0; }, '?');
  return "node " + std::to_string(node.id()) + " ('" + name + "')";
}

std::optional<TracedCollectiveKind> collective_kind(std::int64_t comm_type) {
  switch (comm_type) {
    case ChakraProtoMsg::ALL_REDUCE: return TracedCollectiveKind::allreduce;
    case ChakraProtoMsg::REDUCE: return TracedCollectiveKind::reduce;
    case ChakraProtoMsg::ALL_GATHER: return TracedCollectiveKind::allgather;
    case ChakraProtoMsg::GATHER: return TracedCollectiveKind::gather;
    case ChakraProtoMsg::SCATTER: return TracedCollectiveKind::scatter;
    case ChakraProtoMsg::BROADCAST: return TracedCollectiveKind::broadcast;
    case ChakraProtoMsg::ALL_TO_ALL: return TracedCollectiveKind::all_to_all;
    case ChakraProtoMsg::REDUCE_SCATTER:
    case ChakraProtoMsg::REDUCE_SCATTER_BLOCK: return TracedCollectiveKind::reduce_scatter;
    case ChakraProtoMsg::BARRIER: return TracedCollectiveKind::barrier;
    default: return std::nullopt;
  }
}

/// Bytes of the first input of an AccumulateGrad node: its shape "[[d0, d1, ...], ...]" x the size of its type
/// "['Tensor(float)', ...]"; nullopt when the node has no shapes.
std::optional<double> gradient_bytes(const ChakraProtoMsg::Node& node, const std::string& file) {
  const std::string& shapes = node.inputs().shapes();
  const std::size_t open = shapes.find('[', shapes.find('[') + 1);
  const std::size_t close = shapes.find(']', open);
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  double elements = 1;
  std::size_t at = open + 1;
  while (at < close) {
    while (at < close && (shapes[at] == ' ' || shapes[at] == ',')) ++at;
    if (at == close) break;
    std::size_t digits = at;
    while (digits < close && std::isdigit(static_cast<unsigned char>(shapes[digits]))) ++digits;
    if (digits == at) {
      throw InputError(file + ": " + origin_of(node) + ": inputs.shapes: expected a list of sizes, got '" +
                       shapes.substr(0, 60) + "'");
    }
    elements *= std::stod(shapes.substr(at, digits - at));
    at = digits;
  }
  const std::string& types = node.inputs().types();
  const std::size_t tensor = types.find("Tensor(");
  const std::size_t end = types.find(')', tensor);
  if (tensor == std::string::npos || end == std::string::npos) return std::nullopt;
  const std::string type = types.substr(tensor + 7, end - tensor - 7);
  static const std::map<std::string, int> kBytes = {{"float", 4},         {"double", 8},   {"c10::Half", 2},
                                                    {"c10::BFloat16", 2}, {"half", 2},     {"bfloat16", 2},
                                                    {"float32", 4},       {"float16", 2}};
  const auto size = kBytes.find(type);
  if (size == kBytes.end()) {
    throw InputError(file + ": " + origin_of(node) + ": inputs.types: a gradient of type '" + type.substr(0, 40) +
                     "', whose size this reader does not know");
  }
  return elements * size->second;
}

/// The records of the trace: its metadata, then its nodes.
std::vector<ChakraProtoMsg::Node> read_nodes(std::string_view bytes, const std::string& file) {
  // protobuf logs what it refuses ("[libprotobuf ERROR ...] String field ... contains invalid UTF-8 data") on the
  // standard error before it returns false: silenced while reading, so that the record's error below is the one line.
  const google::protobuf::LogSilencer quiet;
  // kMaxTraceBytes keeps every position within protobuf's int.
  google::protobuf::io::ArrayInputStream raw(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream in(&raw);
  std::vector<ChakraProtoMsg::Node> nodes;
  for (std::size_t record = 0; in.CurrentPosition() < static_cast<int>(bytes.size()); ++record) {
    std::uint32_t size = 0;
    const bool read = in.ReadVarint32(&size);
    // What is left of the file after the length.
    const auto left = static_cast<std::size_t>(static_cast<int>(bytes.size()) - in.CurrentPosition());
    if (!read || size > left) {
      throw InputError(file + ": record " + std::to_string(record) + ": truncated: its length runs past the end of "
                       "the file (" + std::to_string(left) + " bytes left): not a Chakra trace, or cut short");
    }
    const auto limit = in.PushLimit(static_cast<int>(size));
    bool parsed = false;
    if (record == 0) {
      ChakraProtoMsg::GlobalMetadata metadata;
      parsed = metadata.ParseFromCodedStream(&in);
    } else {
      parsed = nodes.emplace_back().ParseFromCodedStream(&in);
    }
    if (!parsed || !in.ConsumedEntireMessage()) {
      throw InputError(file + ": record " + std::to_string(record) + ": not a Chakra " +
                       (record == 0 ? "GlobalMetadata" : "Node") + " (protobuf parse failed)");
    }
    in.PopLimit(limit);
  }
  if (nodes.empty()) throw InputError(file + ": no nodes: not a Chakra execution trace, or an empty one");
  return nodes;
}

}  // namespace

std::string gunzip_if_compressed(std::string_view bytes, const std::string& file) {
  constexpr unsigned char kGzipMagic[] = {0x1f, 0x8b};
  if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != kGzipMagic[0] ||
      static_cast<unsigned char>(bytes[1]) != kGzipMagic[1]) {
    return std::string(bytes);
  }
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) throw InputError(file + ": cannot start inflating it (zlib)");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(std::min<std::size_t>(bytes.size(), std::numeric_limits<uInt>::max()));
  std::string out;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status == Z_OK) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof buffer;
    status = inflate(&stream, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - stream.avail_out);
    if (out.size() > kMaxTraceBytes) {
      inflateEnd(&stream);
      throw InputError(file + ": inflates to more than 2 GiB: not a trace vtsim reads");
    }
    if (status == Z_BUF_ERROR && stream.avail_in == 0) break;  // the input ends before the stream does
  }
  inflateEnd(&stream);
  if (status != Z_STREAM_END) {
    throw InputError(file + ": the gzip stream is damaged or cut short (zlib: " +
                     std::string(stream.msg != nullptr ? stream.msg : "input ends early") + ")");
  }
  return out;
}

ProfiledRun read_chakra_trace(std::string_view compressed, const std::string& file) {
  const std::string bytes = gunzip_if_compressed(compressed, file);
  const std::vector<ChakraProtoMsg::Node> nodes = read_nodes(bytes, file);
  std::map<std::uint64_t, std::size_t> index_of;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    if (const auto [at, added] = index_of.emplace(nodes[n].id(), n); !added) {
      throw InputError(file + ": " + origin_of(nodes[n]) + ": a second node with id " + std::to_string(nodes[n].id()) +
                       " (the first is " + origin_of(nodes[at->second]) + ")");
    }
  }
  std::vector<NodeRole> role(nodes.size(), NodeRole::marker);
  std::vector<int> stream(nodes.size(), 0);
  std::vector<std::vector<std::size_t>> successors(nodes.size());
  std::vector<std::vector<std::size_t>> dependencies(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const ChakraProtoMsg::Node& node = nodes[n];
    const Attributes attributes(node);
    if (node.type() == ChakraProtoMsg::COMP_NODE) {
      role[n] = attributes.boolean("is_cpu_op").value_or(false) ? NodeRole::cpu : NodeRole::gpu;
    } else if (node.type() == ChakraProtoMsg::COMM_COLL_NODE || node.type() == ChakraProtoMsg::COMM_SEND_NODE ||
               node.type() == ChakraProtoMsg::COMM_RECV_NODE) {
      role[n] = NodeRole::gpu;
    }
    const bool collective = role[n] == NodeRole::gpu && node.type() != ChakraProtoMsg::COMP_NODE;
    const std::int64_t on = attributes.integer("stream").value_or(collective ? kDefaultCollectiveStream : 0);
    stream[n] = static_cast<int>(std::clamp<std::int64_t>(on, -1, std::numeric_limits<int>::max()));
    for (const auto* deps : {&node.ctrl_deps(), &node.data_deps()}) {
      for (const std::uint64_t id : *deps) {
        const auto found = index_of.find(id);
        if (found == index_of.end()) {
          throw InputError(file + ": " + origin_of(node) + ": " +
                           (deps == &node.ctrl_deps() ? "ctrl_deps" : "data_deps") + " names node " +
                           std::to_string(id) + ", which the trace does not have: a missing dependency");
        }
        if (found->second == n) throw InputError(file + ": " + origin_of(node) + ": depends on itself");
        successors[found->second].push_back(n);
        dependencies[n].push_back(found->second);
      }
    }
  }

  // The schedule: nodes in the order they become ready (ties by id), each on its resource.
  std::vector<std::size_t> waiting(nodes.size());
  std::vector<double> ready(nodes.size(), 0.0);
  std::vector<double> start(nodes.size(), 0.0);
  std::vector<double> end(nodes.size(), 0.0);
  using Entry = std::tuple<double, std::uint64_t, std::size_t>;  // ready time, id, node
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    waiting[n] = dependencies[n].size();
    if (waiting[n] == 0) queue.emplace(0.0, nodes[n].id(), n);
  }
  double cpu_free = 0;
  std::map<int, double> stream_free;
  std::size_t scheduled = 0;
  std::vector<std::size_t> order;
  while (!queue.empty()) {
    const auto [at, id, n] = queue.top();
    queue.pop();
    const double duration = static_cast<double>(nodes[n].duration_micros()) * units::kSecondsPerUs;
    start[n] = at;
    if (role[n] == NodeRole::cpu) start[n] = std::max(at, cpu_free);
    if (role[n] == NodeRole::gpu) start[n] = std::max(at, stream_free[stream[n]]);
    end[n] = start[n] + duration;
    if (role[n] == NodeRole::cpu) cpu_free = end[n];
    if (role[n] == NodeRole::gpu) stream_free[stream[n]] = end[n];
    order.push_back(n);
    ++scheduled;
    for (const std::size_t next : successors[n]) {
      ready[next] = std::max(ready[next], end[n]);
      if (--waiting[next] == 0) queue.emplace(ready[next], nodes[next].id(), next);
    }
  }
  if (scheduled < nodes.size()) {
    const auto stuck = std::find_if(waiting.begin(), waiting.end(), [](std::size_t left) { return left > 0; });
    throw InputError(file + ": the dependencies form a cycle: " +
                     origin_of(nodes[static_cast<std::size_t>(stuck - waiting.begin())]) + " waits on itself "
                     "through them");
  }

  ProfiledRun run;
  run.file = file;
  TracedStep step{.number = 0, .cpu_start_s = 0, .cpu_end_s = 0};
  for (const std::size_t n : order) {
    const ChakraProtoMsg::Node& node = nodes[n];
    step.cpu_end_s = std::max(step.cpu_end_s, end[n]);
    if (role[n] == NodeRole::cpu) {
      constexpr std::string_view kStep = "ProfilerStep#";
      if (node.name().starts_with(kStep)) {
        const std::string digits = node.name().substr(kStep.size());
        if (!digits.empty() && digits.size() < 9 && std::all_of(digits.begin(), digits.end(), [](unsigned char c) {
              return std::isdigit(c) != 0;
            })) {
          step.number = std::stoi(digits);
        }
      }
      if (node.name() == "torch::autograd::AccumulateGrad") {
        run.gradients.push_back({.cpu_s = start[n], .bytes = gradient_bytes(node, file), .step = 0,
                                 .origin = origin_of(node)});
      }
      continue;
    }
    if (role[n] != NodeRole::gpu) continue;
    // Launched when the CPU work it depends on had ended.
    double launch = 0;
    bool from_cpu = false;
    for (const std::size_t d : dependencies[n]) {
      if (role[d] != NodeRole::cpu) continue;
      launch = std::max(launch, end[d]);
      from_cpu = true;
    }
    if (!from_cpu) launch = ready[n];
    TracedWork work{.name = node.name(),
                    .kind = TracedWorkKind::kernel,
                    .stream = stream[n],
                    .start_s = start[n],
                    .duration_s = end[n] - start[n],
                    .launch_s = launch,
                    .launch_end_s = launch,
                    .step = 0,
                    .collective = std::nullopt,
                    .origin = origin_of(node)};
    if (node.type() != ChakraProtoMsg::COMP_NODE) {
      const Attributes attributes(node);
      TracedCollective collective;
      if (node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
        const std::optional<std::int64_t> type = attributes.integer("comm_type");
        const std::optional<TracedCollectiveKind> kind = type ? collective_kind(*type) : std::nullopt;
        if (!kind) {
          throw InputError(file + ": " + origin_of(node) + ": a collective without a known 'comm_type' attribute");
        }
        collective.kind = *kind;
      } else {
        collective.kind = node.type() == ChakraProtoMsg::COMM_SEND_NODE ? TracedCollectiveKind::send
                                                                        : TracedCollectiveKind::recv;
      }
      const std::optional<std::int64_t> size = attributes.integer("comm_size");
      if (!size || *size < 0) {
        throw InputError(file + ": " + origin_of(node) + ": a communication without its 'comm_size' (bytes >= 0)");
      }
      collective.bytes = static_cast<double>(*size);
      collective.process_group = attributes.text("pg_name");
      work.collective = collective;
    }
    run.work.push_back(std::move(work));
  }
  run.steps.push_back(step);
  std::stable_sort(run.work.begin(), run.work.end(),
                   [](const TracedWork& a, const TracedWork& b) { return a.start_s < b.start_s; });
  std::stable_sort(run.gradients.begin(), run.gradients.end(),
                   [](const TracedGradient& a, const TracedGradient& b) { return a.cpu_s < b.cpu_s; });
  return run;
}

ProfiledRun read_profiled_run(std::string_view bytes, const std::string& file) {
  const std::string text = gunzip_if_compressed(bytes, file);
  const auto first = std::find_if(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c) == 0; });
  if (first != text.end() && *first == '{') return read_kineto_trace(text, file);
  return read_chakra_trace(text, file);
}

}  // namespace vtsim
