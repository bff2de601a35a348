// SPDX-License-Identifier: MIT
// The uriscan command end to end: golden outputs, diagnostics, exit codes,
// and every kind of bad input, checked for line alignment.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/files.h"

namespace {

struct Result {
  int status = -1;
  std::string out, err;
};

using uriscan::test_files::Slurp;
using uriscan::test_files::Write;

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/uriscan_cli_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string Path(const char* name) const { return dir_ + "/" + name; }
  // Runs `uriscan ARGS` with `input` on stdin.
  Result Run(const std::string& args, const std::string& input = "") {
    Write(Path("stdin"), input);
    const std::string cmd = std::string(URISCAN_CLI) + " " + args + " < '" +
                            Path("stdin") + "' > '" + Path("stdout") +
                            "' 2> '" + Path("stderr") + "'";
    const int raw = std::system(cmd.c_str());
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = Slurp(Path("stdout"));
    r.err = Slurp(Path("stderr"));
    return r;
  }
  std::string dir_;
};

size_t CountLines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const std::string kTricky =
    std::string(URISCAN_SOURCE_DIR) + "/corpus/handmade/tricky.txt";

TEST_F(CliTest, ParseJsonlMatchesGolden) {
  const Result r = Run("parse --format=jsonl --quiet " + kTricky);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, Slurp(std::string(URISCAN_SOURCE_DIR) +
                         "/corpus/handmade/tricky.expected.jsonl"));
}

TEST_F(CliTest, ParseTsvMatchesGolden) {
  const Result r = Run("parse --format=tsv --quiet " + kTricky);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, Slurp(std::string(URISCAN_SOURCE_DIR) +
                         "/corpus/handmade/tricky.expected.tsv"));
}

TEST_F(CliTest, JsonlIsTheDefaultAndKeysFollowDefinedness) {
  const Result r = Run("parse", "http://a?\n//h:\n");
  EXPECT_EQ(r.out,
            "{\"valid\":true,\"scheme\":\"http\",\"host\":\"a\",\"host_type\":"
            "\"name\",\"path\":\"\",\"query\":\"\"}\n"
            "{\"valid\":true,\"host\":\"h\",\"host_type\":\"name\",\"port\":"
            "\"\",\"path\":\"\"}\n");
  EXPECT_EQ(r.err, "uriscan: 2 lines, 2 valid, 0 invalid\n");
}

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

TEST_F(CliTest, DedupWritesFirstOccurrencesInInputOrder) {
  const std::string in =
      "http://a/b\nHTTP://A:80/b\nbad uri\nhttp://a/%62\nhttp://c/?y=1&x=2\n"
      "http://c/?x=2&y=1\nhttp://a/x/../b\nbad uri\n";
  Result r = Run("dedup", in);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "http://a/b\nbad uri\nhttp://c/?y=1&x=2\nhttp://c/?x=2&y=1\n"
                   "bad uri\n");
  EXPECT_NE(r.err.find("<stdin>:3:4: error: disallowed-byte"), std::string::npos);
  EXPECT_NE(r.err.find("8 lines, 6 valid, 2 invalid (disallowed-byte 2), 3 "
                       "distinct, 3 duplicates (exact"),
            std::string::npos)
      << r.err;
  // The crawler profile sorts the query: one class fewer. Skip drops the
  // invalid lines; --keys puts the 64-bit key in front.
  r = Run("dedup --profile=crawler --on-error=skip --keys --quiet", in);
  EXPECT_EQ(r.status, 0);
  ASSERT_EQ(CountLines(r.out), 2u);
  EXPECT_EQ(r.out.find('\t'), 16u);
  EXPECT_EQ(r.out.substr(17, 11), "http://a/b\n");
  EXPECT_EQ(r.out.find_first_not_of("0123456789abcdef"), 16u);
  r = Run("dedup --on-error=fail", in);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "http://a/b\n");
  // Approximate mode gives the same answer here (no false positive among
  // three keys at 1 in 1000) and says it is approximate.
  r = Run("dedup --bloom=1000", in);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, Run("dedup --quiet", in).out);
  EXPECT_NE(r.err.find("approximate: Bloom filter"), std::string::npos) << r.err;
  EXPECT_EQ(Run("dedup --memory=lots").status, 2);
  EXPECT_EQ(Run("dedup --fp-rate=1.5 --bloom=10").status, 2);
  const Result big = Run("dedup --bloom=1000000000 --memory=1M");
  EXPECT_EQ(big.status, 2);
  EXPECT_NE(big.err.find("raise --memory"), std::string::npos) << big.err;
  EXPECT_EQ(Run("normalize --keys").status, 2);  // a dedup option only
}

