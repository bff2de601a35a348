// SPDX-License-Identifier: MIT
// The uriscan command end to end on hostile input: nesting, symlinks,
// over-long records, damaged streams, full disks and hostile options. Each
// test stands for a reproduction of a defect that once passed.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

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

// LOCK is never created through a link, dangling or not, and a state
// directory that others may write is refused before anything is written.
TEST_F(CliTest, HostileStateDirectoryIsRefused) {
  const std::string state = Path("state"), victim = Path("victim");
  ASSERT_EQ(mkdir(state.c_str(), 0700), 0);
  ASSERT_EQ(symlink(victim.c_str(), (state + "/LOCK").c_str()), 0);
  Result r = Run("dedup --quiet --state=" + state, "http://a/\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("LOCK"), std::string::npos) << r.err;
  struct stat st;
  EXPECT_NE(lstat(victim.c_str(), &st), 0) << "created through the link";
  ASSERT_EQ(unlink((state + "/LOCK").c_str()), 0);
  ASSERT_EQ(chmod(state.c_str(), 0777), 0);
  r = Run("dedup --quiet --state=" + state, "http://a/\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("may be written by other users (mode 0777)"),
            std::string::npos)
      << r.err;
  ASSERT_EQ(chmod(state.c_str(), 0700), 0);
  r = Run("dedup --quiet --state=" + state, "http://a/\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "http://a/\n");
}

// A --temp-dir that cannot be written once let every line through
// unfiltered after the spill failed: now the run fails before writing any.
TEST_F(CliTest, HostileDedupTempDirIsCheckedBeforeOutput) {
  std::string day;
  for (int i = 0; i < 100000; ++i)
    day += "http://h" + std::to_string(i) + ".example/\n";
  const Result r = Run("dedup --quiet --memory=1M --temp-dir=" +
                           Path("nonexistent"),
                       day + day);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("cannot create a temporary file in " +
                       Path("nonexistent")),
            std::string::npos)
      << r.err;
}

// A quoted field of many short lines, longer than --max-line in all, once
// broke the record alignment (its lines were read as records), differently
// at each chunk size: now it is one diagnostic, and reading goes on at the
// next record, the same at every chunk size.
TEST_F(CliTest, HostileOverlongCsvRecordKeepsAlignment) {
  std::string note;
  for (int i = 0; i < 3000; ++i) note += "http://evil.example/" + std::to_string(i) + "\n";
  const std::string csv = "url,note\nhttp://a/,x\nhttp://b/,\"" + note +
                          "\"\nhttp://c/,y\r\nhttp://d/,\"z\"\n";
  Write(Path("t.csv"), csv);
  for (const char* chunk : {"", "--chunk-size=1", "--chunk-size=100",
                            "--chunk-size=4096", "--chunk-size=100000"}) {
    for (const bool mapped : {true, false}) {  // a file, or read(2)
      const Result r = Run(std::string("extract --quiet --with-line --from=csv "
                                       "--field=url --max-line=50000 ") +
                               chunk + (mapped ? " " + Path("t.csv") : ""),
                           mapped ? "" : csv);
      const char* via = mapped ? "file" : "stdin";
      EXPECT_EQ(r.status, 0) << chunk;
      EXPECT_EQ(r.out, "2\thttp://a/\n3004\thttp://c/\n"
                       "3005\thttp://d/\n") << chunk << via;
      EXPECT_EQ(r.err.substr(r.err.find(':')),
                ":3:1: error: log-format: the record is longer than "
                "--max-line\n") << chunk << via;
    }
  }
}

// One line over --max-line inside a quoted field (the record short but for
// it) was emptied alone: the record's other lines were read as a value
// holding line breaks, or as records of their own. Now the whole record is
// left out with one diagnostic at its first line, and the quotes read on
// after it as they were, at every chunk size and from a pipe.
TEST_F(CliTest, HostileLongLineInsideAQuotedCsvFieldDropsItsRecordOnly) {
  const std::string csv = "url,note\nhttp://a/,x\n\"http://b/\n" +
                          std::string(70000, 'y') +
                          "\nz\",1\nhttp://c/,\"q\n\"\"r\"\"\"\n"
                          "http://d/,2\n";
  Write(Path("l.csv"), csv);
  for (const char* chunk : {"", "--chunk-size=1", "--chunk-size=4096",
                            "--chunk-size=100000"}) {
    for (const bool mapped : {true, false}) {
      const Result r = Run(std::string("extract --quiet --with-line --from=csv "
                                       "--field=url --max-line=50000 ") +
                               chunk + (mapped ? " " + Path("l.csv") : ""),
                           mapped ? "" : csv);
      const char* via = mapped ? "file" : "stdin";
      EXPECT_EQ(r.status, 0) << chunk << via;
      EXPECT_EQ(r.out, "2\thttp://a/\n6\thttp://c/\n8\thttp://d/\n")
          << chunk << via;
      EXPECT_EQ(r.err.substr(r.err.find(':')),
                ":3:1: error: log-format: the record is longer than "
                "--max-line\n") << chunk << via;
    }
  }
}


// What a chunk costs follows its bytes, not its line count: 5 MB of empty
// lines once took 748 MB (and an abort with no message under a limit).
// Past the limit, the run ends with a message and exit status 2.
TEST_F(CliTest, HostileEmptyLinesStayWithinMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves far more address space";
#endif
  Write(Path("empty.txt"), std::string(5000000, '\n'));
  const auto limited = [&](const char* kb, const std::string& args) {
    return Sh(dir_, "ulimit -v " + std::string(kb) + "; $URISCAN " + args +
                        " empty.txt", 60);
  };
  Result r = limited("500000", "parse --quiet --threads=2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(CountLines(r.out), 5000000u);
  // validate bounds a chunk's rows as it scans them, not beforehand.
  r = limited("500000", "validate --threads=2");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("uriscan: 5000000 lines, 5000000 valid"),
            std::string::npos)
      << r.err;
  // Each line that is no log line is a problem stats --from keeps until
  // its chunk is counted: the reader's cap on a chunk's lines bounds them
  // (128 MB without it, 35 MB with it).
  std::string junk;
  for (int i = 0; i < 2500000; ++i) junk += "x\n";
  Write(Path("junk.log"), junk);
  r = Sh(dir_, "ulimit -v 200000; $URISCAN stats --threads=2 --from=combined "
               "junk.log", 60);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("log lines        2500000 (combined), 0 URI "
                       "references, 2500000 malformed"),
            std::string::npos)
      << r.out << r.err;
  r = limited("200000", "parse --quiet --threads=2 --chunk-size=1G");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("uriscan: error: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("out of memory"), std::string::npos) << r.err;
}

// A line of millions of parameters: each parameter took 32 to 64 bytes of
// columns (params 528 MB, param_names 479 MB, the crawler profile 322 MB
// for one 16 MiB line). Now the parameters are split a window at a time,
// walked in place or held by one offset each: an 8 MiB line of 4 M
// parameters runs within 220 MB of address space (the memory of one
// thread, its chunk and its output included), where it took up to 600.
TEST_F(CliTest, HostileParameterCountsStayWithinMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves far more address space";
#endif
  std::string line = "http://a/?";
  while (line.size() < (8u << 20)) line += "x&";
  Write(Path("many.txt"), line + "\n");
  for (const char* command :
       {"params", "params --raw",
        "parse --format=tsv --columns=param_names,param:x,param_raw:x",
        "normalize --profile=crawler", "normalize --profile=w3lib",
        "dedup --profile=crawler",
        "parse --format=tsv --columns=surt,surt_crawler"}) {
    const Result r = Sh(dir_, std::string("ulimit -v 220000; $URISCAN ") +
                                  command +
                                  " --quiet --threads=1 many.txt >/dev/null",
                        60);
    EXPECT_EQ(r.status, 0) << command << ": " << r.err;
    EXPECT_EQ(r.err, "") << command;
  }
  // What they write: every parameter, in order.
  Result r = Sh(dir_, "$URISCAN params --threads=1 many.txt | wc -l", 60);
  EXPECT_EQ(std::stoul(r.out), (line.size() - 10) / 2) << r.err;
  r = Sh(dir_, "$URISCAN parse --format=tsv --no-header --threads=1 "
               "--columns=param_names many.txt | tr , \"\\n\" | wc -l", 60);
  EXPECT_EQ(std::stoul(r.out), (line.size() - 10) / 2) << r.err;
}

// At the longest line a run takes (--max-line, 16 MiB), 8 M parameters
// peaked at up to 255 MB of resident memory (the w3lib profile's 12 bytes
// a field, outputs grown by doubling and copied whole, columns sized for
// the lines the chunk's bytes might have held). Now each command peaks
// within 96 MB, the mapped line itself (16 MiB) included, with one thread
// or two.
TEST_F(CliTest, HostileParameterCountsStayWithinResidentMemory) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory is resident too";
#endif
  // tools/setup.sh installs it: a missing one is a failure, not a skip.
  ASSERT_EQ(Sh(dir_, "test -x /usr/bin/time", 10).status, 0)
      << "no /usr/bin/time to measure the peak (Debian's package time)";
  std::string line = "http://a/?";
  while (line.size() + 2 <= (16u << 20)) line += "x&";
  ASSERT_LE(line.size(), 16u << 20);
  Write(Path("many16.txt"), line + "\n");
  // Two threads, the default here: one thread peaks within a few MB of it
  // (measured), and each run of the list takes a second or two.
  for (const char* threads : {"2"}) {
    for (const char* command :
         {"params", "params --raw",
          "parse --format=tsv --columns=param_names,param:x,param_raw:x",
          "normalize --profile=crawler", "normalize --profile=w3lib",
          "dedup --profile=crawler",
          "parse --format=tsv --columns=surt,surt_crawler",
          "parse --format=tsv --columns=key,normalized,surt_crawler",
          "parse --format=tsv --profile=w3lib --columns=key,normalized",
          "resolve --base=http://b/"}) {
      const Result r =
          Sh(dir_, std::string("/usr/bin/time -f %M -o rss.txt $URISCAN ") +
                       command + " --quiet --threads=" + threads +
                       " many16.txt >/dev/null && cat rss.txt",
             60);
      ASSERT_EQ(r.status, 0) << command << ": " << r.err;
      EXPECT_LE(std::stoul(r.out), 96000u)
          << command << " --threads=" << threads << ": peak RSS in KB";
    }
  }
}

