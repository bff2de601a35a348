// SPDX-License-Identifier: MIT
// The uriscan command end to end, resolve: against a base, and the options of
// RFC 3986 and its draft.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, ResolveAgainstABase) {
  const std::string base = "--base='http://a/b/c/d;p?q#frag'";
  Result r = Run("resolve --quiet " + base, "g\n../../../x\nhttp:g\n#f\n\nbad ref\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "http://a/b/c/g\nhttp://a/x\nhttp:g\nhttp://a/b/c/d;p?q#f\n"
            "http://a/b/c/d;p?q\nbad ref\n");
  r = Run("resolve --nonstrict --above-root=reject " + base, "http:g\n../../../x\n");
  EXPECT_EQ(r.out, "http://a/b/c/g\n../../../x\n");
  EXPECT_NE(r.err.find("<stdin>:2:1: error: above-root"), std::string::npos);
  r = Run("resolve --draft-1997 --above-root=keep --quiet " + base,
          "#s\n/./g\n../../../g\n");
  EXPECT_EQ(r.out, "http://a/b/c/d;p?q#s\nhttp://a/./g\nhttp://a/../g\n");
  EXPECT_EQ(Run("resolve").status, 2);                  // no base
  EXPECT_EQ(Run("resolve --base=/rel").status, 2);      // not absolute
  EXPECT_EQ(Run("resolve --base='http://a b'").status, 2);  // invalid
}

}  // namespace uriscan_cli_test
