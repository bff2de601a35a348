// SPDX-License-Identifier: MIT
// `uriscan dedup --state=DIR` and `uriscan state` end to end: several days
// against the stateless dedup of their concatenation, kills at every commit
// step and at random times, a full disk, a second run, another profile and
// damaged files.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "gtest/gtest.h"
#include "tests/support/files.h"
#include "uriscan/seen_state.h"

namespace {

struct Result {
  int status = -1;  // the exit status, or -signal when killed
  std::string out, err;
};

using uriscan::test_files::Slurp;
using uriscan::test_files::Write;

int Decode(int raw) {
  if (WIFEXITED(raw)) return WEXITSTATUS(raw);
  if (WIFSIGNALED(raw)) return -WTERMSIG(raw);
  return -1000;
}

// A day of crawling: `lines` URLs from a pool of `pool` hosts and paths, so
// that days overlap, with some equivalent spellings and invalid lines.
std::string DayInput(int day, int lines, int pool) {
  std::mt19937_64 rng(1000 + day);
  std::string in;
  for (int i = 0; i < lines; ++i) {
    const uint64_t u = rng() % pool;
    switch (rng() % 10) {
      case 0:
        in += "HTTP://H" + std::to_string(u % 97) + ".EXAMPLE:80/p/" +
              std::to_string(u) + "\n";
        break;
      case 1:
        in += "http://bad host/" + std::to_string(u) + "\n";
        break;
      default:
        in += "http://h" + std::to_string(u % 97) + ".example/p/" +
              std::to_string(u) + "\n";
    }
  }
  return in;
}

class StateCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/uriscan_statecli_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    state_ = dir_ + "/state";
  }
  void TearDown() override {
    ASSERT_EQ(std::system(("chmod -R u+w '" + dir_ + "'; rm -rf '" + dir_ +
                           "'")
                              .c_str()),
              0);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string Command(const std::string& args, const std::string& tag) const {
    return std::string(URISCAN_CLI) + " " + args + " < '" + Path(tag + ".in") +
           "' > '" + Path(tag + ".out") + "' 2> '" + Path(tag + ".err") + "'";
  }
  Result Collect(int raw, const std::string& tag) const {
    Result r;
    r.status = Decode(raw);
    r.out = Slurp(Path(tag + ".out"));
    r.err = Slurp(Path(tag + ".err"));
    return r;
  }
  // Runs `ENV uriscan ARGS` with `input` on stdin.
  Result Run(const std::string& args, const std::string& input = "",
             const std::string& env = "") {
    Write(Path("run.in"), input);
    // exec: a kill by signal is seen as such, not as the shell's 128 + n.
    const std::string cmd = env + " exec " + Command(args, "run");
    return Collect(std::system(cmd.c_str()), "run");
  }
  // Starts the same in a child process (exec'd, so a kill reaches uriscan).
  pid_t Start(const std::string& args, const std::string& input,
              const std::string& tag) {
    Write(Path(tag + ".in"), input);
    const std::string cmd = "exec " + Command(args, tag);
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }
  Result Wait(pid_t pid, const std::string& tag) const {
    int raw = 0;
    waitpid(pid, &raw, 0);
    return Collect(raw, tag);
  }
  // The state's key count, 0 when there is none yet; fails the test
  // when `state --verify` finds damage.
  long long StateKeys() {
    const Result r = Run("state --verify " + state_);
    if (r.status == 2 &&
        (r.err.find("no state directory") != std::string::npos ||
         r.err.find("is not a state: it has no MANIFEST") != std::string::npos))
      return 0;
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("verified"), std::string::npos) << r.out;
    const size_t at = r.out.find("\nkeys ");
    return at == std::string::npos ? -2 : std::atoll(r.out.c_str() + at + 6);
  }
  // How long a whole run of `args` on `input` takes here (it must succeed):
  // the span random kills are spread over.
  double WholeRunSeconds(const std::string& args, const std::string& input) {
    const auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(Run(args, input).status, 0) << args;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
        .count();
  }
  // Waits (up to 5 s) until a run holds the lock of the state `dir`: a
  // flock of our own then fails.
  static bool LockHeld(const std::string& dir) {
    for (int i = 0; i < 500; ++i) {
      const int fd = open((dir + "/LOCK").c_str(), O_RDONLY);
      if (fd >= 0) {
        const bool held = flock(fd, LOCK_SH | LOCK_NB) != 0;
        close(fd);
        if (held) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }
  // The stateless dedup of `input`, invalid lines skipped.
  std::string Stateless(const std::string& input) {
    const Result r = Run("dedup --quiet --on-error=skip", input);
    EXPECT_EQ(r.status, 0);
    return r.out;
  }
  // The classes of `input` (the first line of each, in order) by the shard
  // of `shards` their key falls in (its top bits); invalid lines left out.
  std::vector<std::string> ByShard(const std::string& input, int shards) {
    const Result keyed = Run("dedup --quiet --keys", input);
    EXPECT_EQ(keyed.status, 0) << keyed.err;
    std::vector<std::string> parts(shards);
    const int bits = __builtin_ctz(static_cast<unsigned>(shards));
    std::istringstream lines(keyed.out);
    for (std::string line; std::getline(lines, line);) {
      const uint64_t key = std::stoull(line.substr(0, 16), nullptr, 16);
      if (key == 0) continue;  // an invalid line: no class, no shard
      parts[bits == 0 ? 0 : key >> (64 - bits)] += line.substr(17) + "\n";
    }
    return parts;
  }
  std::string dir_, state_;
};

size_t CountLines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// Every entry of `dir` (its files' bytes; "<dir>" for a directory), or
// {"<missing>": ""} when `dir` does not exist.
std::map<std::string, std::string> Listing(const std::string& dir) {
  std::map<std::string, std::string> entries;
  DIR* d = opendir(dir.c_str());
  if (!d) return {{"<missing>", ""}};
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    const std::string path = dir + "/" + name;
    entries[name] = lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)
                        ? "<dir>"
                        : Slurp(path);
  }
  closedir(d);
  return entries;
}

// Listing() of `dir` and of each directory in it (a state and its
// shards), the latter's entries named "shard-NNNN/NAME".
std::map<std::string, std::string> Tree(const std::string& dir) {
  std::map<std::string, std::string> entries = Listing(dir);
  for (const auto& entry : Listing(dir)) {
    if (entry.second != "<dir>") continue;
    for (const auto& inner : Listing(dir + "/" + entry.first))
      entries[entry.first + "/" + inner.first] = inner.second;
  }
  return entries;
}

// `entries` with each MANIFEST's state id and checksum masked: two states
// made alike differ in their ids alone.
std::map<std::string, std::string> MaskIds(
    std::map<std::string, std::string> entries) {
  for (auto& [name, bytes] : entries) {
    if (name != "MANIFEST") continue;
    const size_t id = bytes.find("\nstate ");
    if (id != std::string::npos) bytes.replace(id + 7, 16, "ID");
    const size_t sum = bytes.rfind("checksum ");
    if (sum != std::string::npos) bytes.replace(sum + 9, 16, "SUM");
  }
  return entries;
}

TEST_F(StateCliTest, DaysMatchTheStatelessDedupOfTheirConcatenation) {
  // Each option set: a fresh state, five overlapping days; the outputs
  // together must be the stateless dedup of all five days, and after each
  // day the state holds exactly the classes seen so far.
  std::vector<std::string> days;
  std::string all;
  for (int d = 0; d < 5; ++d) {
    days.push_back(DayInput(d, 6000, 12000));
    all += days.back();
  }
  const std::string expect = Stateless(all);
  for (const char* opts : {"", "--memory=64K --threads=1",
                           "--memory=200K --threads=2 --chunk-size=4096"}) {
    ASSERT_EQ(std::system(("rm -rf '" + state_ + "'").c_str()), 0);
    std::string got, so_far;
    for (int d = 0; d < 5; ++d) {
      const Result r = Run("dedup --on-error=skip --state=" + state_ + " " +
                               opts,
                           days[d]);
      ASSERT_EQ(r.status, 0) << opts << " day " << d << ": " << r.err;
      got += r.out;
      so_far += days[d];
      EXPECT_EQ(StateKeys(),
                static_cast<long long>(CountLines(Stateless(so_far))))
          << opts << " day " << d;
    }
    EXPECT_TRUE(got == expect) << opts;
  }
  // A day run again writes nothing (invalid lines are skipped with
  // --state), and only its invalid lines with an explicit keep.
  Result again = Run("dedup --state=" + state_, days[2]);
  EXPECT_EQ(again.status, 0);
  EXPECT_EQ(again.out, "");
  EXPECT_NE(again.err.find("classes seen in earlier runs, 0 new"),
            std::string::npos)
      << again.err;
  again = Run("dedup --on-error=keep --state=" + state_, days[2]);
  EXPECT_EQ(again.status, 0);
  EXPECT_EQ(again.out.find("http://h"), std::string::npos);
  EXPECT_NE(again.out.find("bad host"), std::string::npos);  // kept
  const Result info = Run("state " + state_);
  EXPECT_EQ(info.status, 0);
  EXPECT_NE(info.out.find("profile   'scheme' (version 4)"), std::string::npos)
      << info.out;
  EXPECT_NE(info.out.find("bytes per key"), std::string::npos);
  // --compact leaves one run with the same keys, and the same answers.
  const long long keys = StateKeys();
  const Result compact = Run("state --compact " + state_);
  EXPECT_EQ(compact.status, 0) << compact.err;
  EXPECT_NE(compact.out.find("compacted "), std::string::npos) << compact.out;
  EXPECT_NE(compact.out.find("runs      1 (level "), std::string::npos)
      << compact.out;
  EXPECT_EQ(StateKeys(), keys);
  const Result after = Run("dedup --on-error=skip --state=" + state_, all);
  EXPECT_EQ(after.status, 0);
  EXPECT_EQ(after.out, "");
}

