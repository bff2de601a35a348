// SPDX-License-Identifier: MIT
// Reference resolution (sec. 5.2) and its inverse: every resolve, resolve_1997,
// resolve_derived and remove_dot_segments seed vector, the policies, the
// batch forms, and the round trip over the corpora.
#include "uriscan/resolve.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"
#include "tests/support/seed_vectors.h"

namespace uriscan {
namespace {

using test_corpus::SeedVectors;

std::string Rds(std::string_view path, AboveRoot policy = AboveRoot::kClamp) {
  std::string out;
  EXPECT_TRUE(RemoveDotSegments(path, policy, &out)) << path;
  return out;
}

TEST_F(SeedVectors, RemoveDotSegments) {
  int n = 0;
  for (const auto& v : V("remove_dot_segments")) {
    EXPECT_EQ(Rds(v.at("input").get<std::string>()),
              v.at("expected").get<std::string>())
        << v.at("input");
    ++n;
  }
  EXPECT_EQ(n, 17);
}

TEST_F(SeedVectors, ResolveStrictAndNonstrict) {
  int n = 0;
  for (const char* key : {"resolve", "resolve_derived"}) {
    for (const auto& v : V(key)) {
      ResolveOptions opt;
      const std::string mode = v.value("mode", "strict");
      opt.nonstrict = mode == "nonstrict";
      ResolveStatus status;
      const std::string got =
          Resolve(v.at("base").get<std::string>(),
                  v.at("ref").get<std::string>(), &status, opt);
      EXPECT_EQ(status, ResolveStatus::kOk) << v;
      EXPECT_EQ(got, v.at("expected").get<std::string>()) << v;
      if (v.value("same_in_nonstrict", false)) {
        opt.nonstrict = true;
        EXPECT_EQ(Resolve(v.at("base").get<std::string>(),
                          v.at("ref").get<std::string>(), nullptr, opt),
                  v.at("expected").get<std::string>())
            << v;
      }
      ++n;
    }
  }
  EXPECT_EQ(n, 50);
}

TEST_F(SeedVectors, Resolve1997UnderItsSwitch) {
  ResolveOptions opt;
  opt.draft_1997 = true;
  opt.above_root = AboveRoot::kKeep;  // the choice App. C shows (6g)
  int n = 0;
  for (const auto& v : V("resolve_1997")) {
    // Two printed answers contradict the draft's own algorithm (they run
    // dot removal inside the query); the algorithm's answer is recorded.
    const std::string want = v.value("consistent_with_own_algorithm", true)
                                 ? v.at("expected").get<std::string>()
                                 : v.at("own_algorithm_gives").get<std::string>();
    ResolveStatus status;
    const std::string got = Resolve(v.at("base").get<std::string>(),
                                    v.at("ref").get<std::string>(), &status,
                                    opt);
    if (v.value("expected_kind", "") == "same-document") {
      EXPECT_EQ(status, ResolveStatus::kSameDocument) << v;
      EXPECT_EQ("(current document)" + got, want) << v;
    } else {
      EXPECT_EQ(status, ResolveStatus::kOk) << v;
      EXPECT_EQ(got, want) << v;
    }
    // And the RFC 3986 answer without the switch.
    EXPECT_EQ(Resolve(v.at("base").get<std::string>(),
                      v.at("ref").get<std::string>()),
              v.at("rfc3986_expected").get<std::string>())
        << v;
    ++n;
  }
  EXPECT_EQ(n, 44);
}

TEST(ResolveTest, AboveRootPolicies) {
  const std::string base = "http://a/b/c/d;p?q";
  ResolveOptions opt;
  EXPECT_EQ(Resolve(base, "../../../g", nullptr, opt), "http://a/g");
  opt.above_root = AboveRoot::kKeep;
  EXPECT_EQ(Resolve(base, "../../../g", nullptr, opt), "http://a/../g");
  EXPECT_EQ(Resolve(base, "/../../g/..", nullptr, opt), "http://a/../../");
  opt.above_root = AboveRoot::kReject;
  ResolveStatus status;
  EXPECT_EQ(Resolve(base, "../../../g", &status, opt), "");
  EXPECT_EQ(status, ResolveStatus::kAboveRoot);
  EXPECT_EQ(Resolve(base, "../../g", &status, opt), "http://a/g");
  EXPECT_EQ(status, ResolveStatus::kOk);
  EXPECT_EQ(Rds("../a/../..", AboveRoot::kKeep), "../../");  // as "/a/.." is "/"
  EXPECT_EQ(Rds("/a/../../b/./c", AboveRoot::kKeep), "/../b/c");
}

TEST(ResolveTest, BadInputsAndBaseFragment) {
  ResolveStatus status;
  EXPECT_EQ(Resolve("/no/scheme", "g", &status), "");
  EXPECT_EQ(status, ResolveStatus::kBadBase);
  EXPECT_EQ(Resolve("http://a/%zz", "g", &status), "");
  EXPECT_EQ(status, ResolveStatus::kBadBase);
  EXPECT_EQ(Resolve("http://a/b", "g h", &status), "");
  EXPECT_EQ(status, ResolveStatus::kBadReference);
  EXPECT_EQ(Resolve("http://a/b#frag", "", &status), "http://a/b");  // sec. 5.1
  EXPECT_EQ(Resolve("http://a/b#frag", "#x", &status), "http://a/b#x");
  // A path that would start with "//" and no authority keeps its meaning.
  EXPECT_EQ(Resolve("foo:/a/b", "..//c"), "foo:/.//c");
}

TEST(ResolveTest, BatchAgainstOneBaseAndAColumnOfBases) {
  OwnedBatch refs, bases;
  ASSERT_TRUE(BatchFromLines("g\n../x\nbad ref\n#f\n", &refs));
  ASSERT_TRUE(BatchFromLines("http://a/b/c\nhttp://h/p/q/r\nhttp://a/\n"
                             "x:y\n", &bases));
  ComponentSpans rs, bs;
  Scan(refs.view(), &rs);
  Scan(bases.view(), &bs);
  ResolvedBatch out;
  ResolveBatch(ParseUriReference("http://a/b/c"), refs.view(), rs, {}, true,
               &out);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out.Get(0), "http://a/b/g");
  EXPECT_EQ(out.Get(1), "http://a/x");
  EXPECT_EQ(out.Get(2), "bad ref");  // kept for alignment
  EXPECT_EQ(out.status[2], ResolveStatus::kBadReference);
  EXPECT_EQ(out.Get(3), "http://a/b/c#f");
  ResolveBatch(bases.view(), bs, refs.view(), rs, {}, false, &out);
  EXPECT_EQ(out.Get(0), "http://a/b/g");
  EXPECT_EQ(out.Get(1), "http://h/p/x");
  EXPECT_EQ(out.Get(2), "");
  EXPECT_EQ(out.Get(3), "x:y#f");
}

// ResolveBatch against one base takes a shortcut for dot-free paths; it must
// give exactly what Resolve() gives row by row, for every kind of base and
// every option.
TEST(ResolveTest, BatchEqualsRowByRowForEveryBaseAndOption) {
  std::string lines =
      "g\n./g\ng/\n/g\n//g\n?y\ng?y\n#s\ng#s\n;x\n\n.\n..\n../g\n"
      "/./g\n/../g\ng/..\na:b\nhttp:g\nhttp:/g\n%2e%2e/g\n.g\ng..\n"
      "/a//b\nbad ref\n[::1]\n";
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch all;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &all));
    for (size_t i = 0; i < all.size(); i += 13) {
      const UriReference u = ParseUriReference(all.view().Get(i));
      lines.append(all.view().Get(i));  // whole lines, invalid ones too
      lines += '\n';
      if (!u.valid()) continue;
      lines.append(u.path());
      if (u.query()) lines.append("?").append(*u.query());
      lines += '\n';
    }
  }
  OwnedBatch refs;
  ASSERT_TRUE(BatchFromLines(lines, &refs));
  ComponentSpans spans;
  Scan(refs.view(), &spans);
  const char* bases[] = {"http://a/b/c/d;p?q", "http://a",  "http://a/",
                         "http://a/./b/../c/", "foo:/a/b",  "foo:a/b",
                         "foo:",               "mailto:x@y", "HTTP://A/b#f",
                         "no-scheme/x"};
  std::vector<ResolveOptions> options(4);
  options[1].nonstrict = true;
  options[2].above_root = AboveRoot::kReject;
  options[3].above_root = AboveRoot::kKeep;
  size_t rows = 0;
  for (const char* b : bases) {
    const UriReference base = ParseUriReference(b);
    for (const ResolveOptions& o : options) {
      for (bool keep : {false, true}) {
        ResolvedBatch out;
        ResolveBatch(base, refs.view(), spans, o, keep, &out);
        ASSERT_EQ(out.size(), refs.size());
        for (size_t i = 0; i < refs.size(); ++i) {
          std::string want;
          const ResolveStatus s =
              Resolve(base, ParseUriReference(refs.view().Get(i)), o, &want);
          if (s != ResolveStatus::kOk && s != ResolveStatus::kSameDocument)
            want = keep ? std::string(refs.view().Get(i)) : "";
          ASSERT_EQ(out.status[i], s) << b << " + " << refs.view().Get(i);
          ASSERT_EQ(out.Get(i), want) << b << " + " << refs.view().Get(i);
          ++rows;
        }
      }
    }
  }
  EXPECT_GT(rows, 100000u);
}

