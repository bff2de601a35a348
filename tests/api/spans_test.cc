// SPDX-License-Identifier: MIT
// Batches and ComponentSpans: line splitting, invariants on every row, and
// recomposition of every valid line of every corpus.
#include "uriscan/spans.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"

namespace uriscan {
namespace {

std::vector<std::string> Lines(std::string_view bytes) {
  OwnedBatch b;
  EXPECT_TRUE(BatchFromLines(bytes, &b));
  std::vector<std::string> out;
  for (size_t i = 0; i < b.size(); ++i) out.emplace_back(b.view().Get(i));
  return out;
}

TEST(BatchFromLinesTest, SplitsOnNewlineAndDropsCrBeforeIt) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Lines(""), V{});
  EXPECT_EQ(Lines("\n"), V{""});
  EXPECT_EQ(Lines("a"), V{"a"});
  EXPECT_EQ(Lines("a\n"), V{"a"});
  EXPECT_EQ(Lines("a\r\nb\n\nc"), (V{"a", "b", "", "c"}));
  EXPECT_EQ(Lines("a\rb\r\r\n"), (V{"a\rb\r"}));  // only the last \r goes
  EXPECT_EQ(Lines("\r"), V{"\r"});
  EXPECT_EQ(Lines(std::string_view("a\0\nb", 4)),
            (V{std::string("a\0", 2), "b"}));
}

TEST(ScanTest, InvalidRowsAreMarkedAndNeverStopTheBatch) {
  OwnedBatch b;
  ASSERT_TRUE(BatchFromLines("http://a/\nbad uri\n\n%zz\nhttp://[::1]/x\n", &b));
  ComponentSpans spans;
  Scan(b.view(), &spans);
  ASSERT_EQ(spans.size(), 5u);
  for (size_t i = 0; i < spans.size(); ++i) EXPECT_TRUE(spans.Validate(i)) << i;
  EXPECT_EQ(spans.error_kind[0], 0);
  EXPECT_EQ(spans.Error(1).kind, ErrorKind::kDisallowedByte);
  EXPECT_EQ(spans.Error(1).offset, 3u);
  EXPECT_EQ(spans.error_kind[2], 0);  // the empty reference is valid
  EXPECT_EQ(spans.Error(3).kind, ErrorKind::kBadPercentEncoding);
  EXPECT_EQ(spans.Error(3).offset, 0u);
  EXPECT_EQ(spans.Row(4, b.data.data()).host(),
            std::optional<std::string_view>("[::1]"));
  // Columns are absolute offsets into data.
  EXPECT_EQ(spans.uri_begin[4], b.offsets[4]);
  EXPECT_EQ(spans.host_begin[4], b.offsets[4] + 7);
}

TEST(ScanTest, ValidateRejectsBrokenRows) {
  OwnedBatch b;
  ASSERT_TRUE(BatchFromLines("http://a/b?c#d\n", &b));
  ComponentSpans spans;
  Scan(b.view(), &spans);
  ASSERT_TRUE(spans.Validate(0));
  std::swap(spans.path_begin[0], spans.path_end[0]);
  EXPECT_FALSE(spans.Validate(0));
  EXPECT_FALSE(spans.Validate(1));
}

// A caller's line count only sizes the columns: a right one, one too few,
// one too many, or none give the same rows, in a scanner (and columns)
// reused from a longer text to a shorter one.
TEST(ScanTest, ScanLinesGivesTheSameRowsWhateverLineCountItIsGiven) {
  std::string text;
  for (int i = 0; i < 5000; ++i)
    text += i % 7 ? "http://h/" + std::to_string(i) + "\n" : "bad uri\r\n";
  const std::string shorter = text.substr(0, text.size() / 3) + "x";
  Scanner scanner;
  for (const std::string& t : {text, shorter}) {
    const size_t lines = CountLines(t);
    ComponentSpans want;
    ASSERT_TRUE(scanner.ScanLines(t, &want));
    ASSERT_EQ(want.size(), lines);
    for (size_t hint : {lines, lines - 1, lines + 1, size_t{1}, 4 * lines}) {
      ComponentSpans got;
      ASSERT_TRUE(scanner.ScanLines(t, &got, hint));
      ASSERT_EQ(got.size(), lines) << hint;
      for (size_t i = 0; i < lines; ++i) {
        ASSERT_TRUE(got.Validate(i)) << i;
        ASSERT_EQ(got.Row(i, t.data()).text(), want.Row(i, t.data()).text());
        ASSERT_EQ(got.flags[i], want.flags[i]) << i;
        ASSERT_EQ(got.error_kind[i], want.error_kind[i]) << i;
        ASSERT_EQ(got.path_end[i], want.path_end[i]) << i;
      }
    }
  }
}

TEST(CorpusScanTest, EveryRowHoldsAndEveryValidLineRecomposes) {
  const auto corpora = test_corpus::LoadCorpora();
  ASSERT_GE(corpora.size(), 2u) << "the generated and tricky corpora are missing";
  for (const auto& corpus : corpora) {
    OwnedBatch b;
    ASSERT_TRUE(BatchFromLines(corpus.bytes, &b));
    ComponentSpans spans;
    Scan(b.view(), &spans);
    ASSERT_EQ(spans.size(), b.size());
    size_t valid = 0;
    for (size_t i = 0; i < spans.size(); ++i) {
      ASSERT_TRUE(spans.Validate(i)) << corpus.name << " line " << i + 1;
      const UriReference row = spans.Row(i, b.data.data());
      const UriReference direct = ParseUriReference(b.view().Get(i));
      ASSERT_EQ(row.flags(), direct.flags()) << corpus.name << " line " << i + 1;
      ASSERT_EQ(row.error().kind, direct.error().kind);
      ASSERT_EQ(row.error().offset, direct.error().offset);
      if (!row.valid()) continue;
      ++valid;
      ASSERT_EQ(Recompose(row), b.view().Get(i))
          << corpus.name << " line " << i + 1;
    }
    std::printf("[ corpus   ] %-14s %zu lines, %zu valid\n", corpus.name.c_str(),
                spans.size(), valid);
    if (corpus.name != "apache_access") {
      EXPECT_GT(valid, spans.size() / 2);
    }
  }
}

}  // namespace
}  // namespace uriscan