// The command and the library (uriscan/seen_state.h) on one state, both
// ways: the library reads what the command committed and finds new the
// lines the command finds new (against a copy), then commits them, and
// the command finds nothing new in them.
TEST_F(StateCliTest, TheCommandAndTheLibraryShareOneState) {
  const std::string day1 = DayInput(1, 3000, 2000), day2 = DayInput(2, 3000, 4000);
  ASSERT_EQ(Run("dedup --quiet --on-error=skip --state=" + state_, day1).status, 0);
  ASSERT_EQ(std::system(("cp -r '" + state_ + "' '" + dir_ + "/copy'").c_str()), 0);
  const Result expected =
      Run("dedup --quiet --on-error=skip --state=" + dir_ + "/copy", day2);
  ASSERT_EQ(expected.status, 0) << expected.err;
  std::vector<std::string> lines1, lines2;
  for (auto [text, lines] : {std::pair{&day1, &lines1}, {&day2, &lines2}}) {
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) lines->push_back(line);
  }
  std::string got;
  {
    uriscan::SeenStateOptions ro;
    ro.read_only = true;
    auto seen = uriscan::SeenState::Open(state_, ro);
    std::vector<std::string_view> rows(lines1.begin(), lines1.end());
    std::vector<uint8_t> in(rows.size());
    seen->Contains(rows.data(), rows.size(), in.data());
    for (size_t i = 0; i < rows.size(); ++i)
      EXPECT_EQ(in[i], rows[i].find("bad host") == std::string::npos)
          << rows[i];
  }
  {
    auto seen = uriscan::SeenState::Open(state_);  // the state's profile
    std::vector<std::string_view> rows(lines2.begin(), lines2.end());
    const std::vector<uint8_t> fresh = seen->Add(rows);
    for (size_t i = 0; i < rows.size(); ++i)
      if (fresh[i]) got += lines2[i] + "\n";
    seen->Commit();
  }
  EXPECT_EQ(got, expected.out);
  EXPECT_FALSE(got.empty());
  const Result again = Run("dedup --on-error=skip --state=" + state_, day2);
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(again.out, "");
  EXPECT_EQ(Run("state --verify " + state_).status, 0);
}

TEST_F(StateCliTest, AnotherProfileIsAUsageErrorNamingBoth) {
  ASSERT_EQ(Run("dedup --state=" + state_, "http://a/\n").status, 0);
  const std::string manifest = Slurp(state_ + "/MANIFEST");
  Result r = Run("dedup --profile=crawler --state=" + state_, "http://b/\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("'scheme'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'crawler'"), std::string::npos) << r.err;
  // The crawler profile with another tracking list makes other keys too.
  ASSERT_EQ(std::system(("rm -rf '" + state_ + "'").c_str()), 0);
  ASSERT_EQ(Run("dedup --profile=crawler --state=" + state_, "http://a/\n")
                .status,
            0);
  r = Run("dedup --profile=crawler --tracking-params=x --state=" + state_,
          "http://a/\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("tracking x)"), std::string::npos) << r.err;
  r = Run("dedup --profile=crawler --fold-www --state=" + state_,
          "http://a/\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("+fold-www)"), std::string::npos) << r.err;
  // The w3lib profile keeps a state of its own like the others.
  ASSERT_EQ(std::system(("rm -rf '" + state_ + "'").c_str()), 0);
  EXPECT_EQ(Run("dedup --profile=w3lib --state=" + state_,
                "http://a/?b=1&a=2\n")
                .out,
            "http://a/?b=1&a=2\n");
  EXPECT_EQ(Run("dedup --profile=w3lib --state=" + state_,
                "http://A/?a=2&b=1\nhttp://a/?c\n")
                .out,
            "http://a/?c\n");
  r = Run("dedup --profile=scheme --state=" + state_, "http://a/\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("'w3lib'"), std::string::npos) << r.err;
  EXPECT_EQ(Run("dedup --bloom=10 --state=" + state_).status, 2);
}

// Without --profile (and the crawler's options), a run takes the profile
// and its options from the state's MANIFEST: each day's run needs only
// the directory. A new state takes the default.
TEST_F(StateCliTest, ARunWithoutProfileTakesTheStates) {
  ASSERT_EQ(Run("dedup --profile=crawler --tracking-params=+ref --fold-www "
                "--state=" + state_,
                "http://a.example/p?x=1\n")
                .status,
            0);
  const std::string manifest = Slurp(state_ + "/MANIFEST");
  // Crawler keys with the tracking list and www folded: all seen.
  Result r = Run("dedup --state=" + state_,
                 "http://www.a.example/p?x=1&ref=feed&utm_source=m\n"
                 "http://a.example/q\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "http://a.example/q\n");
  EXPECT_NE(Slurp(state_ + "/MANIFEST"), manifest);  // q was recorded
  EXPECT_NE(Slurp(state_ + "/MANIFEST").find("tracking "), std::string::npos);
  // Another explicit profile is still refused, naming both.
  r = Run("dedup --profile=crawler --state=" + state_, "http://b/\n");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("+fold-www)"), std::string::npos) << r.err;
  // A new state: the default profile (scheme keeps the query as it is).
  const std::string fresh = Path("fresh");
  EXPECT_EQ(Run("dedup --state=" + fresh, "http://a/?b=1&a=2\n").status, 0);
  EXPECT_NE(Slurp(fresh + "/MANIFEST").find("profile scheme\n"),
            std::string::npos);
  EXPECT_EQ(Run("state").status, 2);
  EXPECT_EQ(Run("state " + Path("nothing")).status, 2);
}

TEST_F(StateCliTest, ASecondRunIsLockedOut) {
  // The first run holds the lock while it waits for its input (a FIFO).
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  const pid_t first =
      Start("dedup --state=" + state_ + " " + Path("fifo"), "", "first");
  ASSERT_TRUE(LockHeld(state_));
  const Result second = Run("dedup --state=" + state_, "http://a/\n");
  EXPECT_EQ(second.status, 2);
  EXPECT_NE(second.err.find("in use"), std::string::npos) << second.err;
  EXPECT_EQ(second.out, "");
  Write(Path("fifo"), "http://a/\nhttp://b/\n");  // opens, writes, closes
  const Result r = Wait(first, "first");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "http://a/\nhttp://b/\n");
  EXPECT_EQ(StateKeys(), 2);
}

// --wait-lock=SECONDS: a second run waits for the first to finish (its
// profile read from the state once it may), or gives up after SECONDS.
TEST_F(StateCliTest, ASecondRunWaitsForTheLockWhenAskedTo) {
  ASSERT_EQ(Run("dedup --state=" + state_ + " --profile=crawler",
                "http://a/\n").status, 0);
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  const pid_t first =
      Start("dedup --state=" + state_ + " " + Path("fifo"), "", "first");
  ASSERT_TRUE(LockHeld(state_));
  const Result short_wait =
      Run("dedup --state=" + state_ + " --wait-lock=0.3", "http://b/\n");
  EXPECT_EQ(short_wait.status, 2);
  EXPECT_NE(short_wait.err.find("in use: another uriscan run holds its lock"),
            std::string::npos)
      << short_wait.err;
  EXPECT_NE(short_wait.err.find("(waited 0.3 s)"), std::string::npos)
      << short_wait.err;
  const pid_t second = Start("dedup --state=" + state_ + " --wait-lock=600",
                             "http://b/\nhttp://c/?utm_source=x\n", "second");
  usleep(300000);  // it waits: the first still holds the state
  Write(Path("fifo"), "http://b/\n");  // the first ends
  EXPECT_EQ(Wait(first, "first").status, 0);
  const Result r = Wait(second, "second");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "http://c/?utm_source=x\n");  // crawler: as http://c/
  EXPECT_EQ(StateKeys(), 3);
  EXPECT_EQ(Run("dedup --wait-lock=1", "http://a/\n").err,
            "uriscan: --wait-lock applies to --state\n"
            "try 'uriscan dedup --help'\n");
}

// --summary=json: the summary as one object on stderr (after any
// diagnostics), even with --quiet, with and without a state.
TEST_F(StateCliTest, TheSummaryAsJson) {
  const std::string in = "http://a/\nHTTP://A/\nhttp://x y/\nhttp://b/\n";
  const auto summary = [](const std::string& err) {
    const size_t brace = err.rfind("\n{");
    return nlohmann::json::parse(
        err.substr(brace == std::string::npos ? 0 : brace + 1));
  };
  Result r = Run("dedup --summary=json", in);
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = summary(r.err);
  EXPECT_EQ(j["format"], "uriscan-dedup-summary-1");
  EXPECT_EQ(j["lines"], 4);
  EXPECT_EQ(j["valid"], 3);
  EXPECT_EQ(j["invalid"], 1);
  EXPECT_EQ(j["errors"]["disallowed-byte"], 1);
  EXPECT_EQ(j["errors"]["port"], 0);
  EXPECT_EQ(j["distinct"], 2);
  EXPECT_EQ(j["duplicates"], 1);
  EXPECT_EQ(j["method"], "exact");
  EXPECT_TRUE(j["state"].is_null());
  EXPECT_TRUE(j["output"].is_null());
  EXPECT_EQ(r.err.rfind("<stdin>:3:9: error: disallowed-byte", 0), 0u);
  // With a state, an output, and --quiet: the object alone.
  const std::string file = Path("day.txt");
  r = Run("dedup --quiet --summary=json --state=" + state_ +
              " --output=" + file,
          in);
  ASSERT_EQ(r.status, 0) << r.err;
  j = summary(r.err);
  EXPECT_EQ(j["state"]["dir"], state_);
  EXPECT_EQ(j["state"]["new"], 2);
  EXPECT_EQ(j["state"]["seen_before"], 0);
  EXPECT_EQ(j["state"]["keys"], 2);
  EXPECT_EQ(j["output"], file);
  r = Run("dedup --summary=json --state=" + state_, "http://a/\nhttp://c/\n");
  j = summary(r.err);
  EXPECT_EQ(j["state"]["seen_before"], 1);
  EXPECT_EQ(j["state"]["new"], 1);
  EXPECT_EQ(j["distinct"], 1);
  EXPECT_EQ(Run("dedup --summary=xml", in).status, 2);
}