// Each of these took quadratic time (minutes); each is linear now and
// takes a few seconds. The limit guards against a hang, not a slow machine:
// ten times that and more, so a loaded machine does not trip it.
constexpr int kHangSeconds = 120;

// The best of three runs of `command` in dir, in seconds.
double BestSeconds(const std::string& dir, const std::string& command) {
  double best = 1e9;
  for (int k = 0; k < 3; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    const Result r = Sh(dir, command, 120);
    EXPECT_EQ(r.status, 0) << command << ": " << r.err;
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - t0)
                              .count());
  }
  return best;
}

// Four times the input takes time k times as long: 4 when linear, about
// 4.6 for the n log n of a sort, 16 when quadratic. The bound, 8, is a
// ratio of two runs of the same binary (not a time limit), halfway between
// in log scale, so a loaded two-core machine does not trip it and a
// quadratic step always does.
constexpr double kLinearBound = 8;

// Hostile inputs, each at two sizes, one four times the other: the time
// grows as the input does (kLinearBound), through pipes as from files.
TEST_F(CliTest, HostileInputTakesLinearTime) {
  struct Case {
    const char* what;
    std::function<std::string(size_t)> input;  // of size about n
    std::string command;                         // reads in.txt
    std::string out;                             // what it writes
    size_t n = size_t{4} << 20;                  // the smaller size
  };
  const std::vector<Case> cases = {
      // Long lines from a pipe: the buffer grew by a pipe's read at a time,
      // copying the line each time (quadratic: 24 MiB lines took 20 s).
      {"long lines through a pipe",
       [](size_t n) {
         const std::string line = "http://a/" + std::string(n / 3, 'a') + "\n";
         return line + line + line;
       },
       "cat in.txt | $URISCAN validate --quiet --max-line=64M -", "",
       size_t{24} << 20},
      {"long lines from a file",
       [](size_t n) {
         const std::string line = "http://a/" + std::string(n / 3, 'a') + "\n";
         return line + line + line;
       },
       "$URISCAN validate --quiet --max-line=64M in.txt", "", size_t{24} << 20},
      // A run of ")" after a bare URI was trimmed one at a time, recounting.
      {"a run of parentheses",
       [](size_t n) { return "see http://a/b" + std::string(n / 16, ')') + "\n"; },
       "$URISCAN extract --quiet in.txt", "http://a/b\n"},
      // Every line over --max-line: each was erased from the chunk in turn.
      {"every line too long",
       [](size_t n) {
         std::string lines;
         while (lines.size() < n / 4) lines += "http://a.example/xyz\n";
         return lines;
       },
       "$URISCAN extract --quiet --max-line=10 in.txt", ""},
      // An unclosed quote from a pipe was read far past --max-line.
      {"an unclosed quote through a pipe",
       [](size_t n) { return "u\n\"" + std::string(n, 'x') + "\n"; },
       "cat in.txt | $URISCAN extract --quiet --from=csv --max-line=1M - "
       "2>/dev/null",
       "u\n"},
  };
  for (const Case& c : cases) {
    double seconds[2];
    for (int k = 0; k < 2; ++k) {
      const size_t n = c.n << (2 * k);  // n, then 4 n
      Write(Path("in.txt"), c.input(n));
      seconds[k] = BestSeconds(dir_, c.command + " > out.txt");
      EXPECT_EQ(Slurp(Path("out.txt")), c.out) << c.what;
    }
    EXPECT_LE(seconds[1], kLinearBound * std::max(seconds[0], 0.02))
        << c.what << ": " << seconds[0] << " s, then " << seconds[1] << " s";
  }
  // The unclosed quote, read through a pipe in memory that --max-line
  // bounds, is named at the byte where the record passed it.
  Write(Path("open.csv"), "u\n\"" + std::string(64u << 20, 'x') + "\n");
#if defined(__SANITIZE_ADDRESS__)
  const char* limit = "";  // AddressSanitizer reserves terabytes
#else
  const char* limit = "ulimit -v 1500000; ";
#endif
  const Result r = Sh(dir_, std::string(limit) + "cat open.csv | $URISCAN extract --quiet "
               "--from=csv --max-line=1M -", kHangSeconds);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "<stdin>:2:1048577: error: too-long: line too long\n");
