// SPDX-License-Identifier: MIT
// The uriscan command end to end, what every command that reads input
// shares: line alignment over bad bytes, over-long lines, files, threads and
// chunk sizes, compressed input, the byte-order mark and --lenient.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

TEST_F(CliTest, BadBytesKeepLineAlignment) {
  // NUL, non-ASCII and invalid UTF-8, a lone CR, an empty line, CRLF, and a
  // last line without "\n": one record per line, in order.
  const std::string input = std::string("a\0b\n", 4) + "\xff\xfe\n" +
                            "caf\xc3\xa9\n" + "x\ry\n" + "\n" + "ok\r\n" +
                            "last";
  const Result r = Run("parse --format=tsv --quiet", input);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "line\tvalid\tscheme\tuserinfo\thost\tport\tpath\tquery\tfragment"
            "\thost_type\terror\n"
            "1\tfalse\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\tdisallowed-byte\n"
            "2\tfalse\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\tdisallowed-byte\n"
            "3\tfalse\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\tdisallowed-byte\n"
            "4\tfalse\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\tdisallowed-byte\n"
            "5\ttrue\t\\N\t\\N\t\\N\t\\N\t\t\\N\t\\N\t\\N\t\\N\n"
            "6\ttrue\t\\N\t\\N\t\\N\t\\N\tok\t\\N\t\\N\t\\N\t\\N\n"
            "7\ttrue\t\\N\t\\N\t\\N\t\\N\tlast\t\\N\t\\N\t\\N\t\\N\n");
  EXPECT_NE(r.err.find("<stdin>:1:2: error: disallowed-byte"), std::string::npos);
  EXPECT_NE(r.err.find("<stdin>:3:4: error: disallowed-byte"), std::string::npos);
  EXPECT_NE(r.err.find("<stdin>:4:2: error: disallowed-byte"), std::string::npos);
}

TEST_F(CliTest, MegabyteLineIsParsedWhole) {
  const std::string big = "http://a/" + std::string(1 << 20, 'x');
  const Result r = Run("parse --quiet", "http://b/\n" + big + "\n/c\n");
  EXPECT_EQ(r.status, 0);
  ASSERT_EQ(CountLines(r.out), 3u);
  EXPECT_NE(r.out.find("\"path\":\"/" + std::string(1 << 20, 'x') + "\""),
            std::string::npos);
  EXPECT_NE(r.out.find("\"path\":\"/c\"}\n"), std::string::npos);
}

TEST_F(CliTest, OverLongLineIsAnErrorAndAlignmentHolds) {
  // Over the limit whether it ends inside one read chunk or far beyond it.
  for (size_t len : {size_t{100}, size_t{9} << 20}) {
    const Result r = Run("parse --quiet --max-line=64",
                         "/a\n" + std::string(len, 'y') + "\n/b\n");
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out,
              "{\"valid\":true,\"path\":\"/a\"}\n"
              "{\"valid\":false,\"error\":\"too-long\",\"at\":64}\n"
              "{\"valid\":true,\"path\":\"/b\"}\n")
        << len;
    EXPECT_NE(r.err.find("<stdin>:2:65: error: too-long"), std::string::npos);
  }
}

TEST_F(CliTest, EmptyInputGivesNoRecords) {
  Write(Path("empty.txt"), "");
  const Result r = Run("parse --format=jsonl " + Path("empty.txt"));
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "uriscan: 0 lines, 0 valid, 0 invalid\n");
}

TEST_F(CliTest, MissingFileIsExit2AndOtherFilesStillRun) {
  Write(Path("a.txt"), "/x\n");
  const Result r = Run("parse --quiet " + Path("nope.txt") + " " + Path("a.txt"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot open '" + Path("nope.txt") +
                       "': No such file or directory"),
            std::string::npos);
  EXPECT_EQ(r.out, "{\"valid\":true,\"path\":\"/x\"}\n");
}

