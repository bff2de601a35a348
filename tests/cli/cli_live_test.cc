// SPDX-License-Identifier: MIT
// Live input: `uriscan` reading a pipe that stays open (tail -f) writes
// each line's output as it comes, not when a chunk fills or the input ends;
// and the progress line never shares a line with a diagnostic.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/cli/cli_test.h"

namespace uriscan_cli_test {
namespace {

using Clock = std::chrono::steady_clock;

// `uriscan ARGS` with its stdin, stdout and stderr on pipes held here, so a
// test can write input, leave it open, and watch what comes out.
class LiveRun {
 public:
  // `merged`: stderr goes where stdout goes, as on a terminal.
  explicit LiveRun(const std::vector<std::string>& args, bool merged = false) {
    int in[2], out[2], err[2];
    if (pipe(in) != 0 || pipe(out) != 0 || pipe(err) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(in[0], 0);
      dup2(out[1], 1);
      dup2(merged ? out[1] : err[1], 2);
      for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(URISCAN_CLI));
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(URISCAN_CLI, argv.data());
      _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(err[1]);
    in_ = in[1];
    out_ = out[0];
    err_ = err[0];
  }
  ~LiveRun() {
    CloseInput();
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    for (int fd : {out_, err_})
      if (fd >= 0) close(fd);
  }
  bool started() const { return pid_ > 0; }
  // The exit status once the command has ended within `limit`, else -1.
  int WaitExit(std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      usleep(5000);
    }
    return -1;
  }
  // What came on stdout (or stderr) so far, without waiting.
  const std::string& Poll(bool from_stderr = false) {
    ReadLines(~size_t{0}, std::chrono::milliseconds(1), from_stderr);
    return from_stderr ? err_text_ : out_text_;
  }
  void Write(const std::string& s) {
    ASSERT_EQ(write(in_, s.data(), s.size()), static_cast<ssize_t>(s.size()));
  }
  void CloseInput() {
    if (in_ >= 0) close(in_);
    in_ = -1;
  }
  // Reads from stdout (or stderr) until `lines` whole lines have come or
  // `limit` has passed; what came.
  std::string ReadLines(size_t lines, std::chrono::milliseconds limit,
                        bool from_stderr = false) {
    const int fd = from_stderr ? err_ : out_;
    std::string& got = from_stderr ? err_text_ : out_text_;
    const auto deadline = Clock::now() + limit;
    while (CountLines(got) < lines) {
      // (Once at least, without waiting when the time is up.)
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - Clock::now());
      pollfd p = {fd, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <= 0)
        break;
      char buf[4096];
      const ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
    }
    return got;
  }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_text_, err_text_;
};

std::string Urls(int from, int count) {
  std::string s;
  for (int i = from; i < from + count; ++i)
    s += "http://example.com/page/" + std::to_string(i) + "?q=" +
         std::to_string(i * 7) + "\n";
  return s;
}

// The contract is 200 ms (docs/cli.md: about 40); the tests allow more so that a loaded machine
// does not fail them, and still fail a command that waits for a chunk or
// for the end of input (it never writes while the input is open).
constexpr std::chrono::milliseconds kLimit(2000);

// The time until `lines` lines of output came while the input stays open.
double MillisecondsToLines(LiveRun* run, size_t lines, bool from_stderr,
                           Clock::time_point since) {
  const std::string got = run->ReadLines(lines, kLimit, from_stderr);
  if (CountLines(got) < lines) return -1;
  return std::chrono::duration<double, std::milli>(Clock::now() - since)
      .count();
}

TEST(LiveInput, ParseWritesEachBurstWhileThePipeStaysOpen) {
  for (const char* threads : {"--threads=1", "--threads=2"}) {
    for (const char* chunk : {"--chunk-size=4K", "--chunk-size=4M"}) {
      SCOPED_TRACE(std::string(threads) + " " + chunk);
      LiveRun run({"parse", "--quiet", threads, chunk});
      ASSERT_TRUE(run.started());
      auto t0 = Clock::now();
      run.Write(Urls(0, 1000));
      const double first = MillisecondsToLines(&run, 1000, false, t0);
      EXPECT_GE(first, 0) << "no output while the input stayed open";
      RecordProperty("first_burst_ms", static_cast<int>(first));
      // A second burst after a pause comes out too, in order.
      t0 = Clock::now();
      run.Write(Urls(1000, 3));
      EXPECT_GE(MillisecondsToLines(&run, 1003, false, t0), 0);
      run.CloseInput();
      const std::string all = run.ReadLines(1003, kLimit);
      EXPECT_NE(all.find("\"path\":\"/page/1002\""), std::string::npos);
      EXPECT_EQ(all.find("\"path\":\"/page/1002\""),
                all.rfind("\"path\":\"/page/"));
    }
  }
}