#if !defined(__SANITIZE_ADDRESS__)
  // A quoted field left open before a line too long: the pipe's reader,
  // asked for more of the record, held all of that line (600 MB for a
  // 300 MB line, and 38 s). Now the record is read on in pieces.
  Write(Path("open.csv"), "http://a/,\"b\n" + std::string(64u << 20, 'x') +
                              "\nc\"\nhttp://z/\n");
  const Result open = Sh(dir_,
                         "cat open.csv | /usr/bin/time -f %M -o rss.txt "
                         "$URISCAN extract --quiet --from=csv --max-line=1M - "
                         "&& cat rss.txt",
                         kHangSeconds);
  ASSERT_EQ(open.status, 0) << open.err;
  EXPECT_EQ(open.err,
            "<stdin>:1:1: error: log-format: the record is longer than "
            "--max-line\n");
  EXPECT_EQ(open.out.substr(0, 10), "http://z/\n");
  EXPECT_LE(std::stoul(open.out.substr(10)), 32000u) << "peak RSS in KB";
#endif
}


// Path session ids were erased one at a time, moving the rest of the path
// each time: a 4 MB line took 16 times as long as a 1 MB one.
TEST_F(CliTest, HostileSessionIdsTakeLinearTime) {
  const std::vector<std::string> pieces = {
      "x;jsessionid=1/", "x;JSESSIONID=1/", "x;jsessionid/", ";jsessionid=a"};
  for (const std::string& piece : pieces) {
    for (const size_t mb : {1, 4}) {
      std::string line = "http://a/";
      while (line.size() < (mb << 20)) line += piece;
      Write(Path(("s" + std::to_string(mb) + ".txt").c_str()), line + "\n");
    }
    for (const char* command :
         {"normalize --profile=crawler", "dedup --profile=crawler",
          "parse --format=tsv --columns=surt_crawler"}) {
      const std::string run =
          std::string("$URISCAN ") + command + " --quiet --max-line=8M ";
      const double small = BestSeconds(dir_, run + "s1.txt >/dev/null");
      const double large = BestSeconds(dir_, run + "s4.txt >/dev/null");
      EXPECT_LE(large, kLinearBound * std::max(small, 0.02))
          << command << " " << piece;
    }
  }
}

