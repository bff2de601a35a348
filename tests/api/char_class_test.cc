// SPDX-License-Identifier: MIT
// Every RFC 3986 character class, checked over all 256 byte values against
// the RFC's own lists (sec. 2.2, sec. 2.3, sec. 3.1, Appendix A).
#include "src/char_class.h"

#include <string>

#include "gtest/gtest.h"

namespace uriscan {
namespace {

const std::string kAlphaList =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const std::string kDigitList = "0123456789";
const std::string kUnreservedList = kAlphaList + kDigitList + "-._~";
const std::string kSubDelimsList = "!$&'()*+,;=";
const std::string kGenDelimsList = ":/?#[]@";

struct ClassCase {
  const char* name;
  uint16_t cls;
  std::string members;
};

void PrintTo(const ClassCase& c, std::ostream* os) { *os << c.name; }

class CharClassTest : public ::testing::TestWithParam<ClassCase> {};

TEST_P(CharClassTest, MatchesRfcListForAll256Bytes) {
  const ClassCase& c = GetParam();
  int count = 0;
  for (int b = 0; b < 256; ++b) {
    const bool want = b != 0 && c.members.find(static_cast<char>(b)) !=
                                    std::string::npos;
    EXPECT_EQ(chars::Is(static_cast<unsigned char>(b), c.cls), want)
        << c.name << " byte 0x" << std::hex << b;
    count += chars::Is(static_cast<unsigned char>(b), c.cls);
  }
  EXPECT_EQ(count, static_cast<int>(c.members.size())) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Rfc3986, CharClassTest,
    ::testing::Values(
        ClassCase{"ALPHA", chars::kAlpha, kAlphaList},
        ClassCase{"DIGIT", chars::kDigit, kDigitList},
        ClassCase{"HEXDIG", chars::kHexDig, kDigitList + "ABCDEFabcdef"},
        ClassCase{"upper", chars::kUpper, kAlphaList.substr(0, 26)},
        ClassCase{"unreserved", chars::kUnreserved, kUnreservedList},
        ClassCase{"sub-delims", chars::kSubDelims, kSubDelimsList},
        ClassCase{"gen-delims", chars::kGenDelims, kGenDelimsList},
        ClassCase{"scheme", chars::kSchemeChar, kAlphaList + kDigitList + "+-."},
        ClassCase{"reg-name", chars::kRegName, kUnreservedList + kSubDelimsList},
        ClassCase{"userinfo", chars::kUserinfo,
                  kUnreservedList + kSubDelimsList + ":"},
        ClassCase{"pchar-or-slash", chars::kPathChar,
                  kUnreservedList + kSubDelimsList + ":@/"},
        ClassCase{"query-fragment", chars::kQueryChar,
                  kUnreservedList + kSubDelimsList + ":@/?"},
        ClassCase{"allowed", chars::kAllowed,
                  kUnreservedList + kSubDelimsList + kGenDelimsList + "%"}),
    [](const ::testing::TestParamInfo<ClassCase>& param_info) {
      std::string n = param_info.param.name;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

TEST(CharClassTest, CountsMatchTheRfc) {
  // 66 unreserved + 18 reserved + '%' = 85 bytes may appear in a URI.
  EXPECT_EQ(kUnreservedList.size(), 66u);
  EXPECT_EQ(kSubDelimsList.size() + kGenDelimsList.size(), 18u);
  int allowed = 0;
  for (int b = 0; b < 256; ++b) allowed += chars::Is(b, chars::kAllowed);
  EXPECT_EQ(allowed, 85);
}

TEST(CharClassTest, HexValueAndDigitsAgree) {
  for (int v = 0; v < 16; ++v) {
    const char upper = chars::kUpperHexDigits[v];
    EXPECT_TRUE(chars::Is(upper, chars::kHexDig));
    EXPECT_EQ(chars::HexValue(upper), v);
    EXPECT_EQ(chars::HexValue(upper | 0x20), v);  // lower case
  }
}

}  // namespace
}  // namespace uriscan
