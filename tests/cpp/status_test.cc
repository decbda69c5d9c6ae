// Messages write numbers as JavaScript does: the expected strings below are
// what String(x) returns in Node for the same doubles.
#include "base/status.h"

#include <cmath>
#include <limits>

#include "gtest/gtest.h"

namespace posenc {
namespace {

TEST(JsNumberTest, WritesNumbersAsJavaScriptDoes) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(JsNumber(std::nan("")), "NaN");
  EXPECT_EQ(JsNumber(inf), "Infinity");
  EXPECT_EQ(JsNumber(-inf), "-Infinity");
  EXPECT_EQ(JsNumber(0.0), "0");
  EXPECT_EQ(JsNumber(-0.0), "0");
  EXPECT_EQ(JsNumber(0.1), "0.1");
  EXPECT_EQ(JsNumber(2.5), "2.5");
  EXPECT_EQ(JsNumber(-1.5), "-1.5");
  EXPECT_EQ(JsNumber(100), "100");
  EXPECT_EQ(JsNumber(1.0 / 3.0), "0.3333333333333333");
  EXPECT_EQ(JsNumber(1e-6), "0.000001");
  EXPECT_EQ(JsNumber(1e-7), "1e-7");
  EXPECT_EQ(JsNumber(123e-20), "1.23e-18");
  EXPECT_EQ(JsNumber(1e20), "100000000000000000000");
  EXPECT_EQ(JsNumber(1e21), "1e+21");
  EXPECT_EQ(JsNumber(std::ldexp(1.0, 60)), "1152921504606847000");
  EXPECT_EQ(JsNumber(123456789012345680000.0), "123456789012345680000");
  EXPECT_EQ(JsNumber(5e-324), "5e-324");
  EXPECT_EQ(JsNumber(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(JsNumber(0.1f),
            "0.10000000149011612");  // a float32 read as a number
}

TEST(StrCatTest, JoinsTextIntegersAndNumbers) {
  EXPECT_EQ(
      StrCat("headDim must be even, got ", 7, ", base ", 0.5, ", ",
             std::string("x"), ' ', true, " ", int64_t{-3}, " ", size_t{12}),
      "headDim must be even, got 7, base 0.5, x true -3 12");
}

}  // namespace
}  // namespace posenc
