#include "ops/encoding.h"

#include <gtest/gtest.h>

namespace posenc {
namespace {

TEST(Encoding, NamesRoundTripAndNopeIsExplicit) {
  for (int i = 0; i < kNumEncodings; ++i) {
    Encoding e;
    ASSERT_TRUE(ParseEncoding(EncodingName(static_cast<Encoding>(i)), &e).ok());
    EXPECT_EQ(static_cast<int>(e), i);
  }
  Encoding e;
  ASSERT_TRUE(ParseEncoding("nope", &e).ok());
  EXPECT_EQ(e, Encoding::kNope);
  EXPECT_STREQ(EncodingSite(Encoding::kNope), "none");
  EXPECT_STREQ(EncodingSite(Encoding::kRope), "qk");
  EXPECT_STREQ(EncodingSite(Encoding::kAlibi), "logits");
  const Status s = ParseEncoding("RoPE", &e);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("got 'RoPE'"), std::string::npos);
  EXPECT_STREQ(EncodingName(static_cast<Encoding>(99)), "invalid");
}

}  // namespace
}  // namespace posenc
