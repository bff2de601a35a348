// SPDX-License-Identifier: MIT
// The uriscan command end to end, its command line: usage errors, option
// values, help, file names, sizes and write errors.
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

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
            "try 'uriscan parse --help'\n");
  r = Run("normalize --profile fancy");
  EXPECT_EQ(r.err,
            "uriscan: --profile takes syntax, scheme, crawler or w3lib, not "
            "'fancy'\ntry 'uriscan normalize --help'\n");
  r = Run("frobnicate");
  EXPECT_EQ(r.err, "uriscan: unknown command 'frobnicate'\n"
                   "try 'uriscan --help'\n");
}

// A mistyped command or option gets the closest name; an option of another
// command says which takes it; nothing far from any name gets a guess.
TEST_F(CliTest, AMistypedNameGetsTheClosestOne) {
  const struct {
    const char* args;
    const char* err;
  } cases[] = {
      {"parze", "uriscan: unknown command 'parze'; did you mean 'parse'?\n"
                "try 'uriscan --help'\n"},
      {"dedpu", "uriscan: unknown command 'dedpu'; did you mean 'dedup'?\n"
                "try 'uriscan --help'\n"},
      {"parse --colums=host",
       "uriscan: unknown option '--colums=host' for parse; did you mean "
       "'--columns'?\ntry 'uriscan parse --help'\n"},
      {"dedup --memroy 1G",
       "uriscan: unknown option '--memroy' for dedup; did you mean "
       "'--memory'?\ntry 'uriscan dedup --help'\n"},
      {"parse --state=s",
       "uriscan: unknown option '--state=s' for parse; it is an option of "
       "dedup\ntry 'uriscan parse --help'\n"},
      {"validate --zzzzzzzz",
       "uriscan: unknown option '--zzzzzzzz' for validate\n"
       "try 'uriscan validate --help'\n"},
      {"xyzzy", "uriscan: unknown command 'xyzzy'\ntry 'uriscan --help'\n"},
  };
  for (const auto& c : cases) {
    const Result r = Run(c.args);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_EQ(r.err, c.err) << c.args;
  }
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
            "uriscan: --format needs a value\ntry 'uriscan parse --help'\n");
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
  EXPECT_EQ(r.err, "uriscan: unknown option '--base' for validate; it is an "
                   "option of extract, stats, resolve\n"
                   "try 'uriscan validate --help'\n");
  r = Run("parse --quiet=yes");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, "uriscan: --quiet takes no value\ntry 'uriscan parse --help'\n");
  EXPECT_EQ(Run("state --lenient x").status, 2);  // state repairs nothing
  // An empty value after '=' is the value, not the next argument.
  r = Run("dedup --state= " + Path("x"));
  EXPECT_EQ(r.err, "uriscan: --state takes a directory\n"
                   "try 'uriscan dedup --help'\n");
  EXPECT_EQ(Run("parse --format=").err,
            "uriscan: --format takes jsonl or tsv, not ''\n"
            "try 'uriscan parse --help'\n");
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

}  // namespace uriscan_cli_test

namespace uriscan_cli_test {

// URISCAN_TARGET lowers the SIMD target (SCALAR is built and supported on
// every CPU), --version says so, the output stays byte for byte the same,
// and a name that is no target here is ignored with a word.
TEST_F(CliTest, UriscanTargetPicksTheKernelsTarget) {
  const std::string tricky = "parse --format=tsv '" + kTricky + "'";
  const Result best = Run(tricky);
  ASSERT_EQ(best.status, 0) << best.err;
  ASSERT_NE(best.err.find("error: "), std::string::npos);  // invalid lines
  ASSERT_EQ(setenv("URISCAN_TARGET", "scalar", 1), 0);
  const Result version = Run("--version");
  const Result scalar = Run(tricky);
  ASSERT_EQ(setenv("URISCAN_TARGET", "NO_SUCH_TARGET", 1), 0);
  const Result bogus = Run("--version");
  ASSERT_EQ(unsetenv("URISCAN_TARGET"), 0);
  EXPECT_EQ(version.status, 0);
  EXPECT_NE(version.out.find("Highway target SCALAR, chosen by "
                             "URISCAN_TARGET=scalar"),
            std::string::npos)
      << version.out;
  EXPECT_EQ(scalar.out, best.out);
  EXPECT_EQ(scalar.err, best.err);
  EXPECT_NE(bogus.out.find("URISCAN_TARGET=NO_SUCH_TARGET ignored"),
            std::string::npos)
      << bogus.out;
  EXPECT_EQ(bogus.out.find("Highway target SCALAR"), std::string::npos);
}

}  // namespace uriscan_cli_test