// A line of millions of parameters, by every command that splits or sorts
// a query (kLinearBound).
TEST_F(CliTest, HostileParameterCountsTakeLinearTime) {
  for (const size_t mb : {1, 4}) {
    std::string line = "http://a/?";
    while (line.size() < (mb << 20)) line += "x&";
    Write(Path(("p" + std::to_string(mb) + ".txt").c_str()), line + "\n");
  }
  for (const char* command :
       {"params", "parse --format=tsv --columns=param_names,param:x",
        "normalize --profile=crawler", "normalize --profile=w3lib",
        "parse --format=tsv --columns=surt"}) {
    const std::string run =
        std::string("$URISCAN ") + command + " --quiet --max-line=8M ";
    const double small = BestSeconds(dir_, run + "p1.txt >/dev/null");
    const double large = BestSeconds(dir_, run + "p4.txt >/dev/null");
    EXPECT_LE(large, kLinearBound * std::max(small, 0.02)) << command;
  }
}

// Sizes and counts: a sign, an overflow or an absurd value is a usage
// error, never a crash (--bloom=-1 was a SIGSEGV, --memory=-1 16 EiB).
TEST_F(CliTest, HostileSizesAreUsageErrors) {
  for (const char* args :
       {"dedup --bloom=-1", "dedup --bloom=2305843009213693952",
        "dedup --bloom=2000000T", "dedup --bloom=18446744073709551616",
        "dedup --memory=-1", "dedup --memory=+64M", "dedup --memory=' 64M'",
        "dedup --memory=99999999999999999999", "dedup --memory=2048T",
        "dedup --memory='1 '", "dedup --bloom='5 B'", "parse --max-line='1 '",
        "parse --max-line=-1", "parse --chunk-size=-4M",
        "parse --threads=-1", "extract --from=csv --field=99999999999999999999"}) {
    const Result r = Run(args, "http://a/\n");
    EXPECT_EQ(r.status, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("uriscan: "), std::string::npos) << args;
    EXPECT_EQ(r.out, "") << args;
  }
  // The largest values still work where the memory allows.
  EXPECT_EQ(Run("dedup --quiet --memory=1024T", "http://a/\n").status, 0);
}

