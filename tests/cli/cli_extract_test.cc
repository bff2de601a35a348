// SPDX-License-Identifier: MIT
// The uriscan command end to end, extract: the golden files of every format,
// Appendix C, chunking, and bad input.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

const std::string kExtractDir =
    std::string(URISCAN_SOURCE_DIR) + "/corpus/extract";

struct ExtractCase {
  std::string name, file, args;
};

std::vector<ExtractCase> ExtractCases() {
  std::vector<ExtractCase> cases;
  std::istringstream in(Slurp(kExtractDir + "/cases.tsv"));
  std::string line;
  while (std::getline(in, line)) {
    const size_t t1 = line.find('\t'), t2 = line.find('\t', t1 + 1);
    cases.push_back({line.substr(0, t1), line.substr(t1 + 1, t2 - t1 - 1),
                     line.substr(t2 + 1)});
  }
  return cases;
}

// Runs `uriscan extract ARGS` in corpus/extract, so diagnostics name the
// file as the golden files do.
Result RunExtract(const std::string& dir, const std::string& args) {
  return RunShell("cd '" + kExtractDir + "' && " + URISCAN_CLI +
                      " extract --quiet --with-line " + args + " > '" + dir +
                      "/stdout' 2> '" + dir + "/stderr'",
                  dir);
}

TEST_F(CliTest, ExtractMatchesGoldenForEveryFormat) {
  const std::vector<ExtractCase> cases = ExtractCases();
  ASSERT_EQ(cases.size(), 7u);
  for (const ExtractCase& c : cases) {
    const std::string want = Slurp(kExtractDir + "/" + c.name + ".expected");
    const std::string want_err =
        Slurp(kExtractDir + "/" + c.name + ".expected.err");
    ASSERT_FALSE(want.empty()) << c.name;
    // Output in input order whatever the threads and chunks: records that
    // span lines (quotes, wrapped "<...>") are never cut.
    for (const char* opts :
         {"--threads=1", "--threads=2 --chunk-size=16",
          "--threads=3 --chunk-size=1", "--threads=4 --chunk-size=100"}) {
      const Result r = RunExtract(dir_, std::string(opts) + " " + c.args +
                                            " " + c.file);
      EXPECT_EQ(r.status, 0) << c.name << " " << opts;
      EXPECT_EQ(r.out, want) << c.name << " " << opts;
      EXPECT_EQ(r.err, want_err) << c.name << " " << opts;
    }
  }
}

TEST_F(CliTest, ExtractFollowsAppendixC) {
  const Result r = Run(
      "extract --quiet",
      "wrapped <URL:http://a.example/very/\n   long/path> and\n"
      "<http://b.example/x>, \"http://c.example/q\" and http://d.example/."
      " (http://e.example/f_(g)) http://h.example/i)\n"
      "Note: nothing here; nor at 12:30 or in <b>.\n"
      "end: http://j.example/k?'!\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "http://a.example/very/long/path\nhttp://b.example/x\n"
            "http://c.example/q\nhttp://d.example/\nhttp://e.example/f_(g)\n"
            "http://h.example/i\nhttp://j.example/k\n");
}

TEST_F(CliTest, ExtractThreadAndChunkInvariance) {
  // Many wrapped references and quoted fields, so chunk ends fall inside
  // them at every offset.
  std::string text, csv = "n,url\n";
  for (int i = 0; i < 2000; ++i) {
    text += "line " + std::to_string(i) + " <http://w.example/" +
            std::to_string(i) + (i % 3 ? "\n  /tail>" : ">") +
            " then http://x.example/" + std::to_string(i) + ".\n";
    csv += std::to_string(i) + ",\"http://c.example/" + std::to_string(i) +
           "\"" + (i % 4 ? "" : ",\"a\nb\"") + "\n";
  }
  Write(Path("t.txt"), text);
  Write(Path("t.csv"), csv);
  for (const char* args : {"--from=text", "--from=csv --field=url"}) {
    const std::string file = Path(std::string(args).find("csv") !=
                                          std::string::npos
                                      ? "t.csv" : "t.txt");
    const Result one =
        Run(std::string("extract --quiet --with-line --threads=1 ") + args +
            " " + file);
    EXPECT_EQ(one.status, 0);
    EXPECT_EQ(one.err, "");
    EXPECT_GE(CountLines(one.out), 2000u);
    for (const char* opts : {"--threads=2 --chunk-size=7",
                             "--threads=3 --chunk-size=300",
                             "--threads=4 --chunk-size=4K"}) {
      const Result many =
          Run(std::string("extract --quiet --with-line ") + opts + " " +
              args + " " + file);
      EXPECT_TRUE(many.out == one.out) << args << " " << opts;
      EXPECT_EQ(many.err, one.err) << args << " " << opts;
    }
  }
}

