#include "tools/graph_tools.h"

#include <string>
#include <vector>

#include "framework/calculator_base.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"

namespace rill {
namespace tools {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Classic contract: an untagged input, a tagged output, an optional side
// packet asked for unconditionally.
class ToolsProbeClassicCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Index(0).Set<int>();
    cc->Outputs().Tag("SUM").Set<int64_t>();
    cc->InputSidePackets().Tag("OFFSET").Set<int>().Optional();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(ToolsProbeClassicCalculator);

class ToolsProbeTypedCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    cc->Inputs().Tag("IN").Set<float>();
    cc->Outputs().Tag("OUT").SetAny();
    cc->OutputSidePackets().Tag("DONE").Set<bool>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(ToolsProbeTypedCalculator);

// Checks the node config before declaring ports, as many real calculators
// do: on an empty node it only says what it needs.
class ToolsProbeCheckingCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    if (!cc->Inputs().HasTag("TICK") || cc->Outputs().NumEntries("") != 1) {
      return absl::InvalidArgumentError(
          "node needs a TICK input stream and one untagged output stream");
    }
    cc->Inputs().Tag("TICK").SetAny();
    cc->Outputs().Index(0).Set<std::vector<std::string>>();
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(ToolsProbeCheckingCalculator);

// Takes any number of untagged streams; declares nothing on an empty node.
class ToolsProbeVariadicCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    for (int i = 0; i < cc->Inputs().NumEntries(); ++i) {
      cc->Inputs().Index(i).Set<int>();
    }
    return absl::OkStatus();
  }
  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(ToolsProbeVariadicCalculator);

// Can never be satisfied by a probe (it wants options, say).
class ToolsProbeNeedsOptionsCalculator : public CalculatorBase {
 public:
  static absl::Status GetContract(CalculatorContract* cc) {
    return absl::InvalidArgumentError("options.ranges is empty");
  }
  absl::Status Process(CalculatorContext*) override { return absl::OkStatus(); }
};
REGISTER_CALCULATOR(ToolsProbeNeedsOptionsCalculator);

CalculatorGraphConfig Parse(const std::string& text) {
  CalculatorGraphConfig config;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &config));
  return config;
}

TEST(GraphToolsTest, DotHasShapesEdgesAndBackEdges) {
  const CalculatorGraphConfig config = Parse(R"pb(
    input_stream: "in"
    output_stream: "out"
    input_side_packet: "scale"
    node {
      calculator: "FlowLimiterCalculator"
      input_stream: "in"
      input_stream: "FINISHED:done"
      input_stream_info { tag_index: "FINISHED" back_edge: true }
      output_stream: "limited"
    }
    node {
      name: "worker"
      calculator: "ScaleCalculator"
      input_stream: "IN:limited"
      input_side_packet: "FACTOR:scale"
      output_stream: "OUT:out"
      output_stream: "DONE:done"
      output_stream: "debug"
    }
  )pb");
  const std::string dot = GraphToDot(config, "demo");
  EXPECT_THAT(dot, HasSubstr("digraph \"demo\" {"));
  EXPECT_THAT(dot, HasSubstr("n0 [shape=box, style=rounded, "
                             "label=\"FlowLimiterCalculator\"]"));
  EXPECT_THAT(dot, HasSubstr("label=\"worker\\nScaleCalculator\""));
  EXPECT_THAT(dot, HasSubstr("graph_in0 [shape=invhouse"));
  EXPECT_THAT(dot, HasSubstr("graph_out0 [shape=house"));
  EXPECT_THAT(dot, HasSubstr("graph_in0 -> n0 [label=\"in\"]"));
  EXPECT_THAT(dot, HasSubstr("n0 -> n1 [label=\"limited\"]"));
  EXPECT_THAT(dot, HasSubstr("n1 -> n0 [label=\"done\", style=dashed"));
  EXPECT_THAT(dot, HasSubstr("n1 -> graph_out0 [label=\"out\"]"));
  EXPECT_THAT(dot, HasSubstr("shape=note"));
  EXPECT_THAT(dot, HasSubstr("side0 -> n1 [style=dotted]"));
  EXPECT_THAT(dot, HasSubstr("[shape=point]"));  // "debug" is unread
  EXPECT_THAT(dot, HasSubstr("[label=\"debug\"]"));
  EXPECT_THAT(dot, Not(HasSubstr("no producer")));
}