// The state's name is looked up once: a link replaced while a run holds
// the state changes nothing, neither for the run (its lookups, its
// commit) nor for the state the link now leads to (no lock taken there,
// nothing written or removed).
TEST_F(StateCliTest, ALinkReplacedMidRunLeavesTheOtherStateAlone) {
  const std::string one = Path("one"), two = Path("two"), link = Path("lnk");
  ASSERT_EQ(Run("dedup --state=" + two, "http://b/\nhttp://c/\n").status, 0);
  const auto before = Listing(two);
  ASSERT_EQ(Run("dedup --state=" + one, "http://a/\n").status, 0);
  ASSERT_EQ(symlink("one", link.c_str()), 0);
  ASSERT_EQ(mkfifo(Path("fifo").c_str(), 0600), 0);
  const pid_t run =
      Start("dedup --state=" + link + " " + Path("fifo"), "", "run");
  ASSERT_TRUE(LockHeld(one));  // the run has opened the state
  ASSERT_EQ(symlink("two", Path("lnk2").c_str()), 0);
  ASSERT_EQ(rename(Path("lnk2").c_str(), link.c_str()), 0);
  Write(Path("fifo"), "http://a/\nhttp://b/\nhttp://d/\n");
  const Result r = Wait(run, "run");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "http://b/\nhttp://d/\n");  // against one: a was seen
  EXPECT_EQ(Listing(two), before);
  state_ = one;
  EXPECT_EQ(StateKeys(), 3);
}

