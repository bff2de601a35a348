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

TEST_F(CliTest, StatsFromALogCountsItsLinesByKind) {
  std::string log;
  for (const char* request :
       {"-", R"(\x16\x03\x01\x02\x00\x01)", "OPTIONS * HTTP/1.1",
        "GET /a b c", R"(GET /q?a=\x22q\x22 HTTP/1.1)",
        "GET http://h.example:8080/x HTTP/1.1", "GET /y HTTP/1.1"})
    log += std::string("1.2.3.4 - - [d] \"") + request +
           "\" 200 1 \"-\" \"x\"\n";
  log += "1.2.3.4 - - [d] \"GET /" + std::string(300, 'z') +
         " HTTP/1.1\" 200 1 \"-\" \"x\"\nnot a log line\n";
  Write(Path("a.log"), log);
  const Result r =
      Run("stats --from=combined --max-line=200 --threads=1 " + Path("a.log"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("  log lines        9 (combined), 3 URI references, "
                       "3 malformed\n"
                       "    no-request       1\n"
                       "    not-http         1\n"
                       "    asterisk-form    1\n"
                       "  URIs scanned     3 "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  valid            2 (66.67 %)\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("name 1, ipv4 0"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
  // The same counts whatever the threads and chunks: a line longer than
  // --max-line is malformed whether or not it fits in a chunk.
  for (const char* opts : {"--threads=2 --chunk-size=1",
                           "--threads=3 --chunk-size=100"}) {
    const Result many = Run("stats --from=combined --max-line=200 " +
                            std::string(opts) + " " + Path("a.log"));
    const auto counts = [](const std::string& out) {
      return out.substr(0, out.find("  scan throughput"));
    };
    EXPECT_EQ(counts(many.out), counts(r.out)) << opts;
  }
  // --lenient repairs the targets, then counts them.
  const Result lenient =
      Run("stats --from=combined --lenient " + Path("a.log"));
  EXPECT_NE(lenient.out.find("  repaired         1 "), std::string::npos)
      << lenient.out;
  EXPECT_EQ(Run("stats --from=text").err,
            "uriscan: --from takes clf or combined, not 'text'\n"
            "try 'uriscan --help'\n");
}

// --field=referer and --base, as extract takes them: the counts are those
// of the references `extract` writes.
TEST_F(CliTest, StatsOfALogsReferersOrResolvedTargets) {
  Write(Path("b.log"),
        "1.2.3.4 - - [d] \"GET /x HTTP/1.1\" 200 1 \"http://r.example/a\" \"u\"\n"
        "1.2.3.4 - - [d] \"GET /y?q HTTP/1.1\" 200 1 \"-\" \"u\"\n"
        "1.2.3.4 - - [d] \"GET /z HTTP/1.1\" 200 1 \"http://[::1/\" \"u\"\n");
  const Result r =
      Run("stats --from=combined --field=referer " + Path("b.log"));
  EXPECT_EQ(r.status, 0) << r.err;
  const Result want = Run("extract --quiet --from=combined --field=referer " +
                          Path("b.log"));
  EXPECT_NE(r.out.find("  log lines        3 (combined, referers), " +
                       std::to_string(CountLines(want.out)) +
                       " URI references"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  URIs scanned     " +
                       std::to_string(CountLines(want.out)) + " "),
            std::string::npos) << r.out;
  EXPECT_EQ(CountLines(want.out), 2u);  // "-" gives none
  const Result based = Run("stats --from=combined --base=http://h.example/d/ " +
                           Path("b.log"));
  EXPECT_NE(based.out.find("  defined          scheme 3, authority 3, "
                           "userinfo 0, port 0, query 1"),
            std::string::npos) << based.out;
  EXPECT_EQ(Run("stats --field=referer").status, 2);
  EXPECT_EQ(Run("stats --from=clf --field=referer").status, 2);
  EXPECT_EQ(Run("stats --from=combined --field=x").status, 2);
  EXPECT_EQ(Run("stats --from=combined --base=rel/x").status, 2);
}

// stats takes a chunk a run of rows at a time, as validate does: every
// count, risk flags included, is the same at every chunk size (runs of one
// row up to whole chunks), from a file or a pipe, and each is right.
TEST_F(CliTest, StatsCountsHoldAcrossRunsOfRows) {
  std::string in;
  size_t lines = 0, invalid = 0, ipv4 = 0, credentials = 0;
  for (size_t i = 0; i < 9000; ++i, ++lines) {
    if (i % 11 == 0) {
      in += "%zz\n";
      ++invalid;
    } else if (i % 7 == 0) {
      in += "http://10.0.0." + std::to_string(i % 250) + "/\n";
      ++ipv4;
    } else if (i % 5 == 0) {
      in += "http://u:p@h" + std::to_string(i) + "/\n";
      ++credentials;
    } else {
      in += i % 2 ? "\n" : "/p/" + std::string(i % 300, 'q') + "\n";
    }
  }
  Write(Path("in.txt"), in);
  const auto counts = [](const std::string& out) {
    return out.substr(0, out.find("  scan throughput"));
  };
  const Result whole = Run("stats --threads=1 " + Path("in.txt"));
  ASSERT_EQ(whole.status, 0) << whole.err;
  EXPECT_NE(whole.out.find("URIs scanned     " + std::to_string(lines) + " "),
            std::string::npos)
      << whole.out;
  EXPECT_NE(whole.out.find("invalid          " + std::to_string(invalid) + " "),
            std::string::npos)
      << whole.out;
  EXPECT_NE(whole.out.find("ipv4 " + std::to_string(ipv4) + ","),
            std::string::npos)
      << whole.out;
  EXPECT_NE(whole.out.find("    credentials            " +
                           std::to_string(credentials) + "\n"),
            std::string::npos)
      << whole.out;
  for (const char* opts : {"--threads=2 --chunk-size=1",
                           "--threads=3 --chunk-size=100",
                           "--threads=2 --chunk-size=5000"}) {
    for (const bool mapped : {true, false}) {
      const Result r = Run(std::string("stats ") + opts +
                               (mapped ? " " + Path("in.txt") : ""),
                           mapped ? "" : in);
      EXPECT_EQ(r.status, 0) << opts;
      std::string want = counts(whole.out);
      if (!mapped) {
        want.replace(want.find(Path("in.txt")), Path("in.txt").size(),
                     "<stdin>");
      }
      EXPECT_EQ(counts(r.out), want) << opts << (mapped ? " file" : " stdin");
    }
  }
}

}  // namespace uriscan_cli_test
