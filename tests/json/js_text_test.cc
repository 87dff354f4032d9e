// JavaScript string semantics over WTF-8: one decoder for every layer, so
// that lengths, cuts, trims and blank checks agree on any input.
#include "engine/json/js_text.h"

#include <gtest/gtest.h>

#include <string>

namespace retrace::json {
namespace {

TEST(JsTextTest, Utf16LengthCountsSurrogatePairsAsTwo) {
  EXPECT_EQ(Utf16Length(""), 0u);
  EXPECT_EQ(Utf16Length("abc"), 3u);
  EXPECT_EQ(Utf16Length("\xc3\xa9"), 1u);              // é
  EXPECT_EQ(Utf16Length("\xe2\x82\xac"), 1u);          // €
  EXPECT_EQ(Utf16Length("\xf0\x9f\x98\x80"), 2u);      // 😀
  EXPECT_EQ(Utf16Length("\xed\xa0\x80"), 1u);          // a lone surrogate (WTF-8)
}

TEST(JsTextTest, MalformedBytesCountAsOneCodePointEachEverywhere) {
  // A stray continuation byte, a truncated sequence at the end: each byte is
  // one code point of its own for every function alike.
  for (const std::string& s : {std::string("a\x80" "b"), std::string("ab\xe2\x82"), std::string("\xbf\xbf")}) {
    EXPECT_EQ(Utf16Length(s), static_cast<size_t>(CodePointLength(s))) << s;
    EXPECT_EQ(Utf16Prefix(s, Utf16Length(s)), s);
  }
  EXPECT_EQ(Utf16Length("ab\xe2\x82"), 4u);
  EXPECT_EQ(CodePointAt("\x80", 0), (std::pair<uint32_t, size_t>{0x80, 1}));
}

TEST(JsTextTest, Utf16PrefixCutsLikeSliceAndKeepsAHalfPairsHighSurrogate) {
  EXPECT_EQ(Utf16Prefix("abc", 2), "ab");
  EXPECT_EQ(Utf16Prefix("a\xf0\x9f\x98\x80" "b", 3), "a\xf0\x9f\x98\x80");
  EXPECT_EQ(Utf16Prefix("a\xf0\x9f\x98\x80" "b", 2), "a\xed\xa0\xbd");  // U+D83D alone
  EXPECT_EQ(Utf16Prefix("abc", 10), "abc");
}

TEST(JsTextTest, TrimAndBlankUseJavaScriptWhitespace) {
  EXPECT_EQ(JsTrim(" \t\n x y \xc2\xa0"), "x y");                     // U+00A0
  EXPECT_EQ(JsTrim("\xe2\x80\xa8" "x" "\xef\xbb\xbf"), "x");           // U+2028, U+FEFF
  EXPECT_EQ(JsTrim("\xe2\x80\x8b" "x"), "\xe2\x80\x8b" "x");           // U+200B is not whitespace
  EXPECT_TRUE(IsJsBlank(" \xe3\x80\x80\r\n"));                          // U+3000
  EXPECT_FALSE(IsJsBlank(" . "));
  EXPECT_TRUE(IsJsBlank(""));
}

TEST(JsTextTest, WellFormedUtf8WritesEachLoneSurrogateAsOneReplacementAsNodeDoes) {
  // "a" + U+D800 (lone, WTF-8) + U+1F600 (a pair) + U+DC00 (lone)
  EXPECT_EQ(ToWellFormedUtf8("a\xED\xA0\x80\xF0\x9F\x98\x80\xED\xB0\x80"),
            "a\xEF\xBF\xBD\xF0\x9F\x98\x80\xEF\xBF\xBD");
  EXPECT_EQ(ToWellFormedUtf8("plain \xE2\x80\x94 text"), "plain \xE2\x80\x94 text");
}

TEST(JsTextTest, StrictDecodingRefusesWhatTextDecoderRefusesAndDropsABom) {
  EXPECT_EQ(DecodeUtf8Strict("\xef\xbb\xbfok"), "ok");
  EXPECT_EQ(DecodeUtf8Strict("\xc0\x80"), std::nullopt);       // overlong
  EXPECT_EQ(DecodeUtf8Strict("\xed\xa0\x80"), std::nullopt);   // an encoded surrogate
  EXPECT_EQ(DecodeUtf8Strict("\xf4\x90\x80\x80"), std::nullopt);  // past U+10FFFF
}

TEST(JsTextTest, LossyDecodingReplacesEachMaximalIllFormedSubpart) {
  EXPECT_EQ(DecodeUtf8Lossy("a\xe2\x82" "b"), "a\xef\xbf\xbd" "b");     // one subpart, one U+FFFD
  EXPECT_EQ(DecodeUtf8Lossy("\x80\x80"), "\xef\xbf\xbd\xef\xbf\xbd");   // two stray bytes, two
  EXPECT_EQ(DecodeUtf8Lossy("\xef\xbb\xbfok"), "\xef\xbb\xbfok");       // the BOM is kept
}

}  // namespace
}  // namespace retrace::json
