// SPDX-License-Identifier: MIT
// The uriscan command end to end on hostile input: nesting, symlinks,
// over-long records, damaged streams, full disks and hostile options. Each
// test stands for a reproduction of a defect that once passed.
#include <sys/stat.h>

#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

// A JSON value nested 100,000 deep once overflowed the stack: now it is one
// diagnostic, and the lines around it are read as ever.
TEST_F(CliTest, HostileDeepJsonIsADiagnosticNotACrash) {
  const std::string deep = "{\"a\":" + std::string(100000, '[') + "\n";
  const Result r = Run("extract --quiet --from=jsonl --field=u",
                       "{\"u\":\"http://a/\"}\n" + deep +
                           "{\"u\":\"http://b/\",\"v\":[[{\"w\":[1]}]]}\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "http://a/\nhttp://b/\n");
  EXPECT_NE(r.err.find("<stdin>:2:1006: error: log-format: the JSON value is "
                       "nested more than 1000 deep"),
            std::string::npos)
      << r.err;
}

}  // namespace uriscan_cli_test
