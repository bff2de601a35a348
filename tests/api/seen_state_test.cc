// SPDX-License-Identifier: MIT
// SeenState (uriscan/seen_state.h): answers against a reference set across
// commits, reopenings, spills, shards and background merges; the lock;
// identities; outputs committed with the keys; a kill -9 at any moment of
// a process that commits and merges loses only what it had not committed.
#include "uriscan/seen_state.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "gtest/gtest.h"

namespace uriscan {
namespace {

class SeenStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/uriscan_seen_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    root_ = tmpl;
    dir_ = root_ + "/state";
  }
  void TearDown() override {
    ASSERT_EQ(std::system(("rm -rf '" + root_ + "'").c_str()), 0);
  }
  std::string root_, dir_;
};

std::vector<uint64_t> Keys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys(n);
  for (uint64_t& k : keys) k = rng() | 1;
  return keys;
}

std::vector<uint8_t> AddKeys(SeenState& s, const std::vector<uint64_t>& keys) {
  std::vector<uint8_t> out(keys.size());
  s.AddKeys(keys.data(), keys.size(), out.data());
  return out;
}

std::vector<uint8_t> ContainsKeys(SeenState& s,
                                  const std::vector<uint64_t>& keys) {
  std::vector<uint8_t> out(keys.size());
  s.ContainsKeys(keys.data(), keys.size(), out.data());
  return out;
}

SeenStateOptions KeysOf(const std::string& name) {
  SeenStateOptions o;
  o.keys_of = name;
  return o;
}

