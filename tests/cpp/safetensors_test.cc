#include "model/safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "model/rng.h"

namespace posenc {
namespace {

// ---------------------------------------------------------------------------
// Helpers: files are built byte by byte from the spec, never by the writer.

// uint64 little-endian, the header length field.
std::string Le64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// float32 little-endian, from the bit pattern (independent of host order).
std::string F32(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i)
    s[i] = static_cast<char>((bits >> (8 * i)) & 0xff);
  return s;
}

std::string F32s(const std::vector<float>& v) {
  std::string s;
  for (float f : v) s += F32(f);
  return s;
}

// A file with an unpadded header (so data starts at an odd offset).
std::string File(const std::string& header, const std::string& data) {
  return Le64(header.size()) + header + data;
}

Status Parse(const std::string& bytes, StFile* out) {
  return ParseSafetensors(reinterpret_cast<const uint8_t*>(bytes.data()),
                          bytes.size(), out);
}

Status Parse(const std::string& bytes) {
  StFile out;
  return Parse(bytes, &out);
}

bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

void ExpectSameFile(const StFile& got, const StFile& want) {
  EXPECT_EQ(got.metadata, want.metadata);
  ASSERT_EQ(got.tensors.size(), want.tensors.size());
  for (size_t i = 0; i < want.tensors.size(); ++i) {
    const StTensor& g = got.tensors[i];
    const StTensor& w = want.tensors[i];
    EXPECT_EQ(g.name, w.name) << i;
    EXPECT_EQ(g.shape, w.shape) << w.name;
    EXPECT_TRUE(SameBits(g.data, w.data)) << w.name;
  }
}

// The golden file, written by hand from the spec: metadata {"format": "pt"},
// a = [1, -2] (shape [2]), b = 0.5 (scalar). Header 138 bytes of compact JSON
// with sorted keys + 6 spaces = 144 = 0x90.
std::string GoldenBytes() {
  const char header[] =
      "{\"__metadata__\":{\"format\":\"pt\"},"
      "\"a\":{\"data_offsets\":[0,8],\"dtype\":\"F32\",\"shape\":[2]},"
      "\"b\":{\"data_offsets\":[8,12],\"dtype\":\"F32\",\"shape\":[]}}"
      "      ";
  const unsigned char length[8] = {0x90, 0, 0, 0, 0, 0, 0, 0};
  const unsigned char data[12] = {
      0x00, 0x00, 0x80, 0x3f,  // 1.0f  = 0x3f800000
      0x00, 0x00, 0x00, 0xc0,  // -2.0f = 0xc0000000
      0x00, 0x00, 0x00, 0x3f,  // 0.5f  = 0x3f000000
  };
  std::string s(reinterpret_cast<const char*>(length), 8);
  s += std::string(header, sizeof(header) - 1);
  s += std::string(reinterpret_cast<const char*>(data), 12);
  return s;
}

StFile GoldenFile() {
  StFile f;
  f.metadata["format"] = "pt";
  f.tensors.push_back({"a", {2}, {1.0f, -2.0f}});
  f.tensors.push_back({"b", {}, {0.5f}});
  return f;
}

// A richer valid file: unsorted input, a zero-size tensor, special values.
StFile RichFile() {
  StFile f;
  f.metadata["format"] = "pt";
  f.metadata["note"] = "caf\xc3\xa9 \xe2\x9c\x93";  // UTF-8
  f.metadata["empty"] = "";
  f.tensors.push_back(
      {"wq", {2, 3}, {0.0f, -0.0f, FLT_MIN, -FLT_MAX, 1e-45f, 3.14159f}});
  f.tensors.push_back({"bias", {3}, {1.0f, 2.0f, 3.0f}});
  f.tensors.push_back({"empty", {0, 4}, {}});
  f.tensors.push_back({"scale", {}, {0.125f}});
  f.tensors.push_back({"emb", {4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}});
  return f;
}

// ---------------------------------------------------------------------------
// Valid files.

TEST(Safetensors, ParsesGoldenBytesWrittenFromTheSpec) {
  StFile got;
  ASSERT_TRUE(Parse(GoldenBytes(), &got).ok())
      << Parse(GoldenBytes()).message();
  ExpectSameFile(got, GoldenFile());
  ASSERT_NE(got.Find("b"), nullptr);
  EXPECT_EQ(got.Find("b")->data, std::vector<float>{0.5f});
  EXPECT_EQ(got.Find("c"), nullptr);
}

TEST(Safetensors, WriterProducesTheGoldenBytes) {
  EXPECT_EQ(WriteSafetensors(GoldenFile()), GoldenBytes());
}

TEST(Safetensors, RoundTripIsBitExactAndSortsByName) {
  const StFile in = RichFile();
  const std::string bytes = WriteSafetensors(in);
  uint64_t header_len = 0;
  for (int i = 0; i < 8; ++i) {
    header_len |= uint64_t{static_cast<uint8_t>(bytes[i])} << (8 * i);
  }
  EXPECT_EQ(header_len % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + header_len + 4 * (6 + 3 + 0 + 1 + 8));

  StFile got;
  const Status st = Parse(bytes, &got);
  ASSERT_TRUE(st.ok()) << st.message();
  StFile want = in;
  std::sort(
      want.tensors.begin(), want.tensors.end(),
      [](const StTensor& a, const StTensor& b) { return a.name < b.name; });
  ExpectSameFile(got, want);
  // Writing the parsed file again gives the same bytes.
  EXPECT_EQ(WriteSafetensors(got), bytes);
}

TEST(Safetensors, EmptyFileRoundTrips) {
  const std::string bytes = WriteSafetensors(StFile{});
  EXPECT_EQ(bytes, Le64(8) + "{}      ");
  StFile got;
  got.metadata["stale"] = "x";
  ASSERT_TRUE(Parse(bytes, &got).ok());
  EXPECT_TRUE(got.metadata.empty());
  EXPECT_TRUE(got.tensors.empty());
}

TEST(Safetensors, ReadsUnalignedBuffersAndUnpaddedHeaders) {
  // Header of odd length, file placed at an odd address.
  const std::string file =
      File("{\"x\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]}}",
           F32s({1.5f, -2.5f, 1e30f}));
  std::vector<uint8_t> buf(file.size() + 1);
  std::memcpy(buf.data() + 1, file.data(), file.size());
  StFile got;
  const Status st = ParseSafetensors(buf.data() + 1, file.size(), &got);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(got.tensors.size(), 1u);
  EXPECT_EQ(got.tensors[0].data, (std::vector<float>{1.5f, -2.5f, 1e30f}));
}

TEST(Safetensors, AcceptsZeroSizeTensorsAndNonAsciiNames) {
  const std::string file = File(
      "{\"z\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[4,4]},"
      "\"\xc3\xa9\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
      "\"z0\":{\"dtype\":\"F32\",\"shape\":[2,0],\"data_offsets\":[0,0]}}",
      F32(7.0f));
  StFile got;
  const Status st = Parse(file, &got);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_EQ(got.tensors.size(), 3u);
  EXPECT_EQ(got.tensors[0].name, "z");
  EXPECT_EQ(got.tensors[2].name, "\xc3\xa9");
  EXPECT_EQ(got.tensors[2].data, std::vector<float>{7.0f});
}

// ---------------------------------------------------------------------------
// Corrupt inputs.

TEST(Safetensors, EveryTruncationIsAnErrorNeverACrash) {
  for (const std::string& full :
       {GoldenBytes(), WriteSafetensors(RichFile())}) {
    for (size_t len = 0; len < full.size(); ++len) {
      // A fresh copy of exactly len bytes, so ASan catches any overread.
      std::vector<uint8_t> prefix(full.begin(), full.begin() + len);
      StFile out;
      const Status st = ParseSafetensors(prefix.data(), len, &out);
      ASSERT_FALSE(st.ok()) << "prefix of " << len << " bytes parsed";
      EXPECT_FALSE(st.message().empty());
    }
    EXPECT_TRUE(Parse(full).ok());
  }
  EXPECT_NE(Parse(GoldenBytes().substr(0, 7)).message().find("7 bytes"),
            std::string::npos);
}

TEST(Safetensors, ErrorLeavesOutputUntouched) {
  StFile out = GoldenFile();
  std::string bad = GoldenBytes();
  // b's bytes 00 00 00 3f (0.5f) become 00 00 80 7f: +Inf.
  bad[bad.size() - 2] = '\x80';
  bad[bad.size() - 1] = '\x7f';
  EXPECT_FALSE(Parse(bad, &out).ok());
  ExpectSameFile(out, GoldenFile());
  EXPECT_FALSE(ParseSafetensors(nullptr, 0, &out).ok());
  EXPECT_FALSE(
      ParseSafetensors(reinterpret_cast<const uint8_t*>("x"), 1, nullptr).ok());
}

struct BadCase {
  const char* what;
  std::string bytes;
  const char* message;  // a substring of the expected error
};

// An entry "a" of shape `shape` at `offsets`.
std::string Entry(const std::string& name, const std::string& shape,
                  const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"F32\",\"shape\":" + shape +
         ",\"data_offsets\":" + offsets + "}";
}

std::vector<BadCase> BadCases() {
  const std::string two = F32s({1.0f, 2.0f});
  const std::string a2 = Entry("a", "[2]", "[0,8]");
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  return {
      // Length field.
      {"short file", "{}", "2 bytes, too short"},
      {"header length 0", Le64(0) + "{}",
       "not a safetensors file: its header length (the first 8 bytes) is 0"},
      {"header past the end", Le64(1000) + "{}      ",
       "header length 1000 exceeds the 8 bytes"},
      {"header length huge", Le64(~uint64_t{0}) + "{}",
       "over the limit of 100000000 bytes"},
      {"header over 100 MB", Le64(100000001) + "{}",
       "header length (the first 8 bytes) is 100000001, over the limit"},
      // JSON.
      {"truncated JSON", File("{\"a\":", ""), "not valid UTF-8 JSON"},
      {"trailing garbage", File("{} x", ""), "not valid UTF-8 JSON"},
      {"invalid UTF-8 key", File("{\"\xff\":1}", ""), "not valid UTF-8"},
      {"NUL in header", File(std::string("{}\0x", 4), ""),
       "header has a NUL byte at offset 2"},
      {"NUL in string", File(std::string("{\"a\0\":1}", 7), ""),
       "NUL byte at offset 3"},
      {"BOM", File("\xef\xbb\xbf{}", ""), "must start with '{', got byte 239"},
      {"leading space", File(" {}", ""), "must start with '{', got byte 32"},
      {"not an object", File("[1,2]", ""), "must start with '{', got byte 91"},
      {"unbalanced", File("{\"a\":{}", ""), "not valid UTF-8 JSON"},
      {"repeated tensor", File("{" + a2 + "," + a2 + "}", two),
       "repeats the key \"a\""},
      {"repeated field",
       File("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],"
            "\"data_offsets\":[0,8]}}",
            two),
       "repeats the key \"dtype\""},
      // __metadata__.
      {"metadata array", File("{\"__metadata__\":[1]}", ""),
       "__metadata__ must be an object of strings, got array"},
      {"metadata null", File("{\"__metadata__\":null}", ""),
       "__metadata__ must be an object of strings, got null"},
      {"metadata number", File("{\"__metadata__\":{\"k\":1}}", ""),
       "__metadata__ value of \"k\" must be a string, got 1"},
      // Entry structure.
      {"entry not object", File("{\"a\":[0,8]}", two),
       "tensor \"a\": entry must be an object, got array"},
      {"no dtype", File("{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", two),
       "tensor \"a\": entry lacks \"dtype\""},
      {"no shape",
       File("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", two),
       "lacks \"shape\""},
      {"no offsets", File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", two),
       "lacks \"data_offsets\""},
      {"extra key",
       File("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],"
            "\"extra\":1}}",
            two),
       "unexpected key \"extra\""},
      // dtype.
      {"dtype F16",
       File("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}",
            F32(1.0f)),
       "dtype \"F16\" is not supported, only \"F32\""},
      {"dtype f32 lower case",
       File("{\"a\":{\"dtype\":\"f32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
            two),
       "dtype \"f32\" is not supported"},
      {"dtype number",
       File("{\"a\":{\"dtype\":32,\"shape\":[2],\"data_offsets\":[0,8]}}", two),
       "dtype 32 is not supported"},
      // shape.
      {"shape not array", File("{" + Entry("a", "2", "[0,8]") + "}", two),
       "shape must be an array, got 2"},
      {"negative dim", File("{" + Entry("a", "[-2]", "[0,8]") + "}", two),
       "shape[0] must be an integer in [0, 2^31], got -2"},
      {"float dim", File("{" + Entry("a", "[1,2.0]", "[0,8]") + "}", two),
       "shape[1] must be an integer in [0, 2^31], got 2.0"},
      {"string dim", File("{" + Entry("a", "[\"2\"]", "[0,8]") + "}", two),
       "shape[0] must be an integer"},
      {"nested dim", File("{" + Entry("a", "[[[[2]]]]", "[0,8]") + "}", two),
       "shape[0] must be an integer in [0, 2^31], got array"},
      {"dim over 2^31",
       File("{" + Entry("a", "[2147483649]", "[0,8]") + "}", two),
       "got 2147483649"},
      {"dim over 2^64",
       File("{" + Entry("a", "[99999999999999999999]", "[0,8]") + "}", two),
       "shape[0] must be an integer"},
      {"element overflow",
       File("{" + Entry("a", "[2147483648,2147483648,2147483648]", "[0,8]") +
                "}",
            two),
       "element count overflows at shape[1] = 2147483648 (over 2^61"},
      {"element overflow late",
       File("{" + Entry("a", "[0,2147483648,2147483648,2147483648]", "[0,0]") +
                "}",
            ""),
       "overflows at shape[2]"},
      // data_offsets.
      {"offsets not array", File("{" + Entry("a", "[2]", "8") + "}", two),
       "data_offsets must be [begin, end] non-negative integers, got 8"},
      {"offsets three", File("{" + Entry("a", "[2]", "[0,4,8]") + "}", two),
       "data_offsets must be [begin, end]"},
      {"offsets negative", File("{" + Entry("a", "[2]", "[-8,0]") + "}", two),
       "got [-8, 0]"},
      {"offsets float", File("{" + Entry("a", "[2]", "[0,8.5]") + "}", two),
       "got [0, 8.5]"},
      {"begin after end", File("{" + Entry("a", "[0]", "[8,4]") + "}", two),
       "data_offsets begin 8 > end 4"},
      {"end past data", File("{" + Entry("a", "[3]", "[0,12]") + "}", two),
       "data_offsets end 12 is past the data size 8"},
      {"end huge",
       File("{" + Entry("a", "[2]", "[0,18446744073709551615]") + "}", two),
       "is past the data size 8"},
      {"size mismatch", File("{" + Entry("a", "[2]", "[0,4]") + "}", two),
       "data_offsets cover 4 bytes but shape [2] of F32 needs 8"},
      {"size mismatch 2d", File("{" + Entry("a", "[1,3]", "[0,8]") + "}", two),
       "cover 8 bytes but shape [1, 3] of F32 needs 12"},
      // Coverage of the data buffer.
      {"overlap",
       File("{" + Entry("a", "[2]", "[0,8]") + "," +
                Entry("b", "[2]", "[4,12]") + "}",
            F32s({1, 2, 3})),
       "tensors \"a\" [0, 8) and \"b\" [4, 12) overlap"},
      {"same range twice",
       File("{" + Entry("a", "[2]", "[0,8]") + "," +
                Entry("b", "[2]", "[0,8]") + "}",
            two),
       "overlap"},
      {"empty tensor inside another",
       File("{" + Entry("a", "[2]", "[0,8]") + "," +
                Entry("b", "[0]", "[4,4]") + "}",
            two),
       "overlap"},
      {"hole",
       File("{" + Entry("a", "[1]", "[0,4]") + "," +
                Entry("b", "[1]", "[8,12]") + "}",
            F32s({1, 2, 3})),
       "data bytes [4, 8) are not covered by any tensor (hole before \"b\")"},
      {"hole at start", File("{" + Entry("a", "[1]", "[4,8]") + "}", two),
       "data bytes [0, 4) are not covered"},
      {"trailing bytes", File("{" + Entry("a", "[1]", "[0,4]") + "}", two),
       "data bytes [4, 8) are not covered by any tensor (hole at the end"},
      {"data but no tensors", File("{}", two), "data bytes [0, 8)"},
      // Values.
      {"NaN", File("{" + a2 + "}", F32s({1.0f, nan})),
       "tensor \"a\" has a NaN at element 1"},
      {"negative NaN", File("{" + a2 + "}", F32s({-nan, 1.0f})),
       "has a NaN at element 0"},
      {"Inf", File("{" + a2 + "}", F32s({1.0f, -inf})),
       "tensor \"a\" has an Inf at element 1"},
  };
}

TEST(Safetensors, RejectsCorruptInputsWithNamedErrors) {
  for (const BadCase& c : BadCases()) {
    // An exact-size copy, so ASan sees any read past the end.
    std::vector<uint8_t> bytes(c.bytes.begin(), c.bytes.end());
    StFile out;
    const Status st = ParseSafetensors(bytes.data(), bytes.size(), &out);
    ASSERT_FALSE(st.ok()) << c.what;
    EXPECT_NE(st.message().find(c.message), std::string::npos)
        << c.what << ": message \"" << st.message() << "\" lacks \""
        << c.message << "\"";
  }
}

TEST(Safetensors, RandomByteFlipsNeverCrash) {
  const std::string valid = WriteSafetensors(RichFile());
  SplitMix64 rng(20240611);
  int ok = 0, errors = 0;
  for (int iter = 0; iter < 2000; ++iter) {
    std::vector<uint8_t> bytes(valid.begin(), valid.end());
    const int flips = 1 + static_cast<int>(rng.Below(4));
    for (int f = 0; f < flips; ++f) {
      // Half the flips land in the length field + header, where they matter.
      const uint32_t limit = rng.Below(2) ? 8 + 200 : bytes.size();
      bytes[rng.Below(limit)] ^= static_cast<uint8_t>(1 + rng.Below(255));
    }
    StFile out;
    const Status st = ParseSafetensors(bytes.data(), bytes.size(), &out);
    if (st.ok()) {
      ++ok;
      // Whatever parsed is consistent: it writes and re-parses identically.
      StFile again;
      const std::string rewritten = WriteSafetensors(out);
      ASSERT_TRUE(Parse(rewritten, &again).ok()) << "iteration " << iter;
      ExpectSameFile(again, out);
      ASSERT_TRUE(
          CheckTensorSet(
              out,
              [&] {
                std::vector<std::pair<std::string, std::vector<int64_t>>> s;
                for (const StTensor& t : out.tensors) {
                  s.push_back({t.name, t.shape});
                }
                return s;
              }())
              .ok());
    } else {
      ++errors;
      ASSERT_FALSE(st.message().empty());
    }
  }
  // Both outcomes occur: the checks are neither vacuous nor always failing.
  EXPECT_GT(ok, 50);
  EXPECT_GT(errors, 50);
}

// ---------------------------------------------------------------------------
// CheckTensorSet.

TEST(Safetensors, CheckTensorSetAcceptsTheExactSetInAnyOrder) {
  EXPECT_TRUE(CheckTensorSet(GoldenFile(), {{"b", {}}, {"a", {2}}}).ok());
  EXPECT_TRUE(CheckTensorSet(StFile{}, {}).ok());
}

TEST(Safetensors, CheckTensorSetNamesTheFirstProblem) {
  struct SetCase {
    const char* what;
    std::vector<std::pair<std::string, std::vector<int64_t>>> expected;
    const char* message;
  };
  const std::vector<SetCase> cases = {
      {"missing",
       {{"a", {2}}, {"b", {}}, {"c", {4, 4}}},
       "tensor \"c\" is missing (file has 2 tensors)"},
      {"extra", {{"a", {2}}}, "unexpected tensor \"b\" with shape []"},
      {"wrong shape",
       {{"a", {1, 2}}, {"b", {}}},
       "tensor \"a\" has shape [2], expected [1, 2]"},
      {"scalar vs [1]",
       {{"a", {2}}, {"b", {1}}},
       "tensor \"b\" has shape [], expected [1]"},
      {"missing before extra", {{"x", {1}}}, "tensor \"x\" is missing"},
      {"duplicate expected",
       {{"a", {2}}, {"a", {2}}, {"b", {}}},
       "names \"a\" twice"},
  };
  for (const SetCase& c : cases) {
    const Status st = CheckTensorSet(GoldenFile(), c.expected);
    ASSERT_FALSE(st.ok()) << c.what;
    EXPECT_NE(st.message().find(c.message), std::string::npos)
        << c.what << ": message \"" << st.message() << "\"";
  }
}

}  // namespace
}  // namespace posenc