TEST_F(CliTest, DedupBloomGrowsPastItsExpectedCount) {
  // 50x more distinct lines than --bloom said: layers are added, and no new
  // line is dropped (the rate stays under 1e-6).
  std::string in;
  for (int i = 0; i < 5000; ++i)
    in += "http://h" + std::to_string(i) + ".example/\n";
  in += in;  // every line twice
  Result r = Run("dedup --bloom=100 --fp-rate=1e-6", in);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, in.substr(0, in.size() / 2));
  EXPECT_NE(r.err.find("5000 distinct, 5000 duplicates"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" layers, expected false-positive rate"),
            std::string::npos) << r.err;
  // Past --memory the run stops with exit 2 and says why.
  r = Run("dedup --bloom=100 --memory=4K", in);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the Bloom filter holds"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("past --memory"), std::string::npos);
}

TEST_F(CliTest, DedupPastItsMemoryGivesTheSameOutput) {
  // 150,000 lines, a third of them repeats of earlier ones in other case.
  std::string in;
  for (int i = 0; i < 100000; ++i) {
    in += "http://h" + std::to_string(i % 5000) + ".example/p/" +
          std::to_string(i) + "\n";
    if (i % 2 == 0)
      in += "HTTP://H" + std::to_string(i / 3 % 5000) + ".EXAMPLE:80/p/" +
            std::to_string(i / 3) + "\n";
  }
  Write(Path("in.txt"), in);
  const Result whole = Run("dedup " + Path("in.txt"));
  ASSERT_EQ(whole.status, 0);
  EXPECT_EQ(whole.err.find("spilled"), std::string::npos) << whole.err;
  EXPECT_NE(whole.err.find("100000 distinct, 50000 duplicates"), std::string::npos)
      << whole.err;
  for (const char* opts : {"--memory=1M --threads=1", "--memory=300K --threads=2",
                           "--memory=64K --chunk-size=4096"}) {
    const Result spilled =
        Run("dedup " + std::string(opts) + " --temp-dir=" + dir_ + " " +
            Path("in.txt"));
    EXPECT_EQ(spilled.status, 0) << opts;
    EXPECT_TRUE(spilled.out == whole.out) << opts;
    EXPECT_NE(spilled.err.find("spilled"), std::string::npos) << spilled.err;
    EXPECT_NE(spilled.err.find("100000 distinct, 50000 duplicates"),
              std::string::npos)
        << spilled.err;
  }
  const Result nowhere =
      Run("dedup --memory=64K --temp-dir=/nonexistent/dir " + Path("in.txt"));
  EXPECT_EQ(nowhere.status, 2);
  EXPECT_NE(nowhere.err.find("cannot create a temporary file in /nonexistent/dir"),
            std::string::npos)
      << nowhere.err;
}

TEST_F(CliTest, UsageErrorsExit2) {
  EXPECT_EQ(Run("").status, 2);
  EXPECT_EQ(Run("frobnicate").status, 2);
  EXPECT_EQ(Run("parse --format=xml").status, 2);
  EXPECT_EQ(Run("validate --max-line=0").status, 2);
  const Result help = Run("--help");
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("usage: uriscan"), std::string::npos);
}

TEST_F(CliTest, UsageErrorIsOneLineNamingTheAllowedValues) {
  Result r = Run("parse --format=xml");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "uriscan: --format takes jsonl or tsv, not 'xml'\n"
            "try 'uriscan --help'\n");
  r = Run("normalize --profile fancy");
  EXPECT_EQ(r.err,
            "uriscan: --profile takes syntax, scheme or crawler, not "
            "'fancy'\ntry 'uriscan --help'\n");
  r = Run("frobnicate");
  EXPECT_EQ(r.err, "uriscan: unknown command 'frobnicate'\n"
                   "try 'uriscan --help'\n");
}

