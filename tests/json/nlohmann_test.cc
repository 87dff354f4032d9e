// The nlohmann_json adapter (engine/json/nlohmann.h): what both sides hold
// crosses exactly, both ways; what nlohmann cannot carry exactly is refused
// with the JSON Pointer of the value.
#include "engine/json/nlohmann.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "engine/json/parser.h"
#include "engine/json/writer.h"

namespace retrace::json {
namespace {

using ::testing::HasSubstr;

Value MustParse(const std::string& text) { return Parse(text).value(); }

TEST(NlohmannTest, EveryKindRoundTripsAndKeepsMemberOrderWithOrderedJson) {
  const std::string text =
      R"({"z":1,"a":[true,false,null,-2.5,"\u00e9\ud83d\ude00"],"m":{"k":9007199254740992,"e":1e300},"s":""})";
  Result<nlohmann::ordered_json> j = ToNlohmann<nlohmann::ordered_json>(MustParse(text));
  ASSERT_TRUE(j.ok()) << j.status().message();
  EXPECT_EQ(j->dump(), R"({"z":1,"a":[true,false,null,-2.5,"é😀"],"m":{"k":9007199254740992,"e":1e+300},"s":""})");
  Result<Value> back = FromNlohmann(*j);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Serialize(*back), Serialize(MustParse(text)));
}

TEST(NlohmannTest, IntegralNumbersBecomeNlohmannIntegersAndNegativeZeroStaysAFloat) {
  Result<nlohmann::json> j = ToNlohmann(MustParse(R"([3,-7,0.5,-0])"));
  ASSERT_TRUE(j.ok());
  EXPECT_EQ((*j)[0].get<int>(), 3);
  EXPECT_TRUE((*j)[1].is_number_integer());
  EXPECT_TRUE((*j)[2].is_number_float());
  EXPECT_TRUE((*j)[3].is_number_float());
  EXPECT_TRUE(std::signbit((*j)[3].get<double>()));
}

TEST(NlohmannTest, PlainNlohmannJsonSortsKeysWhichStillRoundTripsTheValues) {
  Result<nlohmann::json> j = ToNlohmann(MustParse(R"({"b":1,"a":2})"));
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->dump(), R"({"a":2,"b":1})");
  EXPECT_EQ(Serialize(FromNlohmann(*j).value()), R"({"a":2,"b":1})");
}

TEST(NlohmannTest, ALoneSurrogateIsRefusedNamingItsPath) {
  Result<nlohmann::json> j = ToNlohmann(MustParse(R"({"files":[{"path":"ok"},{"path":"bad\ud800"}]})"));
  ASSERT_FALSE(j.ok());
  EXPECT_EQ(j.status().code(), Status::Code::kInvalidArgument);
  EXPECT_THAT(j.status().message(), HasSubstr("at /files/1/path"));
  EXPECT_THAT(j.status().message(), HasSubstr("lone surrogate"));
  Result<nlohmann::json> key = ToNlohmann(MustParse(R"({"a/b~\ud800":1})"));
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(key.status().message(), HasSubstr("at /a~1b~0"));
}

TEST(NlohmannTest, IntegersThatWouldRoundAreRefusedAndExactLargeOnesPass) {
  nlohmann::json j = {{"n", {{"id", std::int64_t{9007199254740993}}}}};  // 2^53 + 1
  Result<Value> v = FromNlohmann(j);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("at /n/id"));
  EXPECT_THAT(v.status().message(), HasSubstr("9007199254740993 is beyond 2^53"));
  EXPECT_FALSE(FromNlohmann(nlohmann::json(std::numeric_limits<std::uint64_t>::max())).ok());
  EXPECT_FALSE(FromNlohmann(nlohmann::json(std::numeric_limits<std::int64_t>::max())).ok());
  // Exactly representable, however large: 2^60 and -2^63.
  EXPECT_TRUE(FromNlohmann(nlohmann::json(std::int64_t{1} << 60)).ok());
  EXPECT_TRUE(FromNlohmann(nlohmann::json(std::numeric_limits<std::int64_t>::min())).ok());
  EXPECT_EQ(FromNlohmann(nlohmann::json(std::uint64_t{9007199254740992})).value().as_number(), 9007199254740992.0);
}

TEST(NlohmannTest, InvalidUtf8NonFiniteNumbersBinaryAndDuplicateKeysAreRefused) {
  EXPECT_THAT(FromNlohmann(nlohmann::json{{"s", std::string("\xff")}}).status().message(),
              HasSubstr("at /s: the string is not valid UTF-8"));
  EXPECT_THAT(FromNlohmann(nlohmann::json{{std::string("k\xc0"), 1}}).status().message(),
              HasSubstr("the key is not valid UTF-8"));
  EXPECT_THAT(FromNlohmann(nlohmann::json::array({1, std::numeric_limits<double>::quiet_NaN()})).status().message(),
              HasSubstr("at /1: NaN"));
  EXPECT_THAT(FromNlohmann(nlohmann::json::binary({1, 2})).status().message(),
              HasSubstr("at the top level: nlohmann_json binary values"));
  // ordered_json's members are a vector; a hand-built one can hold a key twice.
  nlohmann::ordered_json twice = nlohmann::ordered_json::object();
  twice.get_ref<nlohmann::ordered_json::object_t&>().push_back({"k", 1});
  twice.get_ref<nlohmann::ordered_json::object_t&>().push_back({"k", 2});
  EXPECT_THAT(FromNlohmann(twice).status().message(), HasSubstr("at /k: the key appears twice"));
}

}  // namespace
}  // namespace retrace::json