TEST(LiveInput, ExtractFromALogAndItsDiagnosticsComeAsLinesAreLogged) {
  LiveRun run({"extract", "--from=combined", "--quiet"});
  ASSERT_TRUE(run.started());
  const auto t0 = Clock::now();
  run.Write("127.0.0.1 - - [10/Oct/2025:13:55:36 +0000] \"GET /a?b=1 "
            "HTTP/1.1\" 200 2326 \"-\" \"curl/8.0\"\n"
            "this is not a log line\n");
  EXPECT_GE(MillisecondsToLines(&run, 1, false, t0), 0);
  EXPECT_EQ(run.ReadLines(1, kLimit), "/a?b=1\n");
  EXPECT_GE(MillisecondsToLines(&run, 1, true, t0), 0)
      << "the diagnostic waited for the end of input";
  EXPECT_NE(run.ReadLines(1, kLimit, true).find("<stdin>:2:"),
            std::string::npos);
}

TEST(LiveInput, PartialLineWaitsForItsEnd) {
  LiveRun run({"parse", "--quiet", "--threads=1"});
  ASSERT_TRUE(run.started());
  run.Write("http://a.example/1\nhttp://b.exa");
  EXPECT_EQ(CountLines(run.ReadLines(1, kLimit)), 1u);
  run.Write("mple/2\n");
  const std::string got = run.ReadLines(2, kLimit);
  EXPECT_NE(got.find("\"host\":\"b.example\""), std::string::npos) << got;
}

// A file given through a pipe in many small writes still comes out whole
// and in order, with its diagnostics' line numbers.
TEST_F(CliTest, PipedInputInSmallPiecesKeepsEveryLine) {
  const std::string input = Urls(0, 20000) + "http://a b\n" + Urls(0, 5);
  Write(Path("in"), input);
  const Result piped = RunShell(
      "dd if='" + Path("in") + "' bs=100 status=none | " + URISCAN_CLI +
          " parse --threads=2 --chunk-size=64K > '" + Path("stdout") +
          "' 2> '" + Path("stderr") + "'",
      dir_);
  const Result direct = Run("parse --threads=2 --chunk-size=64K", input);
  EXPECT_EQ(piped.out, direct.out);
  EXPECT_EQ(CountLines(piped.out), 20006u);
  EXPECT_NE(piped.err.find("<stdin>:20001:9: error:"), std::string::npos)
      << piped.err;
}

// --progress shows the progress line on any stderr; a diagnostic written
// after it starts on a line of its own (the line is cleared first).
TEST(LiveInput, ProgressLineIsClearedBeforeADiagnostic) {
  LiveRun run({"validate", "--threads=1", "--progress"});
  ASSERT_TRUE(run.started());
  // Lines until the progress line is shown (at most twice a second), then
  // an invalid one.
  const auto t0 = Clock::now();
  int sent = 0;
  while (run.Poll(true).find(" MB/s") == std::string::npos &&
         Clock::now() - t0 < 5 * kLimit) {
    run.Write(Urls(sent++, 1));
    usleep(50000);
  }
  ASSERT_NE(run.Poll(true).find(" MB/s"), std::string::npos) << "no progress";
  run.Write("http://a b\n");
  run.CloseInput();
  EXPECT_EQ(run.WaitExit(kLimit), 1);
  const std::string err = run.ReadLines(~size_t{0}, kLimit, true);
  const std::string where = "<stdin>:" + std::to_string(sent + 1) + ":9: error:";
  const size_t diagnostic = err.find(where);
  ASSERT_NE(diagnostic, std::string::npos) << err;
  ASSERT_LT(err.find(" MB/s"), diagnostic) << err;
  // The diagnostic's line holds nothing before it but the clearing.
  const size_t line_start = err.rfind('\n', diagnostic) + 1;
  const std::string before = err.substr(line_start, diagnostic - line_start);
  const size_t cleared = before.rfind("\r\033[K");
  ASSERT_NE(cleared, std::string::npos) << before;
  EXPECT_EQ(cleared + 4, before.size()) << before;
}

