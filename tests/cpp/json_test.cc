// The JSON reader and writer against the contract in model/json.h and
// RFC 8259. Every expected value below is written out by hand.
#include "model/json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

namespace posenc {
namespace {

using Type = Json::Type;
using Number = Json::Number;

bool Parses(std::string_view text) {
  Json j;
  return ParseJson(text, &j);
}

Json MustParse(std::string_view text) {
  Json j;
  EXPECT_TRUE(ParseJson(text, &j)) << "text: " << text;
  return j;
}

std::string Nested(char open, char close, int depth) {
  std::string text;
  for (int i = 0; i < depth; ++i) text += open == '{' ? "{\"a\":" : "[";
  text += open == '{' ? "null" : "";
  for (int i = 0; i < depth; ++i) text += close;
  return text;
}

TEST(JsonParseTest, ReadsEveryValueType) {
  EXPECT_EQ(MustParse("null").type, Type::kNull);
  Json t = MustParse("true");
  EXPECT_EQ(t.type, Type::kBoolean);
  EXPECT_TRUE(t.boolean);
  Json f = MustParse("false");
  EXPECT_EQ(f.type, Type::kBoolean);
  EXPECT_FALSE(f.boolean);
  Json s = MustParse("\"hi\"");
  EXPECT_EQ(s.type, Type::kString);
  EXPECT_EQ(s.string, "hi");
  Json n = MustParse("42");
  EXPECT_EQ(n.type, Type::kNumber);
  EXPECT_EQ(n.number, Number::kUnsigned);
  EXPECT_EQ(n.unsigned_value, 42u);
  EXPECT_EQ(n.real, 42.0);
  EXPECT_TRUE(MustParse("[]").IsArray());
  EXPECT_TRUE(MustParse("[]").array.empty());
  EXPECT_TRUE(MustParse("{}").IsObject());
  EXPECT_TRUE(MustParse("{}").object.empty());
  EXPECT_EQ(MustParse("\"\"").string, "");
}

TEST(JsonParseTest, ReadsNestedContainersWithWhitespace) {
  Json j = MustParse(
      " \t\r\n{ \"a\" : [ 1 , true , null , { \"b\" : \"c\" } ] ,"
      "\n\"d\" : { } } \n");
  ASSERT_TRUE(j.IsObject());
  ASSERT_EQ(j.object.size(), 2u);
  const Json* a = j.Find("a");
  ASSERT_NE(a, nullptr);
  ASSERT_EQ(a->array.size(), 4u);
  EXPECT_EQ(a->array[0].unsigned_value, 1u);
  EXPECT_TRUE(a->array[1].boolean);
  EXPECT_EQ(a->array[2].type, Type::kNull);
  const Json* b = a->array[3].Find("b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->string, "c");
  ASSERT_NE(j.Find("d"), nullptr);
  EXPECT_TRUE(j.Find("d")->IsObject());
}

TEST(JsonParseTest, DecodesEscapes) {
  EXPECT_EQ(MustParse(R"("\"\\\/\b\f\n\r\t")").string, "\"\\/\b\f\n\r\t");
  EXPECT_EQ(MustParse(R"("\u0041\u00e9\u20AC")").string,
            "A\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(MustParse(R"("\uD83D\uDE00")").string, "\xF0\x9F\x98\x80");
  EXPECT_EQ(MustParse(R"("\u0000")").string, std::string(1, '\0'));
  EXPECT_EQ(MustParse("\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F\"").string,
            "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\x7F");
}

TEST(JsonParseTest, KeepsIntegersExactAndOtherNumbersAsDoubles) {
  Json zero = MustParse("0");
  EXPECT_EQ(zero.number, Number::kUnsigned);
  EXPECT_EQ(zero.unsigned_value, 0u);
  Json neg_zero = MustParse("-0");
  EXPECT_EQ(neg_zero.number, Number::kNegative);
  EXPECT_EQ(neg_zero.signed_value, 0);
  Json u64_max = MustParse("18446744073709551615");
  EXPECT_EQ(u64_max.number, Number::kUnsigned);
  EXPECT_EQ(u64_max.unsigned_value, std::numeric_limits<uint64_t>::max());
  Json above = MustParse("18446744073709551616");
  EXPECT_EQ(above.number, Number::kFloat);
  EXPECT_EQ(above.real, 18446744073709551616.0);
  Json i64_min = MustParse("-9223372036854775808");
  EXPECT_EQ(i64_min.number, Number::kNegative);
  EXPECT_EQ(i64_min.signed_value, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(i64_min.real, -9223372036854775808.0);
  Json below = MustParse("-9223372036854775809");
  EXPECT_EQ(below.number, Number::kFloat);
  EXPECT_EQ(below.real, -9223372036854775808.0);
  Json minus_one = MustParse("-1");
  EXPECT_EQ(minus_one.number, Number::kNegative);
  EXPECT_EQ(minus_one.signed_value, -1);
  EXPECT_EQ(minus_one.real, -1.0);
}

TEST(JsonParseTest, ReadsFractionsAndExponentsAsDoubles) {
  const struct {
    const char* text;
    double value;
  } cases[] = {
      {"1.5", 1.5},
      {"1e3", 1000.0},
      {"2.0", 2.0},
      {"1E-2", 0.01},
      {"-0.25", -0.25},
      {"1e+2", 100.0},
      {"0.1", 0.1},
      {"5e-324", 5e-324},
      {"1.7976931348623157e308", 1.7976931348623157e308},
  };
  for (const auto& c : cases) {
    Json j = MustParse(c.text);
    EXPECT_EQ(j.type, Type::kNumber) << c.text;
    EXPECT_EQ(j.number, Number::kFloat) << c.text;
    EXPECT_EQ(j.real, c.value) << c.text;
  }
}

TEST(JsonParseTest, AcceptsDepthLimitAndRefusesOneMore) {
  EXPECT_TRUE(Parses(Nested('[', ']', kMaxJsonDepth)));
  EXPECT_TRUE(Parses(Nested('{', '}', kMaxJsonDepth)));
  EXPECT_FALSE(Parses(Nested('[', ']', kMaxJsonDepth + 1)));
  EXPECT_FALSE(Parses(Nested('{', '}', kMaxJsonDepth + 1)));
  EXPECT_FALSE(Parses(std::string(100000, '[')));
}

TEST(JsonParseTest, RefusesBadSyntax) {
  const char* bad[] = {
      "",
      "   ",
      "{} x",
      "1 2",
      "{\"a\":",
      "[1",
      "\"abc",
      "tru",
      "True",
      "nul",
      "01",
      "-01",
      "1.",
      ".5",
      "+1",
      "1e",
      "1e+",
      "-",
      "NaN",
      "Infinity",
      "-Infinity",
      "'a'",
      "{'a':1}",
      "[1,]",
      "{\"a\":1,}",
      "[,]",
      "{\"a\" 1}",
      "{a:1}",
      "{\"a\":1 \"b\":2}",
      "[1 2]",
      "\f1",
      "\v1",
      "1e400",
      "-1e400",
      "]",
  };
  for (const char* text : bad) EXPECT_FALSE(Parses(text)) << "text: " << text;
}

TEST(JsonParseTest, RefusesBadStrings) {
  const std::string bad[] = {
      "\"a\x01z\"",                // unescaped control character
      "\"a\nz\"",                  // raw newline
      R"("\x")",                   // invalid escape
      R"("\u12")",                 // short \u escape
      R"("\ud800")",               // lone high surrogate
      R"("\ud800\u0041")",         // high surrogate not followed by a low one
      R"("\udc00")",               // lone low surrogate
      "\"\xff\"",                  // never valid in UTF-8
      "\"\xC0\x80\"",              // overlong NUL
      "\"\xE0\x80\xAF\"",          // overlong '/'
      "\"\xED\xA0\x80\"",          // encoded surrogate U+D800
      "\"\xE2\x82\"",              // truncated sequence
      "\"\xF4\x90\x80\x80\"",      // U+110000
      "\"\x80\"",                  // lone continuation byte
      "\xEF\xBB\xBF{}",            // byte order mark
      std::string("\"a\0b\"", 5),  // NUL inside a string
      std::string("[1]\0", 4),     // NUL after the value
      std::string("[1,\0 2]", 7),  // NUL between tokens
  };
  for (const std::string& text : bad) {
    EXPECT_FALSE(Parses(text)) << "text: " << text;
  }
}

TEST(JsonRepeatedKeyTest, KeepsLastValueAndReportsKey) {
  Json j;
  std::string repeated = "unset";
  ASSERT_TRUE(ParseJson(R"({"a":1,"a":2})", &j, &repeated));
  ASSERT_EQ(j.object.size(), 1u);
  EXPECT_EQ(j.object[0].key, "a");
  EXPECT_EQ(j.object[0].value.unsigned_value, 2u);
  EXPECT_EQ(repeated, "a");
}

TEST(JsonRepeatedKeyTest, ReportsKeyInNestedObject) {
  Json j;
  std::string repeated;
  ASSERT_TRUE(
      ParseJson(R"({"x":[{"b":true,"b":false}],"y":0})", &j, &repeated));
  EXPECT_EQ(repeated, "b");
  EXPECT_FALSE(j.Find("x")->array[0].Find("b")->boolean);
}

TEST(JsonRepeatedKeyTest, ReportsFirstObjectToClose) {
  Json j;
  std::string repeated;
  // The outer object repeats "x" first in the text, but the inner object
  // closes first.
  ASSERT_TRUE(ParseJson(R"({"x":1,"x":2,"y":{"z":1,"z":2}})", &j, &repeated));
  EXPECT_EQ(repeated, "z");
  // Within one object, the first repetition in reading order.
  ASSERT_TRUE(ParseJson(R"({"a":1,"b":1,"b":2,"a":2})", &j, &repeated));
  EXPECT_EQ(repeated, "b");
}

TEST(JsonRepeatedKeyTest, ClearsReportWhenKeysAreUnique) {
  Json j;
  std::string repeated = "stale";
  ASSERT_TRUE(ParseJson(R"({"a":1,"b":{"a":2}})", &j, &repeated));
  EXPECT_EQ(repeated, "");
  EXPECT_TRUE(ParseJson(R"({"a":1,"a":2})", &j));  // null pointer is fine
}

TEST(JsonObjectTest, SortsMembersBytewise) {
  Json j =
      MustParse("{\"b\":1,\"\xC3\xA9\":2,\"a\":3,\"B\":4,\"aa\":5,\"\":6}");
  const char* order[] = {"", "B", "a", "aa", "b", "\xC3\xA9"};
  ASSERT_EQ(j.object.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(j.object[i].key, order[i]) << i;
}

TEST(JsonObjectTest, FindHitsAndMisses) {
  Json j = MustParse(R"({"alpha":1,"beta":"two","gamma":null})");
  ASSERT_NE(j.Find("beta"), nullptr);
  EXPECT_EQ(j.Find("beta")->string, "two");
  ASSERT_NE(j.Find("gamma"), nullptr);
  EXPECT_EQ(j.Find("gamma")->type, Type::kNull);
  EXPECT_EQ(j.Find("alph"), nullptr);
  EXPECT_EQ(j.Find("alphaa"), nullptr);
  EXPECT_EQ(j.Find(""), nullptr);
  EXPECT_EQ(j.Find("zeta"), nullptr);
  EXPECT_EQ(MustParse("[1]").Find("alpha"), nullptr);
}

TEST(JsonObjectTest, SetInsertsInOrderAndReplaces) {
  Json j = Json::Object();
  EXPECT_TRUE(j.IsObject());
  j.Set("b", Json::Unsigned(1));
  j.Set("c", Json::Unsigned(2));
  j.Set("a", Json::Unsigned(3));
  j.Set("bb", Json::Unsigned(4));
  const char* order[] = {"a", "b", "bb", "c"};
  ASSERT_EQ(j.object.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(j.object[i].key, order[i]) << i;
  j.Set("b", Json::String("x"));
  ASSERT_EQ(j.object.size(), 4u);
  EXPECT_EQ(j.object[1].key, "b");
  EXPECT_EQ(j.object[1].value.string, "x");
  EXPECT_EQ(j.Find("a")->unsigned_value, 3u);
}

TEST(JsonValueTest, FactoriesSetKindAndReal) {
  EXPECT_TRUE(Json::Bool(true).boolean);
  EXPECT_EQ(Json::Bool(false).type, Type::kBoolean);
  Json u = Json::Unsigned(7);
  EXPECT_EQ(u.number, Number::kUnsigned);
  EXPECT_EQ(u.unsigned_value, 7u);
  EXPECT_EQ(u.real, 7.0);
  Json s = Json::Signed(-3);
  EXPECT_EQ(s.number, Number::kNegative);
  EXPECT_EQ(s.signed_value, -3);
  EXPECT_EQ(s.real, -3.0);
  Json d = Json::Double(2.5);
  EXPECT_EQ(d.number, Number::kFloat);
  EXPECT_EQ(d.real, 2.5);
  EXPECT_EQ(Json::String("q").string, "q");
  EXPECT_EQ(Json::Array({Json(), Json::Bool(true)}).array.size(), 2u);
}

TEST(JsonValueTest, GetUnsignedOnlyForNonNegativeIntegers) {
  uint64_t v = 99;
  EXPECT_TRUE(MustParse("5").GetUnsigned(&v));
  EXPECT_EQ(v, 5u);
  v = 99;
  EXPECT_TRUE(MustParse("-0").GetUnsigned(&v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(MustParse("18446744073709551615").GetUnsigned(&v));
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
  EXPECT_FALSE(MustParse("2.0").GetUnsigned(&v));
  EXPECT_FALSE(MustParse("-1").GetUnsigned(&v));
  EXPECT_FALSE(MustParse("\"5\"").GetUnsigned(&v));
  EXPECT_FALSE(MustParse("1e2").GetUnsigned(&v));
  EXPECT_FALSE(MustParse("null").GetUnsigned(&v));
}

TEST(JsonValueTest, TypeNames) {
  EXPECT_STREQ(MustParse("null").TypeName(), "null");
  EXPECT_STREQ(MustParse("false").TypeName(), "boolean");
  EXPECT_STREQ(MustParse("-1.5").TypeName(), "number");
  EXPECT_STREQ(MustParse("\"\"").TypeName(), "string");
  EXPECT_STREQ(MustParse("[]").TypeName(), "array");
  EXPECT_STREQ(MustParse("{}").TypeName(), "object");
}

TEST(JsonDumpTest, WritesCompactTextWithSortedKeys) {
  Json j = Json::Object();
  j.Set("b", Json::Array({Json::Unsigned(1), Json::Bool(true), Json(),
                          Json::String("x"), Json::Array({})}));
  j.Set("a", Json::Object());
  EXPECT_EQ(DumpJson(j), R"({"a":{},"b":[1,true,null,"x",[]]})");
  EXPECT_EQ(DumpJson(MustParse(" { \"z\" : false , \"y\" : [ ] } ")),
            R"({"y":[],"z":false})");
}

TEST(JsonDumpTest, ReproducesCompactSortedTextByteForByte) {
  const std::string text =
      R"({"__metadata__":{"format":"pt"},"w":{"data_offsets":[0,24],)"
      R"("dtype":"F32","shape":[2,3]}})";
  EXPECT_EQ(DumpJson(MustParse(text)), text);
}

TEST(JsonDumpTest, WritesIntegersExactly) {
  EXPECT_EQ(DumpJson(Json::Unsigned(0)), "0");
  EXPECT_EQ(DumpJson(Json::Unsigned(std::numeric_limits<uint64_t>::max())),
            "18446744073709551615");
  EXPECT_EQ(DumpJson(Json::Signed(std::numeric_limits<int64_t>::min())),
            "-9223372036854775808");
  EXPECT_EQ(DumpJson(Json::Signed(-42)), "-42");
  EXPECT_EQ(DumpJson(MustParse("9007199254740993")), "9007199254740993");
}

TEST(JsonDumpTest, WritesShortestDoubles) {
  const struct {
    double value;
    const char* text;
  } cases[] = {
      {2.0, "2.0"},
      {8.5, "8.5"},
      {0.1, "0.1"},
      {1e-05, "1e-05"},
      {1e+20, "1e+20"},
      {1e15, "1e+15"},
      {1e16, "1e+16"},
      {0.0001, "0.0001"},
      {-1.25, "-1.25"},
      {1.0 / 3, "0.3333333333333333"},
      {0.0, "0.0"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1.5e15, "1.5e+15"},
      {9007199254740992.0, "9.007199254740992e+15"},
      {1e14, "100000000000000.0"},
      {123456789012345680.0, "1.2345678901234568e+17"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(DumpJson(Json::Double(c.value)), c.text) << c.text;
  }
}

TEST(JsonDumpTest, WritesNonFiniteDoublesAsNull) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(DumpJson(Json::Double(std::nan(""))), "null");
  EXPECT_EQ(DumpJson(Json::Double(inf)), "null");
  EXPECT_EQ(DumpJson(Json::Double(-inf)), "null");
  EXPECT_EQ(DumpJson(Json::Array({Json::Double(inf)})), "[null]");
}

TEST(JsonDumpTest, EscapesStrings) {
  EXPECT_EQ(DumpJson(Json::String("a\"b\\c/")), R"("a\"b\\c/")");
  EXPECT_EQ(DumpJson(Json::String("\b\f\n\r\t")), R"("\b\f\n\r\t")");
  EXPECT_EQ(DumpJson(Json::String("\x01\x1f")), R"("\u0001\u001f")");
  EXPECT_EQ(DumpJson(Json::String(std::string(1, '\0'))), R"("\u0000")");
  EXPECT_EQ(DumpJson(Json::String("\x7f")), "\"\x7f\"");
  EXPECT_EQ(DumpJson(Json::String("\xC3\xA9\xF0\x9F\x98\x80")),
            "\"\xC3\xA9\xF0\x9F\x98\x80\"");
  EXPECT_EQ(DumpJson(Json::String("a\xff"
                                  "b")),
            "\"a\xEF\xBF\xBD"
            "b\"");
  Json keyed = Json::Object();
  keyed.Set("k\n", Json());
  EXPECT_EQ(DumpJson(keyed), R"({"k\n":null})");
}

TEST(JsonDumpTest, WritesContainersBeyondDepthLimitAsNull) {
  Json deep = Json::Array({});
  for (int i = 1; i < kMaxJsonDepth + 1; ++i) deep = Json::Array({deep});
  std::string expected = std::string(kMaxJsonDepth, '[') + "null" +
                         std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(DumpJson(deep), expected);
  Json at_limit = std::move(deep.array[0]);
  EXPECT_EQ(DumpJson(at_limit),
            std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'));
}

TEST(JsonRoundTripTest, DoublesReadBackExactly) {
  const double values[] = {5e-324,
                           1.7976931348623157e308,
                           0.1 + 0.2,
                           123456789012345680.0,
                           2.0,
                           -0.5,
                           1e-7,
                           1e22,
                           2.2250738585072014e-308,
                           9007199254740993.0};
  for (double d : values) {
    std::string text = DumpJson(Json::Double(d));
    Json back;
    ASSERT_TRUE(ParseJson(text, &back)) << text;
    EXPECT_EQ(back.number, Number::kFloat) << text;
    EXPECT_EQ(std::memcmp(&back.real, &d, sizeof d), 0) << text;
    EXPECT_EQ(DumpJson(back), text);
  }
}

TEST(JsonRoundTripTest, StringsReadBackExactly) {
  const std::string s = std::string("q\"\\/\b\f\n\r\t\x01\x7f\0", 12) +
                        "\xC3\xA9\xF0\x9F\x98\x80";
  Json back;
  ASSERT_TRUE(ParseJson(DumpJson(Json::String(s)), &back));
  EXPECT_EQ(back.string, s);
}

}  // namespace
}  // namespace posenc
