// SPDX-License-Identifier: MIT
// Normalization profiles and the equivalence ladder: the equivalent and
// not_equivalent seed vectors, each profile's rules, idempotence and batch
// output (text and spans) over the corpora.
#include "uriscan/normalize.h"

#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "src/transform/already_normal.h"
#include "tests/support/corpus.h"
#include "uriscan/fingerprint.h"
#include "uriscan/hosts.h"
#include "tests/support/seed_vectors.h"

namespace uriscan {
namespace {

using test_corpus::SeedVectors;

std::string N(std::string_view text, Profile p = Profile::kSyntax) {
  return Normalize(text, p);
}

TEST_F(SeedVectors, EquivalentPairsMeetOnTheirRung) {
  int n = 0;
  for (const auto& v : V("equivalent")) {
    const std::string a = v.at("a"), b = v.at("b");
    const std::string ladder = v.at("ladder");
    if (v.value("compat_only", false) || v.value("draft_only", false)) {
      // RFC 1630 or 2004-draft rules that RFC 3986 does not license.
      EXPECT_EQ(Compare(a, b, Profile::kScheme), Rung::kDifferent) << v;
    } else if (ladder.rfind("protocol-based", 0) == 0) {
      EXPECT_EQ(Compare(a, b, Profile::kCrawler), Rung::kDifferent) << v;
    } else {
      const Profile p =
          ladder == "syntax-based" ? Profile::kSyntax : Profile::kScheme;
      const Rung want = p == Profile::kSyntax ? Rung::kSyntax : Rung::kScheme;
      EXPECT_EQ(Compare(a, b, Profile::kScheme), want) << v;
      if (v.contains("normal_form") && !v.at("normal_form").is_null()) {
        EXPECT_EQ(N(a, p), v.at("normal_form").get<std::string>()) << v;
        EXPECT_EQ(N(b, p), v.at("normal_form").get<std::string>()) << v;
      }
    }
    ++n;
  }
  EXPECT_EQ(n, 19);
}

TEST_F(SeedVectors, NotEquivalentPairsStayApart) {
  int n = 0;
  for (const auto& v : V("not_equivalent")) {
    const std::string a = v.at("a"), b = v.at("b");
    if (v.contains("equivalent_at")) {
      // Apart on the rung named, together on the next (or never, for the
      // protocol-based one).
      const std::string at = v.at("at_ladder");
      EXPECT_EQ(Compare(a, b, at == "syntax-based" ? Profile::kSyntax
                                                   : Profile::kScheme),
                Rung::kDifferent)
          << v;
    } else {
      EXPECT_EQ(Compare(a, b, Profile::kScheme), Rung::kDifferent) << v;
    }
    ++n;
  }
  EXPECT_EQ(n, 7);
}

TEST(NormalizeTest, SyntaxRules) {
  EXPECT_EQ(N("HTTP://User@Example.COM:/A/%7e/%2f/./b/../c?Q=%41%3a#F%7E"),
            "http://User@example.com:/A/~/%2F/c?Q=A%3A#F~");
  EXPECT_EQ(N("http://ex%41mple.com/"), "http://example.com/");  // host: lower
  EXPECT_EQ(N("http://[2001:DB8::A]/"), "http://[2001:db8::a]/");
  EXPECT_EQ(N("http://example.com"), "http://example.com");  // path kept empty
  EXPECT_EQ(N("/%2E%2E/a/%2e/b"), "/a/b");  // decoded dots are dots
  // Relative references keep what climbs above the base, and stay relative.
  EXPECT_EQ(N("../a/./b/../c"), "../a/c");
  EXPECT_EQ(N("a/.."), "./");
  EXPECT_EQ(N("a/../b:c"), "./b:c");
  EXPECT_EQ(N("."), "./");
  EXPECT_EQ(N(""), "");
  EXPECT_EQ(N("http://a/b c"), "");  // invalid: nothing
}

TEST(NormalizeTest, SchemeRules) {
  const Profile s = Profile::kScheme;
  EXPECT_EQ(N("http://a:80", s), "http://a/");
  EXPECT_EQ(N("https://a:443/x", s), "https://a/x");
  EXPECT_EQ(N("https://a:80/x", s), "https://a:80/x");
  EXPECT_EQ(N("http://a:080/", s), "http://a/");
  EXPECT_EQ(N("foo://a:/x", s), "foo://a/x");  // an empty port always goes
  EXPECT_EQ(N("foo://a:80", s), "foo://a:80");  // unknown scheme: left alone
  EXPECT_EQ(N("ws://a", s), "ws://a/");
  EXPECT_EQ(N("ftp://a", s), "ftp://a");
  EXPECT_EQ(N("FILE://LocalHost/etc/x", s), "file:///etc/x");
  EXPECT_EQ(N("mailto:Joe@Example.COM,Ann@B.ORG?subject=Hi", s),
            "mailto:Joe@example.com,Ann@b.org?subject=Hi");
  EXPECT_EQ(N("http://a/?", s), "http://a/?");  // sec. 6.2.3: "?" stays
}

TEST(NormalizeTest, CrawlerRules) {
  const Profile c = Profile::kCrawler;
  EXPECT_EQ(N("HTTP://Example.COM.:80/a/./b?z=1&utm_source=x&a=2&a=1&&gclid=3#top",
              c),
            "http://example.com/a/b?a=2&a=1&z=1");
  EXPECT_EQ(N("http://a/?utm_medium=email", c), "http://a/");
  // An empty query is no query: these four are one class.
  EXPECT_EQ(N("http://a/?", c), "http://a/");
  EXPECT_EQ(N("http://a/?&", c), "http://a/");
  EXPECT_EQ(N("http://a/?utm_source=1", c), "http://a/");
  EXPECT_EQ(N("http://a/?&utm_source=1&", c), "http://a/");
  EXPECT_EQ(Compare("http://a/x#1", "http://A:80/x#2", Profile::kCrawler),
            Rung::kCrawler);
  NormalizeOptions opt;
  opt.tracking_params = {"sid"};
  EXPECT_EQ(Normalize("http://a/?sid=1&utm_x=2", c, opt), "http://a/?utm_x=2");
}

// Version 3: session ids, tracking names without case, IPv4 forms.
// Version 4: a session id by its value's shape, as Heritrix and the
// Internet Archive's canonicalizer tell one.
TEST(NormalizeTest, CrawlerSessionIdsCaseAndAddresses) {
  const Profile c = Profile::kCrawler;
  const std::string id32 = "0123456789abcdefABCDEF0123456789";
  const std::string letters24 = "ABCDEFGHIJKLMNOPQRSTUVWX";
  EXPECT_EQ(N("http://a/x?JSESSIONID=" + id32 + "&b=2&PHPSESSID=" + id32 +
                  "&sid=" + id32 + "&ASPSESSIONIDQQGGGNCU=" + letters24 +
                  "&cfid=7&CFTOKEN=8&sidx=9",
              c),
            "http://a/x?b=2&sidx=9");
  // Values of another shape are data: two stories stay two.
  EXPECT_EQ(N("http://slashdot.org/article.pl?sid=05/12/01/1234", c),
            "http://slashdot.org/article.pl?sid=05/12/01/1234");
  EXPECT_NE(N("http://s.org/a.pl?sid=05/12/01/1234", c),
            N("http://s.org/a.pl?sid=06/01/01/999", c));
  const std::vector<std::string> kept_ones = {
      "sid=" + id32.substr(1), "sid=" + id32 + "0",
      "sid=" + id32.substr(1) + "-", "jsessionid=1", "sessionid=" + id32,
      "ASPSESSIONIDQQGG=" + letters24,
      "ASPSESSIONIDQQGGGNCU=" + letters24.substr(1) + "1", "cfid=7",
      "cftoken=8", "cftoken=8&cfid=7", "cfid=7&x=1&cftoken=8",
      "cfid=&cftoken=8"};
  for (const std::string& kept : kept_ones) {
    const std::string url = "http://a/x?" + kept;
    std::string want = N(url, Profile::kScheme);
    // (the crawler profile still sorts the fields)
    if (kept == "cftoken=8&cfid=7") want = "http://a/x?cfid=7&cftoken=8";
    if (kept == "cfid=7&x=1&cftoken=8") want = "http://a/x?cfid=7&cftoken=8&x=1";
    EXPECT_EQ(N(url, c), want) << kept;
  }
  // ASP.NET's cookieless session segment before an .aspx page.
  EXPECT_EQ(N("http://a/(S(" + std::string("abcdefghijklmnopqrstuvwx") +
                  "))/Default.aspx?q=1",
              c),
            "http://a/Default.aspx?q=1");
  EXPECT_EQ(N("http://a/d/(X(" + std::string(24, '1') + ")S(" +
                  std::string(24, 'z') + "))/p/Page.ASPX",
              c),
            "http://a/d/p/Page.ASPX");
  EXPECT_EQ(N("http://a/(S(abcdefghijklmnopqrstuvwx))/page.html", c),
            "http://a/(S(abcdefghijklmnopqrstuvwx))/page.html");
  EXPECT_EQ(N("http://a/x;jsessionid=A1B2?q=1", c), "http://a/x?q=1");
  EXPECT_EQ(N("http://a/x;JSESSIONID=A1;v=2/y;jsessionid", c),
            "http://a/x;v=2/y");
  EXPECT_EQ(N("http://a/x;jsessionidx=1", c), "http://a/x;jsessionidx=1");
  EXPECT_EQ(N("http://a/?UTM_Source=x&Gclid=1&k=v", c), "http://a/?k=v");
  EXPECT_EQ(N("http://a/?utm%5Fsource=x", c), "http://a/");
  for (const char* form : {"http://2130706433/", "http://0x7f.1/",
                           "http://0177.0.0.1/", "http://127.1/",
                           "http://127.0.0.1./", "http://0X7F.0.0.1/"}) {
    EXPECT_EQ(N(form, c), "http://127.0.0.1/") << form;
  }
  EXPECT_EQ(N("http://1.2.3.4.5/", c), "http://1.2.3.4.5/");
  EXPECT_EQ(N("http://08.1/", c), "http://08.1/");  // not an address
  EXPECT_EQ(N("http://www.a.example/", c), "http://www.a.example/");
  NormalizeOptions fold;
  fold.fold_www = true;
  EXPECT_EQ(Normalize("http://WWW.a.example/", c, fold), "http://a.example/");
  EXPECT_EQ(Normalize("http://www./", c, fold), "http://www/");
  EXPECT_EQ(Normalize("http://www2.a.example/", c, fold),
            "http://www2.a.example/");
  NormalizeOptions added;
  added.tracking_params.push_back("ref");
  EXPECT_EQ(Normalize("http://a/?REF=1&utm_x=2&k", c, added), "http://a/?k");
}

// Expected values are what w3lib 2.1's canonicalize_url returned.
// w3lib canonicalizes much that RFC 3986 refuses, split as urllib splits
// it: the w3lib profile gives w3lib's answer (w3lib 2.1.1's, each checked)
// for those lines too, and none where w3lib raises or would need IDNA.
TEST(NormalizeTest, W3libCanonicalizesWhatRfc3986Refuses) {
  const Profile w = Profile::kW3lib;
  const std::pair<std::string, std::string> cases[] = {
      {"http://a/?p[]=1", "http://a/?p%5B%5D=1"},
      {"\"http://x/y", "%22http://x/y"},
      {"http://a/?email={{x}}", "http://a/?email=%7B%7Bx%7D%7D"},
      {"http://a/%zz;p=%zz?q=%zz&b", "http://a/%zz;p=%zz?b=&q=%25zz"},
      {" http://a/\tb ", "http://a/b"},
      {"HTTP://U@A.Example:/%7e/x y?b=2&a=1#f",
       "http://u@a.example/~/x%20y?a=1&b=2"},
      {"http://a/p;x\"y", "http://a/p;x%22y"},
      {"mailto:a b@c", "mailto:a%20b@c"},
      {"http://a b/c", "http://a b/c"},
      {"http:a\"b", "http:///a%22b"},
      {"http://a/\xc3\xa9 ?x=\xc3\xa9", "http://a/%C3%A9%20?x=%C3%A9"},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_FALSE(ParseUriReference(in).valid()) << in;
    EXPECT_EQ(Normalize(in, w), want) << in;
    // The same key as its form's, as for a valid line.
    EXPECT_EQ(Fingerprinter(w).Key64(in) != 0, true) << in;
  }
  // Where w3lib raises (an unbalanced '['; text that is not UTF-8) or
  // would answer through IDNA: no form, as for any other profile.
  for (const std::string in : {"http://[x/", "http://a/\xff", "http://\xc3\xa9.example/"}) {
    EXPECT_EQ(Normalize(in, w), "") << in;
    EXPECT_EQ(Fingerprinter(w).Key64(in), 0u) << in;
  }
  EXPECT_EQ(Normalize("http://a/?p[]=1", Profile::kScheme), "");
}

TEST(NormalizeTest, W3libIsCanonicalizeUrl) {
  const Profile w = Profile::kW3lib;
  EXPECT_EQ(N("HTTP://User:PW@Example.COM:80/a/./b/%7euser/%2f%3F%25%2541"
              "?b=2&a=%7e&a=1&c&&d=+x#frag", w),
            "http://user:pw@example.com:80/a/./b/~user/%2F%3F%%41"
            "?a=1&a=~&b=2&c=&d=+x");
  EXPECT_EQ(N("http://a.example/a;b/c;", w), "http://a.example/a;b/c");
  EXPECT_EQ(N("http://a.example/p;x?q=a;z=1", w),
            "http://a.example/p;x?q=a&z=1");
  EXPECT_EQ(N("http:////a.example/x", w), "http://a.example/x");
  EXPECT_EQ(N("http:x", w), "http:///x");
  EXPECT_EQ(N("http://a.example:/?", w), "http://a.example/");
  EXPECT_EQ(N("http://a.example/caf%c3%a9?x=caf%C3%A9", w),
            "http://a.example/caf%C3%A9?x=caf%C3%A9");
  EXPECT_EQ(N("http://a.example", w), "http://a.example/");
}

TEST(NormalizeTest, Ladder) {
  EXPECT_EQ(Compare("http://a/", "http://a/"), Rung::kIdentical);
  EXPECT_EQ(Compare("http://A/", "http://a/"), Rung::kSyntax);
  EXPECT_EQ(Compare("http://a:80/", "http://a/"), Rung::kScheme);
  EXPECT_EQ(Compare("http://a/#x", "http://a/", Profile::kScheme),
            Rung::kDifferent);
  EXPECT_EQ(Compare("http://a/#x", "http://a/", Profile::kCrawler),
            Rung::kCrawler);
  EXPECT_EQ(Compare("%zz", "%ZZ", Profile::kCrawler), Rung::kDifferent);
  EXPECT_EQ(Compare("%zz", "%zz"), Rung::kIdentical);
}

// Rows with no bytes at all (the CLI's stand-in for an over-long line) and
// empty batches: nothing is read from a null data pointer (UBSan checks).
TEST(NormalizeBatchTest, EmptyRowsAndEmptyBatches) {
  const uint32_t offsets[] = {0, 0};
  ComponentSpans spans;
  NormalizedBatch out;
  for (size_t count : {size_t{0}, size_t{1}}) {
    const Batch empty{nullptr, offsets, count};
    Scan(empty, &spans);
    NormalizeBatch(empty, spans, Profile::kCrawler, &out);
    ASSERT_EQ(out.size(), count);
    if (count) {
      EXPECT_EQ(out.Get(0), "");
    }
  }
}

// Rows the flags let through are copied; the scheme rules that look inside
// a component (file's localhost, mailto's domains) must still catch theirs.
TEST(NormalizeBatchTest, CopiesOnlyWhatNoRuleChanges) {
  OwnedBatch in;
  ASSERT_TRUE(BatchFromLines("file://localhost/x\nfile:///x\nfile://h/x\n"
                             "mailto:a@B.org\nmailto:a@b.org\n"
                             "http://a\nhttp://a/\nhttp://a:80/\n"
                             "https://a\nhttps://a:8443/x\nhttpx://a\nhttp:x\n"
                             "https:x\nhttps://a/\n",
                             &in));
  ComponentSpans spans;
  Scan(in.view(), &spans);
  NormalizedBatch out;
  NormalizeBatch(in.view(), spans, Profile::kScheme, &out);
  const char* want[] = {"file:///x",      "file:///x", "file://h/x",
                        "mailto:a@b.org", "mailto:a@b.org", "http://a/",
                        "http://a/",      "http://a/", "https://a/",
                        "https://a:8443/x", "httpx://a", "http:x",
                        "https:x",        "https://a/"};
  ASSERT_EQ(out.size(), 14u);
  for (size_t i = 0; i < 14; ++i) EXPECT_EQ(out.Get(i), want[i]) << i;
  // file:///x, file://h/x, mailto:a@b.org, http://a/, httpx://a, http:x,
  // https:x, https://a/
  EXPECT_EQ(out.copied(), 8u);
}

// Every profile over every corpus: idempotent, the batch equals the
// one-at-a-time result, its spans equal a scalar scan of its own output,
// invalid rows come back unchanged, and crawler rows keep the original.
// The column-only shortcut never calls a row normal that a rule would
// change: every row it passes is its own normal form, and AlreadyNormal()
// agrees. It passes many rows of real URL lists (else it saves nothing).
TEST(NormalizeBatchTest, SurelyNormalRowsAreTheirOwnNormalForm) {
  std::string text =
      "file://localhost/x\nfile:///x\nmailto:a@B.org\nhttp://a\nhttp://a/\n"
      "http://a:80/\nhttp://a:/\nhttps://a\nftp://a:21/\n//a:80/\n//a\n"
      "x://a:/\nx://a\nws://a\nhttp://a?q\nhttp://a#f\n\nrel/path\n"
      "http:x\nfoo://b/c\n"
      // The structure canonicalize_url rewrites or keeps (w3lib).
      "file:////x\nfile://h\nfile://h/a\nx:///a\nx://h/a\nftp:a\nnode:url\n"
      "a;b\nx:a;b\nhttp://h/a;b\n//h/p\n/p\nrel\nhttp://[::1]/\nfile:/a\n"
      "x:/a\nx:\n?q\n#f\nhttp://u@h/\nhttp://h:1/\nhttp://h/%41\n";
  for (const auto& corpus : test_corpus::LoadCorpora()) text += corpus.bytes;
  OwnedBatch batch;
  ASSERT_TRUE(BatchFromLines(text, &batch));
  ComponentSpans spans;
  Scan(batch.view(), &spans);
  for (Profile p : {Profile::kSyntax, Profile::kScheme, Profile::kCrawler}) {
    size_t surely = 0, valid = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (spans.error_kind[i] != 0) continue;
      ++valid;
      if (!SurelyNormal(batch.view().data, spans, i, p)) continue;
      ++surely;
      const std::string_view row = batch.view().Get(i);
      ASSERT_TRUE(AlreadyNormal(batch.view(), spans, i, p)) << row;
      std::string normal;
      ASSERT_TRUE(Normalize(ParseUriReference(row), p, &normal)) << row;
      ASSERT_EQ(normal, row) << ProfileName(p);
    }
    if (p != Profile::kCrawler) {
      EXPECT_GT(surely, valid / 4) << ProfileName(p);
    }
  }
  // The rows AlreadyNormal() alone passes for the profiles SurelyNormal()
  // leaves to it.
  for (Profile p : {Profile::kCrawler, Profile::kW3lib}) {
    for (bool fold_www : {false, true}) {
      NormalizeOptions options;
      options.fold_www = fold_www;
      size_t passed = 0;
      for (size_t i = 0; i < batch.size(); ++i) {
        if (spans.error_kind[i] != 0 ||
            !AlreadyNormal(batch.view(), spans, i, p, fold_www))
          continue;
        ++passed;
        const std::string_view row = batch.view().Get(i);
        std::string normal;
        ASSERT_TRUE(Normalize(ParseUriReference(row), p, &normal, options))
            << row;
        ASSERT_EQ(normal, row) << ProfileName(p);
      }
      EXPECT_GT(passed, batch.size() / 8) << ProfileName(p);
    }
  }
}

TEST(NormalizeBatchTest, CorporaIdempotentAndSpansExact) {
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch in;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &in));
    ComponentSpans spans;
    Scan(in.view(), &spans);
    for (Profile p : {Profile::kSyntax, Profile::kScheme, Profile::kCrawler,
                      Profile::kW3lib}) {
      NormalizedBatch out;
      NormalizeBatch(in.view(), spans, p, &out);
      ASSERT_EQ(out.size(), in.size());
      ComponentSpans oracle;
      ScanScalar(out.view(), &oracle);
      NormalizedBatch again;
      NormalizeBatch(out.view(), oracle, p, &again);
      size_t rewritten = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        const std::string_view src = in.view().Get(i), got = out.Get(i);
        if (spans.error_kind[i] != 0) {
          ASSERT_EQ(got, src);
          ASSERT_EQ(out.spans().error_kind[i], spans.error_kind[i]);
        } else {
          ASSERT_EQ(got, Normalize(src, p)) << corpus.name << " " << src;
          // w3lib's canonicalize_url is not always idempotent (cli.md).
          if (p != Profile::kW3lib) {
            ASSERT_EQ(again.Get(i), got) << "not idempotent: " << src;
          }
        }
        rewritten += got != src;
        if (p == Profile::kCrawler) {
          ASSERT_EQ(out.original(i), src);
        }
        for (auto col : {&ComponentSpans::uri_begin, &ComponentSpans::scheme_end,
                         &ComponentSpans::authority_begin,
                         &ComponentSpans::userinfo_end,
                         &ComponentSpans::host_begin, &ComponentSpans::host_end,
                         &ComponentSpans::port_begin, &ComponentSpans::path_begin,
                         &ComponentSpans::path_end, &ComponentSpans::query_begin,
                         &ComponentSpans::fragment_begin,
                         &ComponentSpans::uri_end, &ComponentSpans::error_offset}) {
          ASSERT_EQ((out.spans().*col)[i], (oracle.*col)[i])
              << corpus.name << " row " << i << " " << got;
        }
        ASSERT_EQ(out.spans().flags[i], oracle.flags[i]) << got;
      }
      // Every row that changed was rewritten, not copied.
      EXPECT_LE(out.copied() + rewritten, in.size()) << corpus.name;
    }
  }
}

