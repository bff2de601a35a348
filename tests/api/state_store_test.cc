// SPDX-License-Identifier: MIT
// Key runs and the persistent seen-set: round trips, the bytes-per-key
// bound, damage that must be caught, lookups against a reference set,
// compaction, the lock, leftovers of a killed run and profile mismatches.
#include "src/store/state_store.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "gtest/gtest.h"
#include "uriscan/dedup.h"
#include "src/store/key_runs.h"

namespace uriscan {
namespace {

class StateFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/uriscan_state_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    ASSERT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0);
  }
  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  std::string dir_;
};

std::vector<uint64_t> RandomKeys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> keys;
  while (keys.size() < n) {
    for (size_t i = keys.size(); i < n; ++i)
      if (const uint64_t k = rng()) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  }
  return keys;
}

void WriteRun(const std::string& path, const std::vector<uint64_t>& keys,
              uint64_t tag = 7) {
  KeyRunWriter w;
  unlink(path.c_str());  // a run is always a new file
  ASSERT_TRUE(w.Open(path, tag)) << w.error();
  for (uint64_t k : keys) w.Add(k);
  ASSERT_TRUE(w.Finish()) << w.error();
  ASSERT_EQ(w.keys(), keys.size());
}

// Decodes a run; false when the reader reports damage.
bool ReadRun(const std::string& path, std::vector<uint64_t>* keys,
             std::string* error, uint64_t tag = 7) {
  KeyRunReader r;
  keys->clear();
  if (!r.Open(path, tag)) {
    *error = r.error();
    return false;
  }
  uint64_t k;
  while (r.Next(&k)) keys->push_back(k);
  *error = r.error();
  return !r.failed();
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(StateFiles, KeyRunsRoundTripAtEveryBlockBoundary) {
  for (size_t n : {0, 1, 2, 4095, 4096, 4097, 8193, 100000}) {
    const std::vector<uint64_t> keys = RandomKeys(n, n + 1);
    WriteRun(Path("r"), keys);
    std::vector<uint64_t> back;
    std::string error;
    ASSERT_TRUE(ReadRun(Path("r"), &back, &error)) << n << ": " << error;
    ASSERT_EQ(back, keys) << n;
  }
}

TEST_F(StateFiles, KeyRunsRoundTripSkewedGaps) {
  // Dense keys (gap 1, Rice parameter 0), huge gaps past the escape, the
  // extremes of the key space, and a block that mixes both.
  std::vector<uint64_t> keys;
  for (uint64_t k = 1; k <= 5000; ++k) keys.push_back(k);
  for (uint64_t k = uint64_t{1} << 40; keys.size() < 9000; k += 3) keys.push_back(k);
  keys.push_back(uint64_t{1} << 62);
  keys.push_back((uint64_t{1} << 62) + 1);
  keys.push_back(~uint64_t{0} - 1);
  keys.push_back(~uint64_t{0});
  WriteRun(Path("r"), keys);
  std::vector<uint64_t> back;
  std::string error;
  ASSERT_TRUE(ReadRun(Path("r"), &back, &error)) << error;
  EXPECT_EQ(back, keys);
}

TEST_F(StateFiles, RandomKeysStayWithinTheBytesPerKeyBound) {
  for (size_t n : {1000, 100000, 1000000}) {
    WriteRun(Path("r"), RandomKeys(n, 42));
    struct stat st;
    ASSERT_EQ(stat(Path("r").c_str(), &st), 0);
    const double bytes = static_cast<double>(st.st_size);
    EXPECT_LE(bytes, KeyRunBoundBytes(n)) << n;
    // and close to the entropy of the gaps, 64 - log2 n + 1.44 bits, plus
    // the index: a 20-byte entry and a raw first key per 128 keys (1.6)
    EXPECT_LE(bytes / n * 8, 64 - std::log2(double(n)) + 1.7 + 1.6 + 600.0 / n)
        << n;
  }
}

TEST_F(StateFiles, EveryFlippedByteOrTruncationIsCaught) {
  const std::vector<uint64_t> keys = RandomKeys(3000, 9);
  WriteRun(Path("good"), keys);
  const std::string good = Slurp(Path("good"));
  std::mt19937_64 rng(5);
  for (size_t at = 0; at < good.size(); at += 1 + rng() % 37) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ (1 << (rng() % 8)));
    Spit(Path("bad"), bad);
    std::vector<uint64_t> back;
    std::string error;
    EXPECT_FALSE(ReadRun(Path("bad"), &back, &error)) << "byte " << at;
    EXPECT_NE(error.find("damaged"), std::string::npos) << error;
  }
  for (size_t len : {size_t{0}, size_t{20}, size_t{48}, good.size() / 2,
                     good.size() - 1}) {
    Spit(Path("bad"), good.substr(0, len));
    std::vector<uint64_t> back;
    std::string error;
    EXPECT_FALSE(ReadRun(Path("bad"), &back, &error)) << len;
  }
  // Another profile's run is refused, not merged into this one's.
  std::vector<uint64_t> back;
  std::string error;
  EXPECT_FALSE(ReadRun(Path("good"), &back, &error, /*tag=*/8));
}