TEST_F(CliTest, OptionValueMayBeTheNextArgument) {
  const std::string in = "http://a/x/../y\n/rel\n";
  const Result joined = Run("resolve --quiet --base=http://h/p/q", in);
  const Result split = Run("resolve --quiet --base http://h/p/q", in);
  EXPECT_EQ(joined.status, 0);
  EXPECT_EQ(split.out, joined.out);
  EXPECT_EQ(split.out, "http://a/y\nhttp://h/rel\n");
  EXPECT_EQ(Run("parse --format tsv --quiet", in).out,
            Run("parse --format=tsv --quiet", in).out);
  EXPECT_EQ(Run("parse --format").err,
            "uriscan: --format needs a value\ntry 'uriscan --help'\n");
  // After "--" nothing is an option, not even a value option's name.
  EXPECT_EQ(Run("validate --quiet -- --base").status, 2);  // no such file
}

TEST_F(CliTest, EachCommandHasItsOwnHelp) {
  const Result all = Run("--help");
  for (const char* command : {"extract", "parse", "validate", "stats", "audit",
                              "normalize", "resolve", "dedup", "state"}) {
    const Result r = Run(std::string(command) + " --help");
    EXPECT_EQ(r.status, 0) << command;
    EXPECT_EQ(r.err, "") << command;
    EXPECT_EQ(r.out.rfind(std::string("usage: uriscan ") + command + " ", 0),
              0u)
        << r.out;
    // Its entry, after the usage line, is the one in the whole help.
    const size_t from = r.out.find("\n\n") + 2;
    const std::string entry = r.out.substr(from, r.out.find('\n', from) - from);
    EXPECT_EQ(entry.rfind(std::string("  ") + command, 0), 0u) << entry;
    EXPECT_NE(all.out.find(entry + "\n"), std::string::npos) << command;
  }
  const Result parse = Run("parse --help");
  EXPECT_NE(parse.out.find("--columns=LIST"), std::string::npos);
  EXPECT_NE(parse.out.find("--max-line=BYTES"), std::string::npos);
  EXPECT_EQ(parse.out.find("--bloom"), std::string::npos);
  EXPECT_NE(Run("dedup --help").out.find("--on-error=keep"), std::string::npos);
  // The help wins over the other options, wherever it is.
  EXPECT_EQ(Run("parse --format=xml --help").out, parse.out);
}

TEST_F(CliTest, UnknownOptionsAndFlagValuesAreUsageErrors) {
  Result r = Run("validate --base http://x");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "uriscan: unknown option '--base' for validate\n"
                   "try 'uriscan --help'\n");
  r = Run("parse --quiet=yes");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "uriscan: --quiet takes no value\ntry 'uriscan --help'\n");
  EXPECT_EQ(Run("state --lenient x").status, 2);  // state repairs nothing
  // An empty value after '=' is the value, not the next argument.
  r = Run("dedup --state= " + Path("x"));
  EXPECT_EQ(r.err, "uriscan: --state takes a directory\n"
                   "try 'uriscan --help'\n");
  EXPECT_EQ(Run("parse --format=").err,
            "uriscan: --format takes jsonl or tsv, not ''\n"
            "try 'uriscan --help'\n");
  // The last of an option given twice counts.
  EXPECT_EQ(Run("parse --quiet --format=xml --format=tsv", "a\n").status, 0);
}