// A check that says "stop" from its `after`-th question on.
int questions = 0, stop_after = 0;
bool StopAfter() { return ++questions >= stop_after; }

// The profiles and the surt key that sort a query's fields ask the
// thread's check while they work on a long query and throw when it says
// so; without a check, or with one that never says so, they finish with
// the same answer; another thread's check is not this thread's.
TEST(InterruptTest, LongQueriesStopWhenTheThreadsCheckSaysSo) {
  std::string uri = "http://a/?";
  for (int k = 0; k < 200000; ++k) uri += "p" + std::to_string(k % 977) + "&";
  const UriReference ref = ParseUriReference(uri);
  ASSERT_TRUE(ref.valid());
  std::string crawler, w3lib, surt;
  ASSERT_TRUE(Normalize(ref, Profile::kCrawler, &crawler));
  ASSERT_TRUE(Normalize(ref, Profile::kW3lib, &w3lib));
  ASSERT_TRUE(AppendIaSurt(uri, &surt));
  const auto all = [&](std::string* c, std::string* w, std::string* s) {
    c->clear();
    w->clear();
    s->clear();
    (void)Normalize(ref, Profile::kCrawler, c);
    (void)Normalize(ref, Profile::kW3lib, w);
    (void)AppendIaSurt(uri, s);
  };
  std::string c, w, s;
  std::thread other([&] {
    stop_after = 1;  // read by this thread's check only
    SetInterruptCheck(StopAfter);
  });
  other.join();
  questions = 0;
  all(&c, &w, &s);  // this thread has no check
  EXPECT_EQ(questions, 0);
  EXPECT_EQ(c, crawler);
  EXPECT_EQ(w, w3lib);
  EXPECT_EQ(s, surt);
  stop_after = 1 << 30;  // asked, never stops
  SetInterruptCheck(StopAfter);
  all(&c, &w, &s);
  EXPECT_GT(questions, 100);  // every 4096 steps, in each of the three
  EXPECT_EQ(c, crawler);
  EXPECT_EQ(w, w3lib);
  EXPECT_EQ(s, surt);
  for (int which = 0; which < 3; ++which) {
    questions = 0;
    stop_after = 3;
    std::string out;
    EXPECT_THROW(which == 0   ? (void)Normalize(ref, Profile::kCrawler, &out)
                 : which == 1 ? (void)Normalize(ref, Profile::kW3lib, &out)
                              : (void)AppendIaSurt(uri, &out),
                 Interrupted)
        << which;
    EXPECT_EQ(questions, 3);
  }
  SetInterruptCheck(nullptr);
  c.clear();
  ASSERT_TRUE(Normalize(ref, Profile::kCrawler, &c));  // after a throw too
  EXPECT_EQ(c, crawler);
}

}  // namespace
}  // namespace uriscan
