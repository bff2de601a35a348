// SPDX-License-Identifier: MIT
// The uriscan command end to end, validate: diagnostics and exit status.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, DiagnosticsNameFileLineAndColumn) {
  Write(Path("in.txt"), "http://ok/\nhttp://a/%zz\n");
  const Result r = Run("validate " + Path("in.txt"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(Path("in.txt") +
                       ":2:10: error: pct-encoded: '%' not followed by two "
                       "hex digits\n"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, ValidateExitsZeroWhenAllValid) {
  const Result r = Run("validate --quiet", "http://a/\n\n/b\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.err, "");
}

// Invalid lines alone, in runs, at every position of an 8-row word and at
// the chunk's end: each one diagnosed once, in order, and counted by kind.
TEST_F(CliTest, ValidateDiagnosesEveryInvalidLineInOrder) {
  std::string in, want;
  size_t pct = 0, bytes = 0;
  for (size_t i = 1; i <= 300; ++i) {
    const bool bad = i % 7 == 0 || i % 11 == 0 || (i >= 40 && i < 60) || i == 300;
    if (!bad) {
      in += "http://h/" + std::to_string(i) + "\n";
      continue;
    }
    if (i % 2) {
      in += "http://h/%zz\n";
      want += ":" + std::to_string(i) + ":10: error: pct-encoded";
      ++pct;
    } else {
      in += "http://h/ x\n";
      want += ":" + std::to_string(i) + ":10: error: disallowed-byte";
      ++bytes;
    }
  }
  Write(Path("in.txt"), in);
  const Result r = Run("validate " + Path("in.txt"));
  EXPECT_EQ(r.status, 1);
  // Each diagnostic's ":LINE:COLUMN: error: KIND", the path and message cut.
  const std::string path = Path("in.txt");
  std::string got;
  for (size_t at = 0; at < r.err.size();) {
    const size_t eol = std::min(r.err.find('\n', at), r.err.size());
    const std::string line = r.err.substr(at, eol - at);
    at = eol + 1;
    if (line.compare(0, path.size() + 1, path + ":") != 0) continue;
    const size_t kind = line.find("error: ") + 7;
    got += line.substr(path.size(), line.find(':', kind) - path.size());
  }
  EXPECT_EQ(got, want);
  EXPECT_NE(r.err.find(std::to_string(pct + bytes) + " invalid (disallowed-byte " +
                       std::to_string(bytes) + ", pct-encoded " +
                       std::to_string(pct) + ")"),
            std::string::npos)
      << r.err;
}

// validate takes a chunk a run of rows at a time (the reader does not
// count them first): at every chunk size, so runs of one row up to whole
// chunks, from a file or a pipe, on 1 to 3 threads, each invalid line is
// diagnosed once at its own line number, and the summary counts them all.
TEST_F(CliTest, ValidateLineNumbersHoldAcrossRunsOfRows) {
  std::string in, want;
  size_t invalid = 0, lines = 0;
  for (size_t i = 1; i <= 12000; ++i) {
    ++lines;
    if (i % 13 == 0 || i % 4999 == 0) {
      in += i % 2 ? "%zz\n" : "http://h/ x\r\n";
      want += ":" + std::to_string(i) + (i % 2 ? ":1:" : ":10:");
      ++invalid;
    } else if (i % 3 == 0) {
      in += "\n";
    } else if (i % 5 == 0) {
      in += "http://h/" + std::string(i % 700, 'p') + "\n";
    } else {
      in += "/" + std::to_string(i) + "\n";
    }
  }
  in += "%";  // a last line without "\n"
  ++lines;
  ++invalid;
  want += ":" + std::to_string(lines) + ":1:";
  Write(Path("in.txt"), in);
  for (const char* opts : {"", "--chunk-size=1", "--chunk-size=100 --threads=3",
                           "--chunk-size=5000 --threads=1",
                           "--chunk-size=300000"}) {
    for (const bool mapped : {true, false}) {
      const Result r = Run(std::string("validate --threads=2 ") + opts +
                               (mapped ? " " + Path("in.txt") : ""),
                           mapped ? "" : in);
      EXPECT_EQ(r.status, 1) << opts;
      const std::string name = mapped ? Path("in.txt") : "<stdin>";
      std::string got;  // each diagnostic's ":LINE:COLUMN:"
      for (size_t at = 0; at < r.err.size();) {
        const size_t eol = std::min(r.err.find('\n', at), r.err.size());
        const std::string line = r.err.substr(at, eol - at);
        at = eol + 1;
        if (line.compare(0, name.size() + 1, name + ":") != 0) continue;
        const size_t line_end = line.find(':', name.size() + 1);
        const size_t column_end = line.find(':', line_end + 1);
        got += line.substr(name.size(), column_end + 1 - name.size());
      }
      EXPECT_EQ(got, want) << opts << (mapped ? " file" : " stdin");
      EXPECT_NE(r.err.find("uriscan: " + std::to_string(lines) + " lines, " +
                           std::to_string(lines - invalid) + " valid, " +
                           std::to_string(invalid) + " invalid"),
                std::string::npos)
          << opts
          << r.err.substr(r.err.size() - std::min<size_t>(r.err.size(), 300));
    }
  }
}

}  // namespace uriscan_cli_test