TEST_F(StateCliTest, FailedRunsLeaveTheStateAndRepeatTheirOutput) {
  // A small day after a larger one: its run is of a lower level, so it is
  // not merged (Compact()).
  const std::string day0 = DayInput(0, 8000, 20000);
  const std::string day1 = DayInput(1, 300, 5000);
  ASSERT_EQ(Run("dedup --state=" + state_, day0).status, 0);
  const long long keys0 = StateKeys();
  const std::string manifest = Slurp(state_ + "/MANIFEST");
  Write(Path("day1.txt"), day1);
  const std::string args = "dedup --state=" + state_ + " " + Path("day1.txt");
  // An unreadable input file, and --on-error=fail: exit 2 and 1, no update.
  Result r = Run(args + " " + Path("missing.txt"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(Slurp(state_ + "/MANIFEST"), manifest);
  r = Run(args + " --on-error=fail");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(Slurp(state_ + "/MANIFEST"), manifest);
  // No temporary directory: nothing is written early, nothing is kept.
  r = Run(args + " --temp-dir=" + Path("nowhere"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Slurp(state_ + "/MANIFEST"), manifest);
  // A full disk at every stage of the update: the output was written, the
  // update fails with exit 2, the state is whole and unchanged, and the
  // same run again gives the same output.
  // The expected output, from a copy of the state; the new run's size.
  ASSERT_EQ(
      std::system(("cp -r '" + state_ + "' '" + Path("copy") + "'").c_str()),
      0);
  const Result good =
      Run("dedup --state=" + Path("copy") + " " + Path("day1.txt"));
  ASSERT_EQ(good.status, 0);
  const std::string listing = Run("state " + Path("copy")).out;
  const size_t at = listing.rfind("run-000002.keys");
  ASSERT_NE(at, std::string::npos) << listing;
  const long long run_bytes =
      std::atoll(listing.c_str() + listing.find("keys  ", at + 16) + 6);
  ASSERT_GT(run_bytes, 48);
  // Below run_bytes the new run cannot be written and the run fails before
  // its output; past it, the manifest cannot, after the output.
  for (long long limit : {0LL, 40LL, 100LL, run_bytes - 1, run_bytes + 10}) {
    r = Run(args, "", "URISCAN_TEST_ENOSPC_AFTER=" + std::to_string(limit));
    EXPECT_EQ(r.status, 2) << limit;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos)
        << limit << ": " << r.err;
    EXPECT_EQ(r.out, limit < run_bytes ? "" : good.out) << limit;
    if (limit >= run_bytes) {
      EXPECT_NE(r.err.find("the state is as before this run"),
                std::string::npos)
          << r.err;
    }
    EXPECT_EQ(Slurp(state_ + "/MANIFEST"), manifest) << limit;
    EXPECT_EQ(StateKeys(), keys0) << limit;
  }
  if (geteuid() != 0) {  // root writes to read-only directories anyway
    ASSERT_EQ(chmod(state_.c_str(), 0555), 0);
    r = Run(args);
    EXPECT_EQ(r.status, 2);
    ASSERT_EQ(chmod(state_.c_str(), 0755), 0);
    EXPECT_EQ(Slurp(state_ + "/MANIFEST"), manifest);
  }
  r = Run(args);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, good.out);
  EXPECT_GT(StateKeys(), keys0);
}

TEST_F(StateCliTest, AKillAtEachCommitStepLeavesOldOrNewStateWhole) {
  // Four days; the third is bigger than the two before it together, so its
  // commit also compacts. At each step the run is killed once: before the
  // manifest's rename the old state must remain; after it the new one, and
  // the run's output must have been complete.
  std::vector<std::string> days;
  for (int d = 0; d < 4; ++d) {
    const int scale = d == 2 ? 5 : 1;
    days.push_back(DayInput(d, 1000 * scale, 2000 * scale));
  }
  const char* before[] = {"run-unnamed", "run-named", "compacted-unnamed",
                          "before-manifest"};
  const char* after[] = {"manifest-named", "committed"};
  std::string so_far;
  int compactions_killed = 0;
  for (int d = 0; d < 4; ++d) {
    const long long old_keys = StateKeys();
    const std::string expect_out =
        Stateless(so_far + days[d]).substr(Stateless(so_far).size());
    bool done = false;
    for (const char* step : before) {
      const Result r = Run("dedup --on-error=skip --state=" + state_, days[d],
                           std::string("URISCAN_TEST_CRASH_AT=") + step);
      if (r.status == 0) {  // only a run that compacts meets that step
        EXPECT_STREQ(step, "compacted-unnamed") << "day " << d;
        EXPECT_EQ(r.out, expect_out);
        done = true;
        break;
      }
      compactions_killed += std::string(step) == "compacted-unnamed";
      EXPECT_EQ(r.status, -SIGKILL) << step << ": " << r.err;
      EXPECT_EQ(StateKeys(), old_keys) << step << " day " << d;
    }
    if (!done) {
      const char* step = after[d % 2];
      const Result r = Run("dedup --on-error=skip --state=" + state_, days[d],
                           std::string("URISCAN_TEST_CRASH_AT=") + step);
      EXPECT_EQ(r.status, -SIGKILL) << step;
      EXPECT_EQ(r.out, expect_out) << step << " day " << d;
    }
    so_far += days[d];
    EXPECT_EQ(StateKeys(), static_cast<long long>(CountLines(Stateless(so_far))))
        << "day " << d;
  }
  EXPECT_GE(compactions_killed, 1);
  // The leftovers are gone after a normal run, and the state is exact.
  ASSERT_EQ(Run("dedup --state=" + state_, "http://z/\n").status, 0);
  EXPECT_NE(std::system(("ls '" + state_ + "' | grep -q tmp").c_str()), 0);
  EXPECT_EQ(Run("dedup --on-error=skip --state=" + state_, so_far).out, "");
}

TEST_F(StateCliTest, RandomKillsNeverDamageTheStateOrLoseOutput) {
  // Six days of 60,000 lines; each of up to eight attempts is killed, the
  // first at once, the others after a random delay up to a little past the
  // time a whole run takes. After every kill the state
  // verifies and holds the classes of the committed days exactly; a run
  // that got to its commit wrote its whole output first.
  std::vector<std::string> days;
  for (int d = 0; d < 6; ++d) days.push_back(DayInput(d, 60000, 120000));
  const double whole = WholeRunSeconds(
      "dedup --state=" + Path("timing") + " --quiet", days[0]);
  std::mt19937_64 rng(20260101);
  std::string so_far, outputs;
  int kills = 0;
  for (int d = 0; d < 6; ++d) {
    const long long old_keys = StateKeys();
    const std::string expect_out =
        Stateless(so_far + days[d]).substr(Stateless(so_far).size());
    const long long new_keys =
        static_cast<long long>(CountLines(Stateless(so_far + days[d])));
    for (int attempt = 0;; ++attempt) {
      // Odd days spill: many sorted runs, merged while the state is read.
      const std::string memory = d % 2 ? " --memory=64K" : "";
      const pid_t pid =
          Start("dedup --on-error=skip --quiet --state=" + state_ + memory,
                days[d], "kill");
      const bool kill_it = attempt < 8;
      if (kill_it) {
        // The first attempt of a day is killed at once, so every day sees
        // a kill however fast the machine runs the rest; the others at a
        // random point.
        const double delay =
            attempt == 0 ? 0.0 : whole * 1.2 * (rng() % 1000) / 1000.0;
        std::this_thread::sleep_for(std::chrono::duration<double>(delay));
        kill(pid, SIGKILL);
      }
      const Result r = Wait(pid, "kill");
      kills += r.status == -SIGKILL;
      const long long keys = StateKeys();
      if (keys == new_keys) {  // committed (before the kill, if any)
        EXPECT_EQ(r.out, expect_out) << "day " << d << " attempt " << attempt;
        break;
      }
      EXPECT_EQ(keys, old_keys) << "day " << d << " attempt " << attempt;
      ASSERT_TRUE(kill_it) << r.err;
    }
    so_far += days[d];
  }
  EXPECT_GT(kills, 0);
}

// --output=FILE is committed with the state: a series of days, each
// killed at a commit step and at a random time before it runs through,
// writes FILEs whose concatenation is the stateless dedup of all the days
// (each class exactly once), whatever the kills.
TEST_F(StateCliTest, OutputCommittedWithTheStateSurvivesCrashLoops) {
  const char* steps[] = {"run-unnamed",    "run-named",    "before-manifest",
                         "manifest-named", "output-unnamed", "output-named",
                         "committed"};
  std::vector<std::string> days;
  for (int d = 0; d < 7; ++d) days.push_back(DayInput(d, 20000, 40000));
  const double whole = WholeRunSeconds("dedup --quiet --state=" +
                                          Path("timing") + " --output=" +
                                          Path("timing.out"),
                                      days[0]);
  std::mt19937_64 rng(20261127);
  std::string so_far, outputs;
  int completed_by_rerun = 0;
  for (int d = 0; d < 7; ++d) {
    Write(Path("day" + std::to_string(d) + ".txt"), days[d]);
    const std::string out = Path("out" + std::to_string(d) + ".txt");
    const std::string args = "dedup --quiet --state=" + state_ +
                             " --output=" + out + " " +
                             Path("day" + std::to_string(d) + ".txt");
    // At a commit step: killed there (or, for a step this run never
    // reaches, run through).
    Result r = Run(args, "", std::string("URISCAN_TEST_CRASH_AT=") +
                                 steps[d % 7]);
    EXPECT_TRUE(r.status == -SIGKILL || r.status == 0) << r.err;
    EXPECT_EQ(r.out, "");  // the lines go to the file only
    for (int attempt = 0; r.status != 0; ++attempt) {
      ASSERT_LT(attempt, 20) << r.err;
      const pid_t pid = Start(args, "", "kill");
      if (attempt < 2) {  // then a kill at a random time
        std::this_thread::sleep_for(std::chrono::duration<double>(
            whole * 1.2 * (rng() % 1000) / 1000.0));
        kill(pid, SIGKILL);
      }
      r = Wait(pid, "kill");
      completed_by_rerun +=
          r.err.find("from this same input; nothing to do") !=
          std::string::npos;
    }
    so_far += days[d];
    outputs += Slurp(out);
    const std::string want = Stateless(so_far);
    // (Compared whole, reported by their line counts.)
    EXPECT_TRUE(outputs == want) << "day " << d << ": " << CountLines(outputs)
                                 << " lines written, " << CountLines(want)
                                 << " wanted";
    EXPECT_EQ(StateKeys(),
              static_cast<long long>(CountLines(Stateless(so_far))));
  }
  // A crash after the commit leaves the rerun nothing to add.
  EXPECT_GE(completed_by_rerun, 1);
  // No temporary file is left beside the outputs.
  EXPECT_NE(std::system(("ls -a '" + dir_ + "' | grep -q uriscan-tmp").c_str()),
            0);
  // An existing FILE that no commit named is refused before any input.
  Write(Path("taken.txt"), "mine\n");
  {
    const Result taken =
        Run("dedup --state=" + state_ + " --output=" + Path("taken.txt"),
            "http://new.example/\n");
    EXPECT_EQ(taken.status, 2);
    EXPECT_NE(taken.err.find("exists"), std::string::npos) << taken.err;
    EXPECT_EQ(Slurp(Path("taken.txt")), "mine\n");
  }
}

// A committed FILE that is gone is never written again, empty or not: the
// run that names it is refused (exit 2, naming FILE and its commit) and
// changes nothing, even when killed or given other input.
TEST_F(StateCliTest, ACommittedOutputThatIsGoneIsReportedNeverRemadeEmpty) {
  const std::string file = Path("new.txt");
  const std::string args = "dedup --quiet --state=" + state_ +
                           " --output=" + file;
  ASSERT_EQ(Run(args, "http://a/\n").status, 0);
  ASSERT_EQ(Slurp(file), "http://a/\n");
  ASSERT_EQ(rename(file.c_str(), Path("away.txt").c_str()), 0);
  const std::map<std::string, std::string> before = Listing(state_);
  for (const char* input : {"http://a/\n", "http://a/\nhttp://b/\n"}) {
    const Result r = Run(args, input);
    EXPECT_EQ(r.status, 2) << input;
    EXPECT_NE(r.err.find(file + " was committed to " + state_ + " at 20"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("is missing; nothing was written or added"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(access(file.c_str(), F_OK), -1) << input;
    EXPECT_EQ(Listing(state_), before);
  }
  EXPECT_EQ(StateKeys(), 1);
  // `state DIR` lists the committed outputs, and which are gone.
  const std::string listing = Run("state " + state_).out;
  const size_t outputs = listing.find("outputs   1 committed (newest last)\n  20");
  ASSERT_NE(outputs, std::string::npos) << listing;
  EXPECT_NE(listing.find("Z  " + file + "  (gone)\n", outputs),
            std::string::npos)
      << listing;
  // Put back, it is the committed FILE again: the same input is a no-op.
  ASSERT_EQ(rename(Path("away.txt").c_str(), file.c_str()), 0);
  EXPECT_NE(Run("state " + state_).out.find("Z  " + file + "\n"),
            std::string::npos);
  const Result again = Run(args, "http://a/\n");
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find("from this same input; nothing to do"),
            std::string::npos)
      << again.err;
  EXPECT_NE(std::system(("ls -a '" + dir_ + "' | grep -q uriscan-").c_str()),
            0);  // no temporary file is left
}

// Killed after its commit point, a run leaves its lines in a temporary
// file that the next run puts in place; when a cleaner removed it first,
// the next run says so before anything else, and a retry of the day is
// refused: its lines are in no file, and no empty FILE says otherwise.
TEST_F(StateCliTest, APendingOutputWhoseTemporaryFileIsGoneIsReported) {
  const std::string file = Path("day1.out");
  Write(Path("day1.txt"), "http://a/\nhttp://b/\n");
  Write(Path("day2.txt"), "http://b/\nhttp://c/\n");
  const std::string day1 = "dedup --quiet --state=" + state_ + " --output=" +
                           file + " " + Path("day1.txt");
  Result r = Run(day1, "", "URISCAN_TEST_CRASH_AT=manifest-named");
  ASSERT_EQ(r.status, -SIGKILL);
  ASSERT_EQ(access(file.c_str(), F_OK), -1);
  // The temporary-file cleaner.
  ASSERT_EQ(std::system(("rm -f '" + dir_ + "'/.day1.out.uriscan-*").c_str()),
            0);
  const std::string day2 = "dedup --quiet --state=" + state_ + " --output=" +
                           Path("day2.out") + " " + Path("day2.txt");
  r = Run(day2);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.rfind("uriscan: dedup --state: warning: " + file +
                            ", the output committed to " + state_ + " at 20",
                        0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("is missing, and so is the temporary file"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Slurp(Path("day2.out")), "http://c/\n");
  r = Run(day1);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(file + " was committed to " + state_), std::string::npos)
      << r.err;
  EXPECT_EQ(access(file.c_str(), F_OK), -1);
  EXPECT_EQ(StateKeys(), 3);
}

// A committed input run again under another FILE: a note naming the FILE
// it went to, no file written, the state as it was.
TEST_F(StateCliTest, ACommittedInputUnderAnotherNameWritesNoFile) {
  Write(Path("day1.txt"), "http://a/\nhttp://b/\nhttp://a/\n");
  const std::string base = "dedup --quiet --state=" + state_ + " --output=";
  ASSERT_EQ(Run(base + Path("first.txt") + " " + Path("day1.txt")).status, 0);
  const std::map<std::string, std::string> before = Listing(state_);
  const Result r = Run(base + Path("second.txt") + " " + Path("day1.txt"));
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(access(Path("second.txt").c_str(), F_OK), -1);
  EXPECT_NE(r.err.find("this input was committed to " + state_ + " at 20"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("into " + Path("first.txt") + "; nothing to do (" +
                       Path("second.txt") + " was not written)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(Listing(state_), before);
  // Other input under a new name is a day like any other.
  Write(Path("day2.txt"), "http://b/\nhttp://c/\n");
  EXPECT_EQ(Run(base + Path("third.txt") + " " + Path("day2.txt")).status, 0);
  EXPECT_EQ(Slurp(Path("third.txt")), "http://c/\n");
}

TEST_F(StateCliTest, DamagedFilesAreErrorsNeverAnEmptyState) {
  ASSERT_EQ(Run("dedup --state=" + state_, DayInput(0, 2000, 3000)).status, 0);
  const std::string manifest = Slurp(state_ + "/MANIFEST");
  const std::string run_name =
      manifest.substr(manifest.find("run run-") + 4, 15);
  const std::string run_path = state_ + "/" + run_name;
  const std::string run = Slurp(run_path);
  const std::string day1 = DayInput(1, 2000, 3000);
  auto expect_damaged = [&](const char* what) {
    const Result r = Run("dedup --state=" + state_, day1);
    EXPECT_EQ(r.status, 2) << what;
    EXPECT_EQ(r.out, "") << what;
    EXPECT_NE(r.err.find("damaged"), std::string::npos) << what << r.err;
    EXPECT_EQ(Run("state --verify " + state_).status, 2) << what;
  };
  std::string flipped = run;
  flipped[run.size() / 2] ^= 4;
  Write(run_path, flipped);
  expect_damaged("a flipped byte");
  Write(run_path, run.substr(0, run.size() - 1));
  expect_damaged("a truncated run");
  Write(run_path, run);
  Write(state_ + "/MANIFEST", manifest.substr(0, manifest.size() - 5));
  expect_damaged("a truncated manifest");
  ASSERT_EQ(unlink((state_ + "/MANIFEST").c_str()), 0);
  expect_damaged("no manifest");
  Write(state_ + "/MANIFEST", manifest);
  EXPECT_EQ(Run("state --verify " + state_).status, 0);
}

TEST_F(StateCliTest, AFailedRunLeavesTheDirectoryAsItFoundIt) {
  Write(Path("day1.txt"), "http://a/\nhttp://b/\n");
  const std::string day1 = Path("day1.txt"), missing = Path("missing.txt");
  // An empty directory: a failed first run leaves it empty (it fixes no
  // profile), and `state` says it is no state.
  const std::string empty = Path("empty");
  ASSERT_EQ(mkdir(empty.c_str(), 0755), 0);
  Result r = Run("dedup --state=" + empty + " " + day1 + " " + missing);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot open '" + missing + "'"), std::string::npos)
      << r.err;
  EXPECT_EQ(Listing(empty), (std::map<std::string, std::string>{}));
  r = Run("state " + empty);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "uriscan: state: " + empty +
                       " is not a state: it has no MANIFEST (no dedup "
                       "--state=" + empty + " run has finished there)\n");
  EXPECT_EQ(Listing(empty), (std::map<std::string, std::string>{}));
  r = Run("dedup --on-error=fail --state=" + empty, "http://a/\n%\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(Listing(empty), (std::map<std::string, std::string>{}));
  // The retry with the intended profile makes the state.
  r = Run("dedup --profile=crawler --state=" + empty + " " + day1);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "http://a/\nhttp://b/\n");
  EXPECT_NE(Run("state " + empty).out.find("profile   'crawler'"),
            std::string::npos);

  // A directory that was not there is not there after a failed run.
  const std::string none = Path("none");
  r = Run("dedup --state=" + none + " " + day1 + " " + missing);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(Listing(none), (std::map<std::string, std::string>{
                               {"<missing>", ""}}));
  r = Run("dedup --on-error=fail --state=" + none, "%\n");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(Listing(none), (std::map<std::string, std::string>{
                               {"<missing>", ""}}));
  // Nor after a full disk at any step of its first commit: the new run,
  // the first MANIFEST (no runs) or the one that names the run.
  const Result good = Run("dedup --state=" + Path("good") + " " + day1);
  ASSERT_EQ(good.status, 0);
  int full = 0;
  for (int limit = 0; limit < 600; limit += 10) {
    r = Run("dedup --state=" + none + " " + day1, "",
            "URISCAN_TEST_ENOSPC_AFTER=" + std::to_string(limit));
    if (r.status == 0) {
      EXPECT_EQ(MaskIds(Listing(none)), MaskIds(Listing(Path("good"))))
          << limit;
      break;
    }
    ++full;
    EXPECT_EQ(r.status, 2) << limit;
    EXPECT_NE(r.err.find("No space left on device"), std::string::npos)
        << limit << ": " << r.err;
    EXPECT_EQ(Listing(none), (std::map<std::string, std::string>{
                                 {"<missing>", ""}}))
        << limit;
  }
  EXPECT_GT(full, 10);
  EXPECT_EQ(MaskIds(Listing(none)), MaskIds(Listing(Path("good"))));

  // An existing state: every file byte for byte as it was, with its LOCK
  // or without one (a copied state).
  ASSERT_EQ(Run("dedup --state=" + state_, "http://old/\n").status, 0);
  for (bool lock : {true, false}) {
    if (!lock) {
      ASSERT_EQ(unlink((state_ + "/LOCK").c_str()), 0);
    }
    const std::map<std::string, std::string> before = Listing(state_);
    EXPECT_EQ(before.count("LOCK"), lock ? 1u : 0u);
    r = Run("dedup --state=" + state_ + " " + day1 + " " + missing);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(Listing(state_), before);
    r = Run("dedup --on-error=fail --state=" + state_, "http://n/\n%\n");
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(Listing(state_), before);
    r = Run("dedup --state=" + state_, "http://n/\n",
            "URISCAN_TEST_ENOSPC_AFTER=60");  // the manifest cannot be
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(Listing(state_), before);
  }
}

TEST_F(StateCliTest, InvalidLinesAreNotWrittenWithStateUnlessKeepIsGiven) {
  const std::string day = "http://a/\nhttp://bad host/\nhttp://b/\n%zz\n";
  // Run twice: the first writes only the valid lines, the second nothing;
  // both diagnose and count the invalid lines.
  for (const char* expect : {"http://a/\nhttp://b/\n", ""}) {
    const Result r = Run("dedup --state=" + state_, day);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, expect);
    EXPECT_NE(r.err.find("<stdin>:2:11: error: disallowed-byte"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("<stdin>:4:1: error: pct-encoded"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("uriscan: 4 lines, 2 valid, 2 invalid "
                         "(disallowed-byte 1, pct-encoded 1), "),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(StateKeys(), 2);
  // An explicit --on-error wins: keep writes the invalid lines on every
  // run, fail stops at the first.
  Result r = Run("dedup --on-error=keep --state=" + state_, day);
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "http://bad host/\n%zz\n");
  r = Run("dedup --on-error=fail --state=" + state_, day);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  // Without --state, keep stays the default.
  EXPECT_EQ(Run("dedup", day).out, day);
}

// Damage to a run's header or fence is found when the state is opened,
// before any input is read; damage to a block when a run reads that block
// (a lookup, `state`, `state --verify`). Either way: exit 2, nothing
// written, the state left as it is.
TEST_F(StateCliTest, DamageIsFoundBeforeInputOrWhenItsBlockIsRead) {
  const std::string day0 = DayInput(0, 2000, 3000);
  ASSERT_EQ(Run("dedup --state=" + state_, day0).status, 0);
  const std::string manifest = Slurp(state_ + "/MANIFEST");
  const std::string run_name =
      manifest.substr(manifest.find("run run-") + 4, 15);
  const std::string good = Slurp(state_ + "/" + run_name);
  std::string run = good;
  run[run.size() - 3] ^= 4;  // the fence: its checksum is in the header
  Write(state_ + "/" + run_name, run);
  const std::map<std::string, std::string> before = Listing(state_);
  // Input that would give a diagnostic, and a missing file: neither is
  // reached, so the damage was found before any input was read.
  Write(Path("day1.txt"), "http://new/\nhttp://bad host/\n");
  Result r = Run("dedup --state=" + state_ + " " + Path("day1.txt") + " " +
                 Path("missing.txt"));
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "uriscan: dedup --state: state " + state_ +
                       " is damaged: " + state_ + "/" + run_name +
                       " is damaged: bad fence checksum (it is left as it "
                       "is; restore it or start another directory)\n");
  EXPECT_EQ(Listing(state_), before);
  // A block: the second byte of the first block (past the header).
  run = good;
  run[65] ^= 4;
  Write(state_ + "/" + run_name, run);
  const std::map<std::string, std::string> damaged = Listing(state_);
  // Day 0 again asks for every block: the damaged one is read.
  r = Run("dedup --state=" + state_, day0);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(run_name + " is damaged: bad checksum of block 0"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Listing(state_), damaged);
  // `state --verify` and `state` report the damage alone, with no report
  // on stdout: a state a run may refuse is never reported healthy.
  for (const char* command : {"state --verify ", "state "}) {
    const Result report = Run(command + state_);
    EXPECT_EQ(report.status, 2) << command;
    EXPECT_EQ(report.out, "") << command;
    EXPECT_NE(report.err.find(run_name + " is damaged: bad checksum of block"),
              std::string::npos)
        << command << report.err;
  }
  Write(state_ + "/" + run_name, good);
  EXPECT_EQ(Run("state --verify " + state_).status, 0);
}

// What a killed run left (a temporary run, a stray run) is listed with
// its size; the next update removes it.
TEST_F(StateCliTest, StateListsWhatItsManifestDoesNotName) {
  ASSERT_EQ(Run("dedup --state=" + state_, DayInput(0, 2000, 3000)).status, 0);
  Write(state_ + "/run-000009.keys.tmp", std::string(1234, 'x'));
  Write(state_ + "/notes.txt", "mine");
  const Result r = Run("state " + state_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("unlisted  notes.txt  4 bytes (not the state's: left "
                       "as it is)\nunlisted  run-000009.keys.tmp  1234 bytes "
                       "(left by a killed run: the next update removes it)\n"),
            std::string::npos)
      << r.out;
  ASSERT_EQ(Run("dedup --state=" + state_, "http://a/\n").status, 0);
  const std::string after = Run("state " + state_).out;
  EXPECT_EQ(after.find("run-000009.keys.tmp"), std::string::npos) << after;
  EXPECT_NE(after.find("unlisted  notes.txt"), std::string::npos) << after;
}

// A scheduler's retry of a committed day, whatever ran since, is a no-op
// (exit 0, a note, nothing written or added); other input into a FILE a
// run committed is a usage error naming that run, and adds nothing.
TEST_F(StateCliTest, ACommittedDayRunAgainIsANoOpAndOnlyThat) {
  std::vector<std::string> day;
  for (int d = 0; d < 3; ++d) {
    day.push_back(Path("day" + std::to_string(d) + ".txt"));
    Write(day[d], DayInput(d, 2000, 6000));
  }
  auto dedup = [&](const std::string& out, const std::string& in) {
    return Run("dedup --state=" + state_ + " --output=" + Path(out) + " " + in);
  };
  ASSERT_EQ(dedup("d1.txt", day[0]).status, 0);
  ASSERT_EQ(dedup("d2.txt", day[1]).status, 0);
  const std::string d1 = Slurp(Path("d1.txt")), d2 = Slurp(Path("d2.txt"));
  const long long keys = StateKeys();
  // day 1 again into d1.txt, after day 2 committed: a no-op.
  Result r = dedup("d1.txt", day[0]);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("d1.txt was committed to " + state_), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("from this same input; nothing to do"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Slurp(Path("d1.txt")), d1);
  EXPECT_EQ(StateKeys(), keys);
  // Day 3 into d2.txt: refused, naming the run; nothing written or added.
  r = dedup("d2.txt", day[2]);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("d2.txt was committed to " + state_ + " at 20"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("from other input"), std::string::npos) << r.err;
  EXPECT_EQ(Slurp(Path("d2.txt")), d2);
  EXPECT_EQ(StateKeys(), keys);
  // Other options are other input too (their output would differ).
  r = Run("dedup --keys --state=" + state_ + " --output=" + Path("d1.txt") +
          " " + day[0]);
  EXPECT_EQ(r.status, 2) << r.err;
  // Day 3 into a new FILE then writes its new lines.
  r = dedup("d3.txt", day[2]);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Slurp(Path("d1.txt")) + Slurp(Path("d2.txt")) +
                Slurp(Path("d3.txt")),
            Stateless(DayInput(0, 2000, 6000) + DayInput(1, 2000, 6000) +
                      DayInput(2, 2000, 6000)));
}

// A state of the release before indexed runs is refused with the command
// that converts it; converted, it answers as before and takes new days.
TEST_F(StateCliTest, AFormatOneStateIsRefusedUntilUpgraded) {
  ASSERT_EQ(std::system(("cp -r '" URISCAN_SOURCE_DIR "/tests/data/state-v1' '" +
                         state_ + "'")
                            .c_str()),
            0);
  std::string pages, again;
  for (int i = 1; i <= 600; ++i)
    pages += "http://example.org/page/" + std::to_string(i) + "\n";
  const std::map<std::string, std::string> before = Listing(state_);
  for (const std::string& args :
       {"dedup --state=" + state_, "state " + state_, "state --verify " + state_,
        "state --compact " + state_}) {
    const Result r = Run(args, pages);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_NE(r.err.find("written by an earlier uriscan (state format 1"),
              std::string::npos)
        << args << ": " << r.err;
    EXPECT_NE(r.err.find("uriscan state " + state_ + " --upgrade"),
              std::string::npos)
        << r.err;
  }
  EXPECT_EQ(Listing(state_), before);
  // A kill at each step of the conversion leaves the old state whole.
  for (const char* step : {"compacted-unnamed", "before-manifest"}) {
    const Result killed = Run("state --upgrade " + state_, "",
                              std::string("URISCAN_TEST_CRASH_AT=") + step);
    EXPECT_EQ(killed.status, -SIGKILL) << step;
    EXPECT_EQ(Slurp(state_ + "/MANIFEST"), before.at("MANIFEST")) << step;
  }
  Result r = Run("state --upgrade " + state_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("upgraded  to format 2: 500 keys in one run"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(StateKeys(), 500);
  r = Run("state --upgrade " + state_);
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("nothing to do"), std::string::npos) << r.out;
  // Pages 1-500 were seen by the old state: only 501-600 are new.
  r = Run("dedup --quiet --state=" + state_, pages);
  EXPECT_EQ(r.status, 0) << r.err;
  for (int i = 501; i <= 600; ++i)
    again += "http://example.org/page/" + std::to_string(i) + "\n";
  EXPECT_EQ(r.out, again);
  EXPECT_EQ(StateKeys(), 600);
}

// A sharded state answers as an unsharded one: the same lines, in input
// order, day after day, whether a day's keys go to the top's runs (small
// days), to the shards with the top's keys moved there too (large days,
// or a full top: URISCAN_TEST_TOP_KEYS makes it small), on one thread or
// shard by shard on two (a run past --memory); `state` lists its shards;
// the count is fixed.
TEST_F(StateCliTest, AShardedStateAnswersAsAnUnshardedOne) {
  const std::string plain = Path("plain");
  for (const char* env : {"URISCAN_TEST_TOP_KEYS=3000", ""}) {
    for (const char* memory : {"", " --memory=300K"}) {
      SCOPED_TRACE(std::string(env) + memory);
      std::system(("rm -rf '" + state_ + "' '" + plain + "'").c_str());
      std::string so_far;
      for (int d = 0; d < 5; ++d) {
        const std::string day = DayInput(d, d == 3 ? 8000 : 2000, 6000);
        const Result sharded = Run("dedup --quiet --threads=2 --state=" +
                                       state_ + " --shards=8" + memory,
                                   day, env);
        const Result unsharded = Run("dedup --quiet --state=" + plain, day);
        ASSERT_EQ(sharded.status, 0) << sharded.err;
        ASSERT_EQ(unsharded.status, 0) << unsharded.err;
        EXPECT_EQ(sharded.out, unsharded.out) << "day " << d;
        so_far += day;
        EXPECT_EQ(StateKeys(),
                  static_cast<long long>(CountLines(Stateless(so_far))));
      }
      const Result info = Run("state " + state_);
      EXPECT_EQ(info.status, 0) << info.err;
      EXPECT_NE(info.out.find("shards    8 (keys by their top 3 bits)"),
                std::string::npos)
          << info.out;
      // The small days' keys are in the top's runs; a full top moved them.
      EXPECT_EQ(info.out.find("shard-0003/run-") != std::string::npos,
                *env != '\0')
          << info.out;
      EXPECT_NE(info.out.find("\n  run-"), std::string::npos) << info.out;
    }
  }
  EXPECT_NE(Run("state " + state_).out.find("  shard-0007  "),
            std::string::npos);
  // One thread or two: the same answers.
  const std::string again = DayInput(9, 3000, 9000);
  const Result one = Run("dedup --quiet --threads=1 --state=" + state_, again);
  const Result p = Run("dedup --quiet --state=" + plain, again);
  EXPECT_EQ(one.out, p.out);
  // The count is fixed at creation; --shards needs --state.
  Result r = Run("dedup --state=" + state_ + " --shards=4", again);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("has 8 shards, not 4"), std::string::npos) << r.err;
  r = Run("dedup --shards=4", again);
  EXPECT_EQ(r.status, 2);
  r = Run("dedup --state=" + Path("x") + " --shards=6", again);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("power of 2"), std::string::npos) << r.err;
}

// A kill at every step of a sharded commit (shards prepared, the top
// MANIFEST renamed, some shards' MANIFEST in place and not others) and
// the next run: each day's FILE holds its new lines exactly once.
TEST_F(StateCliTest, AKillAtEachStepOfAShardedCommitLosesNoLine) {
  const char* steps[] = {"run-unnamed",     "run-named",      "compacted-unnamed",
                         "shards-prepared", "before-manifest", "manifest-named",
                         "shard-applied",   "committed",      "output-unnamed",
                         "output-named"};
  std::string so_far, outputs;
  int killed = 0;
  for (int d = 0; d < 10; ++d) {
    const std::string day = DayInput(d, d % 3 == 2 ? 6000 : 1500, 8000);
    Write(Path("day.txt"), day);
    const std::string out = Path("out" + std::to_string(d) + ".txt");
    const std::string args = "dedup --quiet --shards=4 --state=" + state_ +
                             " --output=" + out + " " + Path("day.txt");
    Result r = Run(args, "", std::string("URISCAN_TEST_CRASH_AT=") + steps[d]);
    EXPECT_TRUE(r.status == -SIGKILL || r.status == 0) << steps[d] << r.err;
    killed += r.status == -SIGKILL;
    if (r.status != 0) {
      r = Run(args);
      EXPECT_EQ(r.status, 0) << steps[d] << ": " << r.err;
    }
    so_far += day;
    outputs += Slurp(out);
    EXPECT_TRUE(outputs == Stateless(so_far))
        << steps[d] << ": " << CountLines(outputs) << " lines written, "
        << CountLines(Stateless(so_far)) << " wanted";
    EXPECT_EQ(StateKeys(), static_cast<long long>(CountLines(Stateless(so_far))))
        << steps[d];
    // No MANIFEST.next is left once a run has opened the state again.
    EXPECT_NE(std::system(("ls " + state_ + "/shard-*/ | grep -q MANIFEST.next")
                              .c_str()),
              0)
        << steps[d];
  }
  // Every step but a merge that a day may not need was met.
  EXPECT_GE(killed, 9);
}

// A shard opened alone (as a Dask task opens it) takes its own lines and
// refuses a line of another shard, adding nothing.
TEST_F(StateCliTest, AShardOpenedAloneRefusesOtherShardsKeys) {
  ASSERT_EQ(Run("dedup --quiet --shards=2 --state=" + state_, "").status, 0);
  const Result keyed = Run("dedup --quiet --keys", DayInput(0, 400, 1000));
  std::string mine, theirs;
  std::istringstream lines(keyed.out);
  for (std::string line; std::getline(lines, line);) {
    const uint64_t key = std::stoull(line.substr(0, 16), nullptr, 16);
    if (key == 0) continue;  // an invalid line: no class, no shard
    (key >> 63 ? theirs : mine) += line.substr(17) + "\n";
  }
  ASSERT_FALSE(mine.empty());
  ASSERT_FALSE(theirs.empty());
  const std::string shard0 = state_ + "/shard-0000";
  Result r = Run("dedup --quiet --state=" + shard0, mine);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, mine);
  r = Run("dedup --quiet --state=" + shard0, theirs);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("is shard 0 of 2 of a sharded state"), std::string::npos)
      << r.err;
  // The whole state sees shard 0's keys.
  r = Run("dedup --quiet --state=" + state_, mine + theirs);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, theirs);
}

// A shard the top MANIFEST committed must be there as it was committed:
// one removed, emptied, put back from an older copy, or taken from another
// state (made from the same days with the same profile: only its id
// differs) is damage naming the shard and what is wrong, to a run (exit 2,
// nothing written, the state left as it is), to `state`, to `state
// --verify` and to a run on the shard alone. The right copy put back is
// the state again. A top MANIFEST removed beside its shards is damage too:
// no run, with --shards or without, makes a new state over them.
TEST_F(StateCliTest, AMissingEmptiedStaleOrForeignShardIsDamage) {
  const std::string day1 = DayInput(1, 2000, 4000);
  const std::string day2 = DayInput(2, 2000, 4000);
  const std::string every = "URISCAN_TEST_TOP_KEYS=1";  // keys in the shards
  const std::string other = Path("other"), shard = state_ + "/shard-0002";
  for (const std::string& dir : {state_, other}) {
    ASSERT_EQ(
        Run("dedup --quiet --shards=4 --state=" + dir, day1, every).status, 0);
    if (dir == state_) {
      ASSERT_EQ(std::system(
                    ("cp -r '" + shard + "' '" + Path("stale") + "'").c_str()),
                0);
    }
    ASSERT_EQ(Run("dedup --quiet --state=" + dir, day2, every).status, 0);
  }
  ASSERT_EQ(
      std::system(("cp -r '" + shard + "' '" + Path("good") + "'").c_str()), 0);
  // The other state's shard differs in its id alone.
  ASSERT_EQ(MaskIds(Listing(other + "/shard-0002")), MaskIds(Listing(shard)));
  ASSERT_NE(Listing(other + "/shard-0002"), Listing(shard));
  const long long keys =
      static_cast<long long>(CountLines(Stateless(day1 + day2)));
  ASSERT_EQ(StateKeys(), keys);
  const std::string mine = ByShard(day1, 4)[2];  // shard 2's lines alone
  ASSERT_FALSE(mine.empty());
  struct Case {
    const char* what;
    std::string put, message;
  };
  const Case cases[] = {
      {"removed", "rm -rf '" + shard + "'",
       "it is missing, but the state committed it (at generation 2)"},
      {"emptied", "rm -f '" + shard + "'/*",
       "it has no MANIFEST, but the state committed shard-0002 at generation "
       "2: it was emptied"},
      {"stale",
       "rm -rf '" + shard + "' && cp -r '" + Path("stale") + "' '" + shard +
           "'",
       "it is at generation 1, older than generation 2, at which the state "
       "committed it: restored from an older copy?"},
      {"foreign",
       "rm -rf '" + shard + "' && cp -r '" + other + "/shard-0002' '" + shard +
           "'",
       "its MANIFEST is that of another state (id "},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_EQ(std::system(c.put.c_str()), 0);
    const std::map<std::string, std::string> before = Tree(state_);
    Result r = Run("dedup --quiet --state=" + state_, day1);
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find("state " + shard + " is damaged: " + c.message),
              std::string::npos)
        << r.err;
    EXPECT_EQ(Tree(state_), before);
    for (const char* command : {"state ", "state --verify "}) {
      r = Run(command + state_);
      EXPECT_EQ(r.status, 2) << command;
      EXPECT_EQ(r.out, "") << command;
      EXPECT_NE(r.err.find("state " + shard + " is damaged: " + c.message),
                std::string::npos)
          << command << r.err;
    }
    // The shard alone, with its own lines or with the whole day.
    for (const std::string* input : {&mine, &day1}) {
      r = Run("dedup --quiet --state=" + shard, *input);
      EXPECT_EQ(r.status, 2);
      EXPECT_EQ(r.out, "");
      EXPECT_NE(r.err.find("state " + shard + " is damaged: "),
                std::string::npos)
          << r.err;
      EXPECT_EQ(Tree(state_), before);
    }
    // The right copy put back.
    ASSERT_EQ(std::system(("rm -rf '" + shard + "' && cp -r '" + Path("good") +
                           "' '" + shard + "'")
                              .c_str()),
              0);
    EXPECT_EQ(StateKeys(), keys);
  }
  Result r = Run("dedup --quiet --state=" + state_, day1 + day2);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  // The top MANIFEST removed beside its shards.
  ASSERT_EQ(rename((state_ + "/MANIFEST").c_str(), Path("top").c_str()), 0);
  const std::map<std::string, std::string> headless = Tree(state_);
  for (const std::string& args :
       {"dedup --quiet --state=" + state_,
        "dedup --quiet --shards=4 --state=" + state_, "state " + state_,
        "state --verify " + state_, "dedup --quiet --state=" + shard}) {
    r = Run(args, args.find("shard-") == std::string::npos ? day2 : mine);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_NE(
        r.err.find("state " + state_ + " is damaged: it holds shards (shard-"),
        std::string::npos)
        << args << ": " << r.err;
    EXPECT_NE(r.err.find(") but no MANIFEST"), std::string::npos) << r.err;
    EXPECT_EQ(Tree(state_), headless) << args;
  }
  ASSERT_EQ(rename(Path("top").c_str(), (state_ + "/MANIFEST").c_str()), 0);
  EXPECT_EQ(StateKeys(), keys);
}

