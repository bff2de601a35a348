// SPDX-License-Identifier: MIT
// Risk flags (RFC 3986 sec. 7): a table of references with the flags each
// must get, every flag both set and clear, and the column over a batch.
#include "uriscan/risk.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace {

struct Case {
  const char* input;
  const char* flags;  // as `uriscan audit` writes them
  const char* source;  // the section (RFC 3986 unless named) it comes from
};

// clang-format off
const Case kCases[] = {
  // Userinfo (sec. 7.5, sec. 3.2.1, sec. 7.6).
  {"http://user@example.com/", "credentials", "7.5"},
  {"http://user:pw@example.com/", "credentials,password", "3.2.1"},
  {"http://user:@example.com/", "credentials", "3.2.1: empty password"},
  {"http://@example.com/", "credentials", "3.2.1: defined, empty"},
  {"http://:x@example.com/", "credentials,password", "3.2.1"},
  {"http://a:b:c@h/", "credentials,password", "3.2.1"},
  {"//u:p@h", "credentials,password", "4.2"},
  {"http://www.bank.example@evil.example/",
   "credentials,userinfo-host-like", "7.6"},
  {"ftp://ftp.example.com&story=breaking_news@10.0.0.1/top_story.htm",
   "credentials,userinfo-host-like,ip-private", "7.6 example"},
  {"http://a.b:c@h/", "credentials,password", "7.6: a ':' is no host"},
  {"http://user%40x.com@h/", "credentials,userinfo-host-like", "7.6"},
  {"http://u%40@h/", "credentials", "3.2.1: '%' in userinfo only"},
  {"http://example.com/", "", "3.2"},
  {"http://example.com/@x", "", "3.3: '@' in the path"},
  {"mailto:john.doe@example.com", "", "3.3: no authority"},
  {"http://h/?u=a.b@c", "", "3.4"},
  // Rare IPv4 forms (sec. 7.4) read by inet_aton.
  {"http://0x7f.1/", "ip-rare-form,ip-loopback", "7.4: hex"},
  {"http://2130706433/", "ip-rare-form,ip-loopback", "7.4: one number"},
  {"http://0177.0.0.1/", "ip-rare-form,ip-loopback", "7.4: octal"},
  {"http://127.1/", "ip-rare-form,ip-loopback", "7.4: two parts"},
  {"http://127.0.1/", "ip-rare-form,ip-loopback", "7.4: three parts"},
  {"http://0x7fffffff/", "ip-rare-form,ip-loopback", "7.4"},
  {"http://0x7FFFFFFF/", "ip-rare-form,ip-loopback", "7.4"},
  {"http://4294967295/", "ip-rare-form", "7.4: 2^32 - 1"},
  {"http://4294967296/", "", "7.4: 2^32 is no address"},
  {"http://00/", "ip-rare-form,ip-unspecified", "7.4: octal 0"},
  {"http://0/", "ip-rare-form,ip-unspecified", "7.4"},
  {"http://1/", "ip-rare-form,ip-unspecified", "7.4: 0.0.0.1"},
  {"http://08/", "", "7.4: 8 is no octal digit"},
  {"http://09.1/", "", "7.4"},
  {"http://1.2.3.4.5/", "", "7.4: five parts"},
  {"http://0X7F.1/", "ip-rare-form,ip-loopback", "7.4: upper-case 0X"},
  {"http://0xa9fea9fe/", "ip-rare-form,ip-link-local", "7.4"},
  {"http://0xA9FEA9FE/", "ip-rare-form,ip-link-local", "7.4"},
  {"http://0x7f000001/", "ip-rare-form,ip-loopback", "7.4"},
  {"http://0x100000000/", "", "7.4: 33 bits"},
  {"http://01.2.3.4/", "ip-rare-form", "7.4: leading zero, 3.2.2 reg-name"},
  {"http://010.0.0.1/", "ip-rare-form", "7.4: octal 010 is 8, not 10/8"},
  {"http://10.0.0.01/", "ip-rare-form,ip-private", "7.4"},
  {"http://3232235777/", "ip-rare-form,ip-private", "7.4: 192.168.1.1"},
  {"http://167772161/", "ip-rare-form,ip-private", "7.4: 10.0.0.1"},
  {"http://127.0.65535/", "ip-rare-form,ip-loopback", "7.4: 16-bit last"},
  {"http://127.0.65536/", "", "7.4"},
  {"http://127.16777215/", "ip-rare-form,ip-loopback", "7.4: 24-bit last"},
  {"http://127.16777216/", "", "7.4"},
  {"http://127.0.0.256/", "", "7.4: 8-bit last"},
  {"http://256.1/", "", "7.4: a first part above 255"},
  {"http://0x7g.1/", "", "7.4"},
  {"http://1..2/", "", "7.4: empty part"},
  {"http://.1.2.3/", "", "7.4: empty first part"},
  {"http://1.2.3.4a/", "", "7.4"},
  {"http://0x1.0x2.0x3.0x4/", "ip-rare-form", "7.4"},
  {"http://0000000000000000127.1/", "ip-rare-form", "7.4: octal 0127 = 87"},
  {"http://0x7f.1.1.1.1/", "", "7.4"},
  {"foo://0x7f.1/", "ip-rare-form,ip-loopback", "7.4: any scheme"},
  {"http://0x7f.1:8080/x", "ip-rare-form,ip-loopback", "7.4"},
  {"http://1e2/", "", "7.4: no exponents"},
  {"http://example.com./", "", "3.2.2: a name with a trailing dot"},
  // The WHATWG URL Standard's IPv4 parser where it reads more.
  {"http://127.0.0.1./", "ip-rare-form,ip-loopback", "WHATWG: trailing dot"},
  {"http://127.1./", "ip-rare-form,ip-loopback", "WHATWG: trailing dot"},
  {"http://4294967295./", "ip-rare-form", "WHATWG: trailing dot"},
  {"http://127.0.0.1../", "", "WHATWG: one dot only"},
  {"http://0x/", "ip-rare-form,ip-unspecified", "WHATWG: bare 0x is 0"},
  {"http://0x.0x.0x.0x/", "ip-rare-form,ip-unspecified", "WHATWG"},
  {"http://%31%32%37.0.0.1/", "ip-rare-form,ip-loopback,host-pct-encoded",
   "WHATWG: decoded first"},
  {"http://%30x7f.1/", "ip-rare-form,ip-loopback,host-pct-encoded",
   "WHATWG"},
  {"http://%30X7F.000000000000000000000000000000"
   "0000000000000000000000000001./",
   "ip-rare-form,ip-loopback,host-pct-encoded", "WHATWG: any length"},
  {"http://000000000000000000000000000000000000"
   "0000000000000000000000000000177.1./",
   "ip-rare-form,ip-loopback", "WHATWG: any length"},
  // IPv4address (sec. 3.2.2) judged on its value.
  {"http://127.0.0.1/", "ip-loopback", "3.2.2"},
  {"http://127.255.255.255/", "ip-loopback", "3.2.2"},
  {"http://128.0.0.1/", "", "3.2.2"},
  {"http://169.254.169.254/", "ip-link-local", "3.2.2"},
  {"http://169.254.0.1/", "ip-link-local", "3.2.2"},
  {"http://169.255.0.1/", "", "3.2.2"},
  {"http://10.0.0.1/", "ip-private", "3.2.2"},
  {"http://10.255.255.255/", "ip-private", "3.2.2"},
  {"http://11.0.0.1/", "", "3.2.2"},
  {"http://172.16.0.1/", "ip-private", "3.2.2"},
  {"http://172.31.255.255/", "ip-private", "3.2.2"},
  {"http://172.32.0.1/", "", "3.2.2"},
  {"http://172.15.255.255/", "", "3.2.2"},
  {"http://192.168.1.1/", "ip-private", "3.2.2"},
  {"http://192.169.1.1/", "", "3.2.2"},
  {"http://100.64.0.1/", "ip-private", "3.2.2"},
  {"http://100.127.255.255/", "ip-private", "3.2.2"},
  {"http://100.128.0.1/", "", "3.2.2"},
  {"http://100.63.255.255/", "", "3.2.2"},
  {"http://0.0.0.0/", "ip-unspecified", "3.2.2"},
  {"http://0.1.2.3/", "ip-unspecified", "3.2.2"},
  {"http://1.0.0.0/", "", "3.2.2"},
  {"http://8.8.8.8/", "", "3.2.2"},
  {"http://127.0.0.1:80/", "ip-loopback", "3.2.3"},
  // IP literals (sec. 3.2.2) judged on their value.
  {"http://[::1]/", "ip-loopback", "3.2.2"},
  {"http://[0:0:0:0:0:0:0:1]/", "ip-loopback", "3.2.2"},
  {"http://[::]/", "ip-unspecified", "3.2.2"},
  {"http://[::0.0.0.1]/", "ip-loopback", "3.2.2: the value is ::1"},
  {"http://[::ffff:127.0.0.1]/", "ip-loopback,ip-embedded-ipv4", "3.2.2"},
  {"http://[::ffff:7f00:1]/", "ip-loopback,ip-embedded-ipv4", "3.2.2"},
  {"http://[::FFFF:7F00:1]/", "ip-loopback,ip-embedded-ipv4", "3.2.2"},
  {"http://[::127.0.0.1]/", "ip-loopback,ip-embedded-ipv4", "3.2.2"},
  {"http://[::ffff:10.1.2.3]/", "ip-private,ip-embedded-ipv4", "3.2.2"},
  {"http://[::ffff:169.254.169.254]/", "ip-link-local,ip-embedded-ipv4",
   "3.2.2"},
  {"http://[::ffff:0.0.0.0]/", "ip-unspecified,ip-embedded-ipv4", "3.2.2"},
  {"http://[::ffff:8.8.8.8]/", "ip-embedded-ipv4", "3.2.2"},
  {"http://[::8.8.8.8]/", "ip-embedded-ipv4", "3.2.2: compatible"},
  {"http://[0:0:0:0:0:ffff:192.168.0.1]:8080/", "ip-private,ip-embedded-ipv4",
   "3.2.2"},
  {"http://[64:ff9b::169.254.169.254]/", "ip-embedded-ipv4", "3.2.2"},
  {"http://[64:ff9b::a9fe:a9fe]/", "ip-embedded-ipv4", "3.2.2"},
  {"http://[64:ff9b:1::a9fe:a9fe]/", "", "3.2.2: not the /96"},
  {"http://[1::ffff:127.0.0.1]/", "", "3.2.2: not mapped"},
  {"http://[fc00::1]/", "ip-private", "3.2.2"},
  {"http://[fd12:3456::1]/", "ip-private", "3.2.2"},
  {"http://[fe00::1]/", "", "3.2.2"},
  {"http://[fe80::1]/", "ip-link-local", "3.2.2"},
  {"http://[FEBF::1]/", "ip-link-local", "3.2.2"},
  {"http://[fec0::1]/", "", "3.2.2"},
  {"http://[2001:db8::1]/", "", "3.2.2"},
  {"http://[::2]:80/", "ip-unspecified,ip-embedded-ipv4",
   "3.2.2: compatible, 0.0.0.2"},
  {"http://[v1.fe80::1]/", "", "3.2.2: IPvFuture"},
  // Percent-encoding in the host (sec. 7.3, sec. 3.2.2).
  {"http://ex%61mple.com/", "host-pct-encoded", "3.2.2"},
  {"http://%65xample.com:8080/", "host-pct-encoded", "3.2.2"},
  {"http://example.com/%61", "", "2.1"},
  {"http://%2Fh/", "host-pct-encoded", "7.3: not in the path"},
  // Encoded delimiters in the path (sec. 7.3).
  {"http://h/a%2Fb", "encoded-delimiter", "7.3"},
  {"http://h/a%2fb", "encoded-delimiter", "7.3"},
  {"http://h/a%3Fb", "encoded-delimiter", "7.3"},
  {"http://h/a%23b", "encoded-delimiter", "7.3"},
  {"http://h/a%40b", "encoded-delimiter", "7.3"},
  {"http://h/a%3ab", "encoded-delimiter", "7.3"},
  {"http://h/a%5Bb", "encoded-delimiter", "7.3"},
  {"http://h/a%5db", "encoded-delimiter", "7.3"},
  {"http://h/a%5Cb", "encoded-delimiter", "7.3"},
  {"a%5c", "encoded-delimiter", "7.3: relative path"},
  {"http://h/a?b=%2F", "", "7.3: query"},
  {"http://h/a#%2F", "", "7.3: fragment"},
  {"http://h/a%2Eb", "", "7.3: '.' is no delimiter"},
  {"http://h/a%26b", "", "7.3: '&' is a sub-delim"},
  // Double encoding (sec. 7.3).
  {"http://h/%252f", "double-encoded", "7.3"},
  {"http://h/%252F", "double-encoded", "7.3"},
  {"http://h/?q=%2541", "double-encoded", "7.3"},
  {"http://h/#%25ff", "double-encoded", "7.3"},
  {"http://%2541/", "host-pct-encoded,double-encoded", "7.3"},
  {"http://h/%25zz", "", "7.3: no hex after"},
  {"http://h/%25%32%66", "", "7.3"},
  {"http://h/%252", "", "7.3: one hex digit"},
  {"http://h/%25", "", "7.3"},
  // Encoded controls (sec. 7.3, sec. 7.2).
  {"http://h/%00", "encoded-control", "7.3: NUL"},
  {"http://h/?a=%0d%0a", "encoded-control", "7.2: CR LF"},
  {"http://h/%1F", "encoded-control", "7.3"},
  {"http://h/%1f", "encoded-control", "7.3"},
  {"http://h/%7F", "encoded-control", "7.3: DEL"},
  {"http://h/#%09", "encoded-control", "7.3"},
  {"http://u%0A@h/", "credentials,encoded-control", "7.3"},
  {"http://h/%20", "", "7.3: space is no control"},
  {"http://h/%7E", "", "7.3"},
  {"http://h/%80", "", "7.3"},
  // Dot segments above the root (sec. 5.2.4, sec. 7.3).
  {"http://h/../a", "dot-segment-above-root", "5.2.4"},
  {"http://h/a/../../b", "dot-segment-above-root", "5.2.4"},
  {"http://h/..", "dot-segment-above-root", "5.2.4"},
  {"http://h/./../a", "dot-segment-above-root", "5.2.4"},
  {"/../a", "dot-segment-above-root", "5.2.4: absolute path"},
  {"foo:../a", "dot-segment-above-root", "5.2.4: rootless with a scheme"},
  {"foo:a/../..", "dot-segment-above-root", "5.2.4"},
  {"http://h/a/../b", "", "5.2.4"},
  {"http://h/a/./../b", "", "5.2.4"},
  {"http://h/a//../..", "", "5.2.4: an empty segment counts"},
  {"http://h/..a/", "", "5.2.4: not a dot segment"},
  {"http://h/a/..?x=../..", "", "5.2.4: the query is no path"},
  {"../a", "", "5.2.4: relative, the base decides"},
  {"a/../../b", "", "5.2.4: relative"},
  // Encoded dot segments (sec. 7.3, sec. 6.2.2.2).
  {"http://h/%2e%2E/x", "encoded-dot-segment", "6.2.2.2: %2e%2E"},
  {"http://h/a/%2e/b", "encoded-dot-segment", "6.2.2.2"},
  {"http://h/a/.%2E/b", "encoded-dot-segment", "6.2.2.2"},
  {"http://h/a/%2E./b", "encoded-dot-segment", "6.2.2.2"},
  {"http://h/%2e", "encoded-dot-segment", "6.2.2.2"},
  {"../%2e%2e", "encoded-dot-segment", "6.2.2.2"},
  {"http://h/a/%2e%2e%2e/b", "", "6.2.2.2: three dots"},
  {"http://h/a%2e/b", "", "6.2.2.2"},
  {"http://h/a?%2e%2e", "", "6.2.2.2: query"},
  {"http://h/a/../%2e%2e", "encoded-dot-segment", "6.2.2.2"},
  // Script schemes.
  {"javascript:alert(1)", "script-scheme", "3.1"},
  {"JavaScript:alert(1)", "script-scheme", "3.1: case-insensitive"},
  {"vbscript:msgbox", "script-scheme", "3.1"},
  {"data:text/html,x", "script-scheme", "3.1"},
  {"DATA:,x", "script-scheme", "3.1"},
  {"javascripts:x", "", "3.1"},
  {"dat:x", "", "3.1"},
  {"./javascript:x", "", "4.2: no scheme"},
  // Ports (sec. 3.2.3).
  {"http://h:65535/", "", "3.2.3"},
  {"http://h:65536/", "port-out-of-range", "3.2.3"},
  {"http://h:0065535/", "", "3.2.3: leading zeros"},
  {"http://h:99999999999999999999/", "port-out-of-range", "3.2.3"},
  {"http://h:/", "", "3.2.3: empty"},
  {"http://h:0/", "", "3.2.3"},
  // Invalid references get "invalid" alone; the empty reference is valid.
  {"http://h/%zz", "invalid", "2.1"},
  {"http://[::1/", "invalid", "3.2.2"},
  {"http://u:p@0x7f.1/ x", "invalid", "2"},
  {"", "", "4.1"},
  // Many at once, in bit order.
  {"javascript://user:pw@0x7f.1:99999/%2e%2e/..%2F?%00#%252F",
   "credentials,password,ip-rare-form,ip-loopback,encoded-delimiter,"
   "double-encoded,encoded-control,encoded-dot-segment,script-scheme,"
   "port-out-of-range", "7"},
};
// clang-format on