StateStore::Identity TestIdentity(uint64_t tag = 0x1234) {
  StateStore::Identity id;
  id.profile = "scheme";
  id.version = 1;
  id.tag = tag;
  return id;
}

// One run of the seen-set: `keys` (sorted, distinct) offered in order;
// returns those that were new.
std::vector<uint64_t> Day(const std::string& dir,
                          const std::vector<uint64_t>& keys,
                          bool commit = true) {
  StateStore state;
  std::string error;
  EXPECT_TRUE(state.OpenForUpdate(dir, TestIdentity(), &error)) << error;
  EXPECT_TRUE(state.BeginLookups(&error)) << error;
  std::vector<uint64_t> fresh;
  for (uint64_t k : keys)
    if (state.Offer(k)) fresh.push_back(k);
  EXPECT_TRUE(state.EndLookups(&error)) << error;
  if (commit) {
    EXPECT_TRUE(state.Commit(&error)) << error;
  }
  return fresh;
}

TEST_F(StateFiles, LookupsMatchAReferenceSetOverManyRunsAndCompactions) {
  std::set<uint64_t> seen;
  std::mt19937_64 rng(11);
  size_t max_runs = 0;
  for (int day = 0; day < 24; ++day) {
    // Half the day's keys were seen before (when there are any).
    std::set<uint64_t> today;
    std::vector<uint64_t> old(seen.begin(), seen.end());
    const size_t n = 2000 + rng() % 3000;
    while (today.size() < n) {
      if (!old.empty() && rng() % 2) today.insert(old[rng() % old.size()]);
      else if (uint64_t k = rng()) today.insert(k);
    }
    std::vector<uint64_t> keys(today.begin(), today.end());
    std::vector<uint64_t> expect;
    for (uint64_t k : keys)
      if (!seen.count(k)) expect.push_back(k);
    ASSERT_EQ(Day(dir_, keys), expect) << "day " << day;
    seen.insert(keys.begin(), keys.end());
    StateStore state;
    std::string error;
    ASSERT_TRUE(state.OpenForReading(dir_, &error)) << error;
    ASSERT_EQ(state.keys(), seen.size());
    ASSERT_TRUE(state.Verify(&error)) << error;
    max_runs = std::max(max_runs, state.runs().size());
  }
  // Geometric compaction: about log_5(24) + 1 runs, never one per day.
  EXPECT_LE(max_runs, 4u);
  EXPECT_GE(max_runs, 2u);
}

TEST_F(StateFiles, UncommittedRunLeavesTheStateAsItWas) {
  const std::vector<uint64_t> a = RandomKeys(5000, 1), b = RandomKeys(5000, 2);
  Day(dir_, a);
  const std::string manifest = Slurp(Path("MANIFEST"));
  EXPECT_EQ(Day(dir_, b, /*commit=*/false), b);
  EXPECT_EQ(Slurp(Path("MANIFEST")), manifest);
  EXPECT_EQ(Day(dir_, b), b);  // b is still new
}