TEST_F(CliTest, ExtractUsageAndBadInput) {
  EXPECT_EQ(Run("extract --from=xml").err,
            "uriscan: --from takes text, clf, combined, tsv, csv or jsonl, "
            "not 'xml'\ntry 'uriscan extract --help'\n");
  EXPECT_EQ(Run("extract --from=jsonl").status, 2);
  EXPECT_EQ(Run("extract --from=clf --field=referer").status, 2);
  EXPECT_EQ(Run("extract --from=text --field=2").status, 2);
  EXPECT_EQ(Run("extract --from=combined --base=rel/x").status, 2);
  Result r = Run("extract --from=csv --field=link", "a,b\n1,2\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("<stdin>:1:1: error: log-format: no column named "
                       "'link'"),
            std::string::npos);
  // NUL bytes, a lone CR, invalid UTF-8 and an over-long line: each line is
  // diagnosed or passed through, and the lines after them keep their number.
  static const char kNul[] =
      "1.2.3.4 - - [d] \"GET /a\0b HTTP/1.1\" 200 1 \"-\" \"x\"\n";
  r = Run("extract --quiet --with-line --from=combined --max-line=300",
          std::string(kNul, sizeof(kNul) - 1) +
              "\r\n" + std::string(400, 'x') + "\n" +
              "1.2.3.4 - - [d] \"GET /\xff\xfe HTTP/1.1\" 200 1 \"-\" \"x\"\n"
              "1.2.3.4 - - [d] \"GET /last HTTP/1.1\" 200 1 \"-\" \"x\"\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "4\t/\xff\xfe\n5\t/last\n");
  EXPECT_NE(r.err.find("<stdin>:1:22: error: log-format: the value holds a "
                       "control character"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("<stdin>:3:301: error: too-long"), std::string::npos)
      << r.err;
}

TEST_F(CliTest, ExtractBadInputsKeepEveryLineAccountedFor) {
  // A 1 MB line of prose with a URL at its end; an empty input; a gzipped
  // log cut short, whose whole lines are all extracted before the error.
  const std::string big = std::string(1 << 20, 'a') + " http://end.example/x.\n";
  Result r = Run("extract --quiet --with-line", "first\n" + big + "last http://l/\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "2\thttp://end.example/x\n3\thttp://l/\n");
  EXPECT_EQ(Run("extract --quiet", "").out, "");
  EXPECT_EQ(Run("extract --quiet --from=csv", "").status, 0);
  std::string log;
  for (int i = 0; i < 3000; ++i)
    log += "1.2.3.4 - - [d] \"GET /p" + std::to_string(i) +
           " HTTP/1.1\" 200 1 \"-\" \"x\"\n";
  Write(Path("a.log"), log);
  ASSERT_EQ(std::system(("gzip -c '" + Path("a.log") + "' | head -c -8 > '" +
                         Path("a.log.gz") + "'").c_str()), 0);
  const Result whole = Run("extract --quiet --from=combined " + Path("a.log"));
  r = Run("extract --quiet --from=combined --threads=2 --chunk-size=1K " +
          Path("a.log.gz"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out == whole.out);
  EXPECT_NE(r.err.find("a.log.gz: error: gzip: unexpected end of stream"),
            std::string::npos) << r.err;
}

// A Combined Log Format line with `request` and `referer` as written
// between their quotes.
std::string LogLine(const std::string& request,
                    const std::string& referer = "-") {
  return "1.2.3.4 - - [d] \"" + request + "\" 200 1 \"" + referer +
         "\" \"agent \\\"q\\\"\"\n";
}

TEST_F(CliTest, ExtractUndoesWebServerEscapes) {
  // Apache writes \" \\ \xhh and \n \t ... inside quoted fields, nginx
  // \xHH; each stands for one byte of the request. A backslash that starts
  // no escape is kept as written.
  const std::string log =
      LogLine(R"(GET /q?a=\x22q\x22 HTTP/1.1)",
              R"(http://r.example/?q=\"x\"&p=\\)") +
      LogLine(R"(GET /caf\xc3\xA9/a\x20b HTTP/1.1)") +
      LogLine(R"(GET /m\x4\x41\q\x HTTP/1.1)") +
      LogLine(R"(GET /tab\tx HTTP/1.1)");
  Result r = Run("extract --quiet --with-line --from=combined", log);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "1\t/q?a=\"q\"\n2\t/caf\xc3\xa9/a b\n3\t/m\\x4A\\q\\x\n");
  // The tab is a byte no line of output may hold: reported where the
  // target starts in the line as written.
  EXPECT_EQ(r.err,
            "<stdin>:4:22: error: log-format: the value holds a control "
            "character\n");
  r = Run("extract --quiet --from=combined --lenient", log);
  EXPECT_EQ(r.out,
            "/q?a=%22q%22\n/caf%C3%A9/a%20b\n/m%5Cx4A%5Cq%5Cx\n");
  r = Run("extract --quiet --from=combined --field=referer", log);
  EXPECT_EQ(r.out, "http://r.example/?q=\"x\"&p=\\\n");
  r = Run("extract --quiet --from=combined --field=referer --lenient", log);
  EXPECT_EQ(r.out, "http://r.example/?q=%22x%22&p=%5C\n");
  // With --base the repaired target is what is resolved.
  r = Run("extract --quiet --from=combined --lenient --base=http://h.example/",
          log);
  EXPECT_EQ(r.out,
            "http://h.example/q?a=%22q%22\nhttp://h.example/caf%C3%A9/a%20b\n"
            "http://h.example/m%5Cx4A%5Cq%5Cx\n");
  EXPECT_EQ(r.err, "<stdin>:4:26: error: disallowed-byte: byte not allowed "
                   "anywhere in a URI (control, space, \" < > \\ ^ ` { | }, "
                   "DEL or non-ASCII; percent-encode it)\n");
}

TEST_F(CliTest, ExtractColumnsPointIntoTheLineAsWritten) {
  // "/A%zz" once unescaped: the bad '%' is byte 27 of the line, after the
  // four bytes of \x41.
  const Result r = Run("extract --quiet --from=combined --base=http://b/",
                       LogLine(R"(GET /\x41%zz HTTP/1.1)") +
                           LogLine(R"(GET /\x22\x41 HTTP/1.1)") +
                           LogLine(R"(GET /\x41 HTTP/1.1)"));
  EXPECT_EQ(r.out, "http://b/A\n");
  EXPECT_EQ(r.err,
            "<stdin>:1:27: error: pct-encoded: '%' not followed by two hex "
            "digits\n"
            "<stdin>:2:23: error: disallowed-byte: byte not allowed anywhere "
            "in a URI (control, space, \" < > \\ ^ ` { | }, DEL or non-ASCII; "
            "percent-encode it)\n");
}

TEST_F(CliTest, ExtractWritesConnectAsAnAuthorityAndDropsAsteriskForm) {
  // RFC 9112 sec. 3.2.3: CONNECT's host:port is an authority, so a
  // network-path reference; sec. 3.2.4: "*" is no reference at all.
  const std::string log = LogLine("CONNECT www.example.com:443 HTTP/1.1") +
                          LogLine("CONNECT [::1]:8443 HTTP/1.1") +
                          LogLine("OPTIONS * HTTP/1.1") +
                          LogLine("GET www.example.com:443 HTTP/1.1");
  Result r = Run("extract --with-line --from=combined", log);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "1\t//www.example.com:443\n2\t//[::1]:8443\n"
            "4\twww.example.com:443\n");
  EXPECT_EQ(r.err,
            "uriscan: 4 lines, 3 URI references, 0 malformed, 1 with no "
            "reference (no-request 0, not-http 0, asterisk-form 1)\n");
  // Against a base, the authority takes the base's scheme. Another
  // method's target is read as RFC 3986 reads it (here scheme
  // "www.example.com"), as written.
  r = Run("extract --quiet --from=combined --base=https://b.example/d/", log);
  EXPECT_EQ(r.out,
            "https://www.example.com:443\nhttps://[::1]:8443\n"
            "www.example.com:443\n");
  EXPECT_EQ(r.err, "");
}

// RFC 9112 sec. 3.2.1: an origin-form target is a path, "//" or not;
// "GET //favicon.ico" became the host favicon.ico (and //etc/passwd the
// host etc).
TEST_F(CliTest, ExtractReadsOriginFormDoubleSlashAsAPath) {
  const std::string log = LogLine("GET //favicon.ico HTTP/1.1") +
                          LogLine("GET //etc/passwd?x HTTP/1.1") +
                          LogLine("GET ///a//b HTTP/1.0") +
                          LogLine("GET /a HTTP/1.1");
  Result r = Run("extract --quiet --from=combined", log);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "/.//favicon.ico\n/.//etc/passwd?x\n/.///a//b\n/a\n");
  r = Run("extract --quiet --from=combined "
          "--base=http://www.semicomplete.com/",
          log);
  EXPECT_EQ(r.out,
            "http://www.semicomplete.com//favicon.ico\n"
            "http://www.semicomplete.com//etc/passwd?x\n"
            "http://www.semicomplete.com///a//b\n"
            "http://www.semicomplete.com/a\n");
  // Each reads back as that path: no host at all.
  r = Run("parse --format=tsv --columns=host,path --no-header",
          "/.//favicon.ico\n");
  EXPECT_EQ(r.out, "\\N\t/.//favicon.ico\n");
}

