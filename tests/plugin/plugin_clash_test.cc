// A plugin registering a calculator name the program already has: the host's
// calculator stays, and both CheckRegistrations() and building any graph fail
// naming the two source files. (Its own test binary: the conflict lasts for
// the life of the process.)
#include <string>

#include "framework/calculator_registry.h"
#include "framework/graph.h"
#include "framework/plugin/plugin_loader.h"
#include "framework/tool/config_loader.h"
#include "framework/validated_graph.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

TEST(PluginClashTest, ASecondRegistrationOfANameIsRefusedNamingBothFiles) {
  ASSERT_TRUE(CalculatorRegistry().IsRegistered("SwitchDemuxCalculator"));
  ASSERT_TRUE(CheckRegistrations().ok());
  ASSERT_TRUE(LoadPlugin("tests/plugin/libclashing_plugin.so").ok());

  const absl::Status status = CheckRegistrations();
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("calculator \"SwitchDemuxCalculator\" is registered "
                        "twice, in framework/tool/switch_demux_calculator.cc "
                        "and in tests/plugin/clashing_plugin.cc"));

  // The host's entry was kept, but it is not used while the clash stands:
  // a lookup fails with the same message.
  auto entry = CalculatorRegistry().Lookup("SwitchDemuxCalculator");
  ASSERT_FALSE(entry.ok());
  EXPECT_THAT(entry.status().message(), HasSubstr("clashing_plugin.cc"));

  // Building any graph fails up front with the clash.
  auto config = ParseGraphConfigText(R"(
    input_stream: "in"
    output_stream: "out"
    node { calculator: "PassThroughCalculator" input_stream: "in" output_stream: "out" }
  )", "clash.pbtxt");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  const absl::Status init = graph.Initialize(*config);
  ASSERT_FALSE(init.ok());
  EXPECT_THAT(init.message(), HasSubstr("registered twice"));
}

}  // namespace
}  // namespace rill