TEST_F(SeenStateTest, RowsAreNewOnceAcrossCommitsAndReopenings) {
  SeenStateOptions o;
  o.profile = Profile::kScheme;
  {
    auto s = SeenState::Open(dir_, o);
    const std::vector<std::string_view> rows = {
        "http://a.example/x", "HTTP://A.EXAMPLE/x", "http://a.example/x",
        "http://b.example/%7e", "not a uri{", "http://b.example/~"};
    EXPECT_EQ(s->Add(rows), (std::vector<uint8_t>{1, 0, 0, 1, 0, 0}));
    EXPECT_EQ(s->stats().invalid, 1u);
    EXPECT_EQ(s->stats().pending, 2u);
    EXPECT_EQ(s->stats().keys, 0u);
    s->Commit();
    EXPECT_EQ(s->stats().keys, 2u);
    EXPECT_EQ(s->Add({"http://a.example/x", "http://c.example/"}),
              (std::vector<uint8_t>{0, 1}));
    // Not committed: lost with the object.
  }
  auto s = SeenState::Open(dir_);  // the state's profile is taken
  EXPECT_EQ(s->identity(), "'scheme' (version " +
                               std::to_string(kProfileVersion) + ")");
  std::vector<std::string_view> ask = {"http://a.example/x",
                                       "http://c.example/", "http://b.example/~"};
  std::vector<uint8_t> seen(3);
  s->Contains(ask.data(), ask.size(), seen.data());
  EXPECT_EQ(seen, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(s->Add(ask), (std::vector<uint8_t>{0, 1, 0}));
  s->Contains(ask.data(), ask.size(), seen.data());
  EXPECT_EQ(seen, (std::vector<uint8_t>{1, 1, 1}));  // pending counts
  s->Discard();
  s->Contains(ask.data(), ask.size(), seen.data());
  EXPECT_EQ(seen, (std::vector<uint8_t>{1, 0, 1}));
}

// Batches of random keys (a quarter of them repeats) against a reference
// set, with commits, background merges, spills past a small memory budget
// and reopenings; the state ends with every committed key and no other.
void CheckAgainstReference(const std::string& dir, SeenStateOptions o,
                           size_t batches, size_t batch) {
  std::unordered_set<uint64_t> committed, pending;
  std::mt19937_64 rng(42);
  std::vector<uint64_t> history;
  auto s = SeenState::Open(dir, o);
  for (size_t b = 0; b < batches; ++b) {
    std::vector<uint64_t> keys(batch);
    for (uint64_t& k : keys)
      k = (!history.empty() && rng() % 4 == 0) ? history[rng() % history.size()]
                                               : (rng() | 1);
    const std::vector<uint8_t> got = AddKeys(*s, keys);
    for (size_t i = 0; i < keys.size(); ++i) {
      const bool fresh = !committed.count(keys[i]) && !pending.count(keys[i]);
      ASSERT_EQ(got[i], fresh ? 1 : 0) << "batch " << b << " row " << i;
      if (fresh) pending.insert(keys[i]);
      history.push_back(keys[i]);
    }
    if (b % 3 != 2) {
      s->Commit();
      committed.insert(pending.begin(), pending.end());
      pending.clear();
    }
    if (b % 17 == 16) {  // a new process: what was not committed is gone
      s.reset();
      pending.clear();
      s = SeenState::Open(dir, o);
    }
  }
  s->Commit();
  committed.insert(pending.begin(), pending.end());
  s->WaitForMerges();
  const SeenStateStats st = s->stats();
  EXPECT_EQ(st.keys, committed.size());
  EXPECT_LE(st.runs, 24u * st.shards);
  std::vector<uint64_t> all(committed.begin(), committed.end());
  for (uint8_t seen : ContainsKeys(*s, all)) ASSERT_EQ(seen, 1);
  for (uint8_t seen : ContainsKeys(*s, Keys(2000, 99))) ASSERT_EQ(seen, 0);
}

TEST_F(SeenStateTest, AnswersAsAReferenceSetWithBackgroundMerges) {
  SeenStateOptions o = KeysOf("test");
  CheckAgainstReference(dir_, o, 120, 700);
  // Merges of more than 5,000 keys on the large lane: both lanes merge
  // at once, around each other's runs.
  setenv("URISCAN_TEST_LARGE_MERGE_KEYS", "5000", 1);
  CheckAgainstReference(root_ + "/lanes", o, 120, 700);
  unsetenv("URISCAN_TEST_LARGE_MERGE_KEYS");
  auto s = SeenState::Open(dir_, o);
  EXPECT_GT(s->stats().rewritten_bytes, 0u);  // merges were made
}

TEST_F(SeenStateTest, AnswersAsAReferenceSetWithInlineMerges) {
  SeenStateOptions o = KeysOf("test");
  o.background_merges = false;
  CheckAgainstReference(dir_, o, 60, 500);
}

TEST_F(SeenStateTest, AnswersAsAReferenceSetPastItsMemoryBudget) {
  SeenStateOptions o = KeysOf("test");
  o.memory = 256 << 10;  // the pending keys spill; few runs get a filter
  CheckAgainstReference(dir_, o, 24, 2500);
  auto s = SeenState::Open(dir_, o);
  EXPECT_LE(s->stats().memory_bytes, o.memory);
  // One batch of many times what memory holds, never committed between.
  o.memory = 64 << 10;
  s.reset();
  s = SeenState::Open(dir_, o);
  const std::vector<uint64_t> many = Keys(40000, 5);
  for (uint8_t fresh : AddKeys(*s, many)) ASSERT_EQ(fresh, 1);
  EXPECT_EQ(s->stats().pending, many.size());
  EXPECT_LE(s->stats().memory_bytes, o.memory);
  for (uint8_t fresh : AddKeys(*s, many)) ASSERT_EQ(fresh, 0);
  s->Commit();
  s.reset();
  s = SeenState::Open(dir_, o);
  for (uint8_t seen : ContainsKeys(*s, many)) ASSERT_EQ(seen, 1);
}

TEST_F(SeenStateTest, AnswersAsAReferenceSetWithShards) {
  SeenStateOptions o = KeysOf("test");
  o.shards = 16;
  CheckAgainstReference(dir_, o, 40, 500);
  auto s = SeenState::Open(dir_, KeysOf("test"));
  EXPECT_EQ(s->stats().shards, 16u);
}

TEST_F(SeenStateTest, TheLockIsHeldFromOpenToTheEnd) {
  auto s = SeenState::Open(dir_, KeysOf("test"));
  AddKeys(*s, Keys(10, 1));
  s->Commit();
  try {
    SeenState::Open(dir_, KeysOf("test"));
    FAIL() << "a second writer was let in";
  } catch (const SeenStateError& e) {
    EXPECT_NE(std::string(e.what()).find("is in use"), std::string::npos)
        << e.what();
  }
  SeenStateOptions ro = KeysOf("test");
  ro.read_only = true;
  EXPECT_THROW(SeenState::Open(dir_, ro), SeenStateError);
  s.reset();
  auto r1 = SeenState::Open(dir_, ro);
  auto r2 = SeenState::Open(dir_, ro);  // readers share the lock
  for (uint8_t seen : ContainsKeys(*r2, Keys(10, 1))) EXPECT_EQ(seen, 1);
  std::vector<uint8_t> out(1);
  const uint64_t key = 5;
  EXPECT_THROW(r1->AddKeys(&key, 1, out.data()), SeenStateError);
  EXPECT_THROW(r1->Commit(), SeenStateError);
  EXPECT_THROW(SeenState::Open(dir_, KeysOf("test")), SeenStateError);
}

TEST_F(SeenStateTest, AnotherIdentityIsAnErrorNamingBoth) {
  SeenStateOptions crawler;
  crawler.profile = Profile::kCrawler;
  { SeenState::Open(dir_, crawler)->Commit(); }
  SeenStateOptions scheme;
  scheme.profile = Profile::kScheme;
  try {
    SeenState::Open(dir_, scheme);
    FAIL();
  } catch (const SeenStateError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'crawler'"), std::string::npos) << what;
    EXPECT_NE(what.find("'scheme'"), std::string::npos) << what;
  }
  EXPECT_THROW(SeenState::Open(dir_, KeysOf("x")), SeenStateError);
  // A state of keys the caller makes takes no rows.
  auto k = SeenState::Open(root_ + "/keys", KeysOf("scrapy"));
  EXPECT_EQ(k->identity(), "keys:scrapy");
  EXPECT_THROW(k->Add({"http://a/"}), SeenStateError);
  EXPECT_THROW(SeenState::Open(root_ + "/bad", KeysOf("a b")), SeenStateError);
}

TEST_F(SeenStateTest, AStateNeverCommittedLeavesNothing) {
  {
    auto s = SeenState::Open(dir_, KeysOf("test"));
    AddKeys(*s, Keys(100, 3));
  }
  EXPECT_NE(access(dir_.c_str(), F_OK), 0) << "an uncommitted state was left";
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(SeenStateTest, AnOutputIsCommittedWithTheKeys) {
  SeenStateOptions o;
  o.profile = Profile::kScheme;
  const std::string day1 = root_ + "/day1.txt", day2 = root_ + "/day2.txt";
  {
    auto s = SeenState::Open(dir_, o);
    s->Add({"http://a/1", "http://a/2", "http://a/1", "bad{"});
    const SeenStateCommit c = s->Commit(day1);
    EXPECT_EQ(c.written, 2u);
    EXPECT_FALSE(c.rerun);
    EXPECT_EQ(Slurp(day1), "http://a/1\nhttp://a/2\n");
    s->Add({"http://a/2", "http://a/3"});
    EXPECT_THROW(s->Commit(day1), SeenStateError);  // exists: never rewritten
    EXPECT_EQ(s->Commit(day2).written, 1u);
    EXPECT_EQ(Slurp(day2), "http://a/3\n");
  }
  {
    // The same rows again into day1: committed from them, nothing to do.
    auto s = SeenState::Open(dir_, o);
    s->Add({"http://a/1", "http://a/2", "http://a/1", "bad{"});
    const SeenStateCommit c = s->Commit(day1);
    EXPECT_TRUE(c.rerun);
    EXPECT_EQ(Slurp(day1), "http://a/1\nhttp://a/2\n");
    // Into another file: a note naming day1, no file.
    s->Add({"http://a/1", "http://a/2", "http://a/1", "bad{"});
    const SeenStateCommit again = s->Commit(root_ + "/other.txt");
    EXPECT_TRUE(again.rerun);
    EXPECT_NE(again.note.find(day1), std::string::npos) << again.note;
    EXPECT_NE(access((root_ + "/other.txt").c_str(), F_OK), 0);
    // Nothing added: an empty file each time (one file per period).
    EXPECT_EQ(s->Commit(root_ + "/empty1.txt").written, 0u);
    EXPECT_FALSE(s->Commit(root_ + "/empty2.txt").rerun);
    EXPECT_EQ(Slurp(root_ + "/empty2.txt"), "");
  }
  // A committed output that is gone is named, never made again empty.
  ASSERT_EQ(unlink(day2.c_str()), 0);
  auto s = SeenState::Open(dir_, o);
  s->Add({"http://a/2", "http://a/3"});
  try {
    s->Commit(day2);
    FAIL();
  } catch (const SeenStateError& e) {
    EXPECT_NE(std::string(e.what()).find("is missing"), std::string::npos);
  }
  EXPECT_NE(access(day2.c_str(), F_OK), 0);
}

// A child adds and commits batches (merges running behind it) and reports
// each commit on a pipe; it is killed at a random moment, again and again.
// Every key it reported committed is in the state; the state opens whole.
TEST_F(SeenStateTest, AKillAtAnyMomentLosesOnlyWhatWasNotCommitted) {
  std::mt19937_64 rng(7);
  uint64_t batch_seed = 1;
  std::vector<uint64_t> committed;
  for (int round = 0; round < 12; ++round) {
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(fds[0]);
      try {
        auto s = SeenState::Open(dir_, KeysOf("test"));
        for (uint64_t b = batch_seed;; ++b) {
          AddKeys(*s, Keys(4000, b));
          s->Commit();
          if (write(fds[1], &b, sizeof b) != sizeof b) _exit(3);
        }
      } catch (...) {
        _exit(2);
      }
    }
    close(fds[1]);
    usleep(static_cast<useconds_t>(20000 + rng() % 150000));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child ended by itself: " << status;
    uint64_t b = 0;
    while (read(fds[0], &b, sizeof b) == sizeof b) {
      for (uint64_t k : Keys(4000, b)) committed.push_back(k);
      batch_seed = b + 1;
    }
    close(fds[0]);
    auto s = SeenState::Open(dir_, KeysOf("test"));
    for (uint8_t seen : ContainsKeys(*s, committed)) ASSERT_EQ(seen, 1);
    ++batch_seed;  // the batch that may have been cut: never asked again
  }
  EXPECT_GT(committed.size(), 0u);
}

}  // namespace
}  // namespace uriscan
