// SPDX-License-Identifier: MIT
// Query parameters, path segments, decoding and host parts from spans: the
// rules of include/uriscan/analytics.h, case by case.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

// The raw name/value pairs of each line of `text`, as (row, name, value).
std::vector<std::pair<uint32_t, std::pair<std::string, std::string>>> Params(
    const std::string& text) {
  OwnedBatch batch;
  EXPECT_TRUE(BatchFromLines(text, &batch));
  ComponentSpans spans;
  Scan(batch.view(), &spans);
  QueryParams p;
  ExtractQueryParams(batch.view().data, spans, &p);
  const std::string_view data(batch.view().data, batch.data.size());
  std::vector<std::pair<uint32_t, std::pair<std::string, std::string>>> out;
  for (size_t k = 0; k < p.size(); ++k) {
    out.push_back(
        {p.row[k],
         {std::string(data.substr(p.name_begin[k],
                                  p.name_end[k] - p.name_begin[k])),
          std::string(data.substr(p.value_begin[k],
                                  p.value_end[k] - p.value_begin[k]))}});
  }
  return out;
}

TEST(QueryParamsTest, SplitsFieldsAtAmpersandsAndTheFirstEquals) {
  const auto p = Params("http://h/p?a=1&&b&c=x=y&=v&#frag&d=2\n");
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[0].second, std::make_pair(std::string("a"), std::string("1")));
  EXPECT_EQ(p[1].second, std::make_pair(std::string("b"), std::string("")));
  EXPECT_EQ(p[2].second, std::make_pair(std::string("c"), std::string("x=y")));
  EXPECT_EQ(p[3].second, std::make_pair(std::string(""), std::string("v")));
}

TEST(QueryParamsTest, RowsWithoutAQueryOrInvalidGiveNone) {
  const auto p = Params("http://h/p\nhttp://h/p?\nhttp://h /?a=1\n"
                        "?x=1;y=2\nhttp://h/?&&&\n");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].first, 3u);
  EXPECT_EQ(p[0].second.first, "x");
  EXPECT_EQ(p[0].second.second, "1;y=2");  // ';' is no separator
}

TEST(QueryParamsTest, ValueOffsetsOfAFieldWithoutEquals) {
  OwnedBatch batch;
  ASSERT_TRUE(BatchFromLines("?ab", &batch));
  ComponentSpans spans;
  Scan(batch.view(), &spans);
  QueryParams p;
  ExtractQueryParams(batch.view().data, spans, &p);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p.name_begin[0], 1u);
  EXPECT_EQ(p.name_end[0], 3u);
  EXPECT_EQ(p.value_begin[0], 3u);
  EXPECT_EQ(p.value_end[0], 3u);
}

std::string Decoded(const std::string& in, Decoding how) {
  std::string out(in.size(), '\0');
  out.resize(Decode(in, how, out.data()));
  return out;
}

TEST(DecodeTest, FormTurnsPlusIntoSpaceBeforePercent) {
  EXPECT_EQ(Decoded("a+b%2B%20c", Decoding::kForm), "a b+ c");
  EXPECT_EQ(Decoded("a+b%2B%20c", Decoding::kPercent), "a+b+ c");
  EXPECT_EQ(Decoded("100%", Decoding::kPercent), "100%");
  EXPECT_EQ(Decoded("%zz%4", Decoding::kPercent), "%zz%4");
  // A NUL stays escaped; so does, by default, an escape of no UTF-8
  // character.
  EXPECT_EQ(Decoded("%e2%82%ac%00", Decoding::kPercent), "\xe2\x82\xac%00");
  EXPECT_EQ(Decoded("caf%E9+%C3%A9", Decoding::kForm), "caf%E9 \xc3\xa9");
  EXPECT_EQ(Decoded("", Decoding::kForm), "");
}

std::vector<std::string> Segments(const std::string& uri) {
  OwnedBatch batch;
  EXPECT_TRUE(BatchFromLines(uri, &batch));
  ComponentSpans spans;
  Scan(batch.view(), &spans);
  PathSegments s;
  ExtractPathSegments(batch.view().data, spans, &s);
  std::vector<std::string> out;
  for (size_t k = 0; k < s.size(); ++k)
    out.emplace_back(batch.view().data + s.begin[k], s.end[k] - s.begin[k]);
  return out;
}

TEST(PathSegmentsTest, DropsTheFirstEmptySegmentKeepsTheLast) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Segments("http://h/a/b/"), (V{"a", "b", ""}));
  EXPECT_EQ(Segments("http://h"), V{});
  EXPECT_EQ(Segments("http://h/"), V{""});
  EXPECT_EQ(Segments("a/b"), (V{"a", "b"}));
  EXPECT_EQ(Segments("http://h//x?q"), (V{"", "x"}));
  EXPECT_EQ(Segments("mailto:a@b"), V{"a@b"});
  EXPECT_EQ(Segments("http://h /a"), V{});  // invalid
}

