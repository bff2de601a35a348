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

}  // namespace uriscan_cli_test
