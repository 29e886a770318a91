// Horovod timelines, in the format horovod/common/timeline.cc writes, against figures read off the fixture by hand.

#include "calibrate/horovod_timeline_importer.hpp"

#include <gtest/gtest.h>

#include "models/calibration/calibrated_parameters.hpp"
#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::error_of;
using testing::read_fixture;

// The fixture: 4 ranks, three tensors. fc2.weight's last rank reports at 160 us and the coordinator decides at 172:
// 12 us; fc2.bias's last report is at 145, decided at 172: 27 us; fc1.weight's at 5,050, decided at 5,070: 20 us.
// fc2's two tensors start their first activity (QUEUE) at 180 and 181 us: one response of 1024 x 1024 fp32 and
// 1024 fp16, 4,194,304 + 2,048 bytes; fc1.weight's (2048 x 1024 fp32, 8,388,608 bytes) starts at 5,080 alone.
// Cycle markers at 0, 5,000 and 10,000 us: two cycles of 5 ms.
TEST(HorovodTimelineImporter, ReadsNegotiationsCyclesAndFusedResponses) {
  const HorovodTimelineSeries series = import_horovod_timeline(read_fixture("horovod_timeline_4ranks.json"), "t.json");
  EXPECT_EQ(series.ranks, 4);
  EXPECT_EQ(series.negotiation_us, (std::vector<double>{12, 27, 20}));
  EXPECT_EQ(series.cycle_ms, (std::vector<double>{5, 5}));
  EXPECT_EQ(series.response_tensors, (std::vector<int>{2, 1}));
  EXPECT_EQ(series.response_bytes, (std::vector<double>{4194304.0 + 2048, 8388608.0}));
}

TEST(HorovodTimelineImporter, CalibratesTheNegotiationPerTreeMessage) {
  // The median negotiation, 20 us, over a tree of 2 ceil(log2 4) = 4 messages: 5 us a message.
  CalibrationProfile profile;
  profile.horovod_timelines.push_back(
      import_horovod_timeline(read_fixture("horovod_timeline_4ranks.json"), "t.json"));
  const CalibratedParameters calibrated = calibrated_parameters(profile);
  ASSERT_TRUE(calibrated.horovod_negotiation_message_s.has_value());
  EXPECT_NEAR(calibrated.horovod_negotiation_message_s->value, 5e-6, 1e-15);
}

TEST(HorovodTimelineImporter, RefusesWhatIsNotATimelineItCanUse) {
  EXPECT_EQ(error_of([] { import_horovod_timeline("{}", "t.json"); }),
            "t.json: expected a JSON array of events: not a Horovod timeline (HOROVOD_TIMELINE)");
  EXPECT_EQ(error_of([] { import_horovod_timeline(R"([{"ph": "E", "ts": 3, "pid": 1}])", "t.json"); }),
            "t.json: [0] (pid 1): an 'E' without its 'B'");
  EXPECT_EQ(error_of([] {
              import_horovod_timeline(R"([{"ph": "B", "name": "ALLREDUCE", "ts": 1, "pid": 1},
                                          {"ph": "X", "name": "0", "ts": 2, "pid": 1}])", "t.json");
            }),
            "t.json: [1] (pid 1): a rank's ready report outside a negotiation");
  EXPECT_EQ(error_of([] {
              import_horovod_timeline(R"([{"ph": "B", "name": "ALLREDUCE", "ts": 1, "pid": 1},
                                          {"ph": "E", "ts": 2, "pid": 1}])", "t.json");
            }),
            "t.json: no negotiation with ranks' ready reports: nothing measures Horovod's negotiation (with the "
            "response cache, tensors negotiated once are not again: keep the first iterations)");
  EXPECT_EQ(error_of([] {
              import_horovod_timeline(R"([{"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "ts": 1, "pid": 1},
                                          {"ph": "X", "name": "0", "ts": 2, "pid": 1},
                                          {"ph": "E", "ts": 4, "pid": 1}])", "t.json");
            }),
            "t.json: only rank 0 reported tensors ready: a one-rank run negotiates with no one");
  EXPECT_EQ(error_of([] {
              import_horovod_timeline(R"([{"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "pid": 1}])", "t.json");
            }),
            "t.json: [0]: missing required key 'ts'");
}

// Issue 31: ready reports all named "100000" gave 100,001 ranks; reports after the decision a 0 us negotiation.
TEST(HorovodTimelineImporter, RefusesRanksThatDoNotCountFromZeroAndReportsAfterTheDecision) {
  EXPECT_EQ(error_of([] {
              import_horovod_timeline(R"([{"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "ts": 1, "pid": 1},
                                          {"ph": "X", "name": "100000", "ts": 2, "pid": 1},
                                          {"ph": "E", "ts": 4, "pid": 1}])", "t.json");
            }),
            "t.json: rank 0 never reported a tensor ready, though rank 100000 did: a timeline's ranks are numbered "
            "from 0 and every one negotiates");
  EXPECT_EQ(error_of([] {
              import_horovod_timeline(R"([{"ph": "B", "name": "NEGOTIATE_ALLREDUCE", "ts": 1, "pid": 1},
                                          {"ph": "X", "name": "0", "ts": 2, "pid": 1},
                                          {"ph": "X", "name": "1", "ts": 9, "pid": 1},
                                          {"ph": "E", "ts": 4, "pid": 1}])", "t.json");
            }),
            "t.json: [3] (pid 1): a rank's ready report at 9 us, after its negotiation ended at 4 us: the "
            "coordinator decides once every rank has reported");
}

}  // namespace
}  // namespace vtsim::calibrate
