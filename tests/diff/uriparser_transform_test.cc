// SPDX-License-Identifier: MIT
// Resolution and syntax-based normalization against uriparser's
// uriAddBaseUriExA and uriNormalizeSyntaxExA over the corpora. Every
// disagreement must fall in a category of the allow-lists below, each with
// its RFC reason; anything else fails the test.
#include <uriparser/Uri.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"
#include "uriscan/normalize.h"
#include "uriscan/resolve.h"
#include "uriscan/spans.h"

namespace uriscan {
namespace {

std::optional<std::string> ToString(const UriUriA& u) {
  int chars = 0;
  if (uriToStringCharsRequiredA(&u, &chars) != URI_SUCCESS) return std::nullopt;
  std::string s(static_cast<size_t>(chars) + 1, '\0');
  if (uriToStringA(s.data(), &u, chars + 1, nullptr) != URI_SUCCESS)
    return std::nullopt;
  s.resize(static_cast<size_t>(chars));
  return s;
}

// uriparser's answers; nullopt when it refuses.
std::optional<std::string> PeerNormalize(const std::string& text) {
  UriUriA u;
  if (uriParseSingleUriA(&u, text.c_str(), nullptr) != URI_SUCCESS)
    return std::nullopt;
  std::optional<std::string> out;
  unsigned int mask = 0;
  if (uriNormalizeSyntaxMaskRequiredExA(&u, &mask) == URI_SUCCESS &&
      uriNormalizeSyntaxExA(&u, mask) == URI_SUCCESS) {
    out = ToString(u);
  }
  uriFreeUriMembersA(&u);
  return out;
}

std::optional<std::string> PeerResolve(const std::string& base,
                                       const std::string& ref) {
  UriUriA b, r, t;
  std::optional<std::string> out;
  if (uriParseSingleUriA(&b, base.c_str(), nullptr) != URI_SUCCESS)
    return out;
  if (uriParseSingleUriA(&r, ref.c_str(), nullptr) == URI_SUCCESS) {
    if (uriAddBaseUriExA(&t, &r, &b, URI_RESOLVE_STRICTLY) == URI_SUCCESS) {
      out = ToString(t);
      uriFreeUriMembersA(&t);
    }
    uriFreeUriMembersA(&r);
  }
  uriFreeUriMembersA(&b);
  return out;
}

// Both texts with every IP literal's inside dropped: "[...]" becomes "[]".
std::string WithoutIpLiterals(std::string_view s) {
  std::string out;
  bool inside = false;
  for (char c : s) {
    if (c == ']') inside = false;
    if (!inside) out.push_back(c);
    if (c == '[') inside = true;
  }
  return out;
}

// The documented uriparser deviations; "unexplained" for anything else.
//  ipv6-full-form: uriparser prints every IPv6 literal in its full
//    eight-group form ([::1] becomes [0000:...:0001]); RFC 3986 sec. 6.2.2
//    has no such rule, and sec. 3.2.2 keeps the text as written.
//  host-pct-lowercase: uriparser leaves the hex of a triplet in a reg-name
//    in lower case; sec. 6.2.2.1 says all triplets use upper-case hex.
//  rootless-merge: for a base whose path is rootless ("foo:a/b") the
//    RFC's remove_dot_segments turns the merged "a/../g" into "/g"
//    (sec. 5.2.4 rule C leaves the "/"); uriparser keeps it rootless.
const char* Category(std::string_view base, std::string_view ours,
                     std::string_view theirs) {
  if (WithoutIpLiterals(ours) == WithoutIpLiterals(theirs))
    return "ipv6-full-form";
  const UriReference o = ParseUriReference(ours);
  if (ours.size() == theirs.size() && o.host()) {
    // Differences only in case, and only inside the host.
    const size_t host_begin = o.host()->data() - ours.data();
    const size_t host_end = host_begin + o.host()->size();
    bool only_host_case = true;
    for (size_t i = 0; i < ours.size() && only_host_case; ++i) {
      if (ours[i] == theirs[i]) continue;
      only_host_case = (ours[i] | 0x20) == (theirs[i] | 0x20) &&
                       i >= host_begin && i < host_end;
    }
    if (only_host_case) return "host-pct-lowercase";
  }
  const UriReference b = ParseUriReference(base);
  if (b.valid() && b.scheme() && !b.authority() && !b.path().empty() &&
      b.path()[0] != '/') {
    const size_t colon = theirs.find(':');
    if (colon != std::string_view::npos &&
        std::string(theirs.substr(0, colon + 1)) + "/" +
                std::string(theirs.substr(colon + 1)) ==
            ours) {
      return "rootless-merge";
    }
  }
  return "unexplained";
}

struct Tally {
  size_t compared = 0;
  std::map<std::string, size_t> by_category;
  std::map<std::string, std::string> example;
  void Add(const char* category, const std::string& what) {
    if (std::getenv("URISCAN_DIFF_DUMP"))
      std::fprintf(stderr, "%s\t%s\n", category, what.c_str());
    ++by_category[category];
    example.emplace(category, what);
  }
  void Report(const char* title) const {
    std::printf("%s: %zu compared\n", title, compared);
    for (const auto& [k, n] : by_category)
      std::printf("  %-28s %zu  e.g. %s\n", k.c_str(), n, example.at(k).c_str());
  }
};

TEST(UriparserTransform, SyntaxNormalizationAgrees) {
  Tally tally;
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch batch;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &batch));
    for (size_t i = 0; i < batch.size(); ++i) {
      const std::string in(batch.view().Get(i));
      const UriReference u = ParseUriReference(in);
      if (!u.valid()) continue;
      std::string ours;
      ASSERT_TRUE(Normalize(u, Profile::kSyntax, &ours));
      const std::optional<std::string> theirs = PeerNormalize(in);
      ++tally.compared;
      if (theirs && *theirs == ours) continue;
      const std::string what = in + " -> ours " + ours + " | uriparser " +
                               (theirs ? *theirs : std::string("<refused>"));
      tally.Add(theirs ? Category("", ours, *theirs) : "unexplained", what);
    }
  }
  tally.Report("normalize syntax vs uriNormalizeSyntaxExA");
  EXPECT_GT(tally.compared, 100000u);
  EXPECT_EQ(tally.by_category.count("unexplained"), 0u);
}

