#include "framework/test_calculators.h"

#include <pthread.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "framework/calculator_base.h"
#include "framework/tool/config_loader.h"
#include "framework/testdata/test_options.pb.h"

namespace rill {
namespace {

// Every input passes through to the output of the same index.
class TestPassThroughCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (cc->Inputs().NumEntries() != cc->Outputs().NumEntries()) {
      return absl::InvalidArgumentError("needs as many outputs as inputs");
    }
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      cc->Inputs().Get(i).SetAny();
      cc->Outputs().Get(i).SetSameAs(&cc->Inputs().Get(i));
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      if (!cc->Inputs().Get(i).IsEmpty()) {
        cc->Outputs().Get(i).AddPacket(cc->Inputs().Get(i).Value());
      }
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestPassThroughCalculator);

// Emits 0..n-1 at timestamps 0..n-1 (n from side packet COUNT or options
// value, default 10), then stops.
class TestIntSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TestOptions>();
    cc->Outputs().Index(0).Set<int>();
    if (cc->InputSidePackets().HasTag("COUNT")) {
      cc->InputSidePackets().Tag("COUNT").Set<int>();
    }
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    n_ = cc->Options<TestOptions>().has_value()
             ? cc->Options<TestOptions>().value()
             : 10;
    if (cc->InputSidePackets().HasTag("COUNT")) {
      n_ = cc->InputSidePackets().Tag("COUNT").Get<int>();
    }
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (i_ >= n_) return StatusStop();
    cc->Outputs().Index(0).AddPacket(MakePacket<int>(i_).At(Timestamp(i_)));
    ++i_;
    return absl::OkStatus();
  }

 private:
  int n_ = 10;
  int i_ = 0;
};
REGISTER_CALCULATOR(TestIntSourceCalculator);

class TestAddOneCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(
        MakePacket<int>(cc->Inputs().Index(0).Get<int>() + 1)
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestAddOneCalculator);

// Sums the int inputs present at each timestamp.
class TestAdderCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      cc->Inputs().Get(i).Set<int>();
    }
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    int sum = 0;
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      if (!cc->Inputs().Get(i).IsEmpty()) sum += cc->Inputs().Get(i).Get<int>();
    }
    cc->Outputs().Index(0).AddPacket(MakePacket<int>(sum).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestAdderCalculator);

// Fails in Process at timestamp == options value.
class TestFailingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TestOptions>();
    cc->Inputs().Index(0).SetAny();
    if (cc->Outputs().NumEntries() > 0) cc->Outputs().Index(0).SetAny();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (cc->InputTimestamp().Value() == cc->Options<TestOptions>().value()) {
      return absl::InternalError(
          absl::StrCat("boom at ", cc->InputTimestamp().Value()));
    }
    if (cc->Outputs().NumEntries() > 0) {
      cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestFailingCalculator);

// Passes even values only; the offset lets downstream bounds advance.
class TestEvenFilterCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Index(0).Set<int>();
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).Get<int>() % 2 == 0) {
      cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestEvenFilterCalculator);

// Sleeps options.value microseconds (scaled by a pseudo-random factor when
// options.scale is set), then passes the packet on. Tolerates concurrency.
class TestSleepCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TestOptions>();
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetSameAs(&cc->Inputs().Index(0));
    cc->SetMaxInFlight(1);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    const auto& o = cc->Options<TestOptions>();
    int64_t us = o.value();
    if (o.has_scale()) {
      // Later timestamps sleep less, so concurrent calls finish out of order.
      us = static_cast<int64_t>(us * (1.0 + o.scale() * ((7 * cc->InputTimestamp().Value()) % 5)));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestSleepCalculator);

// Output side packet OUT = options.value; no streams.
class TestSidePacketProducerCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TestOptions>();
    cc->OutputSidePackets().Tag("OUT").Set<int>();
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    cc->OutputSidePackets().Tag("OUT").Set(
        MakePacket<int>(cc->Options<TestOptions>().value()));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestSidePacketProducerCalculator);

// Sleeps options.value microseconds in Open, which waits for input side
// packet IN (so, fed by another node, it opens on a scheduler thread after
// StartRun); then passes input 0 to output 0. It processes timestamp
// bounds: a settled timestamp without a packet gives an int -1 there.
class TestSlowOpenCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TestOptions>();
    cc->InputSidePackets().Tag("IN").Set<int>();
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetAny();
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }
  absl::Status Open(CalculatorContext* cc) override {
    std::this_thread::sleep_for(
        std::chrono::microseconds(cc->Options<TestOptions>().value()));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).IsEmpty()) {
      cc->Outputs().Index(0).AddPacket(MakePacket<int>(-1).At(cc->InputTimestamp()));
    } else {
      cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    }
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestSlowOpenCalculator);

// Emits its input side packet IN once at timestamp 0.
class TestSideToStreamCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->InputSidePackets().Tag("IN").Set<int>();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(
        cc->InputSidePackets().Tag("IN").At(Timestamp(0)));
    return StatusStop();
  }
};
REGISTER_CALCULATOR(TestSideToStreamCalculator);

std::mutex thread_names_mu;
std::vector<std::string>* thread_names = new std::vector<std::string>();

class TestThreadNameCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).SetSameAs(&cc->Inputs().Index(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    char name[32] = {0};
    pthread_getname_np(pthread_self(), name, sizeof(name));
    {
      std::lock_guard<std::mutex> lock(thread_names_mu);
      thread_names->push_back(name);
    }
    cc->Outputs().Index(0).AddPacket(cc->Inputs().Index(0).Value());
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestThreadNameCalculator);

// A source that emits its options once: VALUE (int) and LABEL (string) at
// timestamp 0, plus VALUES (sum of the repeated values) when connected.
class TestOptionsReporterCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->UseOptions<TestOptions>();
    cc->Outputs().Tag("VALUE").Set<int>();
    if (cc->Outputs().HasTag("LABEL")) cc->Outputs().Tag("LABEL").Set<std::string>();
    if (cc->Outputs().HasTag("SCALE")) cc->Outputs().Tag("SCALE").Set<float>();
    if (cc->Outputs().HasTag("VALUES")) cc->Outputs().Tag("VALUES").Set<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    const auto& o = cc->Options<TestOptions>();
    cc->Outputs().Tag("VALUE").AddPacket(MakePacket<int>(o.value()).At(Timestamp(0)));
    if (cc->Outputs().HasTag("LABEL")) {
      cc->Outputs().Tag("LABEL").AddPacket(
          MakePacket<std::string>(o.label()).At(Timestamp(0)));
    }
    if (cc->Outputs().HasTag("SCALE")) {
      cc->Outputs().Tag("SCALE").AddPacket(MakePacket<float>(o.scale()).At(Timestamp(0)));
    }
    if (cc->Outputs().HasTag("VALUES")) {
      int sum = 0;
      for (int v : o.values()) sum += v;
      cc->Outputs().Tag("VALUES").AddPacket(MakePacket<int>(sum).At(Timestamp(0)));
    }
    return StatusStop();
  }
};
REGISTER_CALCULATOR(TestOptionsReporterCalculator);

class TestStringSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Outputs().Index(0).Set<std::string>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(MakePacket<std::string>("x").At(Timestamp(0)));
    return StatusStop();
  }
};
REGISTER_CALCULATOR(TestStringSourceCalculator);

// Feedback loop: OUT = IN + last LOOP value (0 before any), LOOP a back edge.
class TestLoopCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag("IN").Set<int>();
    cc->Inputs().Tag("LOOP").Set<int>();
    cc->Outputs().Tag("OUT").Set<int>();
    cc->SetInputStreamHandler("ImmediateInputStreamHandler");
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (!cc->Inputs().Tag("LOOP").IsEmpty()) {
      last_ = cc->Inputs().Tag("LOOP").Get<int>();
    }
    if (!cc->Inputs().Tag("IN").IsEmpty()) {
      cc->Outputs().Tag("OUT").AddPacket(
          MakePacket<int>(cc->Inputs().Tag("IN").Get<int>() + last_)
              .At(cc->InputTimestamp()));
    }
    return absl::OkStatus();
  }

 private:
  int last_ = 0;
};
REGISTER_CALCULATOR(TestLoopCalculator);