// A shard committed alone (as a Dask task commits it) is newer than the
// top's record of it: the whole state reads it as it is now (its keys are
// seen) and the next whole-state commit records it again; from then on a
// copy of it from before that commit put back is stale damage.
TEST_F(StateCliTest, AShardCommittedAloneIsRecordedThenGuarded) {
  const std::string day = DayInput(1, 1500, 3000);
  ASSERT_EQ(Run("dedup --quiet --shards=2 --state=" + state_, day,
                "URISCAN_TEST_TOP_KEYS=1")
                .status,
            0);
  const std::string shard0 = state_ + "/shard-0000";
  ASSERT_EQ(
      std::system(("cp -r '" + shard0 + "' '" + Path("old0") + "'").c_str()),
      0);
  const std::vector<std::string> parts = ByShard(DayInput(0, 1500, 3000), 2);
  const std::string& mine = parts[0];
  const std::string& theirs = parts[1];
  ASSERT_FALSE(mine.empty());
  ASSERT_FALSE(theirs.empty());
  auto record0 = [&] {
    const std::string top = Slurp(state_ + "/MANIFEST");
    const size_t at = top.find("\nshard-record ");
    return at == std::string::npos
               ? std::string()
               : top.substr(at + 1, top.find('\n', at + 1) - at - 1);
  };
  const std::string before = record0();
  EXPECT_EQ(before.rfind("shard-record 1 ", 0), 0u) << before;
  // Shard 0 alone, with its lines alone.
  Result r = Run("dedup --quiet --state=" + shard0, mine);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, Stateless(day + mine).substr(Stateless(day).size()));
  EXPECT_NE(r.out, "");
  EXPECT_EQ(StateKeys(),
            static_cast<long long>(CountLines(Stateless(day + mine))));
  // The whole state: what the shard's run saw is not new.
  r = Run("dedup --quiet --state=" + state_, mine + theirs);
  EXPECT_EQ(r.status, 0) << r.err;
  const std::string want =
      Stateless(day + mine + theirs).substr(Stateless(day + mine).size());
  EXPECT_EQ(r.out, want);
  EXPECT_NE(want, "");
  const std::string after = record0();
  EXPECT_NE(after, before);
  EXPECT_EQ(after.rfind("shard-record 2 ", 0), 0u) << after;
  const long long keys =
      static_cast<long long>(CountLines(Stateless(day + mine + theirs)));
  EXPECT_EQ(StateKeys(), keys);
  // The copy from before the shard's own commit, put back: stale.
  ASSERT_EQ(std::system(("mv '" + shard0 + "' '" + Path("now0") +
                         "' && cp -r '" + Path("old0") + "' '" + shard0 + "'")
                            .c_str()),
            0);
  const std::map<std::string, std::string> stale = Tree(state_);
  r = Run("dedup --quiet --state=" + state_, mine + theirs);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("state " + shard0 +
                       " is damaged: it is at generation 1, older than "
                       "generation 2, at which the state committed it"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Tree(state_), stale);
  r = Run("state --verify " + state_);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("older than generation 2"), std::string::npos) << r.err;
  ASSERT_EQ(std::system(("rm -rf '" + shard0 + "' && mv '" + Path("now0") +
                         "' '" + shard0 + "'")
                            .c_str()),
            0);
  EXPECT_EQ(StateKeys(), keys);
}

