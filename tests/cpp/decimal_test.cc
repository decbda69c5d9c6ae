// ShortestDigits and ParseDouble against the C library they replace
// (snprintf "%.*e" + strtod, which are exact in glibc and in musl): the same
// digits, the same doubles, the same end of the number.
#include "base/decimal.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace posenc {
namespace {

// The former implementation: the first precision whose "%.*e" reads back.
void LibcShortest(double v, std::string* digits, int* point) {
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, v);
    if (precision == 17 || std::strtod(buf, nullptr) == v) break;
  }
  const char* p = buf[0] == '-' ? buf + 1 : buf;
  const char* e = std::strchr(p, 'e');
  digits->clear();
  for (const char* q = p; q < e; ++q) {
    if (*q != '.') digits->push_back(*q);
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  *point = std::atoi(e + 1) + 1;
}

double FromBits(uint64_t b) {
  double d;
  std::memcpy(&d, &b, sizeof(d));
  return d;
}

uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof(b));
  return b;
}

void ExpectShortest(double v) {
  std::string want, got;
  int want_point = 0, got_point = 0;
  LibcShortest(v, &want, &want_point);
  ShortestDigits(v, &got, &got_point);
  ASSERT_EQ(got, want) << "v = " << v;
  ASSERT_EQ(got_point, want_point) << "v = " << v;
}

void ExpectParse(const std::string& text) {
  char* want_end;
  const double want = std::strtod(text.c_str(), &want_end);
  const char* got_end;
  const double got = ParseDouble(text.c_str(), &got_end);
  if (!std::isfinite(want) && want_end != text.c_str()) {
    // Out of range (or inf / nan, which ParseDouble does not read).
    if (std::isinf(want) && got_end == want_end) {
      ASSERT_EQ(got, want) << text;
    }
    return;
  }
  ASSERT_EQ(Bits(got), Bits(want)) << text;
  ASSERT_EQ(got_end, want_end) << text;
}

std::vector<double> EdgeValues() {
  std::vector<double> v = {0.1,
                           0.2,
                           0.3,
                           1.0 / 3.0,
                           2.5,
                           100,
                           1e-6,
                           1e-7,
                           1e20,
                           1e21,
                           1e22,
                           1e23,
                           5e-324,
                           1e-323,
                           2.2250738585072014e-308,
                           2.2250738585072009e-308,
                           DBL_MAX,
                           9007199254740993.0,
                           0.1f,
                           1e-5f,
                           3.4028234663852886e38,
                           123456789012345680000.0,
                           std::ldexp(1.0, 60)};
  for (int e = -1074; e <= 1023; ++e) v.push_back(std::ldexp(1.0, e));
  for (int e = -323; e <= 308; ++e)
    v.push_back(std::strtod(("1e" + std::to_string(e)).c_str(), nullptr));
  for (int i = 1; i < 1000; ++i) v.push_back(i * 0.001);
  return v;
}

TEST(DecimalTest, ShortestDigitsMatchesPrintf) {
  for (double v : EdgeValues()) ExpectShortest(v);
  std::mt19937_64 rng(14);
  for (int i = 0; i < 20000; ++i) {
    const double v = FromBits(rng() & ~(uint64_t{1} << 63));
    if (!std::isfinite(v) || v == 0.0) continue;
    ExpectShortest(v);
    const float f = static_cast<float>(v);
    if (std::isfinite(f) && f != 0.0f) ExpectShortest(f);
  }
  // Neighbours of doubles with few digits (where printf rounding and
  // read-back decide).
  for (int i = 0; i < 5000; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%de%d", static_cast<int>(rng() % 100000),
                  static_cast<int>(rng() % 640) - 320);
    const double v = std::strtod(buf, nullptr);
    if (!std::isfinite(v) || v == 0.0) continue;
    ExpectShortest(v);
    ExpectShortest(std::nextafter(v, 0.0));
    ExpectShortest(std::nextafter(v, DBL_MAX));
  }
}

