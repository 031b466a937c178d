// Loads tests/plugin/libtest_plugin.so at run time and checks that its
// calculators register into this program's registry (the plugin has no copy
// of the framework), that loading is idempotent, and that bad files give
// errors naming the file.
#include "framework/plugin/plugin_loader.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "framework/calculator_base.h"
#include "framework/calculator_contract.h"
#include "framework/calculator_registry.h"
#include "framework/graph.h"
#include "framework/tool/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kPluginPath[] = "tests/plugin/libtest_plugin.so";

std::string TempDir() {
  const char* dir = std::getenv("TEST_TMPDIR");
  return dir ? dir : "/tmp";
}

TEST(PluginLoaderTest, RegistersIntoHostRegistry) {
  ASSERT_FALSE(CalculatorRegistry().IsRegistered("PluginAddOneCalculator"));
  ASSERT_TRUE(LoadPlugin(kPluginPath).ok());
  EXPECT_TRUE(CalculatorRegistry().IsRegistered("PluginAddOneCalculator"));
  EXPECT_TRUE(CalculatorRegistry().IsRegistered("PluginScaleCalculator"));

  // The plugin must bind to this program's framework, not carry its own:
  // the registry function is not defined anywhere in the plugin's own
  // dependency tree.
  void* handle = dlopen(kPluginPath, RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(handle, nullptr);
  EXPECT_EQ(dlsym(handle, "_ZN4rill18CalculatorRegistryEv"), nullptr)
      << "the plugin defines rill::CalculatorRegistry(): it links its own "
         "copy of the framework";
  dlclose(handle);

  // The registered contract and factory run from here.
  auto entry = CalculatorRegistry().Lookup("PluginScaleCalculator");
  ASSERT_TRUE(entry.ok()) << entry.status();
  CalculatorGraphConfig::Node node;
  node.set_calculator("PluginScaleCalculator");
  node.add_input_stream("IN:a");
  node.add_output_stream("OUT:b");
  CalculatorContract contract;
  ASSERT_TRUE(contract.Initialize(node, "scale").ok());
  ASSERT_TRUE(entry->get_contract(&contract).ok());
  EXPECT_TRUE(contract.Inputs().Tag("IN").IsInitialized());
  EXPECT_EQ(contract.Inputs().Tag("IN").DebugTypeName(), "int");
  EXPECT_NE(entry->create(), nullptr);
}

TEST(PluginLoaderTest, RunsAGraphOfPluginCalculators) {
  ASSERT_TRUE(LoadPlugin(kPluginPath).ok());
  auto config = ParseGraphConfigText(R"pb(
    input_side_packet: "count"
    input_side_packet: "factor"
    output_stream: "scaled"
    node {
      calculator: "PluginCountSourceCalculator"
      input_side_packet: "COUNT:count"
      output_stream: "OUT:numbers"
    }
    node {
      calculator: "PluginAddOneCalculator"
      input_stream: "numbers"
      output_stream: "plus_one"
    }
    node {
      calculator: "PluginScaleCalculator"
      input_stream: "IN:plus_one"
      input_side_packet: "FACTOR:factor"
      output_stream: "OUT:scaled"
    }
  )pb", "plugin_graph");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  std::vector<int> values;
  std::vector<int64_t> timestamps;
  ASSERT_TRUE(graph
                  .ObserveOutputStream("scaled",
                                       [&](const Packet& p) {
                                         values.push_back(p.Get<int>());
                                         timestamps.push_back(
                                             p.Timestamp().Value());
                                         return absl::OkStatus();
                                       })
                  .ok());
  absl::Status run = graph.Run(
      {{"count", MakePacket<int>(5)}, {"factor", MakePacket<int>(10)}});
  ASSERT_TRUE(run.ok()) << run;
  EXPECT_THAT(values, ::testing::ElementsAre(10, 20, 30, 40, 50));
  EXPECT_THAT(timestamps, ::testing::ElementsAre(0, 1, 2, 3, 4));
}

TEST(PluginLoaderTest, UnknownCalculatorBeforeLoadingSaysHowToLoad) {
  // A name no plugin provides: the error must point at plugins.
  auto config = ParseGraphConfigText(
      R"pb(node { calculator: "PluginNotThereCalculator" })pb", "g");
  ASSERT_TRUE(config.ok());
  CalculatorGraph graph;
  absl::Status status = graph.Initialize(*config);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("plugin"));
}

