#include "models/traces/chakra_trace.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "et_def.pb.h"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/traces/traced_iteration.hpp"
#include "tests/models/models_test_support.hpp"

namespace vtsim {
namespace {

using test_support::kUs;

std::string example_bytes(const std::string& name) {
  return read_input_file((std::filesystem::path(VTSIM_SOURCE_DIR) / "scenarios" / "traces" / name).string());
}

/// A trace of `nodes`: a GlobalMetadata record, then each node, each preceded by its length.
std::string serialized(const std::vector<ChakraProtoMsg::Node>& nodes) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    ChakraProtoMsg::GlobalMetadata metadata;
    metadata.set_version("0.0.4");
    out.WriteVarint32(static_cast<std::uint32_t>(metadata.ByteSizeLong()));
    metadata.SerializeToCodedStream(&out);
    for (const ChakraProtoMsg::Node& node : nodes) {
      out.WriteVarint32(static_cast<std::uint32_t>(node.ByteSizeLong()));
      node.SerializeToCodedStream(&out);
    }
  }
  return bytes;
}

ChakraProtoMsg::Node node(std::uint64_t id, const std::string& name, ChakraProtoMsg::NodeType type,
                          std::uint64_t duration_us, std::initializer_list<std::uint64_t> deps, bool cpu) {
  ChakraProtoMsg::Node node;
  node.set_id(id);
  node.set_name(name);
  node.set_type(type);
  node.set_duration_micros(duration_us);
  for (std::uint64_t dep : deps) node.add_data_deps(dep);
  ChakraProtoMsg::AttributeProto* is_cpu = node.add_attr();
  is_cpu->set_name("is_cpu_op");
  is_cpu->set_bool_val(cpu);
  return node;
}

