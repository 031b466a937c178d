#include <fstream>
#include <string>
#include <vector>

#include "calculators/core/test_util.h"
#include "framework/graph.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

std::string WriteFile(const std::string& dir, const std::string& name,
                      const std::string& bytes) {
  EXPECT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// Runs a side-packet-only graph and returns side packet `out`.
absl::StatusOr<Packet> RunForSidePacket(
    const std::string& config_text, const std::string& out,
    const std::map<std::string, Packet>& side_packets,
    const std::vector<std::string>& roots = {}) {
  auto config = ParseGraphConfig(config_text);
  if (!config.ok()) return config.status();
  CalculatorGraph graph;
  if (!roots.empty()) graph.SetResourceRoots(roots);
  absl::Status s = graph.Initialize(*config);
  if (s.ok()) s = graph.Run(side_packets);
  if (!s.ok()) return s;
  return graph.GetOutputSidePacket(out);
}

constexpr char kGraph[] = R"pb(
  input_side_packet: "path"
  node {
    name: "reader"
    calculator: "LocalFileContentsCalculator"
    input_side_packet: "FILE_PATH:path"
    output_side_packet: "CONTENTS:contents"
  }
)pb";

TEST(LocalFileContentsCalculatorTest, ReadsEveryByteOfTheFile) {
  const std::string bytes("TFL3\0\x01\r\nend\xff", 12);
  const std::string path =
      WriteFile(::testing::TempDir() + "/lfc", "blob.bin", bytes);
  auto p = RunForSidePacket(kGraph, "contents",
                            {{"path", MakePacket<std::string>(path)}});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Get<std::string>(), bytes);
}

TEST(LocalFileContentsCalculatorTest, TextModeAndSeveralFiles) {
  const std::string dir = ::testing::TempDir() + "/lfc_text";
  const std::string a = WriteFile(dir, "a.txt", "first\nline\n");
  const std::string b = WriteFile(dir, "b.txt", "second");
  auto config = ParseGraphConfig(R"pb(
    input_side_packet: "a"
    input_side_packet: "b"
    node {
      calculator: "LocalFileContentsCalculator"
      input_side_packet: "FILE_PATH:0:a"
      input_side_packet: "FILE_PATH:1:b"
      output_side_packet: "CONTENTS:0:ca"
      output_side_packet: "CONTENTS:1:cb"
      options { [mediapipe.LocalFileContentsCalculatorOptions.ext] { text_mode: true } }
    }
  )pb");
  ASSERT_TRUE(config.ok()) << config.status();
  CalculatorGraph graph;
  ASSERT_TRUE(graph.Initialize(*config).ok());
  ASSERT_TRUE(graph.Run({{"a", MakePacket<std::string>(a)},
                         {"b", MakePacket<std::string>(b)}})
                  .ok());
  EXPECT_EQ(graph.GetOutputSidePacket("ca")->Get<std::string>(), "first\nline\n");
  EXPECT_EQ(graph.GetOutputSidePacket("cb")->Get<std::string>(), "second");
}

TEST(LocalFileContentsCalculatorTest, RelativePathsResolveUnderResourceRoots) {
  const std::string root_a = ::testing::TempDir() + "/lfc_root_a";
  const std::string root_b = ::testing::TempDir() + "/lfc_root_b";
  ASSERT_EQ(system(("mkdir -p " + root_a).c_str()), 0);
  WriteFile(root_b + "/models", "m.bin", "in b");
  auto p = RunForSidePacket(kGraph, "contents",
                            {{"path", MakePacket<std::string>("models/m.bin")}},
                            {root_a, root_b});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Get<std::string>(), "in b");

  auto missing = RunForSidePacket(
      kGraph, "contents", {{"path", MakePacket<std::string>("models/none.bin")}},
      {root_a, root_b});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  const std::string m(missing.status().message());
  EXPECT_NE(m.find("\"reader\""), std::string::npos) << m;
  EXPECT_NE(m.find("lfc_root_a/models/none.bin"), std::string::npos) << m;
  EXPECT_NE(m.find("lfc_root_b/models/none.bin"), std::string::npos) << m;
}

