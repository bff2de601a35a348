// SPDX-License-Identifier: MIT
// The uriscan command end to end, stats: the report's counts.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, StatsSummarizesKindsAndHosts) {
  const Result r = Run("stats", "http://1.2.3.4/\nhttp://[::1]/\n%\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("URIs scanned     3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pct-encoded      1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("name 0, ipv4 1, ipv6 1, ipvfuture 0"),
            std::string::npos)
      << r.out;
}

TEST_F(CliTest, StatsCountsEachRiskFlag) {
  const Result r = Run("stats",
                       "http://u:p@h/\nhttp://u@h/\nhttp://[::1]/\n"
                       "http://h:70000/\nhttp://h/%zz\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("risk flags       4 lines with any"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("    credentials            2\n"), std::string::npos);
  EXPECT_NE(r.out.find("    password               1\n"), std::string::npos);
  EXPECT_NE(r.out.find("    ip-loopback            1\n"), std::string::npos);
  EXPECT_NE(r.out.find("    port-out-of-range      1\n"), std::string::npos);
  EXPECT_NE(r.out.find("    script-scheme          0\n"), std::string::npos);
}

}  // namespace uriscan_cli_test