std::string Rel(std::string_view base, std::string_view target) {
  std::string out;
  EXPECT_TRUE(Relativize(ParseUriReference(base), ParseUriReference(target),
                         &out))
      << base << " " << target;
  return out;
}

TEST(RelativizeTest, ShortestReferences) {
  const std::string base = "http://a/b/c/d;p?q";
  EXPECT_EQ(Rel(base, "http://a/b/c/d;p?q"), "");
  EXPECT_EQ(Rel(base, "http://a/b/c/d;p?q#s"), "#s");
  EXPECT_EQ(Rel(base, "http://a/b/c/d;p?y"), "?y");
  EXPECT_EQ(Rel(base, "http://a/b/c/g"), "g");
  EXPECT_EQ(Rel(base, "http://a/b/c/"), "./");
  EXPECT_EQ(Rel(base, "http://a/b/g"), "../g");
  EXPECT_EQ(Rel(base, "http://a/g"), "/g");
  EXPECT_EQ(Rel(base, "http://a/b/c/d;p"), "d;p");
  EXPECT_EQ(Rel(base, "http://x/y"), "//x/y");
  EXPECT_EQ(Rel(base, "ftp://a/b"), "ftp://a/b");
  EXPECT_EQ(Rel(base, "http://a/b/c/g:h"), "./g:h");
  std::string out;
  EXPECT_FALSE(Relativize(ParseUriReference(base),
                          ParseUriReference("http://a/./x"), &out));
}