// With regular files the size is known: the progress line gives the share
// read and the time left. (It is shown at most twice a second, so the file
// is given more times until the run lasts long enough.)
TEST_F(CliTest, ProgressLineShowsShareAndTimeLeftForFiles) {
  std::string big;
  for (int i = 0; i < 20; ++i) big += Urls(i * 5000, 5000);
  Write(Path("big"), big);
  std::string files, err;
  for (int round = 0; round < 10 && err.find(" MB/s") == std::string::npos;
       ++round) {
    for (int k = 0; k < (1 << round); ++k) files += " '" + Path("big") + "'";
    const Result r = RunShell(
        std::string(URISCAN_CLI) + " normalize --progress --threads=1 --chunk-size=64K" +
            files +
            " > /dev/null 2> '" + Path("stderr") + "'",
        dir_);
    ASSERT_EQ(r.status, 0) << r.err;
    err = r.err;
  }
  const size_t at = err.find(" MB/s");
  ASSERT_NE(at, std::string::npos) << "no progress line in any run";
  const std::string line = err.substr(at, err.find('\r', at) - at);
  EXPECT_NE(line.find("%, "), std::string::npos) << line;
  EXPECT_NE(line.find(" left"), std::string::npos) << line;
}

// A pipe that never goes quiet (a line every 5 ms, as a busy server logs)
// is written out as it goes, not when 1 MiB of output has gathered.
TEST(LiveInput, APipeThatNeverGoesQuietIsWrittenOutAsItGoes) {
  LiveRun run({"parse", "--quiet", "--threads=2"});
  ASSERT_TRUE(run.started());
  const auto t0 = Clock::now();
  int sent = 0;
  while (run.Poll().empty() && Clock::now() - t0 < kLimit) {
    run.Write(Urls(sent++, 1));
    usleep(5000);
  }
  EXPECT_FALSE(run.Poll().empty())
      << "no output after " << sent << " lines, one every 5 ms";
}

// A run that must stop (--on-error=fail met an invalid line) ends then,
// without waiting for input that may never come.
TEST(LiveInput, AFailedRunStopsWithoutWaitingForMoreInput) {
  LiveRun run({"normalize", "--quiet", "--on-error=fail", "--threads=2"});
  ASSERT_TRUE(run.started());
  run.Write("http://a.example/\nhttp://a b/\n");
  EXPECT_EQ(run.WaitExit(kLimit), 1) << "still waiting for input";
  EXPECT_EQ(run.Poll(), "http://a.example/\n");
}

// On a terminal (stdout and stderr one stream) the progress line is
// cleared before output is written, so no record is glued to it.
TEST(LiveInput, ProgressLineIsClearedBeforeOutput) {
  LiveRun run({"parse", "--progress", "--threads=1"}, /*merged=*/true);
  ASSERT_TRUE(run.started());
  const auto t0 = Clock::now();
  int sent = 0;
  while (run.Poll().find(" MB/s") == std::string::npos &&
         Clock::now() - t0 < 5 * kLimit) {
    run.Write(Urls(sent++, 1));
    usleep(50000);
  }
  ASSERT_NE(run.Poll().find(" MB/s"), std::string::npos) << "no progress line";
  run.Write(Urls(sent++, 1));
  run.CloseInput();
  ASSERT_EQ(run.WaitExit(kLimit), 0);
  const std::string all = run.ReadLines(~size_t{0}, kLimit);
  // Every record starts a line, or follows the clearing of the progress.
  for (size_t at = all.find("{\"valid\""); at != std::string::npos;
       at = all.find("{\"valid\"", at + 1)) {
    const bool line_start = at == 0 || all[at - 1] == '\n';
    const bool after_clear = at >= 4 && all.compare(at - 4, 4, "\r\033[K") == 0;
    EXPECT_TRUE(line_start || after_clear) << all.substr(at > 60 ? at - 60 : 0, 80);
  }
  EXPECT_EQ(CountLines(all), static_cast<size_t>(sent) + 1) << all;  // + summary
}

// A first line shorter than a compression magic number (4 bytes) is not
// held back while the stream's kind is told.
TEST(LiveInput, AShortFirstLineIsNotHeldBack) {
  LiveRun run({"parse", "--quiet", "--threads=1"});
  ASSERT_TRUE(run.started());
  run.Write("/\n");
  EXPECT_EQ(run.ReadLines(1, kLimit), "{\"valid\":true,\"path\":\"/\"}\n");
}

}  // namespace
}  // namespace uriscan_cli_test