std::string gzipped(const std::string& bytes) {
  z_stream stream{};
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&stream, static_cast<uLong>(bytes.size())) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  stream.avail_in = static_cast<uInt>(bytes.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

std::string chakra_error_of(const std::string& bytes) {
  try {
    read_chakra_trace(bytes, "t.et");
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

// Issue 31: protobuf's own "[libprotobuf ERROR ...]" line came before vtsim's.
TEST(ChakraTrace, ANodeProtobufRefusesIsOneLineOfVtsimsOwn) {
  ChakraProtoMsg::Node bad = node(1, "relu", ChakraProtoMsg::COMP_NODE, 10, {}, false);
  bad.set_name(std::string("a\xff", 2));  // a string field must be UTF-8
  const std::string bytes = serialized({bad});  // protobuf logs the serialization: not what is tested
  ::testing::internal::CaptureStderr();
  const std::string error = chakra_error_of(bytes);
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(error, "t.et: record 1: not a Chakra Node (protobuf parse failed)");
  EXPECT_EQ(logged, "");
}

// scenarios/traces/mlp-ddp-chakra.et is the Kineto DDP example's program as a Chakra trace: scheduled by its
// dependencies (a 5 us CPU operator per launch, each kernel after its operator and its stream's previous kernel), its
// GPU timeline is the Kineto trace's (tests/models/traces/traced_iteration_test.cpp derives it), with the allreduces' times
// in whole microseconds: 759 and 1,134 us. So its cut is the same: 1,325 us, 720 us, the optimizer's 45 us; the
// iteration ends at 1,325 + 759 + 1,134 + 45 = 3,263 us.
TEST(ChakraTrace, SchedulesTheExampleAsTheKinetoTraceOfTheSameProgram) {
  const ProfiledRun run = read_profiled_run(example_bytes("mlp-ddp-chakra.et"), "mlp-ddp-chakra.et");
  ASSERT_EQ(run.steps.size(), 1u);
  EXPECT_EQ(run.steps[0].number, 1);
  const TracedIteration cut = traced_iteration(run, 0);
  EXPECT_TRUE(cut.traced_buckets);
  ASSERT_EQ(cut.backward.size(), 2u);
  EXPECT_DOUBLE_EQ(cut.backward[0].gradient_bytes, 8433704);
  EXPECT_DOUBLE_EQ(cut.backward[1].gradient_bytes, 12595200);
  EXPECT_NEAR(replay_stretch(cut.backward[0], {}).span_s / kUs, 1325, 1e-9);
  EXPECT_NEAR(replay_stretch(cut.backward[1], {}).span_s / kUs, 720, 1e-9);
  EXPECT_NEAR(replay_stretch(cut.optimizer, {}).span_s / kUs, 45, 1e-9);
  EXPECT_NEAR(cut.iteration_s / kUs, 3263, 1e-9);
}

TEST(ChakraTrace, ReadsAGzippedTraceAsThePlainOne) {
  const std::string plain = example_bytes("mlp-ddp-chakra.et");
  const ProfiledRun run = read_profiled_run(gzipped(plain), "t.et.gz");
  EXPECT_EQ(run.work.size(), read_chakra_trace(plain, "t.et").work.size());
  EXPECT_NEAR(traced_iteration(run, 0).iteration_s / kUs, 3263, 1e-9);
}

TEST(ChakraTrace, TakesGradientsFromAccumulateGradShapes) {
  // One rank: a 10 us GEMM launched by a 5 us operator, then AccumulateGrad of a 1024 x 512 fp32 gradient (2 MiB)
  // and of a 512-element bias, then a 3 us optimizer kernel.
  ChakraProtoMsg::Node weight = node(4, "torch::autograd::AccumulateGrad", ChakraProtoMsg::COMP_NODE, 1, {3}, true);
  weight.mutable_inputs()->set_shapes("[[1024, 512]]");
  weight.mutable_inputs()->set_types("['Tensor(float)']");
  ChakraProtoMsg::Node bias = node(5, "torch::autograd::AccumulateGrad", ChakraProtoMsg::COMP_NODE, 1, {4}, true);
  bias.mutable_inputs()->set_shapes("[[512]]");
  bias.mutable_inputs()->set_types("['Tensor(c10::BFloat16)']");
  const ProfiledRun run = read_chakra_trace(
      serialized({node(1, "aten::mm", ChakraProtoMsg::COMP_NODE, 5, {}, true),
                  node(2, "ampere_sgemm_128x64_tn", ChakraProtoMsg::COMP_NODE, 10, {1}, false),
                  node(3, "aten::add", ChakraProtoMsg::COMP_NODE, 1, {1}, true), weight, bias,
                  node(6, "aten::_foreach_add_", ChakraProtoMsg::COMP_NODE, 5, {5}, true),
                  node(7, "multi_tensor_apply_kernel", ChakraProtoMsg::COMP_NODE, 3, {6}, false)}),
      "t.et");
  ASSERT_EQ(run.gradients.size(), 2u);
  EXPECT_DOUBLE_EQ(*run.gradients[0].bytes, 1024.0 * 512 * 4);
  EXPECT_DOUBLE_EQ(*run.gradients[1].bytes, 512.0 * 2);
  // The GEMM runs 5-15 us; the gradients are stored at 6 and 7 us on the CPU; the optimizer's operator runs 8-13
  // and its kernel 15-18, after the GEMM on their stream.
  const TracedIteration cut = traced_iteration(run, 0);
  EXPECT_NEAR(cut.iteration_s / kUs, 18, 1e-9);
  EXPECT_NEAR(replay_stretch(cut.backward[0], {}).span_s / kUs, 15, 1e-9);
  EXPECT_NEAR(replay_stretch(cut.optimizer, {}).span_s / kUs, 3, 1e-9);
}

TEST(ChakraTrace, RefusesBrokenTraces) {
  const std::string example = example_bytes("mlp-ddp-chakra.et");
  // 40 records (the metadata and 39 nodes) in 2,463 bytes, the last starting at byte 2,374 with a one-byte length:
  // cut by 10 bytes, 78 are left after its length.
  ASSERT_EQ(example.size(), 2463u);
  EXPECT_EQ(chakra_error_of(example.substr(0, example.size() - 10)),
            "t.et: record 39: truncated: its length runs past the end of the file (78 bytes left): not a Chakra "
            "trace, or cut short");
  EXPECT_EQ(chakra_error_of(serialized({node(1, "a", ChakraProtoMsg::COMP_NODE, 1, {7}, true)})),
            "t.et: node 1 ('a'): data_deps names node 7, which the trace does not have: a missing dependency");
  EXPECT_EQ(chakra_error_of(serialized({node(1, "a", ChakraProtoMsg::COMP_NODE, 1, {2}, true),
                                 node(2, "b", ChakraProtoMsg::COMP_NODE, 1, {1}, true)})),
            "t.et: the dependencies form a cycle: node 1 ('a') waits on itself through them");
  EXPECT_EQ(chakra_error_of(serialized({node(1, "a", ChakraProtoMsg::COMP_NODE, 1, {}, true),
                                 node(1, "b", ChakraProtoMsg::COMP_NODE, 1, {}, true)})),
            "t.et: node 1 ('b'): a second node with id 1 (the first is node 1 ('a'))");
  EXPECT_EQ(chakra_error_of(serialized({node(1, "ncclKernel", ChakraProtoMsg::COMM_COLL_NODE, 1, {}, false)})),
            "t.et: node 1 ('ncclKernel'): a collective without a known 'comm_type' attribute");
  EXPECT_EQ(chakra_error_of(serialized({})), "t.et: no nodes: not a Chakra execution trace, or an empty one");
  const std::string compressed = gzipped(example);
  EXPECT_EQ(chakra_error_of(compressed.substr(0, compressed.size() / 2)),
            "t.et: the gzip stream is damaged or cut short (zlib: input ends early)");
  std::string damaged = compressed;
  damaged[3] = '\xff';  // reserved flag bits set
  EXPECT_EQ(chakra_error_of(damaged),
            "t.et: the gzip stream is damaged or cut short (zlib: unknown header flags set)");
}

}  // namespace
}  // namespace vtsim
