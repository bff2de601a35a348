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

// ScanLinesUpTo() in runs of at most max_rows lines, each run scanned from
// where the last ended, gives the rows of one ScanLines() over the whole
// text: every column (offsets from the run's start), at every run length
// from 1 up, through empty lines, "\r\n", rows longer than a stage-1
// window and a last line without "\n"; in a scanner reused throughout.
TEST(ScanTest, ScanLinesUpToGivesTheRowsOfScanLinesRunByRun) {
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    switch (i % 9) {
      case 0: text += "\n"; break;
      case 1: text += "bad uri\r\n"; break;
      case 2: text += "http://h/" + std::string(i % 600, 'p') + "?q\n"; break;
      case 3: text += "%zz\n"; break;
      case 4: text += "http://[::1]:8/x\r\n"; break;
      default: text += "http://h" + std::to_string(i) + ".example/a/b\n";
    }
  }
  text += std::string(20000, 'x');  // a last line longer than a window
  Scanner scanner;
  ComponentSpans want;
  ASSERT_TRUE(scanner.ScanLines(text, &want));
  ASSERT_EQ(want.size(), CountLines(text));
  for (size_t max_rows : {size_t{1}, size_t{2}, size_t{7}, size_t{64},
                          size_t{1000}, size_t{2999}, size_t{3001},
                          size_t{100000}}) {
    ComponentSpans got;
    size_t pos = 0, base = 0;
    while (pos < text.size()) {
      const std::string_view rest = std::string_view(text).substr(pos);
      const size_t n = scanner.ScanLinesUpTo(rest, &got, max_rows);
      ASSERT_GT(n, 0u) << max_rows;
      ASSERT_LE(got.size(), max_rows);
      ASSERT_TRUE(got.size() == max_rows || n == rest.size()) << max_rows;
      ASSERT_LE(base + got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        const size_t r = base + i;
#define URISCAN_EXPECT_COLUMN(name) \
  ASSERT_EQ(pos + got.name[i], want.name[r]) << #name " row " << r;
        URISCAN_SPAN_BOUNDARIES(URISCAN_EXPECT_COLUMN)
#undef URISCAN_EXPECT_COLUMN
        ASSERT_EQ(got.flags[i], want.flags[r]) << r;
        ASSERT_EQ(got.error_kind[i], want.error_kind[r]) << r;
        ASSERT_EQ(got.error_offset[i], want.error_offset[r]) << r;
      }
      // The run ends after its last line's newline.
      if (n < rest.size()) {
        ASSERT_EQ(rest[n - 1], '\n');
      }
      pos += n;
      base += got.size();
    }
    EXPECT_EQ(base, want.size()) << max_rows;
  }
  ComponentSpans none;
  EXPECT_EQ(scanner.ScanLinesUpTo(text, &none, 0), 0u);
  EXPECT_EQ(none.size(), 0u);
  EXPECT_EQ(scanner.ScanLinesUpTo("", &none, 5), 0u);
  EXPECT_EQ(none.size(), 0u);
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