TEST_F(CliTest, AFailedRunPrintsNoSummary) {
  // Counts after the error would read as a success over inputs that were
  // not all read: a run that exits 2 has no summary (stats: no report).
  Write(Path("a.txt"), "http://a/\n%\n");
  const std::string files = Path("a.txt") + " " + Path("nope.txt");
  for (const char* cmd :
       {"parse", "validate", "normalize", "resolve --base=http://x/", "dedup",
        "params", "audit", "extract", "stats"}) {
    const Result r = Run(std::string(cmd) + " " + files);
    EXPECT_EQ(r.status, 2) << cmd;
    EXPECT_NE(r.err.find("uriscan: cannot open '" + Path("nope.txt") + "'"),
              std::string::npos)
        << cmd << ": " << r.err;
    EXPECT_EQ(r.err.find("lines,"), std::string::npos) << cmd << ": " << r.err;
    EXPECT_EQ(r.out.find("URIs scanned"), std::string::npos) << cmd;
  }
  // The same runs without the missing file have theirs.
  EXPECT_NE(Run("dedup " + Path("a.txt"))
                .err.find("uriscan: 2 lines, 1 valid, 1 invalid (pct-encoded "
                          "1), 1 distinct"),
            std::string::npos);
  EXPECT_NE(Run("stats " + Path("a.txt")).out.find("URIs scanned     2"),
            std::string::npos);
}

TEST_F(CliTest, LineNumbersRestartPerFile) {
  Write(Path("a.txt"), "/x\n%\n");
  Write(Path("b.txt"), "%\n");
  const Result r = Run("validate " + Path("a.txt") + " - " + Path("b.txt"),
                       "/ok\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(Path("a.txt") + ":2:1: error: pct-encoded"),
            std::string::npos);
  EXPECT_NE(r.err.find(Path("b.txt") + ":1:1: error: pct-encoded"),
            std::string::npos);
  EXPECT_NE(r.err.find("4 lines, 2 valid, 2 invalid (pct-encoded 2)"),
            std::string::npos);
}

TEST_F(CliTest, ThreadsAndChunkSizesNeverChangeTheOutput) {
  // Valid, invalid and over-long lines in two files plus stdin, cut into
  // chunks of a few lines each so every worker gets many of them.
  std::string a, b;
  for (int i = 0; i < 3000; ++i) {
    a += "http://h" + std::to_string(i) + ".example/p?q=" +
         std::to_string(i) + "\n";
    if (i % 7 == 0) a += "ht tp://bad/" + std::to_string(i) + "\n";
    if (i % 500 == 0) a += std::string(300, 'z') + "\n";
    b += "/r/" + std::to_string(i) + (i % 11 == 0 ? "%zz\n" : "\n");
  }
  Write(Path("a.txt"), a);
  Write(Path("b.txt"), b);
  const std::string files = Path("a.txt") + " - " + Path("b.txt");
  for (const char* cmd :
       {"parse --format=tsv", "parse", "validate", "audit",
        "normalize --profile=crawler",
        "resolve --base=http://x/y/z", "dedup --keys", "dedup --memory=1M",
        "dedup --keys --profile=w3lib", "normalize --profile=w3lib",
        "normalize --on-error=fail"}) {
    const Result one = Run(std::string(cmd) +
                               " --quiet --max-line=200 --threads=1 " + files,
                           b);
    const bool fails = std::string(cmd) == "validate" ||
                       std::string(cmd).find("fail") != std::string::npos;
    ASSERT_EQ(one.status, fails ? 1 : 0) << cmd;
    if (std::string(cmd).find("fail") != std::string::npos) {
      ASSERT_EQ(CountLines(one.out), 1u);  // stops before line 2
      continue;
    }
    ASSERT_NE(one.err.find(Path("b.txt") + ":2993:8: error: pct-encoded"),
              std::string::npos);
    for (const char* opts : {"--threads=2 --chunk-size=64",
                             "--threads=4 --chunk-size=1000",
                             "--threads=3 --chunk-size=1"}) {
      const Result many =
          Run(std::string(cmd) + " --quiet --max-line=200 " + opts + " " +
                  files,
              b);
      EXPECT_EQ(many.status, one.status) << cmd << " " << opts;
      EXPECT_TRUE(many.out == one.out) << cmd << " " << opts;
      EXPECT_TRUE(many.err == one.err) << cmd << " " << opts;
    }
  }
  EXPECT_EQ(Run("validate --threads=0").status, 2);
}

