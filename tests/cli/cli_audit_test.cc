// SPDX-License-Identifier: MIT
// The uriscan command end to end, audit: LINE<TAB>FLAGS records.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

// docs/design.md, "Risk flags": LINE<TAB>FLAGS, names in their fixed
// order, empty when none, "invalid" alone for an invalid line; exit 0 either way.
TEST_F(CliTest, AuditWritesLineTabFlags) {
  const Result r = Run("audit --quiet",
                       "http://0xa9fea9fe/latest\n"
                       "http://example.com/\n"
                       "http://x/%zz\n"
                       "javascript://u:p@[::ffff:7f00:1]:65536/%2e%2E/%252f\r\n"
                       "\n"
                       "/../a/%00");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "1\tip-rare-form,ip-link-local\n"
            "2\t\n"
            "3\tinvalid\n"
            "4\tcredentials,password,ip-loopback,ip-embedded-ipv4,"
            "double-encoded,encoded-dot-segment,script-scheme,"
            "port-out-of-range\n"
            "5\t\n"
            "6\tencoded-control,dot-segment-above-root\n");
  EXPECT_NE(r.err.find("<stdin>:3:10: error: pct-encoded"), std::string::npos);
  const Result loud = Run("audit", "http://127.1/\nhttp://a/\n");
  EXPECT_NE(loud.err.find("2 lines, 2 valid, 0 invalid, 1 with risk flags"),
            std::string::npos)
      << loud.err;
}

}  // namespace uriscan_cli_test