TEST(RiskTest, TableOfCases) {
  EXPECT_GE(sizeof(kCases) / sizeof(kCases[0]), 120u);
  for (const Case& c : kCases) {
    const UriReference uri = ParseUriReference(c.input);
    EXPECT_EQ(RiskFlagNames(RiskFlagsOf(uri)), c.flags)
        << "'" << c.input << "' (RFC 3986 sec. " << c.source << ")";
  }
}

// Every flag is both set and clear on some valid case of the table.
TEST(RiskTest, TableSetsAndClearsEveryFlag) {
  for (int bit = 0; bit < risks::kCount; ++bit) {
    bool set = false, clear = false;
    for (const Case& c : kCases) {
      const uint32_t r = RiskFlagsOf(ParseUriReference(c.input));
      if (r & risks::kInvalid) continue;
      (r & (1u << bit) ? set : clear) = true;
    }
    EXPECT_TRUE(set && clear) << RiskFlagName(bit);
  }
}

TEST(RiskTest, NamesFollowTheBitOrder) {
  EXPECT_EQ(RiskFlagNames(0), "");
  EXPECT_EQ(RiskFlagNames(risks::kInvalid), "invalid");
  EXPECT_EQ(RiskFlagNames(risks::kPortOutOfRange | risks::kCredentials),
            "credentials,port-out-of-range");
  EXPECT_EQ(RiskFlagName(risks::kCount), nullptr);
  EXPECT_EQ(RiskFlagName(-1), nullptr);
  uint32_t all = 0;
  for (int bit = 0; bit < risks::kCount; ++bit) all |= 1u << bit;
  std::string want;
  for (const char* name :
       {"credentials", "password", "userinfo-host-like", "ip-rare-form",
        "ip-loopback", "ip-private", "ip-link-local", "ip-unspecified",
        "ip-embedded-ipv4", "host-pct-encoded", "encoded-delimiter",
        "double-encoded", "encoded-control", "dot-segment-above-root",
        "encoded-dot-segment", "script-scheme", "port-out-of-range"})
    want += std::string(want.empty() ? "" : ",") + name;
  EXPECT_EQ(RiskFlagNames(all), want);
}

