// SPDX-License-Identifier: MIT
// The scalar parser on hand-picked cases: components, defined-ness, host
// kinds, flags, and the kind and offset of every error.
#include "uriscan/uri.h"

#include <string>

#include "gtest/gtest.h"

namespace uriscan {
namespace {

std::string Opt(const std::optional<std::string_view>& v) {
  return v ? "'" + std::string(*v) + "'" : "-";
}

// A compact picture of a parse: components ('-' = undefined), host kind.
std::string Describe(std::string_view text) {
  const UriReference u = ParseUriReference(text);
  if (!u.valid()) {
    return std::string("error ") + ErrorKindName(u.error().kind) + " at " +
           std::to_string(u.error().offset);
  }
  static const char* kKinds[] = {"name", "ipv4", "ipv6", "ipvfuture"};
  return "s=" + Opt(u.scheme()) + " u=" + Opt(u.userinfo()) +
         " h=" + Opt(u.host()) +
         (u.host() ? std::string("/") + kKinds[static_cast<int>(u.host_kind())]
                   : "") +
         " p=" + Opt(u.port()) + " path='" + std::string(u.path()) +
         "' q=" + Opt(u.query()) + " f=" + Opt(u.fragment());
}

TEST(ParseTest, UndefinedIsNotEmpty) {
  EXPECT_EQ(Describe("http://a"),
            "s='http' u=- h='a'/name p=- path='' q=- f=-");
  EXPECT_EQ(Describe("http://a?"),
            "s='http' u=- h='a'/name p=- path='' q='' f=-");
  EXPECT_EQ(Describe("http://a#"),
            "s='http' u=- h='a'/name p=- path='' q=- f=''");
  EXPECT_EQ(Describe("http://@a:"),
            "s='http' u='' h='a'/name p='' path='' q=- f=-");
  EXPECT_EQ(Describe(""), "s=- u=- h=- p=- path='' q=- f=-");
  EXPECT_EQ(Describe("//"), "s=- u=- h=''/name p=- path='' q=- f=-");
  EXPECT_EQ(Describe("?#"), "s=- u=- h=- p=- path='' q='' f=''");
}

TEST(ParseTest, FivePathRules) {
  EXPECT_EQ(Describe("http://a/b/c"),  // path-abempty
            "s='http' u=- h='a'/name p=- path='/b/c' q=- f=-");
  EXPECT_EQ(Describe("/a//b"),  // path-absolute
            "s=- u=- h=- p=- path='/a//b' q=- f=-");
  EXPECT_EQ(Describe("urn:a:b"),  // path-rootless
            "s='urn' u=- h=- p=- path='a:b' q=- f=-");
  EXPECT_EQ(Describe("a/b:c"),  // path-noscheme, ':' after the first segment
            "s=- u=- h=- p=- path='a/b:c' q=- f=-");
  EXPECT_EQ(Describe("mailto:"),  // path-empty
            "s='mailto' u=- h=- p=- path='' q=- f=-");
  EXPECT_EQ(Describe("./a:b"), "s=- u=- h=- p=- path='./a:b' q=- f=-");
  EXPECT_EQ(Describe("@x/y"), "s=- u=- h=- p=- path='@x/y' q=- f=-");
}

TEST(ParseTest, HostKindsFirstMatchWins) {
  EXPECT_EQ(Describe("//1.2.3.4"), "s=- u=- h='1.2.3.4'/ipv4 p=- path='' q=- f=-");
  EXPECT_EQ(Describe("//255.255.255.255:1"),
            "s=- u=- h='255.255.255.255'/ipv4 p='1' path='' q=- f=-");
  for (const char* name : {"//01.2.3.4", "//256.1.1.1", "//1.2.3", "//1.2.3.4.",
                           "//1.2.3.4.5", "//1..2.3", "//0x7f.0.0.1"}) {
    const UriReference u = ParseUriReference(name);
    ASSERT_TRUE(u.valid()) << name;
    EXPECT_EQ(u.host_kind(), HostKind::kRegName) << name;
  }
  EXPECT_EQ(Describe("http://[::1]:80/"),
            "s='http' u=- h='[::1]'/ipv6 p='80' path='/' q=- f=-");
  EXPECT_EQ(Describe("http://[V1a.x:y]"),
            "s='http' u=- h='[V1a.x:y]'/ipvfuture p=- path='' q=- f=-");
  EXPECT_EQ(Describe("http://u:p@[::]:/"),
            "s='http' u='u:p' h='[::]'/ipv6 p='' path='/' q=- f=-");
}

TEST(ParseTest, DelimitersInsideLaterComponentsAreData) {
  EXPECT_EQ(Describe("s://h/p?q/?:@#f/?:@"),
            "s='s' u=- h='h'/name p=- path='/p' q='q/?:@' f='f/?:@'");
  EXPECT_EQ(Describe("s:a@b:c"), "s='s' u=- h=- p=- path='a@b:c' q=- f=-");
}

TEST(ParseTest, ErrorKindsAndOffsets) {
  EXPECT_EQ(Describe("http://example.com/100%"), "error pct-encoded at 22");
  EXPECT_EQ(Describe("http://example.com/%zz"), "error pct-encoded at 19");
  EXPECT_EQ(Describe("http://example.com/a%2"), "error pct-encoded at 20");
  EXPECT_EQ(Describe("http://example.com/a%2?"), "error pct-encoded at 20");
  EXPECT_EQ(Describe("http://%zz.example/"), "error pct-encoded at 7");
  EXPECT_EQ(Describe("http://example.com/a b"), "error disallowed-byte at 20");
  EXPECT_EQ(Describe(std::string("a\0b", 3)), "error disallowed-byte at 1");
  EXPECT_EQ(Describe("http://example.com/\xc3\xa9"), "error disallowed-byte at 19");
  EXPECT_EQ(Describe("a\rb"), "error disallowed-byte at 1");
  EXPECT_EQ(Describe("http://example.com/a[1]"), "error path at 20");
  EXPECT_EQ(Describe("http://a/?x]"), "error query at 11");
  EXPECT_EQ(Describe("http://example.com/a#b#c"), "error fragment at 22");
  EXPECT_EQ(Describe("1http://x"), "error scheme at 0");
  EXPECT_EQ(Describe("-foo:bar"), "error scheme at 0");
  EXPECT_EQ(Describe(":foo"), "error scheme at 0");
  EXPECT_EQ(Describe("ab_c:d"), "error scheme at 2");
  EXPECT_EQ(Describe(" http:"), "error disallowed-byte at 0");
  EXPECT_EQ(Describe("http://a@b@c/"), "error host at 10");
  EXPECT_EQ(Describe("http://[a@b/"), "error userinfo at 7");
  EXPECT_EQ(Describe("http://a[b]/"), "error host at 8");
  EXPECT_EQ(Describe("http://example.com:80a/"), "error port at 21");
  EXPECT_EQ(Describe("http://example.com:-1/"), "error port at 19");
  EXPECT_EQ(Describe("http://::1/"), "error port at 8");
  EXPECT_EQ(Describe("http://[::1/"), "error IP-literal at 11");
  EXPECT_EQ(Describe("http://[::1"), "error IP-literal at 11");
  EXPECT_EQ(Describe("http://[::1]x/"), "error host at 12");
  EXPECT_EQ(Describe("http://[2001:db8::7]:80a/"), "error port at 23");
  EXPECT_EQ(Describe("http://[fe80::1%25eth0]/"), "error IP-literal at 15");
  EXPECT_EQ(Describe("http://[]/"), "error IP-literal at 8");
  EXPECT_EQ(Describe("http://[::1 ]/"), "error disallowed-byte at 11");
  EXPECT_EQ(Describe("http://[v1.x/y]/"), "error IP-literal at 12");
}

struct LiteralCase {
  const char* text;
  int bad_at;  // -1: valid
};

// Long paths, queries and fragments are checked eight bytes at a time:
// a bad byte, a bad or good triplet, and each component's end byte at
// every position of a long run settle exactly where one byte at a time
// would.
TEST(ParseTest, LongRunsSettleAtEveryPosition) {
  const std::string run(70, 'x');  // no HEXDIG
  for (size_t at = 0; at <= run.size(); ++at) {
    const std::string head = run.substr(0, at), tail = run.substr(at);
    const std::string path = "http://h/" + head;
    const size_t p = path.size();
    EXPECT_EQ(Describe(path + " " + tail),
              "error disallowed-byte at " + std::to_string(p));
    EXPECT_EQ(Describe(path + "%4g" + tail),
              "error pct-encoded at " + std::to_string(p));
    EXPECT_EQ(Describe(path + "%4"),
              "error pct-encoded at " + std::to_string(p));
    EXPECT_EQ(Describe(path + "[" + tail),
              "error path at " + std::to_string(p));
    EXPECT_EQ(Describe(path + "%41?" + tail),
              "s='http' u=- h='h'/name p=- path='/" + head + "%41' q='" +
                  tail + "' f=-");
    const std::string query = "/?" + head;
    const size_t q = query.size();
    EXPECT_EQ(Describe(query + "#" + tail + "?/"),
              "s=- u=- h=- p=- path='/' q='" + head + "' f='" + tail + "?/'");
    EXPECT_EQ(Describe(query + "]" + tail),
              "error query at " + std::to_string(q));
    EXPECT_EQ(Describe(query + "#" + tail + "#"),
              "error fragment at " + std::to_string(q + 1 + tail.size()));
    EXPECT_EQ(Describe(query + "%" + tail),
              "error pct-encoded at " + std::to_string(q));
  }
}

TEST(ParseTest, IPv6AllNineForms) {
  const LiteralCase cases[] = {
      {"1:2:3:4:5:6:7:8", -1},          // form 1
      {"1:2:3:4:5:6:1.2.3.4", -1},      // form 1, ls32 as IPv4
      {"::2:3:4:5:6:7:8", -1},          // form 2
      {"::3:4:5:6:7:1.2.3.4", -1},      // form 2 with IPv4
      {"1::3:4:5:6:7:8", -1},           // form 3
      {"::4:5:6:7:8", -1},              // form 3 without the leading h16
      {"1:2::4:5:6:7:8", -1},           // form 4
      {"1:2:3::5:6:7:8", -1},           // form 5
      {"1:2:3:4::6:7:8", -1},           // form 6
      {"1:2:3:4:5::7:8", -1},           // form 7
      {"1:2:3:4:5::1.2.3.4", -1},       // form 7 with IPv4
      {"1:2:3:4:5:6::8", -1},           // form 8
      {"1:2:3:4:5:6:7::", -1},          // form 9
      {"::", -1},
      {"ABCD:ef01::", -1},
      {"1:2:3:4:5:6:7:8:9", 15},
      {"1:2:3:4:5:6:7", 13},
      {"1::2::3", 5},
      {"12345::1", 4},
      {"1:::2", 3},
      {"::ffff:256.1.1.1", 9},
      {"::ffff:192.0.2", 14},
      {"::01.2.3.4", 3},
      {"1:2:3:4:5:6:7:8::", 15},
      {"::1:2:3:4:5:6:7:8", 15},
      {"g::1", 0},
      {":1:2:3:4:5:6:7", 1},
      {"1:2:3:4:5:6:7:", 14},
      {"1:2:3:4:5:6:1.2.3.4:8", 19},
      {"::1.2.3.4:5", 9},
      {"1.2.3.4::", 1},
      {"1:2:3:4:5:6:7:1.2.3.4", 15},
      {"1:2:3:4:5:6::1.2.3.4", 14},
      {"", 0},
      {"1:2:3:4:5:6:7::8", 15},  // found by the uriparser differential test
  };
  for (const LiteralCase& c : cases) {
    const auto bad = CheckIPv6Address(c.text);
    EXPECT_EQ(bad ? static_cast<int>(*bad) : -1, c.bad_at) << c.text;
  }
}

TEST(ParseTest, IPvFutureNeedsHexVersionDotAndText) {
  EXPECT_FALSE(CheckIPvFuture("v1.x"));
  EXPECT_FALSE(CheckIPvFuture("V12.a:b!$"));
  EXPECT_EQ(CheckIPvFuture("v.x"), 1u);
  EXPECT_EQ(CheckIPvFuture("v1."), 3u);
  EXPECT_EQ(CheckIPvFuture("v1x"), 2u);
  EXPECT_EQ(CheckIPvFuture("vG.x"), 1u);
  EXPECT_EQ(CheckIPvFuture("v1.x/y"), 4u);
}

TEST(ParseTest, FlagsHintLaterStages) {
  auto f = [](const char* s) { return ParseUriReference(s).flags(); };
  EXPECT_TRUE(f("HTTP://a/") & flags::kHasUpperCase);
  EXPECT_TRUE(f("http://A/") & flags::kHasUpperCase);
  EXPECT_FALSE(f("http://a/B?C#D") & flags::kHasUpperCase);
  EXPECT_TRUE(f("http://a/%41") & flags::kHasPctEncoded);
  EXPECT_FALSE(f("http://a/b") & flags::kHasPctEncoded);
  EXPECT_TRUE(f("a/./b") & flags::kHasDotSegment);
  EXPECT_TRUE(f("..") & flags::kHasDotSegment);
  EXPECT_TRUE(f("http://a/b/..") & flags::kHasDotSegment);
  EXPECT_FALSE(f("http://a/b.c/...d/") & flags::kHasDotSegment);
  EXPECT_FALSE(f("http://a/b?/../") & flags::kHasDotSegment);
  EXPECT_EQ(f("http://a/ b"), 0);
}

TEST(ParseTest, RecomposeGivesBackTheInput) {
  for (const char* s : {"", "a", "//", "http://u@h:1/p?q#f", "?", "#",
                        "s:", "s:/", "s://[::1]:/?#", "../a?b#c"}) {
    const UriReference u = ParseUriReference(s);
    ASSERT_TRUE(u.valid()) << s;
    EXPECT_EQ(Recompose(u), s);
  }
}

}  // namespace
}  // namespace uriscan
