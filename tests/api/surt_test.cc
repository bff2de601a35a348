// SPDX-License-Identifier: MIT
// The surt key's one-pass path for common URLs against the library's steps
// one by one: every line of the shared corpora and the hand-written one,
// changed in ways the common path must notice, and cases made by hand;
// then both against the Internet Archive library's own answers
// (corpus/surt/vectors.tsv).
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "src/transform/surt.h"
#include "tests/support/corpus.h"
#include "uriscan/uriscan.h"

namespace uriscan {
namespace {

using surt_internal::AppendCommonIaSurt;
using surt_internal::AppendFullIaSurt;

struct Tally {
  size_t common = 0, total = 0, differences = 0;
};

// Where the common path gives a key, the full path must give the same.
void Compare(std::string_view url, Tally* t) {
  std::string common, full;
  ++t->total;
  if (!AppendCommonIaSurt(url, &common)) {
    EXPECT_EQ(common, "") << url;  // nothing appended
    return;
  }
  ++t->common;
  const bool ok = AppendFullIaSurt(url, &full);
  if ((!ok || common != full) && ++t->differences <= 10) {
    ADD_FAILURE() << "url \"" << url << "\": common \"" << common
                  << "\", full " << (ok ? "\"" + full + "\"" : "raises");
  }
}

// Variants of a URL the common path must read right or turn away: upper
// case, a www host, ports, a trailing '/', dot segments, '%', a fragment.
std::vector<std::string> Variants(const std::string& url) {
  std::vector<std::string> out{url};
  std::string upper = url;
  for (char& c : upper) c = (c >= 'a' && c <= 'z') ? c - 32 : c;
  out.push_back(upper);
  out.push_back("http://" + upper.substr(std::min(url.find("://") + 3,
                                                   upper.size())));
  const size_t slashes = url.find("://");
  if (slashes == std::string::npos) return out;
  const size_t host = slashes + 3;
  const size_t end = std::min(url.find_first_of("/?#", host), url.size());
  const std::string head = url.substr(0, end), tail = url.substr(end);
  for (const char* s : {"", ":80", ":443", ":8080", ":0", ":00080", ":65535",
                        ":65536", ":", ":x", "."}) {
    out.push_back(head + s + tail);
  }
  for (const char* w : {"www.", "WWW2.", "www", "www..", "wwwx.", "1.", "."})
    out.push_back(url.substr(0, host) + w + url.substr(host));
  for (const char* p : {"/", "/./", "/../", "//", "/a/..", "/%41", "/(x)/",
                        "/.", "?", "?&", "?b=1&a=2", "?SID=1", "#x", "#",
                        "?a#b?c"}) {
    out.push_back(url + p);
    out.push_back(head + p + tail);
  }
  return out;
}

TEST(SurtCommonPathTest, AgreesWithTheFullPathOnCorpora) {
  Tally t;
  size_t lines = 0;
  for (const auto& f : test_corpus::LoadCorpora()) {
    if (f.name == "generated") continue;
    OwnedBatch batch;
    ASSERT_TRUE(BatchFromLines(f.bytes, &batch));
    for (size_t i = 0; i < batch.size(); ++i) {
      ++lines;
      for (const std::string& v : Variants(std::string(batch.view().Get(i))))
        Compare(v, &t);
    }
  }
  EXPECT_GT(lines, 100000u);
  EXPECT_EQ(t.differences, 0u);
  // The common path is what most real URLs take.
  EXPECT_GT(t.common, t.total / 4);
}

TEST(SurtCommonPathTest, AgreesWithTheFullPathOnHandMadeCases) {
  Tally t;
  for (const char* url : {
           "http://example.com", "http://example.com/", "https://a.b/c/",
           "http://www.Example.com:80/a?b=1#f", "https://www.a.com:443",
           "https://a.com:80/", "http://a.com:8080/x/", "http://a.com:0/",
           "http://WWW.a.com", "http://www1.a.com/", "http://www.com",
           "http://www", "http://wwwa.com/", "http://www.www.a/",
           "http://a-b_c.d-e/", "http://1.2.3.4/", "http://1.2.3.4a/",
           "http://017.1/", "http://0x7f.1/", "http://12345/", "http://a./",
           "http://.a/", "http://a..b/", "http://a.b/c//d", "http://a.b/./c",
           "http://a.b/c/..", "http://a.b/.c/..d/...", "http://a.b/c/.",
           "http://a.b/%41", "http://a.b/(S(abc))/x.aspx", "http://a.b/a b",
           "http://a.b/?", "http://a.b/?&", "http://a.b/?b&a=1&a&A=0",
           "http://a.b/?Z=1&y=2&x", "http://a.b/?a=1#?b=2",
           "http://a.b?x=1", "http://a.b#f?x", "http://a.b/?jsessionid=1",
           "http://a.b/?phpSessID=1", "http://a.b/?sid=x",
           "http://a.b/?aspsessionidx", "http://a.b/?cfid=1&cftoken=2",
           "http://a.b/?sidx=1", "http://a.b/?q=%20", "http://u@a.b/",
           "http://[::1]/", "http://a.b:/", "http://a.b:99999/",
           "http://a.b:123456/", "http://http://a.b/", "http://https://a.b/",
           "HTTP://a.b/", "http:/a.b/", "http:a.b", "ftp://a.b/",
           "http://a.b/\xc3\xa9", "http://\xc3\xa9.b/", "http://a.b/~x!$&'*+,;=:@",
           "http://a.b/x?~!$'()*+,;=:@/?", "http://xn--bcher-kva.de/",
           "http://A.B.C.D.E.F.G.H.I.J.K/", "http://a.b/c?d=E&F=g#H",
           "file://node.gypi", "file:///Users/x/a.js", "file://www.a/b/",
           "dns://www.a.b/", "DNS://www.a.b/", "FILE://a.b/", "ftp://a.b:21/",
           "x-y+z.w://a.b:80/", "https://a.b:80", "http://a.b:443",
           "file://a.b:80/", "9p://a.b/", "a://http://b.c/", "ws://a.b:0080/",
           "http://a.b:00000/", "node:url", "mailto:a@b.c"}) {
    Compare(url, &t);
  }
  EXPECT_EQ(t.differences, 0u);
  std::string key;
  ASSERT_TRUE(AppendCommonIaSurt("http://www.Example.com:80/A/?b=1&a=2#f",
                                 &key));
  EXPECT_EQ(key, "com,example)/a?a=2&b=1");
  for (const char* other : {"http://a%41.b/", "http://a.b/%41",
                            "http://u@a.b/", "http://1.2.3.4/",
                            "http://a.b/./", "http://a.b:99999/",
                            "http://a.b/?sid=1"}) {
    key.clear();
    EXPECT_FALSE(AppendCommonIaSurt(other, &key)) << other;
  }
}

// The library's own answers ('!' where it raises), via AppendIaSurt and
// via each path.
TEST(SurtCommonPathTest, LibraryVectors) {
  std::ifstream in(std::string(URISCAN_SOURCE_DIR) + "/corpus/surt/vectors.tsv",
                   std::ios::binary);
  ASSERT_TRUE(in.good());
  std::string line;
  size_t rows = 0, common = 0;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    ASSERT_NE(tab, std::string::npos);
    const std::string url = line.substr(0, tab), want = line.substr(tab + 1);
    std::string key, full, fast;
    const bool ok = AppendIaSurt(url, &key);
    EXPECT_EQ(ok ? key : "!", want) << url;
    EXPECT_EQ(AppendFullIaSurt(url, &full) ? full : "!", want) << url;
    if (AppendCommonIaSurt(url, &fast)) {
      ++common;
      EXPECT_EQ(fast, want) << url;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 4000u);
  EXPECT_GT(common, 0u);
}

}  // namespace
}  // namespace uriscan