// resolve(base, relativize(base, t)) == t for every corpus line that is an
// absolute URI without dot segments, against bases drawn from the corpus.
TEST(RelativizeTest, RoundTripsOverTheCorpora) {
  size_t checked = 0;
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch batch;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &batch));
    ComponentSpans spans;
    Scan(batch.view(), &spans);
    std::vector<UriReference> bases;
    for (size_t i = 0; i < spans.size() && bases.size() < 8; i += 97) {
      const UriReference u = spans.Row(i, batch.data.data());
      if (u.valid() && u.scheme()) bases.push_back(u);
    }
    for (size_t i = 0; i < spans.size(); ++i) {
      const UriReference t = spans.Row(i, batch.data.data());
      if (!t.valid() || !t.scheme()) continue;
      const UriReference& base = bases[i % bases.size()];
      std::string rel;
      if (!Relativize(base, t, &rel)) {
        std::string clean;
        RemoveDotSegments(t.path(), AboveRoot::kClamp, &clean);
        ASSERT_NE(clean, t.path()) << "no relative form for " << t.text();
        continue;
      }
      std::string back;
      ASSERT_EQ(Resolve(base, ParseUriReference(rel), {}, &back),
                ResolveStatus::kOk);
      ASSERT_EQ(back, t.text()) << base.text() << " + " << rel;
      ASSERT_LE(rel.size(), t.text().size());
      ++checked;
    }
  }
  EXPECT_GT(checked, 100000u);
}

}  // namespace
}  // namespace uriscan
