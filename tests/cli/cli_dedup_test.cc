// SPDX-License-Identifier: MIT
// The uriscan command end to end, dedup: first occurrences, the Bloom filter,
// spills past --memory (the state across runs is in state_test.cc).
#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {

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

}  // namespace uriscan_cli_test