// --psl read a FIFO or a device until killed; a FIFO or a directory in a
// --state directory hung the run or gave a misleading message.
TEST_F(CliTest, HostileFileKindsAreRefused) {
  for (const char* psl : {"/dev/zero", "/dev/urandom", "."}) {
    const Result r = Sh(dir_, std::string("$URISCAN parse --format=tsv "
                                          "--columns=registrable_domain "
                                          "--psl=") + psl + " /dev/null", 20);
    EXPECT_EQ(r.status, 2) << psl;
    EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << r.err;
  }
  ASSERT_EQ(Run("dedup --quiet --state=" + Path("s"), "http://a/\n").status, 0);
  ASSERT_EQ(Sh(dir_, "mv s/MANIFEST m && mkfifo s/MANIFEST", 20).status, 0);
  Result r = Sh(dir_, "$URISCAN dedup --quiet --state=s /dev/null", 20);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("MANIFEST: not a regular file"), std::string::npos)
      << r.err;
  ASSERT_EQ(Sh(dir_, "rm s/MANIFEST && mkdir s/MANIFEST", 20).status, 0);
  r = Sh(dir_, "$URISCAN state s", 20);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << r.err;
}

// A reader that closes the pipe (`| head`): the run ends quietly with exit
// status 2 (it was killed by SIGPIPE), and a --state is left as it was.
TEST_F(CliTest, HostileClosedPipeEndsQuietly) {
  for (const char* command : {"parse", "normalize", "dedup", "extract",
                              "dedup --state=s"}) {
    Write(Path("pipe.sh"),
          std::string("seq 3000000 | sed s,^,http://a.example/, | "
                      "\"$URISCAN\" ") +
              command + " --quiet | head -1 >/dev/null\n"
                        "echo \"${PIPESTATUS[2]}\"\n");
    const Result r = RunShell("cd '" + dir_ + "' && URISCAN='" + URISCAN_CLI +
                                  "' timeout 60 bash pipe.sh > stdout "
                                  "2> stderr",
                              dir_);
    EXPECT_EQ(r.out, "2\n") << command;
    EXPECT_EQ(r.err, "") << command;
  }
  // The state's first run failed: its directory is gone again.
  struct stat st;
  EXPECT_NE(stat(Path("s").c_str(), &st), 0);
}