TEST(HostPartsTest, WwwAndExtension) {
  EXPECT_EQ(HostWithoutWww("WwW.example.com"), "example.com");
  EXPECT_EQ(HostWithoutWww("www.www.a"), "www.a");
  EXPECT_EQ(HostWithoutWww("www2.a"), "www2.a");
  EXPECT_EQ(HostWithoutWww("www."), "");
  EXPECT_EQ(PathExtension("/a/b.tar.gz"), "gz");
  EXPECT_EQ(PathExtension("/a.b/c"), "");
  EXPECT_EQ(PathExtension("/.bashrc"), "");
  EXPECT_EQ(PathExtension("/a."), "");
  EXPECT_EQ(PathExtension("/a.b/"), "");
  // An encoded '/' after the dot would decode into the extension: none.
  EXPECT_EQ(PathExtension("/a%2Fb.c%2Fd"), "");
  EXPECT_EQ(PathExtension("/a%2fb.c%2fd"), "");
  EXPECT_EQ(PathExtension("/a%2Fb.gz"), "gz");  // before the dot: kept
  EXPECT_EQ(PathExtension("/a.b%2"), "b%2");
  EXPECT_EQ(PathExtension("x.PNG"), "PNG");
  // The name before its parameters; the raw path's '/' only.
  EXPECT_EQ(PathExtension("/index.jsp;jsessionid=ABC123"), "jsp");
  EXPECT_EQ(PathExtension("/a;b.c"), "");
  EXPECT_EQ(PathExtension("/a.b;c.d/e.f;g"), "f");
}

// The row-at-a-time helpers of the SQL functions: segments as the
// path_segments column splits them, component encoding, the prefixes of
// ClickHouse's URLHierarchy shape by RFC 3986's components.
TEST(AnalyticsTest, SegmentsEncodingAndHierarchy) {
  using V = std::vector<std::string_view>;
  EXPECT_EQ(PathSegmentsOf("/a/b/"), (V{"a", "b", ""}));
  EXPECT_EQ(PathSegmentsOf("/"), (V{""}));
  EXPECT_EQ(PathSegmentsOf("a//b"), (V{"a", "", "b"}));
  EXPECT_EQ(PathSegmentsOf(""), V{});
  std::string encoded;
  AppendPercentEncoded(std::string_view("aZ09-._~ /?#\xc3\xa9%\0", 16), &encoded);
  EXPECT_EQ(encoded, "aZ09-._~%20%2F%3F%23%C3%A9%25%00");
  const auto hierarchy = [](std::string_view text, bool path_only) {
    return UriHierarchy(ParseUriReference(text), path_only);
  };
  EXPECT_EQ(hierarchy("http://a/b/c?q=1&r#f", false),
            (V{"http://a/", "http://a/b/", "http://a/b/c", "http://a/b/c?q=1&r"}));
  EXPECT_EQ(hierarchy("http://a/b/c?q=1&r#f", true),
            (V{"/b/", "/b/c", "/b/c?q=1&r"}));
  EXPECT_EQ(hierarchy("http://u@a:8/x//", false),
            (V{"http://u@a:8/", "http://u@a:8/x/", "http://u@a:8/x//"}));
  EXPECT_EQ(hierarchy("http://a", false), (V{"http://a"}));
  EXPECT_EQ(hierarchy("http://a", true), V{});
  EXPECT_EQ(hierarchy("http://a/?q", true), (V{"/?q"}));
  EXPECT_EQ(hierarchy("/rel/p", false), V{});  // no scheme, no authority
  EXPECT_EQ(hierarchy("/rel/p", true), (V{"/rel/", "/rel/p"}));
  EXPECT_EQ(hierarchy("http://a b/", false), V{});  // invalid
}

// The Public Suffix List (libpsl's built-in copy): answers in lower case,
// the subdomain as written, none for a host that is a public suffix.
TEST(HostPartsTest, PublicSuffixList) {
  const PublicSuffixList psl;
  const auto a = psl.Lookup("WWW.Example.co.uk");
  EXPECT_EQ(a.registrable_domain, std::optional<std::string_view>("example.co.uk"));
  EXPECT_EQ(a.public_suffix, std::optional<std::string_view>("co.uk"));
  EXPECT_EQ(psl.Subdomain("WWW.Example.co.uk"),
            std::optional<std::string_view>("WWW"));
  EXPECT_EQ(psl.Subdomain("example.com"), std::optional<std::string_view>(""));
  const auto suffix = psl.Lookup("co.uk");
  EXPECT_EQ(suffix.registrable_domain, std::nullopt);
  EXPECT_EQ(suffix.public_suffix, std::optional<std::string_view>("co.uk"));
  EXPECT_EQ(psl.Subdomain("co.uk"), std::nullopt);
  EXPECT_EQ(psl.Lookup("").public_suffix, std::nullopt);
  EXPECT_EQ(PublicSuffixList::FromFile("/nonexistent/list.dat"), nullptr);
}

TEST(HostPartsTest, SurtKey) {
  std::string key;
  EXPECT_TRUE(AppendIaSurt("http://www.Example.com:80/a?b=1#f", &key));
  EXPECT_EQ(key, "com,example)/a?b=1");
  key.clear();
  EXPECT_FALSE(AppendIaSurt("http://a:99999/", &key));
  EXPECT_EQ(key, "");
}

}  // namespace
}  // namespace uriscan