TEST(LocalFileContentsCalculatorTest, ADirectoryIsNoFile) {
  const std::string dir = ::testing::TempDir() + "/lfc_dir";
  ASSERT_EQ(system(("mkdir -p " + dir).c_str()), 0);
  auto p = RunForSidePacket(kGraph, "contents",
                            {{"path", MakePacket<std::string>(dir)}});
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("is not a regular file"), std::string::npos)
      << p.status();
}

TEST(LocalFileContentsCalculatorTest, ContractNeedsOneContentsPerPath) {
  EXPECT_FALSE(CheckContract(R"pb(
    calculator: "LocalFileContentsCalculator"
    input_side_packet: "FILE_PATH:0:a"
    input_side_packet: "FILE_PATH:1:b"
    output_side_packet: "CONTENTS:ca"
  )pb").ok());
  EXPECT_FALSE(CheckContract(R"pb(
    calculator: "LocalFileContentsCalculator"
    output_side_packet: "CONTENTS:ca"
  )pb").ok());
}

TEST(ResourceProviderCalculatorTest, ReadsResourcesBySidePacketOrOptions) {
  const std::string dir = ::testing::TempDir() + "/rp";
  const std::string path = WriteFile(dir, "r.bin", std::string("R\0S", 3));
  auto by_side_packet = RunForSidePacket(R"pb(
    input_side_packet: "id"
    node {
      calculator: "ResourceProviderCalculator"
      input_side_packet: "RESOURCE_ID:id"
      output_side_packet: "RESOURCE:res"
    }
  )pb", "res", {{"id", MakePacket<std::string>(path)}});
  ASSERT_TRUE(by_side_packet.ok()) << by_side_packet.status();
  EXPECT_EQ(by_side_packet->Get<std::string>(), std::string("R\0S", 3));

  WriteFile(dir, "t.txt", "text");
  auto by_options = RunForSidePacket(R"pb(
    node {
      calculator: "ResourceProviderCalculator"
      output_side_packet: "RESOURCE:res"
      node_options {
        [type.googleapis.com/mediapipe.ResourceProviderCalculatorOptions] {
          resource_id: "t.txt" read_mode: READ_MODE_TEXT
        }
      }
    }
  )pb", "res", {}, {dir});
  ASSERT_TRUE(by_options.ok()) << by_options.status();
  EXPECT_EQ(by_options->Get<std::string>(), "text");
}

TEST(ResourceProviderCalculatorTest, MissingResourceNamesNodeAndPlaces) {
  const std::string root = ::testing::TempDir() + "/rp_missing";
  ASSERT_EQ(system(("mkdir -p " + root).c_str()), 0);
  auto r = RunForSidePacket(R"pb(
    input_side_packet: "id"
    node {
      name: "provider"
      calculator: "ResourceProviderCalculator"
      input_side_packet: "RESOURCE_ID:id"
      output_side_packet: "RESOURCE:res"
    }
  )pb", "res", {{"id", MakePacket<std::string>("x/model.tflite")}}, {root});
  ASSERT_FALSE(r.ok());
  const std::string m(r.status().message());
  EXPECT_NE(m.find("\"provider\""), std::string::npos) << m;
  EXPECT_NE(m.find("rp_missing/x/model.tflite"), std::string::npos) << m;
}

TEST(ResourceProviderCalculatorTest, ContractWantsIdsFromOneSource) {
  // Neither side packets nor options.
  EXPECT_FALSE(CheckContract(R"pb(
    calculator: "ResourceProviderCalculator"
    output_side_packet: "RESOURCE:res"
  )pb").ok());
  // Both.
  EXPECT_FALSE(CheckContract(R"pb(
    calculator: "ResourceProviderCalculator"
    input_side_packet: "RESOURCE_ID:id"
    output_side_packet: "RESOURCE:res"
    node_options {
      [type.googleapis.com/mediapipe.ResourceProviderCalculatorOptions] { resource_id: "a" }
    }
  )pb").ok());
  EXPECT_TRUE(CheckContract(R"pb(
    calculator: "ResourceProviderCalculator"
    input_side_packet: "RESOURCE_ID:id"
    output_side_packet: "RESOURCE:res"
  )pb").ok());
}

}  // namespace
}  // namespace rill