TEST(PluginLoaderTest, LoadingTwiceIsANoOp) {
  ASSERT_TRUE(LoadPlugin(kPluginPath).ok());
  const size_t loaded = LoadedPlugins().size();
  ASSERT_TRUE(LoadPlugin(kPluginPath).ok());
  // Another spelling of the same file.
  ASSERT_TRUE(LoadPlugin(std::string("./") + kPluginPath).ok());
  EXPECT_EQ(LoadedPlugins().size(), loaded);
}

TEST(PluginLoaderTest, MissingFileNamesTheFile) {
  const std::string path = TempDir() + "/no_such_plugin.so";
  absl::Status status = LoadPlugin(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(status.message()), HasSubstr("No such file"));
}

TEST(PluginLoaderTest, GarbageFileGivesLoaderMessage) {
  const std::string path = TempDir() + "/garbage_plugin.so";
  {
    std::ofstream out(path);
    out << "this is not an ELF shared object, just some text to load\n";
  }
  absl::Status status = LoadPlugin(path);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("cannot load plugin"));
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  // dlerror()'s own words.
  EXPECT_THAT(std::string(status.message()),
              ::testing::AnyOf(HasSubstr("invalid ELF header"),
                               HasSubstr("file too short")));
}

TEST(PluginLoaderTest, UndefinedFrameworkSymbolExplainsHowPluginsLink) {
  const std::string path = "tests/plugin/libbroken_plugin.so";
  absl::Status status = LoadPlugin(path);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr(path));
  EXPECT_THAT(std::string(status.message()), HasSubstr("undefined symbol"));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("PluginTestSymbolNoFrameworkDefines"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("plugin_host"));
  // A failed load is not remembered as loaded.
  for (const std::string& loaded : LoadedPlugins()) {
    EXPECT_THAT(loaded, Not(HasSubstr("libbroken_plugin")));
  }
}

TEST(PluginLoaderTest, EmptyPathAndDirectoryAreErrors) {
  EXPECT_FALSE(LoadPlugin("").ok());
  absl::Status status = LoadPlugin(TempDir() + "/");
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(std::string(status.message()), HasSubstr("directory"));
}

TEST(PluginLoaderTest, PluginsNamedInGraphText) {
  const std::string text =
      "# rill:plugin libfoo.so\n"
      "  #rill:plugin /abs/libbar.so  \n"
      "# an ordinary comment\n"
      "node { calculator: \"X\" }\n";
  EXPECT_THAT(PluginsNamedInGraphText(text, "graphs/demo"),
              ::testing::ElementsAre("graphs/demo/libfoo.so", "/abs/libbar.so"));
}

TEST(PluginLoaderTest, PluginsNamedInAGraphFile) {
  const std::string dir = TempDir();
  const std::string good = dir + "/names_plugin.pbtxt";
  {
    std::ofstream out(good);
    char cwd[4096];
    ASSERT_NE(getcwd(cwd, sizeof(cwd)), nullptr);
    out << "# rill:plugin " << cwd << "/" << kPluginPath << "\n"
        << "node { calculator: \"PluginAddOneCalculator\" }\n";
  }
  EXPECT_TRUE(LoadPluginsNamedInGraphFile(good).ok());
  const std::string bad = dir + "/names_missing_plugin.pbtxt";
  {
    std::ofstream out(bad);
    out << "# rill:plugin libs/not_there.so\n";
  }
  absl::Status status = LoadPluginsNamedInGraphFile(bad);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr(bad));
  EXPECT_THAT(std::string(status.message()),
              HasSubstr(dir + "/libs/not_there.so"));
}

TEST(PluginLoaderTest, EnvironmentList) {
  setenv("RILL_PLUGINS", (std::string(kPluginPath) + ":").c_str(), 1);
  EXPECT_TRUE(LoadPluginsFromEnvironment().ok());
  setenv("RILL_PLUGINS", "/nonexistent/libx.so", 1);
  absl::Status status = LoadPluginsFromEnvironment();
  EXPECT_THAT(std::string(status.message()), HasSubstr("RILL_PLUGINS"));
  unsetenv("RILL_PLUGINS");
}

}  // namespace
}  // namespace rill