// A line of exactly --max-line bytes ending in "\r\n" was valid with the
// default chunk size and too long with a small one: the "\r" is no part of
// the line either way.
TEST_F(CliTest, HostileMaxLineWithCrLfIsTheSameAtEveryChunkSize) {
  const std::string line = "http://a.example/" + std::string(83, 'p');
  ASSERT_EQ(line.size(), 100u);
  const std::string input = line + "\r\n" + line + "x\r\n" + line + "\r\n";
  Write(Path("crlf.txt"), input);
  for (const char* chunk : {"", " --chunk-size=50", " --chunk-size=101",
                            " --chunk-size=102"}) {
    for (const bool mapped : {true, false}) {
      const Result r =
          Run(std::string("validate --quiet --max-line=100") + chunk +
                  (mapped ? " " + Path("crlf.txt") : ""),
              mapped ? "" : input);
      EXPECT_EQ(r.status, 1) << chunk;
      EXPECT_EQ(r.err.substr(r.err.find(':')),
                ":2:101: error: too-long: line too long\n")
          << chunk << (mapped ? " file" : " stdin");
    }
  }
}

// A TAB in an invalid line gave normalize --profile=crawler and dedup
// --keys a third column: it is escaped as PostgreSQL's text format does.
TEST_F(CliTest, HostileTabNeverAddsAColumn) {
  const std::string in = "http://a/\tb\\c\nhttp://d/\n";
  Result r = Run("normalize --quiet --profile=crawler", in);
  EXPECT_EQ(r.out, "\thttp://a/\\tb\\\\c\nhttp://d/\thttp://d/\n");
  r = Run("dedup --quiet --keys", in);
  const size_t tab = r.out.find('\t');
  ASSERT_NE(tab, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(tab, 17), "\thttp://a/\\tb\\\\c\n");
  for (size_t pos = 0; pos < r.out.size();) {
    const size_t nl = r.out.find('\n', pos);
    const std::string line = r.out.substr(pos, nl - pos);
    EXPECT_EQ(std::count(line.begin(), line.end(), '\t'), 1) << line;
    pos = nl + 1;
  }
}