// gzip and zstd input: the same records as the plain text, whatever the
// members or frames, the thread count, the chunk size, a file or stdin.
class CompressedTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    for (int i = 0; i < 4000; ++i) {
      (i < 2000 ? part1_ : part2_) +=
          (i % 9 == 0 ? "ht tp://bad/" : "http://h.example/") +
          std::to_string(i) + "?q\n";
    }
    Write(Path("p1.txt"), part1_);
    Write(Path("p2.txt"), part2_);
    Write(Path("plain.txt"), part1_ + part2_);
    has_zstd_ = Sh("command -v zstd > /dev/null");
  }
  bool Sh(const std::string& cmd) {
    return std::system(("cd '" + dir_ + "' && " + cmd).c_str()) == 0;
  }
  std::string part1_, part2_;
  bool has_zstd_ = false;
};

// A byte flipped mid-member is found only by the member's CRC-32 at its
// end: the error names the member, so the lines written before it can be
// told apart from those of whole members (README, "Limits and guarantees").
TEST_F(CompressedTest, CorruptMemberIsNamed) {
  ASSERT_TRUE(Sh("gzip -c p1.txt > bad.gz && gzip -c p2.txt > m2.gz && "
                 "cp m2.gz m2x.gz && printf x | dd of=m2x.gz bs=1 "
                 "seek=$(( $(stat -c %s m2.gz) - 6 )) conv=notrunc "
                 "2>/dev/null && cat m2x.gz >> bad.gz"));
  const Result r = Run("validate --quiet " + Path("bad.gz"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("error: gzip: CRC-32 or length mismatch at "
                       "compressed byte"),
            std::string::npos)
      << r.err;
  const size_t first = Slurp(Path("bad.gz")).size() -
                       Slurp(Path("m2x.gz")).size() + 1;
  EXPECT_NE(r.err.find("(member 2, from compressed byte " +
                       std::to_string(first) + ")"),
            std::string::npos)
      << r.err;
}

// Garbage after a whole zstd frame is damage in the next frame: the byte
// the message names is that frame's first (it named the byte before it).
TEST_F(CompressedTest, GarbageAfterAFrameIsNamedAtItsFirstByte) {
  if (!has_zstd_) GTEST_SKIP() << "no zstd command";
  ASSERT_TRUE(Sh("zstd -qc p1.txt > bad.zst && printf 'XYZW1234' >> bad.zst"));
  const std::string first =
      std::to_string(Slurp(Path("bad.zst")).size() - 8 + 1);
  const Result r = Run("validate --quiet " + Path("bad.zst"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("at compressed byte " + first +
                       " (frame 2, from compressed byte " + first + ")"),
            std::string::npos)
      << r.err;
}

// A zstd stream may begin with a skippable frame (RFC 8878 sec. 3.1.2),
// which once made it read as text.
TEST_F(CompressedTest, ZstdMayStartWithASkippableFrame) {
  if (!has_zstd_) GTEST_SKIP() << "no zstd command";
  ASSERT_TRUE(Sh("printf '\\123\\052\\115\\030\\003\\000\\000\\000abc' "
                 "> skip.zst && zstd -qc plain.txt >> skip.zst"));
  const Result r = Run("extract --quiet " + Path("skip.zst"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, Run("extract --quiet " + Path("plain.txt")).out)
      << r.err;
}

TEST_F(CompressedTest, GzipAndZstdReadAsThePlainText) {
  ASSERT_TRUE(Sh("gzip -c plain.txt > plain.gz"));
  ASSERT_TRUE(Sh("gzip -1c p1.txt > multi.gz && gzip -9c p2.txt >> multi.gz"));
  std::vector<std::string> files = {"plain.gz", "multi.gz"};
  if (has_zstd_) {
    ASSERT_TRUE(Sh("zstd -qc plain.txt > plain.zst"));
    ASSERT_TRUE(Sh("zstd -qc p1.txt > multi.zst && zstd -qc p2.txt >> "
                   "multi.zst"));
    files.push_back("plain.zst");
    files.push_back("multi.zst");
  }
  const Result want = Run("parse --format=tsv --quiet " + Path("plain.txt"));
  for (const std::string& f : files) {
    for (const char* opts : {"--threads=1", "--threads=3 --chunk-size=1000"}) {
      const Result file =
          Run(std::string("parse --format=tsv --quiet ") + opts + " " + Path(f.c_str()));
      EXPECT_EQ(file.status, 0) << f << file.err;
      EXPECT_TRUE(file.out == want.out) << f << " " << opts;
      const Result in = Run(std::string("parse --format=tsv --quiet ") + opts,
                            Slurp(Path(f.c_str())));
      EXPECT_TRUE(in.out == want.out) << f << " stdin " << opts;
    }
  }
}

TEST_F(CompressedTest, TruncatedGzipKeepsEveryLineBeforeTheDamage) {
  ASSERT_TRUE(Sh("gzip -c plain.txt | head -c -8 > cut.gz"));  // no trailer
  const std::string size = std::to_string(Slurp(Path("cut.gz")).size());
  const Result want = Run("parse --format=tsv --quiet " + Path("plain.txt"));
  const Result r = Run("parse --format=tsv --quiet " + Path("cut.gz"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out == want.out);
  EXPECT_NE(r.err.find(Path("cut.gz") +
                       ": error: gzip: unexpected end of stream at "
                       "compressed byte " + size + " (member 1, from compressed "
                       "byte 1)\n"),
            std::string::npos)
      << r.err;
  // From stdin too, named as such.
  const Result in = Run("validate --quiet", Slurp(Path("cut.gz")));
  EXPECT_EQ(in.status, 2);
  EXPECT_NE(in.err.find("<stdin>: error: gzip: unexpected end"),
            std::string::npos);
}

TEST_F(CompressedTest, CorruptSecondMemberKeepsTheFirst) {
  // The second member's header names compression method 9 (only 8 exists).
  ASSERT_TRUE(Sh("gzip -c p1.txt > bad.gz && gzip -c p2.txt | "
                 "{ printf '\\037\\213\\011'; tail -c +4; } >> bad.gz"));
  const Result want = Run("parse --format=tsv --quiet " + Path("p1.txt"));
  const Result r = Run("parse --format=tsv --quiet --threads=2 " + Path("bad.gz"));
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out == want.out);
  EXPECT_NE(r.err.find(": error: gzip: unsupported compression method at "
                       "compressed byte "),
            std::string::npos);
  // Bytes after the last member that are no gzip member at all.
  ASSERT_TRUE(Sh("gzip -c plain.txt > tail.gz && printf 'garbage after the last member' >> tail.gz"));
  const Result t = Run("validate --quiet " + Path("tail.gz"));
  EXPECT_EQ(t.status, 2);
  EXPECT_NE(t.err.find("error: gzip: not a gzip member"), std::string::npos);
}

TEST_F(CompressedTest, TruncatedAndCorruptZstd) {
  if (!has_zstd_) GTEST_SKIP() << "no zstd command";
  ASSERT_TRUE(Sh("zstd -qc p1.txt > cut.zst && zstd -qc p2.txt | "
                 "head -c 100 >> cut.zst"));
  const Result want = Run("parse --format=tsv --quiet " + Path("p1.txt"));
  const Result r = Run("parse --format=tsv --quiet " + Path("cut.zst"));
  EXPECT_EQ(r.status, 2);
  // Every line of the first frame, then maybe a few of the second.
  EXPECT_EQ(r.out.compare(0, want.out.size(), want.out), 0);
  const Result all = Run("parse --format=tsv --quiet " + Path("plain.txt"));
  EXPECT_EQ(all.out.compare(0, r.out.size(), r.out), 0);
  EXPECT_NE(r.err.find(": error: zstd: unexpected end of stream at "
                       "compressed byte"),
            std::string::npos)
      << r.err;
  ASSERT_TRUE(Sh("zstd -qc p1.txt > bad.zst && printf '\\050\\265\\057\\375"
                 "garbage' >> bad.zst"));
  const Result b = Run("parse --format=tsv --quiet " + Path("bad.zst"));
  EXPECT_EQ(b.status, 2);
  EXPECT_TRUE(b.out == want.out);
  EXPECT_NE(b.err.find(": error: zstd: "), std::string::npos);
}

TEST_F(CliTest, ByteOrderMarkIsDropped) {
  const Result r = Run("parse --format=tsv --quiet", "\xef\xbb\xbfhttp://a/\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("1\ttrue\thttp"), std::string::npos) << r.out;
  Write(Path("bom.txt"), "\xef\xbb\xbf/x\n\xef\xbb\xbf/y\n");
  const Result f = Run("validate --quiet " + Path("bom.txt"));
  EXPECT_EQ(f.status, 1);  // only the first one is a byte-order mark
  EXPECT_NE(f.err.find("bom.txt:2:1: error: disallowed-byte: a UTF-8 "
                       "byte-order mark (EF BB BF), which is dropped only at "
                       "the start of an input"),
            std::string::npos)
      << f.err;
  // Inside a line too; any other non-ASCII byte keeps the usual message.
  Write(Path("mid.txt"), "/a\xef\xbb\xbf\n/b\xef\xbb\n");
  const Result m = Run("validate --quiet " + Path("mid.txt"));
  EXPECT_NE(m.err.find("mid.txt:1:3: error: disallowed-byte: a UTF-8 "
                       "byte-order mark"),
            std::string::npos)
      << m.err;
  EXPECT_NE(m.err.find("mid.txt:2:3: error: disallowed-byte: byte not "
                       "allowed anywhere"),
            std::string::npos)
      << m.err;
}

TEST_F(CliTest, LenientRepairsAndFlagsEachLine) {
  struct Case {
    const char* in;
    const char* repaired;  // nullptr: left as it was
  };
  const Case cases[] = {
      // IRIs in several scripts: IDNA A-labels for the host, as the surt
      // column maps it (sharp s is "ss"), UTF-8 percent-encoded elsewhere
      // (RFC 3987 sec. 3.1).
      {"http://b\xc3\xbc" "cher.de/stra\xc3\x9f" "e", "http://xn--bcher-kva.de/stra%C3%9Fe"},
      {"http://\xd0\xbf\xd1\x80\xd0\xb8\xd0\xbc\xd0\xb5\xd1\x80.\xd1\x80\xd1\x84/",
       "http://xn--e1afmkfd.xn--p1ai/"},
      {"http://\xe4\xbe\x8b\xe3\x81\x88.\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88/x",
       "http://xn--r8jz45g.xn--zckzah/x"},
      {"http://\xd9\x85\xd8\xab\xd8\xa7\xd9\x84.example/?q=\xd8\xb3",
       "http://xn--mgbh0fb.example/?q=%D8%B3"},
      {"http://u@Fa\xc3\x9f.de:81/", "http://u@fass.de:81/"},
      // A name with an empty label IDNA 2003 refuses.
      {"http://\xc3\xbc..de/", "http://%C3%BC..de/"},
      // Not a name IDNA takes: percent-encoded instead.
      {"http://\xff.com/", "http://%FF.com/"},
      // A lone '%', spaces and the other bytes no URI may hold.
      {"/100%", "/100%25"},
      {"/a%zz%41", "/a%25zz%41"},
      {"/a b?c d|e{f}", "/a%20b?c%20d%7Ce%7Bf%7D"},
      {"http://a/\"<x>\"\\^`", "http://a/%22%3Cx%3E%22%5C%5E%60"},
      {"http://ok.example/", nullptr},
  };
  std::string in = "\xef\xbb\xbf";  // a byte-order mark, dropped
  for (const Case& c : cases) in += std::string(c.in) + "\n";
  const Result r = Run("parse --lenient --quiet", in);
  EXPECT_EQ(r.status, 0);
  std::istringstream out(r.out);
  std::string line;
  for (const Case& c : cases) {
    ASSERT_TRUE(std::getline(out, line));
    EXPECT_NE(line.find("\"valid\":true"), std::string::npos) << line;
    if (!c.repaired) {
      EXPECT_EQ(line.find("repaired"), std::string::npos) << line;
      continue;
    }
    EXPECT_NE(line.find(",\"repaired\":true,\"original\":"),
              std::string::npos) << line;
    const Result n = Run("normalize --profile=syntax --lenient --quiet",
                         std::string(c.in) + "\n");
    const Result direct = Run("normalize --profile=syntax --quiet",
                              std::string(c.repaired) + "\n");
    EXPECT_EQ(direct.status, 0) << c.repaired;
    EXPECT_EQ(n.out, direct.out) << c.in;
  }
  // The original comes back JSON-escaped.
  EXPECT_NE(r.out.find("\"original\":\"http://a/\\\"<x>\\\"\\\\^`\"}"),
            std::string::npos);
  // JSON text is UTF-8: well-formed UTF-8 in an original is kept as it is,
  // and a byte outside any well-formed sequence becomes U+FFFD.
  EXPECT_NE(r.out.find("\"original\":\"http://b\xc3\xbc" "cher.de/stra\xc3\x9f" "e\"}"),
            std::string::npos);
  EXPECT_NE(r.out.find("\"original\":\"http://\\ufffd.com/\"}"),
            std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\xff'), std::string::npos);
  const Result stats = Run("stats --lenient", in);
  EXPECT_NE(stats.out.find("  repaired         11 "), std::string::npos)
      << stats.out;
  EXPECT_NE(stats.out.find("  byte-order marks 1 dropped"), std::string::npos);
  EXPECT_NE(stats.out.find("  valid            12 "), std::string::npos);
  // Strict stays the default: the same lines are invalid without it.
  const Result strict = Run("validate --quiet", in);
  EXPECT_EQ(strict.status, 1);
  EXPECT_EQ(Run("stats", in).out.find("repaired"), std::string::npos);
}

TEST_F(CliTest, LenientKeepsLinesAndDiagnosesWhatItCannotRepair) {
  const std::string nul = std::string("x\0y\n", 4);
  const Result r = Run("validate --lenient --quiet",
                       std::string("http://a/\x01\nhttp://b/ c\r\n") + nul +
                           "http://ok/\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("<stdin>:1:10: error: disallowed-byte"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("<stdin>:3:2: error: disallowed-byte"),
            std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("<stdin>:2:"), std::string::npos);
  EXPECT_EQ(r.err.find("<stdin>:4:"), std::string::npos);
}

// --lenient repairs a line to judge it; what a command promises to echo is
// the line as it was read: dedup's output, the crawler profile's ORIGINAL
// column and --on-error=keep. The repaired form goes only into keys and
// normal forms.
TEST_F(CliTest, LenientEchoesTheLineAsReadAndKeysTheRepairedForm) {
  const std::string iri = "http://B\xc3\xbc" "cher.example/a b";
  const std::string in = iri + "\n" + "http://xn--bcher-kva.example/a%20b\n" +
                         "http://[bad/\xc3\xbc\n";
  const Result dedup = Run("dedup --lenient --quiet", in);
  EXPECT_EQ(dedup.status, 0) << dedup.err;
  // The second line is the first's repaired form: the same class, dropped.
  EXPECT_EQ(dedup.out, iri + "\n" + "http://[bad/\xc3\xbc\n");
  const Result keys = Run("dedup --lenient --keys --quiet", in);
  EXPECT_EQ(keys.out.substr(keys.out.find('\t') + 1, iri.size() + 1),
            iri + "\n");
  const Result crawler =
      Run("normalize --profile=crawler --lenient --quiet", in);
  std::istringstream rows(crawler.out);
  std::string row;
  ASSERT_TRUE(std::getline(rows, row));
  EXPECT_EQ(row, "http://xn--bcher-kva.example/a%20b\t" + iri);
  ASSERT_TRUE(std::getline(rows, row));
  EXPECT_EQ(row, "http://xn--bcher-kva.example/a%20b\t"
                 "http://xn--bcher-kva.example/a%20b");
  ASSERT_TRUE(std::getline(rows, row));  // invalid even when repaired: kept
  EXPECT_EQ(row, "\thttp://[bad/\xc3\xbc");
  // ORIGINAL is a field of PostgreSQL's text format: a backslash in the
  // line as read is escaped there (the key holds %5C).
  const Result slash = Run("normalize --profile=crawler --lenient --quiet",
                           "http://a.example/b\\c\n");
  EXPECT_EQ(slash.out, "http://a.example/b%5Cc\thttp://a.example/b\\\\c\n");
  const Result keep = Run("normalize --lenient --quiet", in);
  EXPECT_EQ(keep.out.substr(keep.out.rfind("http://[")),
            "http://[bad/\xc3\xbc\n");
}


TEST_F(CliTest, MaxErrorsPrintsTheFirstAndCountsTheRest) {
  const std::string in = "http://a b/\n/ok\n%zz\n{x}\n/also-ok\n^\n";
  const Result all = Run("parse --format=tsv", in);
  const Result two = Run("parse --format=tsv --max-errors=2 --threads=2 "
                         "--chunk-size=4",
                         in);
  EXPECT_EQ(two.status, all.status);
  EXPECT_EQ(two.out, all.out);  // the records are not touched
  EXPECT_NE(two.err.find("<stdin>:1:9: error: disallowed-byte"),
            std::string::npos) << two.err;
  EXPECT_NE(two.err.find("<stdin>:3:1: error: pct-encoded"),
            std::string::npos) << two.err;
  EXPECT_EQ(two.err.find("<stdin>:4:"), std::string::npos) << two.err;
  EXPECT_EQ(two.err.find("<stdin>:6:"), std::string::npos) << two.err;
  EXPECT_NE(two.err.find("4 invalid"), std::string::npos) << two.err;
  EXPECT_NE(two.err.find("; 2 diagnostics held back (--max-errors=2)"),
            std::string::npos) << two.err;
  // None printed, every one counted; as many as there are: none held back.
  const Result none = Run("validate --max-errors=0", in);
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err.find(": error: "), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("4 diagnostics held back (--max-errors=0)"),
            std::string::npos) << none.err;
  const Result enough = Run("validate --max-errors=4", in);
  EXPECT_EQ(enough.err, Run("validate", in).err);
  for (const char* bad : {"-1", "x", "", "1125899906842625", "1K"}) {
    const Result r = Run(std::string("validate --max-errors=") + bad, in);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--max-errors takes a count"), std::string::npos)
        << bad << ": " << r.err;
  }
}

}  // namespace uriscan_cli_test