// The column over a batch is the per-reference value, row by row, from the
// spans of the SIMD scan and of the scalar one.
TEST(RiskTest, ColumnMatchesRowByRow) {
  std::string text;
  for (const Case& c : kCases) text.append(c.input).push_back('\n');
  OwnedBatch batch;
  ASSERT_TRUE(BatchFromLines(text, &batch));
  ASSERT_EQ(batch.size(), sizeof(kCases) / sizeof(kCases[0]));
  ComponentSpans fast, scalar;
  Scan(batch.view(), &fast);
  ScanScalar(batch.view(), &scalar);
  std::vector<uint32_t> from_fast, from_scalar;
  RiskFlags(batch.view(), fast, &from_fast);
  RiskFlags(batch.view(), scalar, &from_scalar);
  ASSERT_EQ(from_fast.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(RiskFlagNames(from_fast[i]), kCases[i].flags) << kCases[i].input;
    EXPECT_EQ(from_scalar[i], from_fast[i]) << kCases[i].input;
  }
  RiskFlags(Batch{}, ComponentSpans{}, &from_fast);
  EXPECT_TRUE(from_fast.empty());
}

// On real URL lists the column is the per-reference value too, and flags
// that need a host, a port or a '%' never appear on rows without one.
TEST(RiskTest, SharedCorporaAgreeWithTheirComponents) {
  for (const auto& file : test_corpus::LoadCorpora()) {
    OwnedBatch batch;
    if (!BatchFromLines(file.bytes, &batch)) continue;
    ComponentSpans spans;
    Scan(batch.view(), &spans);
    std::vector<uint32_t> column;
    RiskFlags(batch.view(), spans, &column);
    for (size_t i = 0; i < batch.size(); ++i) {
      const UriReference uri = ParseUriReference(batch.view().Get(i));
      ASSERT_EQ(column[i], RiskFlagsOf(uri)) << file.name << " row " << i;
      if (!uri.valid()) continue;
      const uint32_t pct = risks::kHostPctEncoded | risks::kEncodedDelimiter |
                           risks::kDoubleEncoded | risks::kEncodedControl |
                           risks::kEncodedDotSegment;
      if (uri.text().find('%') == std::string_view::npos) {
        ASSERT_EQ(column[i] & pct, 0u) << uri.text();
      }
      if (!uri.userinfo()) {
        ASSERT_EQ(column[i] & (risks::kCredentials | risks::kPassword |
                               risks::kUserinfoHostLike),
                  0u)
            << uri.text();
      }
      if (!uri.port()) {
        ASSERT_EQ(column[i] & risks::kPortOutOfRange, 0u);
      }
    }
  }
}

}  // namespace
}  // namespace uriscan