// Counts Process calls that carry no packet (SetProcessTimestampBounds) and
// emits the count at each call's timestamp.
class TestBoundsCounterCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).Set<int>();
    cc->SetProcessTimestampBounds(true);
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    if (cc->Inputs().Index(0).IsEmpty()) ++empty_;
    cc->Outputs().Index(0).AddPacket(MakePacket<int>(empty_).At(cc->InputTimestamp()));
    return absl::OkStatus();
  }

 private:
  int empty_ = 0;
};
REGISTER_CALCULATOR(TestBoundsCounterCalculator);

// OUT = IN * FACTOR (side packet, optional, default 1), on tagged ports.
class TestScaleNode : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag("IN").Set<int>();
    cc->Outputs().Tag("OUT").Set<int>();
    if (cc->InputSidePackets().HasTag("FACTOR")) {
      cc->InputSidePackets().Tag("FACTOR").Set<int>().Optional();
    }
    cc->SetTimestampOffset(TimestampDiff(0));
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    const int factor = cc->InputSidePackets().HasTag("FACTOR")
                           ? cc->InputSidePackets().Tag("FACTOR").Get<int>()
                           : 1;
    cc->Outputs().Tag("OUT").AddPacket(
        MakePacket<int>(cc->Inputs().Tag("IN").Get<int>() * factor)
            .At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestScaleNode);

// Emits a wrong type on a port declared int (caught at run time).
class TestWrongTypeCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).SetAny();
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(
        MakePacket<std::string>("not an int").At(cc->InputTimestamp()));
    return absl::OkStatus();
  }
};
REGISTER_CALCULATOR(TestWrongTypeCalculator);

// A source that never stops (for Cancel).
class TestEndlessSourceCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Outputs().Index(0).Set<int>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext* cc) override {
    cc->Outputs().Index(0).AddPacket(MakePacket<int>(0).At(Timestamp(i_++)));
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    return absl::OkStatus();
  }

 private:
  int64_t i_ = 0;
};
REGISTER_CALCULATOR(TestEndlessSourceCalculator);

}  // namespace

namespace testing {

RunResult RunGraph(
    const std::string& config_text,
    const std::map<std::string, std::vector<std::pair<int64_t, int>>>& inputs,
    const std::map<std::string, Packet>& side_packets) {
  RunResult result;
  auto config = ParseGraphConfigText(config_text, "test graph");
  if (!config.ok()) {
    result.status = config.status();
    return result;
  }
  CalculatorGraph graph;
  result.status = graph.Initialize(*config);
  if (!result.status.ok()) return result;
  std::mutex mu;
  for (const std::string& entry : graph.Config().output_stream()) {
    TagIndexName tin;
    (void)ParseTagIndexName(entry, &tin);
    std::string name = tin.name;
    result.status = graph.ObserveOutputStream(name, [&, name](const Packet& p) {
      std::lock_guard<std::mutex> lock(mu);
      result.outputs[name].push_back(p);
      return absl::OkStatus();
    });
    if (!result.status.ok()) return result;
  }
  result.status = graph.StartRun(side_packets);
  if (!result.status.ok()) return result;
  for (const auto& [stream, packets] : inputs) {
    for (const auto& [ts, v] : packets) {
      result.status =
          graph.AddPacketToInputStream(stream, MakePacket<int>(v).At(Timestamp(ts)));
      if (!result.status.ok()) return result;
    }
  }
  result.status = graph.CloseAllInputStreams();
  if (!result.status.ok()) return result;
  result.status = graph.WaitUntilDone();
  return result;
}

std::vector<int> Values(const std::vector<Packet>& packets) {
  std::vector<int> v;
  for (const Packet& p : packets) v.push_back(p.Get<int>());
  return v;
}

std::vector<int64_t> Timestamps(const std::vector<Packet>& packets) {
  std::vector<int64_t> v;
  for (const Packet& p : packets) v.push_back(p.Timestamp().Value());
  return v;
}

std::vector<std::string> SeenThreadNames() {
  std::lock_guard<std::mutex> lock(thread_names_mu);
  return *thread_names;
}

void ClearSeenThreadNames() {
  std::lock_guard<std::mutex> lock(thread_names_mu);
  thread_names->clear();
}

}  // namespace testing
}  // namespace rill