// A link planted in the directory while a run goes on (after its cleanup of
// leftovers) is never followed: its target stays as it was.
TEST_F(StateFiles, PlantedLinksAreNeverFollowed) {
  const std::string victim = dir_ + "-victim";
  std::ofstream(victim) << "precious\n";
  Day(dir_, RandomKeys(100, 1));
  StateStore state;
  std::string error;
  ASSERT_TRUE(state.OpenForUpdate(dir_, TestIdentity(), &error)) << error;
  for (int n = 0; n < 10; ++n) {
    char name[32];
    std::snprintf(name, sizeof name, "run-%06d.keys.tmp", n);
    ASSERT_EQ(symlink(victim.c_str(), Path(name).c_str()), 0);
  }
  ASSERT_EQ(symlink(victim.c_str(), Path("MANIFEST.tmp").c_str()), 0);
  if (state.BeginLookups(&error)) {
    for (uint64_t k : RandomKeys(100, 2)) state.Offer(k);
    if (state.EndLookups(&error)) state.Commit(&error);
  }
  std::ifstream in(victim);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "precious\n");
  KeyRunWriter w;
  EXPECT_FALSE(w.Open(Path("run-000000.keys.tmp"), 7));
  unlink(victim.c_str());
}

TEST_F(StateFiles, SecondUpdaterIsLockedOut) {
  StateStore first, second;
  std::string error;
  ASSERT_TRUE(first.OpenForUpdate(dir_, TestIdentity(), &error)) << error;
  EXPECT_FALSE(second.OpenForUpdate(dir_, TestIdentity(), &error));
  EXPECT_NE(error.find("in use"), std::string::npos) << error;
}

TEST_F(StateFiles, AnotherProfileIsRefusedWithBothNames) {
  Day(dir_, RandomKeys(10, 3));
  StateStore state;
  std::string error;
  StateStore::Identity other = TestIdentity(0x9999);
  other.profile = "crawler";
  other.tracking = "utm_*";
  EXPECT_FALSE(state.OpenForUpdate(dir_, other, &error));
  EXPECT_NE(error.find("'scheme' (version 1)"), std::string::npos) << error;
  EXPECT_NE(error.find("'crawler' (version 1, tracking utm_*)"),
            std::string::npos)
      << error;
}

