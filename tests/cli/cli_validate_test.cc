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

}  // namespace uriscan_cli_test