// A sharded state of the last release (its MANIFESTs record no state id)
// is refused by every command but `state --upgrade`, which the refusal
// names; a kill at any step of the upgrade leaves a state the next
// upgrade completes. Upgraded, it answers as before and takes new days.
TEST_F(StateCliTest, AShardedStateOfTheLastReleaseIsUpgraded) {
  const std::string copy = "rm -rf '" + state_ +
                           "' && cp -r '" URISCAN_SOURCE_DIR
                           "/tests/data/state-sharded-2' '" +
                           state_ + "'";
  std::string pages, fresh;
  for (int i = 1; i <= 600; ++i) {
    const std::string line =
        "http://example.org/page/" + std::to_string(i) + "\n";
    pages += line;
    if (i > 500) fresh += line;
  }
  for (const char* step : {"shards-prepared", "before-manifest",
                           "manifest-named", "shard-applied", "committed"}) {
    ASSERT_EQ(std::system(copy.c_str()), 0);
    Result r = Run("state --upgrade " + state_, "",
                   std::string("URISCAN_TEST_CRASH_AT=") + step);
    EXPECT_EQ(r.status, -SIGKILL) << step << ": " << r.err;
    r = Run("state --upgrade " + state_);
    EXPECT_EQ(r.status, 0) << step << ": " << r.err;
    EXPECT_EQ(r.out.rfind("upgraded", 0), 0u) << step << ": " << r.out;
    EXPECT_EQ(StateKeys(), 500) << step;
  }
  ASSERT_EQ(std::system(copy.c_str()), 0);
  const std::map<std::string, std::string> before = Tree(state_);
  for (const std::string& args :
       {"dedup --state=" + state_, "state " + state_,
        "state --verify " + state_, "state --compact " + state_,
        "dedup --state=" + state_ + "/shard-0001"}) {
    const Result r = Run(args, pages);
    EXPECT_EQ(r.status, 2) << args;
    EXPECT_EQ(r.out, "") << args;
    EXPECT_NE(r.err.find("uriscan state " + state_ + " --upgrade"),
              std::string::npos)
        << args << ": " << r.err;
    EXPECT_EQ(Tree(state_), before) << args;
  }
  Result r = Run("state --upgrade " + state_);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("upgraded", 0), 0u) << r.out;
  EXPECT_EQ(StateKeys(), 500);
  r = Run("dedup --quiet --state=" + state_, pages);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, fresh);
  EXPECT_EQ(StateKeys(), 600);
  r = Run("state --upgrade " + state_);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("nothing to do"), std::string::npos) << r.out;
}