TEST(DecimalTest, ParseDoubleMatchesStrtod) {
  for (double v : EdgeValues()) {
    char buf[40];
    for (int p : {1, 6, 15, 16, 17, 25}) {
      std::snprintf(buf, sizeof(buf), "%.*e", p - 1, v);
      ExpectParse(buf);
      std::snprintf(buf, sizeof(buf), "%.*g", p, -v);
      ExpectParse(buf);
      std::snprintf(buf, sizeof(buf), "%a", v);
      ExpectParse(buf);
    }
  }
  for (const char* text :
       {"",
        " ",
        "-",
        "+",
        ".",
        "e5",
        ".e1",
        "0",
        "-0",
        "+0.0",
        "00012",
        "1.",
        ".5",
        "-.5e1",
        "1e",
        "1e+",
        "1e-x",
        "1.5e3x",
        "  \t\n12.5 ",
        "0x",
        "0x.",
        "0x.8",
        "0X1P-2",
        "0x1p",
        "0x1.8p+1",
        "0x1fffffffffffffp0",
        "0x123456789abcdef0123p-10",
        "0x1p-1074",
        "0x1p-1075",
        "0x1.0000001p-1075",
        "0x1p1024",
        "0x.000000000000000000000001p-900",
        "1e400",
        "-1e400",
        "1e-400",
        "2.4703282292062328e-324",
        "2.4703282292062327e-324",
        "2.4703282292062327208828439643411068618252990130716238221279284125033"
        "7753635104375932649918180817996189898282347722858865463328355177969898"
        "1999e-324",
        "179769313486231580793728971405301e276",
        "1797693134862315807937289714053e278",
        "9007199254740993",
        "9007199254740992.000000000000000000000000000000000000000000000000001",
        "0.000000000000000000000000000000000000000000001e-280",
        "1e99999999999",
        "1e-99999999999",
        "123456789012345678901234567890e-40",
        "inf",
        "nan",
        "1,5",
        "1_0"}) {
    ExpectParse(text);
  }
  // A long significand: 1000 digits, the tail deciding a tie.
  std::string longer =
      "4."
      "450147717014402272114819593418263951869639092703291296046852219449644444"
      "042153891033059047816270175828298317826079242213740172877389189291055314"
      "414815641243486759976282126534658507104573762744298025962244902903779698"
      "114444614570510266311510031828794952795966823603998647925096578034214163"
      "701381261333311989876551545144031526125381326665295130600018491776632866"
      "075559583739224098994780755659409810102161219881460525874257917900007167"
      "599934414508608720568157791543592301891033496486942061405218289243144579"
      "760516365090360651414037721744226256159024466852576737244643007551333245"
      "007965068671949137768847800530996396770975896584413789443379662199396731"
      "693628045708486661320679701772891608002069867940855134372886767540972075"
      "7232455434770912461317493580281734466552734375";
  ExpectParse(longer);
  longer.back() = '4';
  ExpectParse(longer);
  ExpectParse(longer + "0000000000000000000000000000001");
  ExpectParse("0." + std::string(1200, '0') + "1e1190");
  ExpectParse(std::string(1200, '9') + "e-900");
  std::mt19937_64 rng(15);
  for (int i = 0; i < 20000; ++i) {
    const double v = FromBits(rng() & ~(uint64_t{1} << 63));
    if (!std::isfinite(v)) continue;
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.*e", static_cast<int>(rng() % 20), v);
    ExpectParse(buf);
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    ExpectParse(buf);
    // Random digit strings with random exponents.
    std::string t = std::to_string(rng() % 1000000000000ULL) + "." +
                    std::to_string(rng()) + "e" +
                    std::to_string(static_cast<int>(rng() % 700) - 350);
    ExpectParse(t);
  }
}

}  // namespace
}  // namespace posenc