TEST(GraphToolsTest, DotMarksStreamsWithoutProducer) {
  const std::string dot = GraphToDot(Parse(R"pb(
    node { calculator: "A" input_stream: "ghost" }
  )pb"));
  EXPECT_THAT(dot, HasSubstr("no producer: ghost"));
}

TEST(GraphToolsTest, Summary) {
  const CalculatorGraphConfig config = Parse(R"pb(
    input_stream: "in"
    executor { name: "" type: "ThreadPoolExecutor" }
    executor { name: "io" type: "ThreadPoolExecutor" }
    node { calculator: "A" input_stream: "in" output_stream: "a" }
    node { calculator: "B" input_stream: "a" output_stream: "X:b"
           output_side_packet: "s" }
  )pb");
  EXPECT_EQ(SummaryLine(CountGraph(config)),
            "2 nodes, 3 streams, 2 executors (default, io), 1 side packet");
}

TEST(GraphToolsTest, DescribeClassicCalculator) {
  const CalculatorInfo info = DescribeCalculator("ToolsProbeClassicCalculator");
  ASSERT_TRUE(info.contract_status.ok()) << info.contract_status;
  ASSERT_EQ(info.ports.size(), 3u);
  EXPECT_EQ(info.ports[0].kind, PortInfo::Kind::kInput);
  EXPECT_EQ(info.ports[0].tag, "");
  EXPECT_EQ(info.ports[0].type, "int");
  EXPECT_EQ(info.ports[1].kind, PortInfo::Kind::kOutput);
  EXPECT_EQ(info.ports[1].tag, "SUM");
  EXPECT_EQ(info.ports[2].kind, PortInfo::Kind::kInputSide);
  EXPECT_TRUE(info.ports[2].optional);
  const std::string text = FormatCalculators({info});
  EXPECT_THAT(text, HasSubstr("ToolsProbeClassicCalculator"));
  EXPECT_THAT(text, HasSubstr("graph_tools_test.cc"));
  EXPECT_THAT(text, HasSubstr("OFFSET:0"));
  EXPECT_THAT(text, HasSubstr("(optional)"));
}

TEST(GraphToolsTest, DescribeTypedCalculator) {
  const CalculatorInfo info = DescribeCalculator("ToolsProbeTypedCalculator");
  ASSERT_TRUE(info.contract_status.ok()) << info.contract_status;
  ASSERT_EQ(info.ports.size(), 3u);
  EXPECT_EQ(info.ports[0].tag, "IN");
  EXPECT_EQ(info.ports[0].type, "float");
  EXPECT_EQ(info.ports[1].tag, "OUT");
  EXPECT_EQ(info.ports[2].kind, PortInfo::Kind::kOutputSide);
  EXPECT_EQ(info.ports[2].type, "bool");
  EXPECT_EQ(DescribeCalculators("toolsprobe").size(), 5u);
  EXPECT_EQ(DescribeCalculators("ProbeTyped").size(), 1u);
}

TEST(GraphToolsTest, DescribeFollowsTheContractsErrorMessages) {
  const CalculatorInfo info = DescribeCalculator("ToolsProbeCheckingCalculator");
  ASSERT_TRUE(info.contract_status.ok()) << info.contract_status;
  EXPECT_TRUE(info.guessed);
  ASSERT_EQ(info.ports.size(), 2u);
  EXPECT_EQ(info.ports[0].tag, "TICK");
  EXPECT_EQ(info.ports[0].kind, PortInfo::Kind::kInput);
  EXPECT_EQ(info.ports[1].tag, "");
  EXPECT_EQ(info.ports[1].kind, PortInfo::Kind::kOutput);
  EXPECT_EQ(info.ports[1].type, "std::vector<std::string>");
}

TEST(GraphToolsTest, DescribeVariadicAndUnsatisfiable) {
  const CalculatorInfo variadic =
      DescribeCalculator("ToolsProbeVariadicCalculator");
  ASSERT_TRUE(variadic.contract_status.ok());
  EXPECT_TRUE(variadic.variadic);
  ASSERT_EQ(variadic.ports.size(), 1u);  // the guessed output is undeclared
  EXPECT_EQ(variadic.ports[0].type, "int");
  EXPECT_THAT(FormatCalculators({variadic}), HasSubstr("port counts follow"));

  const CalculatorInfo stuck =
      DescribeCalculator("ToolsProbeNeedsOptionsCalculator");
  EXPECT_FALSE(stuck.contract_status.ok());
  EXPECT_TRUE(stuck.ports.empty());
  EXPECT_THAT(FormatCalculators({stuck}), HasSubstr("options.ranges is empty"));
}

TEST(GraphToolsTest, SidePacketFlags) {
  auto p = ParseSidePacketFlag("n=42");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->first, "n");
  EXPECT_EQ(p->second.Get<int>(), 42);
  EXPECT_EQ(ParseSidePacketFlag("n=12345678901")->second.Get<int64_t>(),
            12345678901LL);
  EXPECT_FLOAT_EQ(ParseSidePacketFlag("x=2.5")->second.Get<float>(), 2.5f);
  EXPECT_TRUE(ParseSidePacketFlag("b=true")->second.Get<bool>());
  EXPECT_EQ(ParseSidePacketFlag("s=hello")->second.Get<std::string>(), "hello");
  EXPECT_EQ(ParseSidePacketFlag("s=\"42\"")->second.Get<std::string>(), "42");
  EXPECT_EQ(ParseSidePacketFlag("s:string=42")->second.Get<std::string>(),
            "42");
  EXPECT_DOUBLE_EQ(ParseSidePacketFlag("d:double=1")->second.Get<double>(), 1);
  EXPECT_FALSE(ParseSidePacketFlag("noequals").ok());
  EXPECT_FALSE(ParseSidePacketFlag("Bad=1").ok());
  EXPECT_FALSE(ParseSidePacketFlag("n:int=x").ok());
  EXPECT_THAT(std::string(ParseSidePacketFlag("n:quux=1").status().message()),
              HasSubstr("unknown type"));
}

}  // namespace
}  // namespace tools
}  // namespace rill