TEST_F(StateFiles, AnOlderProfileVersionIsRefusedSayingWhy) {
  Day(dir_, RandomKeys(10, 3));
  StateStore state;
  std::string error;
  StateStore::Identity newer = TestIdentity(0x7777);
  newer.version = 2;
  EXPECT_FALSE(state.OpenForUpdate(dir_, newer, &error));
  EXPECT_NE(error.find("'scheme' (version 1), made by another uriscan: "
                       "version 2 of the profiles writes other normal forms"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("build the state again"), std::string::npos) << error;
}

TEST_F(StateFiles, LeftoversOfAKilledRunAreRemoved) {
  Day(dir_, RandomKeys(100, 4));
  Spit(Path("run-000099.keys"), "partial");
  Spit(Path("run-000100.keys.tmp"), "partial");
  Spit(Path("MANIFEST.tmp"), "partial");
  Spit(Path("notes.txt"), "the user's own file");
  StateStore state;
  std::string error;
  ASSERT_TRUE(state.OpenForUpdate(dir_, TestIdentity(), &error)) << error;
  struct stat st;
  EXPECT_NE(stat(Path("run-000099.keys").c_str(), &st), 0);
  EXPECT_NE(stat(Path("run-000100.keys.tmp").c_str(), &st), 0);
  EXPECT_NE(stat(Path("MANIFEST.tmp").c_str(), &st), 0);
  EXPECT_EQ(stat(Path("notes.txt").c_str(), &st), 0);
}

// A MANIFEST with a valid checksum whose `next` is too low made the next
// runs be written over live ones, and the state was lost: it is damage.
TEST_F(StateFiles, AManifestThatContradictsItsRunsIsDamage) {
  for (uint64_t day = 1; day <= 3; ++day) Day(dir_, RandomKeys(100, day));
  const std::string manifest = Slurp(Path("MANIFEST"));
  for (const char* edit : {"next 1\n", "next 0\n", "twice"}) {
    std::string m = manifest.substr(0, manifest.rfind("checksum "));
    if (std::string(edit) == "twice") {
      const size_t run = m.find("\nrun ") + 1;
      m.insert(run, m.substr(run, m.find('\n', run) + 1 - run));
    } else {
      const size_t next = m.find("next ");
      ASSERT_NE(next, std::string::npos) << m;
      m.replace(next, m.find('\n', next) + 1 - next, edit);
    }
    char sum[17];
    std::snprintf(sum, sizeof sum, "%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(m.data(), m.size())));
    Spit(Path("MANIFEST"), m + "checksum " + sum + "\n");
    const std::string before = Slurp(Path("MANIFEST"));
    StateStore state;
    std::string error;
    EXPECT_FALSE(state.OpenForUpdate(dir_, TestIdentity(), &error)) << edit;
    EXPECT_NE(error.find("is damaged: MANIFEST names run-"), std::string::npos)
        << error;
    EXPECT_EQ(Slurp(Path("MANIFEST")), before);
  }
  Spit(Path("MANIFEST"), manifest);
  StateStore state;
  std::string error;
  EXPECT_TRUE(state.OpenForUpdate(dir_, TestIdentity(), &error)) << error;
}

TEST_F(StateFiles, DamagedStateIsAnErrorNeverEmpty) {
  Day(dir_, RandomKeys(40000, 5));  // several blocks, past one buffer
  const std::string manifest = Slurp(Path("MANIFEST"));
  std::string run_name = manifest.substr(manifest.find("run run-") + 4, 15);
  const std::string run = Slurp(Path(run_name));
  auto open_fails = [&](const char* what) {
    StateStore state;
    std::string error;
    EXPECT_FALSE(state.OpenForUpdate(dir_, TestIdentity(), &error)) << what;
    EXPECT_NE(error.find("damaged"), std::string::npos) << what << ": " << error;
  };
  // A truncated run, a missing one, a manifest altered or gone.
  Spit(Path(run_name), run.substr(0, run.size() - 3));
  open_fails("truncated run");
  ASSERT_EQ(unlink(Path(run_name).c_str()), 0);
  open_fails("missing run");
  Spit(Path(run_name), run);
  std::string altered = manifest;
  altered[manifest.find("keys ") + 5] ^= 1;
  Spit(Path("MANIFEST"), altered);
  open_fails("altered manifest");
  ASSERT_EQ(unlink(Path("MANIFEST").c_str()), 0);
  open_fails("no manifest");
  Spit(Path("MANIFEST"), manifest);
  // A flipped fence byte passes the size checks; the fence's checksum,
  // read when the state is opened for an update, catches it and names the
  // run.
  std::string flipped = run;
  flipped[run.size() - 10] ^= 0x10;
  Spit(Path(run_name), flipped);
  open_fails("flipped fence byte");
  {
    StateStore state;
    std::string error;
    EXPECT_FALSE(state.OpenForUpdate(dir_, TestIdentity(), &error));
    EXPECT_NE(error.find(run_name + " is damaged: bad fence checksum"),
              std::string::npos)
        << error;
  }
  // A flipped block byte: found by the lookup that reads the block, which
  // then gives no answer (EndLookups fails), and by a full check.
  flipped = run;
  flipped[kKeyRunHeaderBytes + 3] ^= 0x10;  // block 0
  Spit(Path(run_name), flipped);
  std::string error;
  {
    StateStore state;
    ASSERT_TRUE(state.OpenForUpdate(dir_, TestIdentity(), &error)) << error;
    ASSERT_TRUE(state.BeginLookups(&error)) << error;
    state.Offer(RandomKeys(40000, 5)[3]);  // in block 0
    EXPECT_FALSE(state.EndLookups(&error));
    EXPECT_NE(error.find(run_name + " is damaged: bad checksum of block 0"),
              std::string::npos)
        << error;
  }
  StateStore reading;
  EXPECT_FALSE(reading.OpenForReading(dir_, &error, /*checksums=*/true));
  EXPECT_NE(error.find("bad checksum of block 0"), std::string::npos) << error;
}

// Every flipped byte of a run, and every truncation, either fails to open,
// or fails the lookups that read it: a lookup never answers wrongly.
TEST_F(StateFiles, LookupsGiveDamageOrTheRightAnswerNeverAWrongOne) {
  const std::vector<uint64_t> keys = RandomKeys(30000, 21);  // 2 pages
  WriteRun(Path("good"), keys);
  const std::string good = Slurp(Path("good"));
  // Half the queries are keys of the run, half are not.
  std::vector<uint64_t> queries;
  std::mt19937_64 rng(3);
  for (size_t i = 0; i < keys.size(); i += 1 + rng() % 150) {
    queries.push_back(keys[i]);
    if (keys[i] + 1 != keys[i + 1 < keys.size() ? i + 1 : i])
      queries.push_back(keys[i] + 1);
  }
  size_t damage_seen = 0, opens_failed = 0;
  for (size_t at = 0; at < good.size(); at += 1 + rng() % 197) {
    std::string bad = good;
    bad[at] = static_cast<char>(bad[at] ^ (1 << (rng() % 8)));
    Spit(Path("bad"), bad);
    KeyRunReader r;
    if (!r.Open(Path("bad"), 7)) {
      ++opens_failed;
      EXPECT_NE(r.error().find("damaged"), std::string::npos) << r.error();
      continue;
    }
    for (uint64_t q : queries) {
      const bool found = r.Contains(q);
      if (r.failed()) break;
      ASSERT_EQ(found, std::binary_search(keys.begin(), keys.end(), q))
          << "byte " << at << ", key " << q;
    }
    damage_seen += r.failed();
  }
  // The queries touch every block, so every flip is found one way or the
  // other (a flip in a block's padding bits included: its checksum).
  EXPECT_GT(opens_failed, 0u);
  EXPECT_GT(damage_seen, 0u);
  for (size_t len : {size_t{0}, size_t{63}, good.size() / 2, good.size() - 1}) {
    Spit(Path("bad"), good.substr(0, len));
    KeyRunReader r;
    EXPECT_FALSE(r.Open(Path("bad"), 7)) << len;
  }
}

// A few keys against a large run read an index page and a block each, not
// the run: the work follows the lookups, not the state.
TEST_F(StateFiles, FewLookupsReadOnlyTheirBlocks) {
  const std::vector<uint64_t> keys = RandomKeys(1000000, 8);
  WriteRun(Path("big"), keys);
  struct stat st;
  ASSERT_EQ(stat(Path("big").c_str(), &st), 0);
  KeyRunReader r;
  ASSERT_TRUE(r.Open(Path("big"), 7)) << r.error();
  const uint64_t opened = r.bytes_read();
  EXPECT_LT(opened, 64u + 16 * 100);  // the header and the fence
  std::mt19937_64 rng(4);
  std::vector<uint64_t> asked;
  for (int i = 0; i < 50; ++i) asked.push_back(keys[rng() % keys.size()]);
  for (int i = 0; i < 50; ++i) asked.push_back(rng() | 1);
  std::sort(asked.begin(), asked.end());
  for (uint64_t q : asked)
    ASSERT_EQ(r.Contains(q), std::binary_search(keys.begin(), keys.end(), q));
  ASSERT_FALSE(r.failed()) << r.error();
  // 100 lookups: an index page (4 KB) and a block (under 2 KB) each, at
  // most, where the run is 6 MB.
  EXPECT_LE(r.bytes_read() - opened, 100u * (4088 + 2048));
  EXPECT_GT(static_cast<uint64_t>(st.st_size), 20 * (r.bytes_read() - opened));
  // Every key in order reads the run once, a group at a time.
  KeyRunReader all;
  ASSERT_TRUE(all.Open(Path("big"), 7));
  for (uint64_t k : keys) ASSERT_TRUE(all.Contains(k));
  EXPECT_LE(all.bytes_read(), static_cast<uint64_t>(st.st_size) + 8192);
}

// The compaction policy: levels strictly fall from the oldest run to the
// newest, so runs stay few and a small run never merges into a large one;
// each key is rewritten a bounded number of times (the write amplification
// the state reports).
TEST_F(StateFiles, CompactionBoundsRunsAndRewrites) {
  std::mt19937_64 rng(12);
  size_t max_runs = 0;
  uint64_t total = 0;
  for (int day = 0; day < 300; ++day) {
    std::vector<uint64_t> keys = RandomKeys(200, rng());
    total += keys.size();
    Day(dir_, keys);
    StateStore state;
    std::string error;
    ASSERT_TRUE(state.OpenForReading(dir_, &error)) << error;
    const auto& runs = state.runs();
    for (size_t i = 1; i < runs.size(); ++i) {
      EXPECT_GT(StateStore::Level(runs[i - 1].keys),
                StateStore::Level(runs[i].keys))
          << "day " << day;
    }
    max_runs = std::max(max_runs, runs.size());
  }
  // A large run and a day of a few keys: the day's run stays apart, however
  // close the large run is to the next level.
  {
    std::vector<uint64_t> big = RandomKeys(4096 * 25, 99);  // level 2's top
    StateStore state;
    std::string error;
    const std::string other = dir_ + "/big";
    Day(other, big);
    Day(other, RandomKeys(3, 98));
    ASSERT_TRUE(state.OpenForReading(other, &error)) << error;
    EXPECT_EQ(state.runs().size(), 2u);
    EXPECT_EQ(state.rewritten_bytes(), 0u);
  }
  // 60,000 keys: levels 0 to 3 (up to 4096 * 5^3 keys), one run each.
  EXPECT_LE(max_runs, 4u);
  StateStore state;
  std::string error;
  ASSERT_TRUE(state.OpenForReading(dir_, &error)) << error;
  EXPECT_EQ(state.keys(), total);
  // Each key is rewritten a few times per level it passes (four levels),
  // most of them at level 0, where runs are small.
  const double amplification =
      static_cast<double>(state.written_bytes() + state.rewritten_bytes()) /
      static_cast<double>(state.written_bytes());
  EXPECT_GT(amplification, 2.0);
  EXPECT_LT(amplification, 20.0);
}

// The names in `dir`, sorted; {"<missing>"} when it does not exist.
std::vector<std::string> Names(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return {"<missing>"};
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

TEST_F(StateFiles, AnUpdateWithoutCommitLeavesTheDirectoryAsItFoundIt) {
  // A new directory is removed again; an empty one stays empty; neither
  // gets a MANIFEST, so no profile is fixed by a run that did not commit.
  const std::string fresh = Path("fresh");
  Day(fresh, RandomKeys(100, 1), /*commit=*/false);
  EXPECT_EQ(Names(fresh), std::vector<std::string>{"<missing>"});
  ASSERT_EQ(mkdir(fresh.c_str(), 0755), 0);
  Day(fresh, RandomKeys(100, 1), /*commit=*/false);
  EXPECT_EQ(Names(fresh), std::vector<std::string>{});
  {
    StateStore state;
    std::string error;
    EXPECT_FALSE(state.OpenForReading(fresh, &error));
    EXPECT_NE(error.find("is not a state: it has no MANIFEST"),
              std::string::npos)
        << error;
  }
  StateStore::Identity other = TestIdentity(0x9999);
  other.profile = "crawler";
  {
    StateStore state;
    std::string error;
    ASSERT_TRUE(state.OpenForUpdate(fresh, other, &error)) << error;
  }
  // A state with its runs: a run that does not commit removes only the
  // LOCK it made (a copied state has none).
  Day(dir_, RandomKeys(100, 2));
  ASSERT_EQ(unlink(Path("LOCK").c_str()), 0);
  const std::vector<std::string> before = Names(dir_);
  Day(dir_, RandomKeys(100, 3), /*commit=*/false);
  EXPECT_EQ(Names(dir_), before);
}

TEST(DedupTest, DeferAllAndAFilterGiveFirstOccurrencesOfNewKeys) {
  // Keys 1..9 repeated; the filter says the even ones were seen before.
  for (size_t memory : {size_t{1} << 20, size_t{4096}}) {
    Dedup::Options o;
    o.memory_bytes = memory;
    o.defer_all = true;
    Dedup d(o);
    std::vector<uint64_t> keys;
    for (int i = 0; i < 3000; ++i) keys.push_back(1 + (i * 7919) % 9);
    for (uint64_t k : keys) ASSERT_EQ(d.Add(k), Dedup::Verdict::kDeferred);
    std::vector<uint64_t> offered;
    std::vector<bool> first;
    std::string error;
    ASSERT_TRUE(d.Finish(&first, &error, [&](uint64_t k) {
      offered.push_back(k);
      return k % 2 == 1;
    })) << error;
    EXPECT_EQ(offered, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
    std::set<uint64_t> met;
    for (size_t j = 0; j < keys.size(); ++j) {
      const bool expect = keys[j] % 2 == 1 && met.insert(keys[j]).second;
      ASSERT_EQ(first[j], expect) << j;
    }
    EXPECT_EQ(d.distinct(), 5u);
    EXPECT_EQ(d.runs() == 0, memory > 4096);  // whole in memory: no run
    EXPECT_EQ(d.filtered(), 4u);
  }
}

}  // namespace
// The key space cut into parts settled on threads gives Finish()'s answer,
// each part's filter seeing only its keys, in order.
TEST(DedupTest, PartsOnThreadsGiveTheAnswerOfOneMerge) {
  std::mt19937_64 rng(17);
  std::vector<uint64_t> keys;
  for (int i = 0; i < 200000; ++i) keys.push_back((rng() % 50000 + 1) * 0x9E3779B97F4A7C15ull | 1);
  auto seen_before = [](uint64_t k) { return (k >> 7) % 3 == 0; };
  std::vector<bool> expect;
  {
    Dedup::Options o;
    o.memory_bytes = 256 << 10;  // several sorted runs
    o.defer_all = true;
    Dedup d(o);
    for (uint64_t k : keys) d.Add(k);
    std::string error;
    ASSERT_TRUE(d.Finish(&expect, &error, [&](uint64_t k) { return !seen_before(k); }))
        << error;
  }
  // Spilled to several runs, and held whole in memory (settled from the
  // sorted buffer, no run written).
  for (size_t memory : {size_t{256} << 10, size_t{64} << 20})
  for (size_t parts : {size_t{2}, size_t{8}}) {
    for (size_t threads : {size_t{1}, size_t{2}, size_t{3}}) {
      Dedup::Options o;
      o.memory_bytes = memory;
      o.defer_all = true;
      Dedup d(o);
      for (uint64_t k : keys) d.Add(k);
      std::vector<uint64_t> starts;
      std::vector<Dedup::Filter> filters;
      std::vector<std::vector<uint64_t>> offered(parts);
      const int bits = __builtin_ctzll(parts);
      for (size_t p = 0; p < parts; ++p) {
        starts.push_back(p == 0 ? 0 : uint64_t{p} << (64 - bits));
        filters.push_back([&, p](uint64_t k) {
          offered[p].push_back(k);
          return !seen_before(k);
        });
      }
      std::vector<bool> first;
      std::string error;
      ASSERT_TRUE(d.FinishByParts(&first, &error, starts, filters, threads)) << error;
      EXPECT_EQ(first, expect) << parts << " parts, " << threads << " threads, "
                               << memory << " bytes";
      EXPECT_EQ(d.runs() == 0, memory > (size_t{1} << 20));
      for (size_t p = 0; p < parts; ++p) {
        EXPECT_TRUE(std::is_sorted(offered[p].begin(), offered[p].end()));
        for (uint64_t k : offered[p]) ASSERT_EQ(k >> (64 - bits), p);
      }
    }
  }
}

}  // namespace uriscan
