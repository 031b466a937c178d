// The registries' rule for a name registered twice: the same place replaces,
// another place is a conflict that keeps the first entry and fails lookups
// and CheckRegistrations naming both places.
#include "framework/registry.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

using ::testing::HasSubstr;

TEST(RegistryTest, SamePlaceReplaces) {
  Registry<int> registry("widget");
  EXPECT_TRUE(registry.Register("A", 1, "a.cc"));
  EXPECT_TRUE(registry.Register("A", 2, "a.cc"));
  auto entry = registry.Lookup("A");
  ASSERT_TRUE(entry.ok()) << entry.status();
  EXPECT_EQ(*entry, 2);
  EXPECT_TRUE(registry.ConflictStatus().ok());
}

TEST(RegistryTest, RegistrationsWithoutAPlaceReplace) {
  // Subgraph configs registered at run time carry no place.
  Registry<int> registry("subgraph");
  EXPECT_TRUE(registry.Register("G", 1));
  EXPECT_TRUE(registry.Register("G", 2));
  EXPECT_EQ(*registry.Lookup("G"), 2);
  EXPECT_TRUE(registry.ConflictStatus().ok());
}

TEST(RegistryTest, AnotherPlaceIsAConflictNamingBoth) {
  Registry<int> registry("calculator");
  EXPECT_TRUE(registry.Register("Other", 7, "other.cc"));
  EXPECT_TRUE(registry.Register("Dup", 1, "calculators/first.cc"));
  EXPECT_FALSE(registry.Register("Dup", 2, "plugin/second.cc"));
  EXPECT_TRUE(registry.IsRegistered("Dup"));

  auto entry = registry.Lookup("Dup");
  ASSERT_FALSE(entry.ok());
  EXPECT_EQ(entry.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(entry.status().message(),
              HasSubstr("calculator \"Dup\" is registered twice, in "
                        "calculators/first.cc and in plugin/second.cc"));
  // A qualified name finds the conflict too.
  EXPECT_FALSE(registry.Lookup("mediapipe.Dup").ok());
  // Other names are unaffected.
  EXPECT_EQ(*registry.Lookup("Other"), 7);

  ASSERT_EQ(registry.Conflicts().size(), 1u);
  EXPECT_EQ(registry.Conflicts()[0].first, "calculators/first.cc");
  EXPECT_EQ(registry.Conflicts()[0].second, "plugin/second.cc");
  const absl::Status all = registry.ConflictStatus();
  EXPECT_THAT(all.message(), HasSubstr("calculators/first.cc"));
  EXPECT_THAT(all.message(), HasSubstr("plugin/second.cc"));
  // Conflicts from a given count on: what one plugin load added.
  EXPECT_TRUE(registry.ConflictStatus(1).ok());
}

}  // namespace
}  // namespace rill