// 4096 shards under a limit of 256 descriptors: days that write every
// shard (the top's keys moved there too) and a day the top takes alone,
// then `state --verify` and `state --compact`, all keep no more shards open
// than the limit allows, and answer as an unsharded state does.
TEST_F(StateCliTest, FourThousandShardsOpenUnderALowDescriptorLimit) {
  const std::string limit = "ulimit -n 256;";
  ASSERT_EQ(std::system((limit + " test \"$(ulimit -n)\" -eq 256").c_str()), 0);
  const std::string plain = Path("plain");
  std::string so_far;
  for (int d = 0; d < 3; ++d) {
    const std::string day = DayInput(40 + d, d == 0 ? 20000 : 6000, 40000);
    const std::string env =
        limit + (d == 1 ? std::string() : " URISCAN_TEST_TOP_KEYS=1");
    const Result sharded =
        Run("dedup --quiet --shards=4096 --state=" + state_, day, env);
    const Result unsharded = Run("dedup --quiet --state=" + plain, day);
    // The error, past the diagnostics of invalid lines.
    const size_t error = sharded.err.rfind("uriscan: ");
    ASSERT_EQ(sharded.status, 0)
        << "day " << d << ": "
        << (error == std::string::npos ? sharded.err
                                       : sharded.err.substr(error));
    ASSERT_EQ(unsharded.status, 0) << unsharded.err;
    EXPECT_TRUE(sharded.out == unsharded.out)
        << "day " << d << ": " << CountLines(sharded.out) << " lines, "
        << CountLines(unsharded.out) << " unsharded";
    so_far += day;
  }
  const std::string keys = std::to_string(CountLines(Stateless(so_far)));
  Result r = Run("state --verify " + state_, "", limit);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\nverified "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("\nkeys      " + keys + "\n"), std::string::npos)
      << r.out.substr(0, 400);
  EXPECT_NE(r.out.find("shards    4096 "), std::string::npos);
  r = Run("state --compact " + state_, "", limit);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("compacted "), std::string::npos) << r.out;
  r = Run("state --verify " + state_, "", limit);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\nkeys      " + keys + "\n"), std::string::npos);
  r = Run("dedup --quiet --state=" + state_, so_far, limit);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

