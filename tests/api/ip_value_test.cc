// SPDX-License-Identifier: MIT
// The numeric readings of hosts: inet_aton's grammar against glibc's own
// inet_aton on generated strings, the WHATWG reading, IPv6 values, ranges.
#include "src/parse/ip_value.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace uriscan {
namespace ip {
namespace {

constexpr uint32_t kLoopback = 0x7f000001;

TEST(IpValueTest, InetAtonEdgeValues) {
  EXPECT_EQ(ParseInetAton("127.0.0.1"), kLoopback);
  EXPECT_EQ(ParseInetAton("127.1"), kLoopback);
  EXPECT_EQ(ParseInetAton("127.0.1"), kLoopback);
  EXPECT_EQ(ParseInetAton("0x7f.1"), kLoopback);
  EXPECT_EQ(ParseInetAton("0X7F.1"), kLoopback);
  EXPECT_EQ(ParseInetAton("0177.0.0.1"), kLoopback);
  EXPECT_EQ(ParseInetAton("2130706433"), kLoopback);
  EXPECT_EQ(ParseInetAton("0x7fffffff"), 0x7fffffffu);
  EXPECT_EQ(ParseInetAton("4294967295"), 0xffffffffu);
  EXPECT_EQ(ParseInetAton("4294967296"), std::nullopt);
  EXPECT_EQ(ParseInetAton("99999999999999999999999"), std::nullopt);
  EXPECT_EQ(ParseInetAton("00"), 0u);
  EXPECT_EQ(ParseInetAton("0"), 0u);
  EXPECT_EQ(ParseInetAton("08"), std::nullopt);
  EXPECT_EQ(ParseInetAton("0x"), std::nullopt);
  EXPECT_EQ(ParseInetAton("1.2.3.4.5"), std::nullopt);
  EXPECT_EQ(ParseInetAton("1.2.3.4."), std::nullopt);
  EXPECT_EQ(ParseInetAton("127.1."), std::nullopt);
  EXPECT_EQ(ParseInetAton("1..2"), std::nullopt);
  EXPECT_EQ(ParseInetAton(""), std::nullopt);
  EXPECT_EQ(ParseInetAton("1.256"), 0x01000100u);
  EXPECT_EQ(ParseInetAton("256.1"), std::nullopt);
  EXPECT_EQ(ParseInetAton("1.2.65535"), 0x0102ffffu);
  EXPECT_EQ(ParseInetAton("1.2.65536"), std::nullopt);
  EXPECT_EQ(ParseInetAton("1.16777215"), 0x01ffffffu);
  EXPECT_EQ(ParseInetAton("1.16777216"), std::nullopt);
}

TEST(IpValueTest, WhatwgReadsMoreThanInetAton) {
  EXPECT_EQ(ParseWhatwgIPv4("127.0.0.1."), kLoopback);
  EXPECT_EQ(ParseWhatwgIPv4("127.1."), kLoopback);
  EXPECT_EQ(ParseWhatwgIPv4("0x"), 0u);
  EXPECT_EQ(ParseWhatwgIPv4("0x.0x.0x.0x"), 0u);
  EXPECT_EQ(ParseWhatwgIPv4("0x7F.1"), kLoopback);
  // Where both refuse.
  for (const char* no :
       {"", ".", "127.0.0.1..", "1..2", ".1", "08", "0x7g", "1.2.3.4.5",
        "1.2.3.4.5.", "4294967296", "256.1", "1.2.3.256", "1e2", "-1", "+1"}) {
    EXPECT_EQ(ParseWhatwgIPv4(no), std::nullopt) << no;
    EXPECT_EQ(ParseInetAton(no), std::nullopt) << no;
  }
}

// Host strings of the characters the two grammars care about, half of them
// built part by part so that most are addresses or near misses.
std::string RandomHost(std::mt19937_64& rng) {
  static const char kAlphabet[] = "0123456789.xXabcdefABCDEFg";
  std::string s;
  if (rng() % 2 == 0) {
    const int len = static_cast<int>(rng() % 12);
    for (int k = 0; k < len; ++k)
      s += kAlphabet[rng() % (sizeof(kAlphabet) - 1)];
    return s;
  }
  const int parts = 1 + static_cast<int>(rng() % 5);
  for (int p = 0; p < parts; ++p) {
    if (p > 0) s += '.';
    // Digits of the part's radix, one time in ten of any radix.
    std::string_view digits = "0123456789";
    switch (rng() % 4) {
      case 0:
        s += "0x";
        digits = "0123456789abcdefABCDEF";
        break;
      case 1:
        s += "0X";
        digits = "0123456789abcdef";
        break;
      case 2:
        s += "0";
        digits = "01234567";
        break;
      default:
        break;
    }
    if (rng() % 10 == 0) digits = "0123456789abcdefABCDEF";
    // Few digits often, so that parts land near the byte limits.
    const int count = static_cast<int>(rng() % 3 == 0 ? rng() % 11 : rng() % 4);
    for (int k = 0; k < count; ++k) s += digits[rng() % digits.size()];
    if (rng() % 40 == 0) s += '.';
  }
  return s;
}

// glibc's inet_aton is the reference for inet_aton's grammar: a million
// seeded host strings, each read by both.
TEST(IpValueTest, InetAtonAgreesWithGlibcOnAMillionHosts) {
  const uint64_t seed = 0x3986;
  std::mt19937_64 rng(seed);
  size_t addresses = 0;
  for (int i = 0; i < 1000000; ++i) {
    const std::string host = RandomHost(rng);
    in_addr addr{};
    const bool libc = inet_aton(host.c_str(), &addr) != 0;
    const auto ours = ParseInetAton(host);
    ASSERT_EQ(ours.has_value(), libc)
        << "'" << host << "' (seed " << seed << ", case " << i << ")";
    if (libc) {
      ASSERT_EQ(*ours, ntohl(addr.s_addr)) << "'" << host << "'";
      ++addresses;
    }
  }
  // Both outcomes are well represented, so the agreement means something.
  EXPECT_GT(addresses, 100000u);
  EXPECT_LT(addresses, 900000u);
}

std::array<uint8_t, 16> V6(std::string_view text) {
  const auto v = ParseIPv6Value(text);
  EXPECT_TRUE(v.has_value()) << text;
  return v.value_or(std::array<uint8_t, 16>{});
}

TEST(IpValueTest, IPv6ValuesMatchInetPton) {
  for (const char* text :
       {"::", "::1", "1::", "1:2:3:4:5:6:7:8", "::ffff:127.0.0.1",
        "::ffff:7f00:1", "64:ff9b::a9fe:a9fe", "fe80::1", "1:2:3:4:5:6:1.2.3.4",
        "1::2:3", "a:b::c:d:e:f:1", "::0.0.0.0", "FFFF::"}) {
    in6_addr want{};
    ASSERT_EQ(inet_pton(AF_INET6, text, &want), 1) << text;
    const auto got = V6(text);
    EXPECT_EQ(std::memcmp(got.data(), want.s6_addr, 16), 0) << text;
  }
  for (const char* bad :
       {"", ":", ":1", "1:", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7", "12345::", "::1.2.3", "::01.2.3.4"})
    EXPECT_EQ(ParseIPv6Value(bad), std::nullopt) << bad;
}

TEST(IpValueTest, IPv4Ranges) {
  EXPECT_EQ(ClassifyIPv4(0x7f000001), Range::kLoopback);
  EXPECT_EQ(ClassifyIPv4(0x0a000000), Range::kPrivate);
  EXPECT_EQ(ClassifyIPv4(0xac100000), Range::kPrivate);
  EXPECT_EQ(ClassifyIPv4(0xac1fffff), Range::kPrivate);
  EXPECT_EQ(ClassifyIPv4(0xac200000), Range::kOther);
  EXPECT_EQ(ClassifyIPv4(0xc0a80000), Range::kPrivate);
  EXPECT_EQ(ClassifyIPv4(0x64400000), Range::kPrivate);
  EXPECT_EQ(ClassifyIPv4(0x647fffff), Range::kPrivate);
  EXPECT_EQ(ClassifyIPv4(0x64800000), Range::kOther);
  EXPECT_EQ(ClassifyIPv4(0x643fffff), Range::kOther);
  EXPECT_EQ(ClassifyIPv4(0xa9fea9fe), Range::kLinkLocal);
  EXPECT_EQ(ClassifyIPv4(0x00ffffff), Range::kUnspecified);
  EXPECT_EQ(ClassifyIPv4(0x01000000), Range::kOther);
  EXPECT_EQ(ClassifyIPv4(0xffffffff), Range::kOther);
}

TEST(IpValueTest, IPv6RangesAndEmbeddedIPv4) {
  EXPECT_EQ(ClassifyIPv6(V6("::")).range, Range::kUnspecified);
  EXPECT_FALSE(ClassifyIPv6(V6("::")).embeds_ipv4);
  EXPECT_EQ(ClassifyIPv6(V6("::1")).range, Range::kLoopback);
  EXPECT_FALSE(ClassifyIPv6(V6("::1")).embeds_ipv4);
  EXPECT_EQ(ClassifyIPv6(V6("::ffff:a9fe:a9fe")).range, Range::kLinkLocal);
  EXPECT_TRUE(ClassifyIPv6(V6("::ffff:a9fe:a9fe")).embeds_ipv4);
  EXPECT_EQ(ClassifyIPv6(V6("64:ff9b::7f00:1")).range, Range::kOther);
  EXPECT_TRUE(ClassifyIPv6(V6("64:ff9b::7f00:1")).embeds_ipv4);
  EXPECT_EQ(ClassifyIPv6(V6("fdff::")).range, Range::kPrivate);
  EXPECT_EQ(ClassifyIPv6(V6("fbff::")).range, Range::kOther);
  EXPECT_EQ(ClassifyIPv6(V6("febf:ffff::")).range, Range::kLinkLocal);
  EXPECT_EQ(ClassifyIPv6(V6("fec0::")).range, Range::kOther);
  EXPECT_FALSE(ClassifyIPv6(V6("1::ffff:7f00:1")).embeds_ipv4);
}

}  // namespace
}  // namespace ip
}  // namespace uriscan
