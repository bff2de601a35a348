// SPDX-License-Identifier: MIT
// The RFC 3986 cases of tests/data, which every clone has: the section 5.4
// resolution table, the section 6.2 equivalences and the grammar cases of
// sections 2 to 4, through the scalar parser and the SIMD scanner alike.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/tsv.h"
#include "uriscan/fingerprint.h"
#include "uriscan/normalize.h"
#include "uriscan/resolve.h"
#include "uriscan/spans.h"
#include "uriscan/uri.h"

namespace uriscan {
namespace {

using test_data::ReadCases;
using test_data::Row;

std::optional<std::string> Opt(std::optional<std::string_view> v) {
  if (!v) return std::nullopt;
  return std::string(*v);
}

TEST(Rfc3986Data, ResolutionExamplesOfSection54) {
  const std::vector<Row> rows = ReadCases("resolve.tsv", 5);
  int normal = 0, abnormal = 0;
  for (const Row& r : rows) {
    const std::string& section = r[0];
    ResolveOptions options;
    ASSERT_TRUE(r[1] == "strict" || r[1] == "nonstrict") << r.line;
    options.nonstrict = r[1] == "nonstrict";
    ResolveStatus status = ResolveStatus::kBadBase;
    EXPECT_EQ(Resolve(r[2], r[3], &status, options), r[4])
        << "line " << r.line << ": <" << r[3] << ">";
    EXPECT_EQ(status, ResolveStatus::kOk) << "line " << r.line;
    if (section == "5.4.1") ++normal;
    if (section == "5.4.2") ++abnormal;
  }
  // RFC 3986 lists 23 normal and 19 abnormal examples ("http:g" twice).
  EXPECT_EQ(normal, 23);
  EXPECT_EQ(abnormal, 20);
}

TEST(Rfc3986Data, ResolutionTableThroughTheBatchPath) {
  OwnedBatch refs;
  std::vector<std::string> want;
  std::string text;
  for (const Row& r : ReadCases("resolve.tsv", 5)) {
    if (r[1] != "strict") continue;
    text += r[3] + "\n";
    want.push_back(r[4]);
  }
  ASSERT_TRUE(BatchFromLines(text, &refs));
  ASSERT_EQ(refs.size(), want.size());
  ComponentSpans spans;
  Scanner scanner;
  scanner.Scan(refs.view(), &spans);
  const UriReference base = ParseUriReference("http://a/b/c/d;p?q");
  ResolvedBatch out;
  ResolveBatch(base, refs.view(), spans, ResolveOptions{}, false, &out);
  ASSERT_EQ(out.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(out.status[i], ResolveStatus::kOk) << want[i];
    EXPECT_EQ(out.Get(i), want[i]);
  }
}

TEST(Rfc3986Data, EquivalencesOfSection62) {
  const Fingerprinter keys(Profile::kScheme);
  int equal = 0, different = 0;
  for (const Row& r : ReadCases("equivalence.tsv", 5)) {
    const std::string& a = r[1];
    const std::string& b = r[2];
    const std::string& rung = r[3];
    const std::string where = "line " + std::to_string(r.line);
    EXPECT_STREQ(RungName(Compare(a, b, Profile::kScheme)), rung.c_str())
        << where;
    if (rung == "different") {
      EXPECT_FALSE(r.fields[4].has_value()) << where;
      EXPECT_NE(Normalize(a, Profile::kScheme), Normalize(b, Profile::kScheme))
          << where;
      EXPECT_NE(keys.Key64(a), keys.Key64(b)) << where;
      ++different;
      continue;
    }
    ASSERT_TRUE(rung == "syntax" || rung == "scheme") << where;
    const Profile p = rung == "syntax" ? Profile::kSyntax : Profile::kScheme;
    EXPECT_EQ(Normalize(a, p), r[4]) << where;
    EXPECT_EQ(Normalize(b, p), r[4]) << where;
    if (p == Profile::kScheme) {
      // Not equal one rung lower: the case needs scheme-based rules.
      EXPECT_NE(Normalize(a, Profile::kSyntax), Normalize(b, Profile::kSyntax))
          << where;
    }
    // Normal forms are fixed points, and equivalent references share a key.
    EXPECT_EQ(Normalize(r[4], p), r[4]) << where;
    EXPECT_EQ(keys.Key64(a), keys.Key64(b)) << where;
    EXPECT_NE(keys.Key64(a), 0u) << where;
    ++equal;
  }
  EXPECT_GE(equal, 10);
  EXPECT_GE(different, 5);
}

TEST(Rfc3986Data, GrammarCasesOfSections2To4) {
  const std::vector<Row> rows = ReadCases("grammar.tsv", 9);
  ASSERT_GE(rows.size(), 40u);
  int valid = 0, invalid = 0;
  for (const Row& r : rows) {
    const std::string& in = r[1];
    const std::string where = "line " + std::to_string(r.line);
    const UriReference u = ParseUriReference(in);
    EXPECT_STREQ(ErrorKindName(u.error().kind), r[2].c_str()) << where;
    EXPECT_EQ(u.error().offset, std::stoul(r[3])) << where;
    EXPECT_EQ(u.valid(), r[2] == "none") << where;
    EXPECT_EQ(Opt(u.scheme()), r.fields[4]) << where;
    EXPECT_EQ(Opt(u.authority()), r.fields[5]) << where;
    if (u.valid()) {
      EXPECT_EQ(std::optional<std::string>(std::string(u.path())),
                r.fields[6])
          << where;
      EXPECT_EQ(Recompose(u), in) << where;
      ++valid;
    } else {
      EXPECT_FALSE(r.fields[6].has_value()) << where;
      ++invalid;
    }
    EXPECT_EQ(Opt(u.query()), r.fields[7]) << where;
    EXPECT_EQ(Opt(u.fragment()), r.fields[8]) << where;
  }
  EXPECT_GE(valid, 15);
  EXPECT_GE(invalid, 15);
}

// The same cases as one batch through the SIMD scanner: the same kinds and
// offsets, and every row passes the spans invariant check.
TEST(Rfc3986Data, GrammarCasesThroughTheScanner) {
  const std::vector<Row> rows = ReadCases("grammar.tsv", 9);
  OwnedBatch batch;
  for (const Row& r : rows) {
    batch.data.insert(batch.data.end(), r[1].begin(), r[1].end());
    batch.offsets.push_back(static_cast<uint32_t>(batch.data.size()));
  }
  ComponentSpans spans;
  Scanner scanner;
  scanner.Scan(batch.view(), &spans);
  ASSERT_EQ(spans.size(), rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string where = "line " + std::to_string(rows[i].line);
    EXPECT_TRUE(spans.Validate(i)) << where;
    EXPECT_STREQ(ErrorKindName(spans.Error(i).kind), rows[i][2].c_str())
        << where;
    EXPECT_EQ(spans.Error(i).offset, std::stoul(rows[i][3])) << where;
    const UriReference u = spans.Row(i, batch.data.data());
    EXPECT_EQ(Opt(u.scheme()), rows[i].fields[4]) << where;
    EXPECT_EQ(Opt(u.query()), rows[i].fields[7]) << where;
  }
}

}  // namespace
}  // namespace uriscan