TEST_F(CliTest, FileNamesAreTakenAsWritten) {
  // Neither a list in brackets nor a second "--" is read as anything else.
  Write(Path("[a,b]"), "http://a/\n");
  Write(Path("--"), "%\n");
  Result r = Run("validate --quiet '" + Path("[a,b]") + "'");
  EXPECT_EQ(r.status, 0) << r.err;
  r = Run("validate --quiet -- --quiet -- '" + Path("--") + "'");
  EXPECT_EQ(r.status, 2);  // no file named --quiet nor --
  EXPECT_NE(r.err.find("cannot open '--quiet'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(Path("--") + ":1:1: error: pct-encoded"),
            std::string::npos)
      << r.err;
}

TEST_F(CliTest, SizeOptionsTakeSuffixes) {
  const std::string in = std::string(2000, 'a') + "\nhttp://a/\n";
  Result r = Run("validate --quiet --max-line=1K --chunk-size 64K", in);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("<stdin>:1:1025: error: too-long"), std::string::npos)
      << r.err;
  r = Run("validate --quiet --max-line=2k --chunk-size=1M", in);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Run("validate --max-line=4G").status, 2);  // past 32 bits
  EXPECT_EQ(Run("validate --chunk-size=12Q").status, 2);
}

TEST_F(CliTest, WriteErrorsExit2) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  for (const char* args : {"stats", "--help", "--version", "parse --help"}) {
    const std::string cmd = std::string(URISCAN_CLI) + " " + args +
                            " < /dev/null > /dev/full 2>/dev/null";
    const int raw = std::system(cmd.c_str());
    EXPECT_EQ(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, 2) << args;
  }
}

TEST_F(CliTest, StatsSummarizesKindsAndHosts) {
  const Result r = Run("stats", "http://1.2.3.4/\nhttp://[::1]/\n%\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("URIs scanned     3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pct-encoded      1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("name 0, ipv4 1, ipv6 1, ipvfuture 0"),
            std::string::npos)
      << r.out;
}

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

TEST_F(CliTest, ParseJsonlAddsRisksOnlyWhenThereAreAny) {
  const Result r = Run("parse --quiet",
                       "http://u@h/\nhttp://h/\nhttp://h/%zz\n");
  EXPECT_EQ(r.out,
            "{\"valid\":true,\"scheme\":\"http\",\"userinfo\":\"u\","
            "\"host\":\"h\",\"host_type\":\"name\",\"path\":\"/\","
            "\"risks\":[\"credentials\"]}\n"
            "{\"valid\":true,\"scheme\":\"http\",\"host\":\"h\","
            "\"host_type\":\"name\",\"path\":\"/\"}\n"
            "{\"valid\":false,\"error\":\"pct-encoded\",\"at\":9}\n");
  // TSV keeps its fixed columns.
  const Result tsv = Run("parse --format=tsv --quiet", "http://u@h/\n");
  EXPECT_EQ(tsv.out.find("risk"), std::string::npos);
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

}  // namespace

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
                       "compressed byte " + size + "\n"),
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
  EXPECT_NE(f.err.find("bom.txt:2:1: error: disallowed-byte"),
            std::string::npos)
      << f.err;
}

// --- extract ------------------------------------------------------------

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
  const std::string cmd = "cd '" + kExtractDir + "' && " + URISCAN_CLI +
                          " extract --quiet --with-line " + args + " > '" +
                          dir + "/stdout' 2> '" + dir + "/stderr'";
  const int raw = std::system(cmd.c_str());
  Result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = Slurp(dir + "/stdout");
  r.err = Slurp(dir + "/stderr");
  return r;
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
            "not 'xml'\ntry 'uriscan --help'\n");
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

// --- parse --columns ------------------------------------------------------

TEST_F(CliTest, DerivedColumnsPublicSuffixAndSurt) {
  const Result r = Run(
      "parse --format=tsv --quiet "
      "--columns=line,registrable_domain,public_suffix,surt",
      "http://www.Example.co.uk:8080/a?b=1&utm_source=x#f\n"  // ICANN
      "https://foo.blogspot.com/\n"                            // private
      "http://192.168.0.1/x\n"                                 // IPv4
      "http://[::1]:80/\n"                                     // IPv6
      "http://co.uk/\n"                           // itself a public suffix
      "mailto:a@b\n"                              // no host
      "bad uri\n"
      "HTTP://WWW.EXAMPLE.COM:80/A/./B?\n");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out,
            "line\tregistrable_domain\tpublic_suffix\tsurt\n"
            "1\texample.co.uk\tco.uk\tuk,co,example:8080)/a?b=1\n"
            "2\tfoo.blogspot.com\tblogspot.com\tcom,blogspot,foo)/\n"
            "3\t\\N\t\\N\t192.168.0.1)/x\n"
            "4\t\\N\t\\N\t[::1])/\n"
            "5\t\\N\tco.uk\tuk,co)/\n"
            "6\t\\N\t\\N\t\\N\n"
            "7\t\\N\t\\N\t\\N\n"
            "8\texample.com\tcom\tcom,example)/A/B\n");
}