// `uriscan state` wrote its report to a full disk and exited 0.
TEST_F(CliTest, HostileStateReportToAFullDisk) {
  ASSERT_EQ(Run("dedup --quiet --state=" + Path("s"), "http://a/\n").status, 0);
  const Result r = Sh(dir_, "$URISCAN state s > /dev/full", 20);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("uriscan: error writing standard output: No space "
                       "left on device"),
            std::string::npos)
      << r.err;
}

// A full disk under dedup --output printed "error writing output", naming
// neither the file nor the error. A file-size limit stands in for the
// full disk here (the write fails the same way, with EFBIG).
TEST_F(CliTest, HostileOutputFileWriteErrorNamesTheFile) {
  std::string lines;
  for (int i = 0; i < 200000; ++i)
    lines += "http://a.example/" + std::to_string(i) + "\n";
  Write(Path("in.txt"), lines);
  const Result r = Sh(dir_, "ulimit -f 64; $URISCAN dedup --quiet "
                            "--output=out.txt in.txt", 20);
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("uriscan: error writing 'out.txt': File too large"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(access(Path("out.txt").c_str(), F_OK), -1);  // never put in place
}

// After an output error the input was read to its end (for minutes, from
// a long pipe): now reading stops at once, with exit status 2.
TEST_F(CliTest, HostileOutputErrorStopsReading) {
  for (const char* command : {"parse", "normalize", "dedup", "extract"}) {
    const Result r = Sh(dir_, std::string("seq 1000000000 | sed "
                                          "s,^,http://a.example/, | "
                                          "$URISCAN ") + command +
                                  " --quiet > /dev/full", 20);
    EXPECT_EQ(r.status, 2) << command;
    EXPECT_NE(r.err.find("error writing standard output"), std::string::npos)
        << command << ": " << r.err;
  }
}

// An empty file has no header row: --field=NAME is an error there too.
TEST_F(CliTest, HostileEmptyCsvHasNoColumn) {
  Write(Path("empty.csv"), "");
  const Result r =
      Run("extract --quiet --from=csv --field=url " + Path("empty.csv"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err, Path("empty.csv") +
                       ":1:1: error: log-format: no column named 'url' in "
                       "the header row\n");
}

// Text extraction emitted references holding control bytes; the field
// formats diagnosed them. Both diagnose them now.
TEST_F(CliTest, HostileControlBytesInTextAreDiagnosed) {
  const std::string in = std::string("see http://a/\x1b[0m and \"http://c/\x01\"") +
                         " or http://e/" + std::string(1, '\0') +
                         "x ok http://f/\n";
  const Result r = Run("extract --quiet", in);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "http://f/\n");
  std::string want;
  for (const char* ref : {"http://a/", "http://c/", "http://e/"}) {
    want += "<stdin>:1:" + std::to_string(in.find(ref) + 1) +
            ": error: log-format: the value holds a control character\n";
  }
  EXPECT_EQ(r.err, want);
}

// Found by the extract harness: a "<" closed by a ">" on the line of a
// later, unclosed "<" was cut from its ">" at some chunk sizes.
TEST_F(CliTest, HostileWrappedReferencesAreNeverCut) {
  const std::string in =
      "see <URL:ftp://a.example/ one\r\ntwo\r\nthree/> and <URL:ftp://\r\n"
      "b.example/> end\n";
  Write(Path("wrapped.txt"), in);
  for (const char* chunk : {"", " --chunk-size=1", " --chunk-size=40",
                            " --chunk-size=60"}) {
    const Result r =
        Run(std::string("extract --quiet") + chunk + " " + Path("wrapped.txt"));
    EXPECT_EQ(r.out, "ftp://a.example/onetwothree/\nftp://b.example/\n")
        << chunk;
  }
}

}  // namespace uriscan_cli_test