// A group commit (the top's keys moved to the shards beside the day's
// own, each shard's MANIFEST.next, then the top MANIFEST, then each
// shard's MANIFEST) and a commit by the top alone, each killed at every
// step in turn: after the rerun each day's FILE holds its new lines once,
// the state holds exactly the classes seen so far, and no MANIFEST.next is
// left once a run has opened the state again.
TEST_F(StateCliTest, AKillAtEachStepOfAGroupCommitLosesNoLine) {
  const char* steps[] = {"run-unnamed",       "run-named",
                         "compacted-unnamed", "shards-prepared",
                         "before-manifest",   "manifest-named",
                         "shard-applied",     "committed",
                         "output-unnamed",    "output-named"};
  std::string so_far, outputs;
  std::map<std::string, int> killed;
  int kills = 0;
  for (int d = 0; d < 20; ++d) {
    const char* step = steps[d / 2];
    const bool group = d % 2 == 1;  // else the top takes the day's keys
    SCOPED_TRACE(std::string(step) + (group ? " (group)" : " (top)"));
    const std::string day = DayInput(100 + d, group ? 3000 : 800, 10000);
    Write(Path("day.txt"), day);
    const std::string out = Path("out" + std::to_string(d) + ".txt");
    const std::string args = "dedup --quiet --shards=16 --state=" + state_ +
                             " --output=" + out + " " + Path("day.txt");
    const std::string env = group ? "URISCAN_TEST_TOP_KEYS=1000" : "";
    Result r = Run(args, "", env + " URISCAN_TEST_CRASH_AT=" + step);
    EXPECT_TRUE(r.status == -SIGKILL || r.status == 0) << r.err;
    EXPECT_EQ(r.out, "");
    if (r.status == -SIGKILL) {
      ++kills;
      ++killed[step];
      r = Run(args, "", env);
      EXPECT_EQ(r.status, 0) << r.err;
    }
    so_far += day;
    outputs += Slurp(out);
    EXPECT_TRUE(outputs == Stateless(so_far))
        << CountLines(outputs) << " lines written, "
        << CountLines(Stateless(so_far)) << " wanted";
    EXPECT_EQ(StateKeys(),
              static_cast<long long>(CountLines(Stateless(so_far))));
    EXPECT_NE(std::system(("ls " + state_ +
                           "/shard-*/ 2>/dev/null | grep -q MANIFEST.next")
                              .c_str()),
              0);
    // The day went where it was meant to: a group day leaves the top no
    // run of its own.
    const Result info = Run("state " + state_);
    EXPECT_EQ(info.status, 0) << info.err;
    EXPECT_EQ(info.out.find("\n  run-") == std::string::npos, group)
        << info.out;
  }
  for (const char* step : steps) EXPECT_GE(killed[step], 1) << step;
  EXPECT_GE(kills, 17);  // of 20: a day may need no merge
}

// A MANIFEST is checked whole: one bit flipped anywhere in the top's or in
// a shard's (whose record in the top then no longer matches, so it is
// read) is damage: exit 2, no line written, nothing changed; a letter of
// the checksum itself in upper case too (the line is as written or it is
// damage).
TEST_F(StateCliTest, ABitFlipInAnyManifestIsDamageNeverAnAnswer) {
  ASSERT_EQ(Run("dedup --quiet --shards=4 --state=" + state_,
                DayInput(0, 1500, 3000), "URISCAN_TEST_TOP_KEYS=1")
                .status,
            0);
  // And a run in the top.
  ASSERT_EQ(
      Run("dedup --quiet --state=" + state_, DayInput(1, 300, 3000)).status, 0);
  const std::string day = DayInput(2, 40, 3000);  // new and seen lines
  const std::string pristine = Path("pristine"), expect = Path("expect");
  ASSERT_EQ(std::system(("cp -a '" + state_ + "' '" + pristine +
                         "' && cp -a '" + state_ + "' '" + expect + "'")
                            .c_str()),
            0);
  const Result good = Run("dedup --quiet --state=" + expect, day);
  ASSERT_EQ(good.status, 0) << good.err;
  ASSERT_NE(good.out, "");
  ASSERT_NE(good.out, Stateless(day));
  const std::map<std::string, std::string> before = Tree(state_);
  int flips = 0, failures = 0;
  for (const std::string name : {"MANIFEST", "shard-0001/MANIFEST"}) {
    const std::string path = state_ + "/" + name;
    const std::string bytes = Slurp(path);
    ASSERT_NE(bytes.find("\nstate "), std::string::npos) << name;
    // The checksum's letters in upper case are among the flips below (a
    // checksum of digits alone, one state id in about 2,000, has none:
    // the case is then the random id's to miss, not the test's to fail).
    for (size_t i = 0; i < bytes.size() && failures < 10; ++i) {
      for (const char mask : {'\x01', '\x20'}) {
        if (mask == 1 ? i % 4 != 0
                      : i % 4 != 2 || !std::isxdigit(
                                          static_cast<unsigned char>(bytes[i])))
          continue;
        std::string flipped = bytes;
        flipped[i] ^= mask;
        Write(path, flipped);
        const std::map<std::string, std::string> damaged = Tree(state_);
        const Result r = Run("dedup --quiet --state=" + state_, day);
        ++flips;
        const bool ok = r.status == 2 && r.out.empty() &&
                        r.err.find(" is damaged: ") != std::string::npos &&
                        Tree(state_) == damaged;
        failures += !ok;
        EXPECT_TRUE(ok) << name << " byte " << i << " ('" << bytes[i] << "') ^ "
                        << int(mask) << ": status " << r.status << ", "
                        << CountLines(r.out) << " lines, " << r.err;
        Write(path, bytes);
      }
    }
  }
  EXPECT_GT(flips, 200);  // every 4th byte, and the hex digits of others
  EXPECT_EQ(Tree(state_), before);
  // The whole checksum in upper case: the same number, not as written.
  const std::string manifest = Slurp(state_ + "/MANIFEST");
  std::string upper = manifest;
  for (size_t i = manifest.rfind("checksum ") + 9; i + 1 < upper.size(); ++i)
    upper[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(upper[i])));
  ASSERT_NE(upper, manifest);
  Write(state_ + "/MANIFEST", upper);
  Result r = Run("dedup --quiet --state=" + state_, day);
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("MANIFEST has a bad checksum"), std::string::npos)
      << r.err;
  Write(state_ + "/MANIFEST", manifest);
  r = Run("dedup --quiet --state=" + state_, day);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, good.out);
}

// A run's new keys are merged by the compaction policy before any line is
// written: a damaged byte anywhere in the body of a run that merge reads,
// in a block no lookup reads as well, is found then (exit 2, no line
// written, nothing changed), unsharded and in a shard that takes new keys.
TEST_F(StateCliTest, DamageAMergeWouldMeetIsFoundBeforeAnyLine) {
  std::string pages, candidates;
  for (int i = 1; i <= 3000; ++i)
    pages += "http://example.org/page/" + std::to_string(i) + "\n";
  for (int i = 5001; i <= 5100; ++i)
    candidates += "http://example.org/page/" + std::to_string(i) + "\n";
  const std::string seen =
      "http://example.org/page/1\nhttp://example.org/page/2\n"
      "http://example.org/page/3\n";
  for (const bool sharded : {false, true}) {
    SCOPED_TRACE(sharded ? "4 shards" : "unsharded");
    ASSERT_EQ(std::system(("rm -rf '" + state_ + "'").c_str()), 0);
    const std::string env = sharded ? "URISCAN_TEST_TOP_KEYS=1" : "";
    ASSERT_EQ(Run(std::string("dedup --quiet ") +
                      (sharded ? "--shards=4 " : "") + "--state=" + state_,
                  pages, env)
                  .status,
              0);
    // Two new URLs (of shard 2 when sharded), among seen ones.
    std::string fresh;
    std::istringstream lines(
        ByShard(candidates, sharded ? 4 : 1)[sharded ? 2 : 0]);
    for (std::string line; CountLines(fresh) < 2 && std::getline(lines, line);)
      fresh += line + "\n";
    ASSERT_EQ(CountLines(fresh), 2u);
    const std::string day = seen + fresh + seen;
    // The one run (level 0: 3000 keys, or a quarter of them) the new run
    // of two keys merges with.
    const std::string dir = sharded ? state_ + "/shard-0002" : state_;
    const std::string manifest = Slurp(dir + "/MANIFEST");
    ASSERT_EQ(manifest.find("\nrun ", manifest.find("\nrun ") + 1),
              std::string::npos)
        << manifest;
    const std::string run =
        dir + "/" + manifest.substr(manifest.find("\nrun run-") + 5, 15);
    const std::string good = Slurp(run);
    ASSERT_GT(good.size(), 1000u);
    for (int k = 0; k < 10; ++k) {
      const size_t at = 64 + (good.size() - 65) * k / 9;  // header .. end
      std::string bad = good;
      bad[at] ^= 0x10;
      Write(run, bad);
      const std::map<std::string, std::string> before = Tree(state_);
      const Result r = Run("dedup --quiet --state=" + state_, day, env);
      EXPECT_EQ(r.status, 2) << "byte " << at << ": " << r.err;
      EXPECT_EQ(r.out, "") << "byte " << at;
      EXPECT_NE(r.err.find(run + " is damaged: "), std::string::npos)
          << "byte " << at << ": " << r.err;
      EXPECT_EQ(Tree(state_), before) << "byte " << at;
    }
    Write(run, good);
    const Result r = Run("dedup --quiet --state=" + state_, day, env);
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, fresh);
    EXPECT_EQ(StateKeys(), 3002);
  }
}

}  // namespace