TEST_F(CliTest, ExtractCountsLinesWithNoRequestInsteadOfReportingThem) {
  // What nginx and Apache log for connections that never sent an HTTP
  // request: "-", TLS handshakes (escaped, or raw bytes) and other
  // protocols' bytes.
  const std::string log =
      LogLine("-") + LogLine("") +
      LogLine(R"(\x16\x03\x01\x02\x00\x01\x00\x01\xFC\x03\x03)") +
      LogLine("\x16\x03\x01\x02\xfc\x03") + LogLine("SSH-2.0-Go") +
      LogLine("OPTIONS * HTTP/1.1") + LogLine("GET /a b c") +
      LogLine("GET /ok HTTP/1.1");
  Result r = Run("extract --from=combined", log);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "/ok\n");
  // Only the line that looks like a request (a method and a space) and is
  // malformed gets a diagnostic.
  EXPECT_EQ(r.err,
            "<stdin>:7:18: error: log-format: the request line is not "
            "METHOD TARGET HTTP/x.y\n"
            "uriscan: 8 lines, 1 URI references, 1 malformed, 6 with no "
            "reference (no-request 2, not-http 3, asterisk-form 1)\n");
  // The Referer does not depend on the request line.
  r = Run("extract --from=combined --field=referer",
          LogLine("-", "http://r.example/"));
  EXPECT_EQ(r.out, "http://r.example/\n");
  EXPECT_EQ(r.err, "uriscan: 1 lines, 1 URI references, 0 malformed\n");
}

}  // namespace uriscan_cli_test
