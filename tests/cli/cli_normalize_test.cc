// SPDX-License-Identifier: MIT
// The uriscan command end to end, normalize: --on-error, and the crawler
// profile's two columns.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, NormalizeOnErrorKeepSkipFail) {
  const std::string in = "HTTP://A:80/x/../y#f\nbad uri\n%zz\nhttp://a\n";
  Result r = Run("normalize", in);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "http://a/y#f\nbad uri\n%zz\nhttp://a/\n");
  EXPECT_NE(r.err.find("<stdin>:2:4: error: disallowed-byte"), std::string::npos);
  EXPECT_NE(r.err.find("4 lines, 2 valid, 2 invalid"), std::string::npos);
  EXPECT_NE(r.err.find("2 rewritten"), std::string::npos);
  r = Run("normalize --on-error=skip --profile=syntax", in);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "http://a:80/y#f\nhttp://a\n");
  r = Run("normalize --on-error=fail", in);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "http://a/y#f\n");
  EXPECT_NE(r.err.find("stopped at the first invalid line"), std::string::npos);
  EXPECT_EQ(Run("normalize --profile=fancy").status, 2);
  EXPECT_EQ(Run("normalize --on-error=ignore").status, 2);
}

TEST_F(CliTest, NormalizeCrawlerKeepsTheOriginal) {
  const Result r = Run("normalize --profile=crawler --quiet",
                       "HTTP://Ex.COM.:80/a?z=1&utm_source=x&a=2#top\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "http://ex.com/a?a=2&z=1\tHTTP://Ex.COM.:80/a?z=1&utm_source=x&a=2#top\n");
  const Result own = Run("normalize --profile=crawler --quiet "
                         "--tracking-params=z,a",
                         "http://e/?z=1&utm_source=x&a=2\n");
  EXPECT_EQ(own.out, "http://e/?utm_source=x\thttp://e/?z=1&utm_source=x&a=2\n");
}

TEST_F(CliTest, NormalizeCrawlerAlwaysWritesTwoColumns) {
  const Result r = Run("normalize --profile=crawler --quiet",
                       "http://a/?\nbad uri\nhttp://a/?&\n"
                       "http://a/?utm_source=1\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "http://a/\thttp://a/?\n"
            "\tbad uri\n"
            "http://a/\thttp://a/?&\n"
            "http://a/\thttp://a/?utm_source=1\n");
  const Result keys = Run("dedup --profile=crawler --quiet",
                          "http://a/?\nhttp://a/?&\nhttp://a/\n");
  EXPECT_EQ(keys.out, "http://a/?\n");
}

TEST_F(CliTest, NormalizeCrawlerTrackingListAndWww) {
  // (SID=2 has no session id's shape: it stays, since profile version 4)
  const std::string in = "http://www.e/?REF=1&utm_source=x&SID=2&k\n";
  EXPECT_EQ(Run("normalize --profile=crawler --quiet", in).out,
            "http://www.e/?REF=1&SID=2&k\t" + in);
  EXPECT_EQ(Run("normalize --profile=crawler --quiet --tracking-params=+ref "
                "--fold-www",
                in)
                .out,
            "http://e/?SID=2&k\t" + in);
  // The crawler profile's options with another profile are a usage error,
  // not silently ignored; a control byte never reaches a state's MANIFEST.
  for (const char* args : {"normalize --tracking-params=+ref",
                           "normalize --profile=w3lib --fold-www",
                           "dedup --tracking-params=ref",
                           "parse --format=tsv --columns=key --fold-www"}) {
    const Result bad = Run(args, in);
    EXPECT_EQ(bad.status, 2) << args;
    EXPECT_NE(bad.err.find("--profile=crawler"), std::string::npos) << args;
    EXPECT_EQ(bad.out, "") << args;
  }
  EXPECT_EQ(Run("parse --format=tsv --columns=surt_crawler --fold-www", in)
                .status,
            0);
  const Result newline =
      Run(std::string("normalize --profile=crawler --tracking-params=") +
              "'a\nkeys 5'",
          in);
  EXPECT_EQ(newline.status, 2);
  EXPECT_NE(newline.err.find("control byte"), std::string::npos);
  // Without '+' the list is replaced: utm_source stays.
  EXPECT_EQ(Run("normalize --profile=crawler --quiet --tracking-params=ref",
                in)
                .out,
            "http://www.e/?SID=2&k&utm_source=x\t" + in);
  // Another list, or the folding, gives other keys.
  const std::string u = "http://a/x\n";
  const std::string k = Run("dedup --keys --quiet --profile=crawler", u).out;
  EXPECT_NE(Run("dedup --keys --quiet --profile=crawler --fold-www", u).out,
            k);
  EXPECT_NE(
      Run("dedup --keys --quiet --profile=crawler --tracking-params=+x", u).out,
      k);
}

TEST_F(CliTest, NormalizeHelpListsTheDefaultNames) {
  const Result r = Run("normalize --help");
  EXPECT_EQ(r.status, 0);
  for (const char* name : {"utm_*", "gclid", "fbclid", "_gl", "jsessionid",
                           "phpsessid", "aspsessionid*", "cftoken",
                           ";jsessionid=", "w3lib", "--fold-www"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name;
  }
}

TEST_F(CliTest, NormalizeW3libWritesTheFormAlone) {
  const Result r = Run("normalize --profile=w3lib --quiet",
                       "HTTP://A.example/b?z=1&a=%7e#f\nbad uri\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "http://a.example/b?a=~&z=1\nbad%20uri\n");
  EXPECT_EQ(Run("dedup --quiet --profile=w3lib",
                "http://a.example/?b=1&a=2\nhttp://A.example/?a=2&b=1#x\n")
                .out,
            "http://a.example/?b=1&a=2\n");
}

// Under w3lib, a line RFC 3986 refuses but w3lib canonicalizes gets its
// form (its diagnostic stays; --on-error is for the lines w3lib refuses
// too), in normalize, parse's columns and dedup alike.
TEST_F(CliTest, NormalizeW3libCanonicalizesWhatRfc3986Refuses) {
  const std::string in =
      "http://a/?p[]=1\n\"http://x/y\nhttp://[x/\nhttp://a/?p%5B%5D=1\n";
  for (const std::string on_error : {"keep", "skip", "fail"}) {
    const Result r = Run("normalize --profile=w3lib --on-error=" + on_error, in);
    EXPECT_EQ(r.status, on_error == "fail" ? 1 : 0) << on_error;
    EXPECT_NE(r.err.find("2:1: error"), std::string::npos) << r.err;
    const std::string head = "http://a/?p%5B%5D=1\n%22http://x/y\n";
    if (on_error == "keep") {
      EXPECT_EQ(r.out, head + "http://[x/\nhttp://a/?p%5B%5D=1\n");
    } else if (on_error == "skip") {
      EXPECT_EQ(r.out, head + "http://a/?p%5B%5D=1\n");
    } else {
      EXPECT_EQ(r.out, head) << on_error;  // stops at the line w3lib refuses
    }
  }
  // Other profiles: the RFC's answer alone.
  EXPECT_EQ(Run("normalize --profile=scheme --on-error=skip", in).out,
            "http://a/?p%5B%5D=1\n");
  EXPECT_EQ(Run("parse --format=tsv --no-header --profile=w3lib "
                "--columns=valid,normalized", in).out,
            "false\thttp://a/?p%5B%5D=1\nfalse\t%22http://x/y\n"
            "false\t\\N\ntrue\thttp://a/?p%5B%5D=1\n");
  // The first and last lines are one page under w3lib.
  EXPECT_EQ(Run("dedup --profile=w3lib --on-error=skip", in).out,
            "http://a/?p[]=1\n\"http://x/y\n");
}

}  // namespace uriscan_cli_test