TEST(UriparserTransform, ResolutionAgrees) {
  const std::vector<std::string> bases = {
      "http://a/b/c/d;p?q", "https://example.com", "http://h/dir/",
      "foo:a/b", "file:///etc/x"};
  Tally tally;
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    OwnedBatch batch;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &batch));
    for (size_t i = 0; i < batch.size(); ++i) {
      const std::string line(batch.view().Get(i));
      const UriReference u = ParseUriReference(line);
      if (!u.valid()) continue;
      // The line itself, and its path + query as a relative reference.
      std::string rel(u.path());
      if (u.query()) rel += "?" + std::string(*u.query());
      for (const std::string& ref : {line, rel}) {
        if (!ParseUriReference(ref).valid()) continue;
        const std::string& base = bases[i % bases.size()];
        ResolveStatus status;
        const std::string ours = Resolve(base, ref, &status);
        ASSERT_EQ(status, ResolveStatus::kOk) << base << " " << ref;
        const std::optional<std::string> theirs = PeerResolve(base, ref);
        ++tally.compared;
        if (theirs && *theirs == ours) continue;
        tally.Add(theirs ? Category(base, ours, *theirs) : "unexplained",
                  base + " + " + ref + " -> ours " + ours +
                                     " | uriparser " +
                                     (theirs ? *theirs : "<refused>"));
      }
    }
  }
  tally.Report("resolve vs uriAddBaseUriExA");
  EXPECT_GT(tally.compared, 100000u);
  EXPECT_EQ(tally.by_category.count("unexplained"), 0u);
}

}  // namespace
}  // namespace uriscan
