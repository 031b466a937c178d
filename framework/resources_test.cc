#include "framework/resources.h"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace rill {
namespace {

std::string MakeTree() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string root = std::string(tmp ? tmp : "/tmp") + "/resources_test";
  ::mkdir(root.c_str(), 0755);
  ::mkdir((root + "/repo").c_str(), 0755);
  ::mkdir((root + "/repo/graphs").c_str(), 0755);
  ::mkdir((root + "/repo/models").c_str(), 0755);
  ::mkdir((root + "/other").c_str(), 0755);
  ::mkdir((root + "/other/models").c_str(), 0755);
  std::ofstream(root + "/repo/WORKSPACE") << "";
  std::ofstream(root + "/repo/models/a.tflite") << "a";
  std::ofstream(root + "/other/models/b.tflite") << "b";
  std::ofstream(root + "/repo/graphs/g.pbtxt") << "";
  return root;
}

TEST(ResourcesTest, FirstRootThatHoldsTheFileWins) {
  const std::string t = MakeTree();
  Resources r({t + "/repo", t + "/other"});
  EXPECT_EQ(*r.Resolve("models/a.tflite", "model file"),
            t + "/repo/models/a.tflite");
  EXPECT_EQ(*r.Resolve("models/b.tflite", "model file"),
            t + "/other/models/b.tflite");
}

TEST(ResourcesTest, NotFoundListsEveryPlaceLookedIn) {
  const std::string t = MakeTree();
  Resources r({t + "/repo", t + "/other"});
  auto missing = r.Resolve("models/c.tflite", "model file");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  const std::string m(missing.status().message());
  EXPECT_NE(m.find("model file \"models/c.tflite\" not found"), std::string::npos) << m;
  EXPECT_NE(m.find(t + "/repo/models/c.tflite, " + t + "/other/models/c.tflite"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("--resource_root"), std::string::npos) << m;
}

TEST(ResourcesTest, AbsolutePathsAreUsedAsGiven) {
  const std::string t = MakeTree();
  Resources r({t + "/other"});
  EXPECT_EQ(*r.Resolve(t + "/repo/models/a.tflite", "model file"),
            t + "/repo/models/a.tflite");
  EXPECT_FALSE(r.Resolve(t + "/nope.tflite", "model file").ok());
  EXPECT_FALSE(r.Resolve("", "model file").ok());
}

TEST(ResourcesTest, GraphFileDefaultsToItsRepositoryThenWorkingDirectory) {
  const std::string t = MakeTree();
  EXPECT_EQ(RepositoryRootOf(t + "/repo/graphs"), t + "/repo");
  Resources r = Resources::ForGraphFile(t + "/repo/graphs/g.pbtxt");
  ASSERT_GE(r.roots().size(), 2u);
  EXPECT_EQ(r.roots()[0], t + "/repo");
  EXPECT_EQ(*r.Resolve("models/a.tflite", "model file"),
            t + "/repo/models/a.tflite");
}

TEST(ResourcesTest, DuplicateRootsCollapse) {
  const std::string t = MakeTree();
  Resources r({t + "/repo", t + "/repo/", t + "/other/../repo"});
  EXPECT_EQ(r.roots().size(), 1u);
}

}  // namespace
}  // namespace rill
