#include <string>
#include <vector>

#include "framework/packet.h"
#include "framework/tag_map.h"
#include "framework/timestamp.h"
#include "gtest/gtest.h"

namespace rill {
namespace {

TEST(TimestampTest, SpecialValuesAreOrdered) {
  const std::vector<Timestamp> order = {
      Timestamp::Unset(),     Timestamp::Unstarted(), Timestamp::PreStream(),
      Timestamp::Min(),       Timestamp(0),           Timestamp::Max(),
      Timestamp::PostStream(), Timestamp::OneOverPostStream(),
      Timestamp::Done()};
  for (size_t i = 1; i < order.size(); ++i) {
    EXPECT_LT(order[i - 1], order[i]) << order[i - 1] << " vs " << order[i];
  }
  EXPECT_TRUE(Timestamp(5).IsRangeValue());
  EXPECT_FALSE(Timestamp::PostStream().IsRangeValue());
  EXPECT_TRUE(Timestamp::PostStream().IsAllowedInStream());
  EXPECT_TRUE(Timestamp::PreStream().IsAllowedInStream());
  EXPECT_FALSE(Timestamp::Done().IsAllowedInStream());
  EXPECT_FALSE(Timestamp::Unset().IsAllowedInStream());
}

TEST(TimestampTest, NextAllowedInStream) {
  EXPECT_EQ(Timestamp(4).NextAllowedInStream(), Timestamp(5));
  EXPECT_EQ(Timestamp::PreStream().NextAllowedInStream(), Timestamp::Min());
  EXPECT_EQ(Timestamp::Max().NextAllowedInStream(), Timestamp::PostStream());
  EXPECT_EQ(Timestamp::PostStream().NextAllowedInStream(), Timestamp::Done());
  EXPECT_TRUE(Timestamp::PostStream().HasNoAllowedNext());
  EXPECT_FALSE(Timestamp(3).HasNoAllowedNext());
}

TEST(TimestampTest, ArithmeticSaturates) {
  EXPECT_EQ(Timestamp(10) + TimestampDiff(5), Timestamp(15));
  EXPECT_EQ(Timestamp(10) - 3, Timestamp(7));
  EXPECT_EQ(Timestamp(10) - Timestamp(4), TimestampDiff(6));
  EXPECT_EQ(Timestamp::Max() + 1, Timestamp::Max());
  EXPECT_EQ(Timestamp::Min() - 1, Timestamp::Min());
  EXPECT_EQ(Timestamp(1) + TimestampDiff(std::numeric_limits<int64_t>::max()),
            Timestamp::Max());
  Timestamp t(1);
  t += TimestampDiff(2);
  ++t;
  EXPECT_EQ(t, Timestamp(4));
  EXPECT_EQ(Timestamp::FromSeconds(1.5), Timestamp(1500000));
  EXPECT_DOUBLE_EQ(Timestamp(2500000).Seconds(), 2.5);
}

TEST(TimestampDeathTest, ArithmeticOnSpecialValueAborts) {
  EXPECT_DEATH((void)(Timestamp::PostStream() + 1), "special value");
}

TEST(TimestampTest, DebugString) {
  EXPECT_EQ(Timestamp::PreStream().DebugString(), "Timestamp::PreStream()");
  EXPECT_EQ(Timestamp(42).DebugString(), "42");
}

TEST(PacketTest, HoldsAndSharesPayload) {
  Packet p = MakePacket<std::string>("hello").At(Timestamp(3));
  Packet q = p;
  EXPECT_EQ(p.Get<std::string>(), "hello");
  EXPECT_EQ(q.Timestamp(), Timestamp(3));
  EXPECT_EQ(p.PayloadId(), q.PayloadId());
  Packet r = q.At(Timestamp(9));
  EXPECT_EQ(r.Timestamp(), Timestamp(9));
  EXPECT_EQ(r.PayloadId(), p.PayloadId());
  EXPECT_TRUE(p.Holds<std::string>());
  EXPECT_FALSE(p.Holds<int>());
  EXPECT_TRUE(Packet().IsEmpty());
}

TEST(PacketTest, AdoptTakesOwnership) {
  Packet p = Adopt(new std::vector<int>{1, 2, 3}).At(Timestamp(1));
  EXPECT_EQ(p.Get<std::vector<int>>().size(), 3u);
}

TEST(PacketTest, WrongTypeIsAnErrorNamingBothTypes) {
  Packet p = MakePacket<int>(5);
  absl::Status s = p.ValidateAsType<std::string>();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("int"), std::string::npos) << s;
  EXPECT_NE(s.message().find("std::string"), std::string::npos) << s;
  EXPECT_FALSE(p.TryGet<float>().ok());
  EXPECT_EQ(**p.TryGet<int>(), 5);
  EXPECT_FALSE(Packet().ValidateAsType<int>().ok());
}

TEST(PacketDeathTest, GetWrongTypeNamesBothTypes) {
  Packet p = MakePacket<int>(5);
  EXPECT_DEATH((void)p.Get<double>(), "Get<double>.*holds int");
}

TEST(TagMapTest, ParsesAllForms) {
  auto map = TagMap::Create(std::vector<std::string>{
      "a", "b", "IMAGE:img", "TENSORS:1:t1", "TENSORS:0:t0", "X:x0", "X:x1"});
  ASSERT_TRUE(map.ok()) << map.status();
  const TagMap& m = **map;
  EXPECT_EQ(m.NumEntries(), 7);
  EXPECT_EQ(m.NumEntries(""), 2);
  EXPECT_EQ(m.Name(m.GetId("", 1)), "b");
  EXPECT_EQ(m.Name(m.GetId("IMAGE", 0)), "img");
  EXPECT_EQ(m.Name(m.GetId("TENSORS", 0)), "t0");
  EXPECT_EQ(m.Name(m.GetId("TENSORS", 1)), "t1");
  EXPECT_EQ(m.Name(m.GetId("X", 1)), "x1");
  EXPECT_EQ(m.GetId("NOPE", 0), -1);
  EXPECT_EQ(m.GetId("IMAGE", 1), -1);
  EXPECT_EQ(m.Canonical(m.GetId("TENSORS", 1)), "TENSORS:1:t1");
}

TEST(TagMapTest, RejectsMalformedEntries) {
  for (const char* bad : {"Bad:x", "TAG:x:y:z", "TAG:-1:x", "TAG:one:x",
                          "TAG:UPPER", "", "TAG:", "9TAG:x"}) {
    auto map = TagMap::Create(std::vector<std::string>{bad});
    EXPECT_FALSE(map.ok()) << bad;
  }
  EXPECT_FALSE(TagMap::Create(std::vector<std::string>{"T:0:a", "T:0:b"}).ok());
  EXPECT_FALSE(TagMap::Create(std::vector<std::string>{"T:0:a", "T:b"}).ok());
  EXPECT_FALSE(TagMap::Create(std::vector<std::string>{"T:1:a"}).ok());
}

}  // namespace
}  // namespace rill