TEST_F(CliTest, DerivedColumnsKeyAndNormalizedFollowTheProfile) {
  const std::string in = "HTTP://A.example:80/x/../y?utm_source=1\nbad uri\n";
  const Result r = Run("parse --format=tsv --quiet --profile=crawler "
                       "--columns=normalized,key,valid",
                       in);
  const Result keys = Run("dedup --keys --quiet --profile=crawler", in);
  ASSERT_GE(keys.out.size(), 17u);
  ASSERT_EQ(keys.out[16], '\t');
  EXPECT_EQ(r.out, "normalized\tkey\tvalid\nhttp://a.example/y\t" +
                       keys.out.substr(0, 16) + "\ttrue\n\\N\t\\N\tfalse\n");
  // The same rows, whatever the threads and chunks.
  std::string many;
  for (int i = 0; i < 3000; ++i)
    many += "http://www" + std::to_string(i % 7) + ".example.org/" +
            std::to_string(i) + "?q\n";
  const std::string cols =
      "parse --format=tsv --quiet --columns=surt,key,registrable_domain,"
      "normalized,line ";
  const Result one = Run(cols + "--threads=1", many);
  EXPECT_EQ(Run(cols + "--threads=3 --chunk-size=100", many).out, one.out);
}

TEST_F(CliTest, DerivedColumnsUsageAndPslFile) {
  Result r = Run("parse --format=tsv --columns=host,tld");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--columns takes line, valid, scheme"),
            std::string::npos);
  EXPECT_NE(r.err.find("not 'tld'"), std::string::npos);
  EXPECT_EQ(Run("parse --columns=host").status, 2);  // jsonl has no columns
  Write(Path("list.dat"), "// ===BEGIN ICANN DOMAINS===\nexample\n"
                          "// ===END ICANN DOMAINS===\n");
  r = Run("parse --format=tsv --quiet --columns=registrable_domain "
          "--psl " + Path("list.dat"),
          "http://a.b.example/\n");
  EXPECT_EQ(r.out, "registrable_domain\nb.example\n");
  EXPECT_EQ(Run("parse --format=tsv --columns=host --psl=/nonexistent").status,
            2);
}

// --- --lenient ------------------------------------------------------------

TEST_F(CliTest, LenientRepairsAndFlagsEachLine) {
  struct Case {
    const char* in;
    const char* repaired;  // nullptr: left as it was
  };
  const Case cases[] = {
      // IRIs in several scripts: IDNA A-labels (UTS #46, non-transitional)
      // for the host, UTF-8 percent-encoded elsewhere (RFC 3987 sec. 3.1).
      {"http://b\xc3\xbc" "cher.de/stra\xc3\x9f" "e", "http://xn--bcher-kva.de/stra%C3%9Fe"},
      {"http://\xd0\xbf\xd1\x80\xd0\xb8\xd0\xbc\xd0\xb5\xd1\x80.\xd1\x80\xd1\x84/",
       "http://xn--e1afmkfd.xn--p1ai/"},
      {"http://\xe4\xbe\x8b\xe3\x81\x88.\xe3\x83\x86\xe3\x82\xb9\xe3\x83\x88/x",
       "http://xn--r8jz45g.xn--zckzah/x"},
      {"http://\xd9\x85\xd8\xab\xd8\xa7\xd9\x84.example/?q=\xd8\xb3",
       "http://xn--mgbh0fb.example/?q=%D8%B3"},
      {"http://u@Fa\xc3\x9f.de:81/", "http://u@xn--fa-hia.de:81/"},
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
  EXPECT_NE(stats.out.find("  repaired         10 "), std::string::npos)
      << stats.out;
  EXPECT_NE(stats.out.find("  byte-order marks 1 dropped"), std::string::npos);
  EXPECT_NE(stats.out.find("  valid            11 "), std::string::npos);
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
