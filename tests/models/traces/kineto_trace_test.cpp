#include "models/traces/kineto_trace.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/core/error.hpp"

namespace vtsim {
namespace {

using nlohmann::json;

std::string example_text() {
  const std::filesystem::path path =
      std::filesystem::path(VTSIM_SOURCE_DIR) / "scenarios" / "traces" / "mlp-ddp-kineto.json";
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json step(int number, double ts, double dur) {
  return {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#" + std::to_string(number)},
          {"ts", ts},  {"dur", dur},               {"args", json::object()}};
}

json launch(long correlation, double ts) {
  return {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"ts", ts}, {"dur", 5},
          {"args", {{"correlation", correlation}}}};
}

json kernel(const std::string& name, long correlation, double ts, double dur, int device = 0) {
  return {{"ph", "X"}, {"cat", "kernel"}, {"name", name}, {"ts", ts}, {"dur", dur},
          {"args", {{"correlation", correlation}, {"device", device}, {"stream", 7}}}};
}

json allreduce_kernel(long correlation, double ts, double dur) {
  json event = kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", correlation, ts, dur);
  event["args"]["Collective name"] = "allreduce";
  event["args"]["In msg nelems"] = 1000;
  event["args"]["dtype"] = "BFloat16";
  event["args"]["Group size"] = 4;
  event["args"]["Process Group Name"] = "0";
  return event;
}

ProfiledRun read(const json& events) { return read_kineto_trace(json{{"traceEvents", events}}.dump(), "t.json"); }

/// The InputError message reading `events` gives.
std::string kineto_error_of(const json& events) {
  try {
    read(events);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ProfiledRun, ReadsTheExampleTracesStepsKernelsAndCollectives) {
  const ProfiledRun trace = read_kineto_trace(example_text(), "mlp-ddp-kineto.json");
  EXPECT_EQ(trace.device_name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(trace.rank, 0);
  EXPECT_EQ(trace.world_size, 2);
  ASSERT_EQ(trace.steps.size(), 3u);
  EXPECT_EQ(trace.steps[0].number, 1);
  EXPECT_EQ(trace.steps[2].number, 3);
  // Per step (make_examples.py): 4 forward GEMMs and 4 ReLUs, 8 backward GEMMs, 2 bucket allreduces, 1 optimizer.
  ASSERT_EQ(trace.work.size(), 3u * 19u);
  std::vector<TracedCollective> collectives;
  for (const TracedWork& work : trace.work) {
    if (work.collective && work.step == 0) collectives.push_back(*work.collective);
  }
  ASSERT_EQ(collectives.size(), 2u);
  // The buckets' fp32 gradients: layers 3 and 2 (1024 x 10 + 10 and 2048 x 1024 + 1024 parameters), then layers 1
  // and 0 (1024 x 2048 + 2048 and 1024 x 1024 + 1024).
  EXPECT_EQ(collectives[0].kind, TracedCollectiveKind::allreduce);
  EXPECT_DOUBLE_EQ(collectives[0].bytes, (10250.0 + 2098176.0) * 4);
  EXPECT_DOUBLE_EQ(collectives[1].bytes, (2099200.0 + 1049600.0) * 4);
  EXPECT_EQ(collectives[0].group_size, 2);
  EXPECT_EQ(collectives[0].process_group, "0");
}

TEST(ProfiledRun, TheExampleStepsGpuSpanIsItsCriticalPathByHand) {
  const ProfiledRun trace = read_kineto_trace(example_text(), "mlp-ddp-kineto.json");
  // Step 1, from make_examples.py's rules: the first kernel starts at 1005 us (launch at 1000 + 5). Forward: 120 +
  // 15 + 240 + 15 + 240 + 15 + 60 + 15 -> 1725. Backward of layers 3 and 2: 55 + 65 + 230 + 250 -> 2325, when the
  // first bucket's allreduce starts: 8,433,704 B x 90 us/MB = 759.033 us -> 3084.033. Layers 1 and 0 end at 2325 +
  // 230 + 250 + 110 + 130 = 3045, but the NCCL stream is busy until 3084.033: the second allreduce, 12,595,200 B ->
  // 1133.568 us, ends at 4217.601. The optimizer (45 us) waits for it: 4262.601. Span: 3257.601 us.
  EXPECT_NEAR(traced_gpu_span_s(trace, 0), 3257.601e-6, 5e-9);
  // Times count from the first step's start on the CPU (1000 us in the file).
  EXPECT_NEAR(trace.work.front().start_s, 5e-6, 1e-12);
  EXPECT_NEAR(trace.work.front().launch_s, 0.0, 1e-12);
}

TEST(ProfiledRun, WorkLaunchedOutsideEveryStepIsDropped) {
  const ProfiledRun trace = read(json::array({launch(1, 0), kernel("before", 1, 6, 10),  // before the step
                                              step(1, 100, 50), launch(2, 110), kernel("inside", 2, 116, 10),
                                              launch(3, 200), kernel("after", 3, 206, 10)}));
  ASSERT_EQ(trace.work.size(), 1u);
  EXPECT_EQ(trace.work[0].name, "inside");
  EXPECT_NEAR(trace.work[0].start_s, 16e-6, 1e-12);
  EXPECT_NEAR(trace.work[0].duration_s, 10e-6, 1e-12);
}

TEST(ProfiledRun, ReadsAnNcclKernelsCollective) {
  const ProfiledRun trace = read(json::array({step(1, 0, 100), launch(1, 10), allreduce_kernel(1, 20, 30)}));
  ASSERT_EQ(trace.work.size(), 1u);
  ASSERT_TRUE(trace.work[0].collective.has_value());
  EXPECT_DOUBLE_EQ(trace.work[0].collective->bytes, 2000.0);  // 1,000 bf16 elements
  EXPECT_EQ(trace.work[0].collective->group_size, 4);
}

TEST(ProfiledRun, ATruncatedTraceNamesTheLineWhereItStops) {
  const std::string text = example_text();
  const std::string cut = text.substr(0, text.size() / 2);
  try {
    read_kineto_trace(cut, "cut.json");
    FAIL() << "no error";
  } catch (const InputError& error) {
    const std::string what = error.what();
    EXPECT_EQ(what.rfind("cut.json: line ", 0), 0u) << what;
    EXPECT_NE(what.find("invalid JSON: syntax error"), std::string::npos) << what;
    EXPECT_NE(what.find("unexpected end of input"), std::string::npos) << what;
  }
}

TEST(ProfiledRun, BadTracesGetOneLineNamingTheFileAndTheEvent) {
  EXPECT_NE(kineto_error_of(json::array()).find("t.json: no ProfilerStep#N annotation"), std::string::npos);
  EXPECT_NE(kineto_error_of(json::array({step(1, 0, 10), step(1, 20, 10)}))
                .find("t.json: traceEvents[1] (user_annotation 'ProfilerStep#1'): a second ProfilerStep#1"),
            std::string::npos);
  // A kernel whose launching call is not in the trace: a missing dependency.
  EXPECT_NE(kineto_error_of(json::array({step(1, 0, 100), kernel("gemm", 9, 20, 5)}))
                .find("traceEvents[1] (kernel 'gemm'): correlation 9 matches no CUDA runtime call"),
            std::string::npos);
  // Two GPUs' work: two ranks mixed in one file.
  EXPECT_NE(kineto_error_of(json::array({step(1, 0, 100), launch(1, 1), kernel("a", 1, 10, 5, 0), launch(2, 2),
                                  kernel("b", 2, 20, 5, 1)}))
                .find("traceEvents[4] (kernel 'b'): GPU work on device 1 after device 0"),
            std::string::npos);
  json no_size = allreduce_kernel(1, 20, 30);
  no_size["args"].erase("In msg nelems");
  EXPECT_EQ(kineto_error_of(json::array({step(1, 0, 100), launch(1, 10), no_size})),
            "t.json: traceEvents[2] (kernel 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL'): an NCCL kernel without 'In "
            "msg nelems' in its args: PyTorch 2.1 and later record the collective on NCCL kernels");
  json odd_dtype = allreduce_kernel(1, 20, 30);
  odd_dtype["args"]["dtype"] = "Quaternion";
  EXPECT_NE(kineto_error_of(json::array({step(1, 0, 100), launch(1, 10), odd_dtype}))
                .find("t.json: traceEvents[2].args.dtype: unknown value 'Quaternion'; expected one of 'Float', "),
            std::string::npos);
  json odd_collective = allreduce_kernel(1, 20, 30);
  odd_collective["args"]["Collective name"] = "allreduse";
  EXPECT_EQ(kineto_error_of(json::array({step(1, 0, 100), launch(1, 10), odd_collective})),
            "t.json: traceEvents[2].args.Collective name: unknown value 'allreduse'; did you mean 'allreduce'?");
  EXPECT_EQ(kineto_error_of(json::array({step(1, 0, 100), launch(1, 10), kernel("gemm", 1, 20, -3)})),
            "t.json: traceEvents[2].dur: expected a number >= 0, got -3.0");
  json no_args = kernel("gemm", 1, 20, 5);
  no_args.erase("args");
  EXPECT_EQ(kineto_error_of(json::array({step(1, 0, 100), no_args})),
            "t.json: traceEvents[1]: missing required key 'args'");
  EXPECT_NE(kineto_error_of(json::array({step(1, 0, 100), "text"})).find("t.json: traceEvents[1]: not a JSON object"),
            std::string::npos);
}

TEST(ProfiledRun, NotATraceAtAll) {
  EXPECT_THROW(read_kineto_trace("[]", "t.json"), InputError);
  EXPECT_THROW(read_kineto_trace("{\"events\": []}", "t.json"), InputError);
  try {
    read_kineto_trace(R"({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0,
                          "dur": 1}], "distributedInfo": {"rank": 2, "world_size": 2}})",
                      "t.json");
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "t.json: distributedInfo: rank 2 is not below world_size 2");
  }
}

}  // namespace
}  // namespace vtsim
