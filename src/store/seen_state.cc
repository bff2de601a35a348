// SPDX-License-Identifier: MIT
// SeenState (uriscan/seen_state.h): a state directory held open by a
// long-running program. The directory, its lock, commits and merges are
// StateStore's (state_store.h), the same code the command runs; this adds
// what a process that stays needs: the lock held across commits, lookups
// of single keys in any order (a Bloom filter per run, then the run's
// index), the keys added since the last commit in memory (spilled to runs
// past a quarter of the budget), and merges made on a thread of their own.
#include "uriscan/seen_state.h"

// Header-only, as in fingerprint.cc: xxHash is never a link dependency.
#define XXH_INLINE_ALL
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "src/store/durable.h"
#include "src/store/key_runs.h"
#include "src/store/kway_merge.h"
#include "src/store/output_file.h"
#include "src/store/state_identity.h"
#include "src/store/state_store.h"
#include "uriscan/dedup.h"
#include "uriscan/fingerprint.h"

namespace uriscan {
namespace {

// A split-block Bloom filter of a run's keys: a key sets one bit in each
// of the 8 words of one 64-byte block, so a lookup or an insert touches
// one cache line (a filter of k independent probes touches k). At 10 bits
// a key about 1 lookup in 60 of an absent key reads the run.
class RunFilter {
 public:
  static constexpr uint64_t kBitsPerKey = 10;
  explicit RunFilter(uint64_t keys) : blocks_(Blocks(keys)) {
    words_.assign(blocks_ * 8, 0);
  }
  static uint64_t BytesFor(uint64_t keys) { return Blocks(keys) * 64; }
  uint64_t bytes() const { return blocks_ * 64; }
  void Insert(uint64_t key) {
    uint64_t* block = Block(key);
    const uint64_t bits = Bits(key);
    for (int i = 0; i < 8; ++i) block[i] |= uint64_t{1} << ((bits >> (6 * i)) & 63);
  }
  bool MaybeContains(uint64_t key) const {
    const uint64_t* block = const_cast<RunFilter*>(this)->Block(key);
    const uint64_t bits = Bits(key);
    for (int i = 0; i < 8; ++i)
      if (!(block[i] >> ((bits >> (6 * i)) & 63) & 1)) return false;
    return true;
  }

 private:
  static uint64_t Blocks(uint64_t keys) {
    return std::max<uint64_t>(1, (std::max<uint64_t>(keys, 1) * kBitsPerKey + 511) / 512);
  }
  // Keys are hashes already; the multiplications only keep a caller's
  // keys of another shape (a Scrapy fingerprint's bytes) well spread.
  uint64_t* Block(uint64_t key) {
    const unsigned __int128 m =
        static_cast<unsigned __int128>(key * 0x9E3779B97F4A7C15ull) * blocks_;
    return &words_[static_cast<uint64_t>(m >> 64) * 8];
  }
  static uint64_t Bits(uint64_t key) {
    return (key ^ (key >> 29)) * 0xBF58476D1CE4E5B9ull;
  }
  uint64_t blocks_;
  std::vector<uint64_t> words_;
};

// A key run as the lookups see it: its path under the state's directory,
// a Bloom filter of its keys when the memory budget has room, and a
// reader kept open on it when it is in the top directory (a shard's runs
// are opened for each lookup: no descriptor is held per shard).
struct RunView {
  std::string path;
  uint64_t keys = 0, bytes = 0;
  bool top = true;
  std::unique_ptr<RunFilter> bloom;
  bool no_room = false;  // no filter: the budget had no room for it
  std::unique_ptr<KeyRunReader> reader;
};
using RunPtr = std::shared_ptr<RunView>;

template <class Reader>
struct MergeSource {
  Reader* reader;
  const bool* stop;
  bool Next(uint64_t* key) { return !*stop && reader->Next(key); }
};

}  // namespace

struct SeenState::Impl {
  std::string dir;
  SeenStateOptions options;
  StateStore::Identity identity;
  std::unique_ptr<Fingerprinter> fingerprinter;  // null: keys_of
  int dir_fd = -1, lock_fd = -1;
  std::unique_ptr<StateStore> store;
  uint64_t next_run_floor = 0;
  // The runs each lookup asks: [0] the top directory's (all of an
  // unsharded state's), [1 + i] shard i's, with each shard's record when
  // they were read (a shard whose record is unchanged is not read again).
  std::vector<std::vector<RunPtr>> places;
  std::vector<StateStore::ShardRecord> loaded_records;
  uint64_t bloom_bytes = 0;
  // Added since the last commit: in memory, then spilled runs.
  SeenSet pending;
  std::vector<RunPtr> spills;
  uint64_t spilled_keys = 0;
  std::string new_rows;  // the rows Add() found new, for Commit(output)
  uint64_t rows_added = 0;  // rows (and keys) given to Add*() since
  XXH3_state_t* digest = nullptr;  // of every row added since the commit
  uint64_t invalid = 0, commits = 0, merges = 0, disk_lookups = 0;
  bool broken = false;  // a commit failed: the object must be reopened
  // The background merge.
  mutable std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::vector<std::string> to_remove;  // runs no MANIFEST names any more
  bool want_filters = false;
  std::string merge_error;
  // A merge made and named, waiting for the next commit to publish it with
  // its own MANIFEST (no commit of its own: no fsync while a caller waits).
  struct ReadyMerge {
    std::vector<StateStore::Run> plan;
    StateStore::Run made;
    RunPtr view;
  };
  // Two lanes of merges: small ones (lane 0, the thread that also builds
  // filters) and large ones (lane 1, more than kLargeMergeKeys keys), so
  // that a merge of a hundred million keys never leaves the runs of the
  // commits made meanwhile unmerged. Their ranges of runs never overlap:
  // each plans around what the other is merging.
  static constexpr uint64_t kLargeMergeKeys = uint64_t{1} << 22;
  struct Lane {
    std::thread thread;
    bool want = false, merging = false;
    std::vector<StateStore::Run> plan;  // merging, or ready
    std::unique_ptr<ReadyMerge> ready;
  };
  Lane lanes[2];
  void WantMerges() {
    lanes[0].want = lanes[1].want = true;
    cv.notify_all();
  }

  ~Impl() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    cv.notify_all();
    for (Lane& lane : lanes)
      if (lane.thread.joinable()) lane.thread.join();
    for (Lane& lane : lanes) {  // published, or left for the next opening
      if (!lane.ready || broken) continue;
      std::string ignored;
      if (!store->ApplyMerge(lane.ready->plan, lane.ready->made, &ignored) &&
          !store->published())
        unlinkat(dir_fd, lane.ready->made.name.c_str(), 0);
    }
    if (store)
      for (std::string& name : store->TakeRemoved()) to_remove.push_back(name);
    for (const std::string& name : to_remove) unlinkat(dir_fd, name.c_str(), 0);
    DropSpills();
    store.reset();  // a state never committed is removed as it was made
    if (digest) XXH3_freeState(digest);
    if (lock_fd >= 0) close(lock_fd);
    if (dir_fd >= 0) close(dir_fd);
  }

  [[noreturn]] void Fail(const std::string& message) const {
    throw SeenStateError(message);
  }
  void Check() const {
    if (broken)
      Fail("state " + dir + ": an earlier commit failed; the state is as "
           "before it: open it again");
    if (!merge_error.empty()) Fail(merge_error);
  }
  void CheckWritable() const {
    Check();
    if (options.read_only)
      Fail("state " + dir + " was opened read-only: nothing can be added");
  }

  // A pending set whose first table fits an eighth of the budget.
  SeenSet NewPending() const {
    size_t slots = SeenSet::kInitialSlots;
    while (slots > 16 && slots * sizeof(uint64_t) > options.memory / 8)
      slots /= 2;
    return SeenSet(slots);
  }

  void ResetDigest() {
    rows_added = 0;
    if (!digest) digest = XXH3_createState();
    XXH3_64bits_reset_withSeed(digest, identity.tag);
  }

  // ---- Runs and their Bloom filters ----

  // The filter of the run at `path` (its keys read), or null when the
  // budget has no room. Called with `mu` held for small runs only; the
  // background thread builds the others without it (BuildFilters()).
  std::unique_ptr<RunFilter> FilterOf(const std::string& path,
                                      uint64_t keys) const {
    KeyRunReader reader;
    if (!reader.Open(dir_fd, path, dir + "/" + path, identity.tag))
      throw SeenStateError(Damage(reader.error()));
    auto filter = std::make_unique<RunFilter>(keys);
    uint64_t key = 0;
    while (reader.Next(&key)) filter->Insert(key);
    if (reader.failed()) throw SeenStateError(Damage(reader.error()));
    return filter;
  }
  bool Room(uint64_t keys) const {
    return bloom_bytes + RunFilter::BytesFor(keys) <= options.memory / 2;
  }
  static constexpr uint64_t kFilterNowKeys = uint64_t{1} << 16;

  // The runs that still want a filter, smallest first (most runs covered
  // for the bytes).
  RunPtr NextUnfiltered() {
    RunPtr best;
    auto consider = [&](const RunPtr& r) {
      if (r->bloom || r->no_room || r->keys == 0) return;
      if (!best || r->keys < best->keys) best = r;
    };
    for (auto& place : places)
      for (const RunPtr& r : place) consider(r);
    for (const RunPtr& r : spills) consider(r);
    return best;
  }

  std::string Damage(const std::string& what) const {
    return "state " + dir + " is damaged: " + what +
           " (it is left as it is; restore it or start another directory)";
  }

  // The run lists again from `store` (after each commit and merge): runs
  // already known keep their filters and readers; `made` has the filter of
  // a run just merged.
  void Refresh(std::map<std::string, RunPtr> made = {}) {
    std::map<std::string, RunPtr> known = std::move(made);
    for (auto& place : places)
      for (RunPtr& r : place) known.emplace(r->path, r);
    const uint32_t shards = store->shards();
    std::vector<std::vector<RunPtr>> next(shards > 1 ? 1 + shards : 1);
    auto view = [&](const std::string& path, const StateStore::Run& run,
                    bool top) {
      auto it = known.find(path);
      if (it != known.end()) return it->second;
      auto r = std::make_shared<RunView>();
      r->path = path;
      r->keys = run.keys;
      r->bytes = run.bytes;
      r->top = top;
      if (run.keys <= kFilterNowKeys && Room(run.keys)) {
        r->bloom = FilterOf(path, run.keys);
        bloom_bytes += r->bloom->bytes();
      } else {
        want_filters = true;  // built in the background
      }
      return r;
    };
    bloom_bytes = 0;
    for (const auto& [path, r] : known)
      if (r->bloom) bloom_bytes += r->bloom->bytes();
    for (const StateStore::Run& run : store->runs())
      next[0].push_back(view(run.name, run, true));
    // A shard alone (a Dask task's): its range of the top's runs too.
    if (const StateStore* top = store->top()) {
      for (const StateStore::Run& run : top->runs())
        next[0].push_back(view("../" + run.name, run, true));
    }
    if (shards > 1) {
      const auto& records = store->shard_records();
      loaded_records.resize(shards);
      for (uint32_t i = 0; i < shards; ++i) {
        const bool same = places.size() == next.size() &&
                          records[i] == loaded_records[i];
        if (same) {
          next[1 + i] = places[1 + i];
          continue;
        }
        std::string error;
        if (!store->LoadShardRun(i, &error)) Fail(error);
        const std::string prefix = StateStore::ShardDirName(i) + "/";
        for (const StateStore::Run& run : store->shard(i)->runs())
          next[1 + i].push_back(view(prefix + run.name, run, false));
        loaded_records[i] = records[i];
      }
    }
    places = std::move(next);
    bloom_bytes = 0;
    for (auto& place : places)
      for (RunPtr& r : place)
        if (r->bloom) bloom_bytes += r->bloom->bytes();
    for (RunPtr& r : spills)
      if (r->bloom) bloom_bytes += r->bloom->bytes();
    if (want_filters) cv.notify_all();
  }

  // ---- Lookups ----

  bool In(RunView* run, uint64_t key) {
    if (run->bloom && !run->bloom->MaybeContains(key)) return false;
    ++disk_lookups;
    KeyRunReader local;
    KeyRunReader* reader = run->reader.get();
    if (!reader) {
      reader = run->top ? (run->reader = std::make_unique<KeyRunReader>()).get()
                        : &local;
      if (!reader->Open(dir_fd, run->path, dir + "/" + run->path,
                        identity.tag)) {
        const std::string error = reader->error();
        run->reader.reset();
        Fail(Damage(error));
      }
    }
    reader->Rewind();
    const bool found = reader->Contains(key);
    if (reader->failed()) {
      const std::string error = reader->error();
      run->reader.reset();
      Fail(Damage(error));
    }
    return found;
  }

  bool Seen(uint64_t key) {
    if (pending.Contains(key)) return true;
    for (RunPtr& r : spills)
      if (In(r.get(), key)) return true;
    if (places.size() > 1)
      for (RunPtr& r : places[1 + store->ShardOf(key)])
        if (In(r.get(), key)) return true;
    for (RunPtr& r : places[0])
      if (In(r.get(), key)) return true;
    return false;
  }

  // One key added: 1 when it is new.
  uint8_t AddKey(uint64_t key) {
    if (key == 0) {
      ++invalid;
      return 0;
    }
    if (Seen(key)) return 0;
    pending.Insert(key);
    if (pending.bytes() > options.memory / 4) Spill();
    return 1;
  }

  // The keys in memory to a run of their own (a file no MANIFEST names:
  // a crash leaves it to the next opening to remove).
  void Spill() {
    std::vector<uint64_t> keys = pending.TakeSorted();
    pending = NewPending();
    auto r = std::make_shared<RunView>();
    r->path = store->ReserveRunName() + ".spill.tmp";
    next_run_floor = store->next_run();
    r->keys = keys.size();
    KeyRunWriter writer;
    if (!writer.Open(dir_fd, r->path, dir + "/" + r->path, identity.tag))
      Fail(writer.error());
    for (uint64_t key : keys) writer.Add(key);
    if (!writer.Finish(/*sync=*/false)) {
      unlinkat(dir_fd, r->path.c_str(), 0);
      Fail(writer.error());
    }
    if (Room(keys.size())) {
      r->bloom = std::make_unique<RunFilter>(keys.size());
      for (uint64_t key : keys) r->bloom->Insert(key);
      bloom_bytes += r->bloom->bytes();
    }
    spilled_keys += keys.size();
    spills.push_back(std::move(r));
  }

  void DropSpills() {
    for (RunPtr& r : spills) {
      if (r->bloom) bloom_bytes -= std::min<uint64_t>(bloom_bytes, r->bloom->bytes());
      r->reader.reset();
      if (dir_fd >= 0) unlinkat(dir_fd, r->path.c_str(), 0);
    }
    spills.clear();
    spilled_keys = 0;
  }

  // ---- Commits ----

  // A fresh StateStore over the same directory, the lock still ours.
  void Reopen(std::map<std::string, RunPtr> made = {}) {
    auto next = std::make_unique<StateStore>();
    next->AdoptLock(lock_fd);
    next->KeepLeftovers();
    next->SetNextRunFloor(next_run_floor);
    if (options.background_merges) next->DeferMerges();
    next->DeferRemovals();
    std::string error;
    if (!next->OpenForUpdate(dir, identity, &error)) Fail(error);
    if (store) {  // what its commits merged away, for lane 0 to remove
      for (std::string& name : store->TakeRemoved())
        to_remove.push_back(std::move(name));
      if (!to_remove.empty()) cv.notify_all();
    }
    store = std::move(next);
    Refresh(std::move(made));
  }

  // Every key added since the commit, increasing, to `offer`.
  template <class Offer>
  void EachPending(const std::vector<uint64_t>& memory, Offer offer) {
    struct VectorSource {
      const std::vector<uint64_t>* keys;
      size_t i = 0;
      bool Next(uint64_t* key) {
        if (i == keys->size()) return false;
        *key = (*keys)[i++];
        return true;
      }
    };
    if (spills.empty()) {
      for (uint64_t key : memory) offer(key);
      return;
    }
    std::vector<std::unique_ptr<KeyRunReader>> readers;
    for (RunPtr& r : spills) {
      readers.push_back(std::make_unique<KeyRunReader>());
      if (!readers.back()->Open(dir_fd, r->path, dir + "/" + r->path,
                                identity.tag))
        Fail(readers.back()->error());
    }
    struct AnySource {
      VectorSource vector;
      KeyRunReader* reader;
      bool Next(uint64_t* key) {
        return reader ? reader->Next(key) : vector.Next(key);
      }
    };
    std::vector<AnySource> sources;
    sources.push_back(AnySource{VectorSource{&memory}, nullptr});
    for (auto& reader : readers)
      sources.push_back(AnySource{VectorSource{&memory}, reader.get()});
    KWayMerge<uint64_t>(
        sources, [](uint64_t a, uint64_t b) { return a < b; },
        [](uint64_t a, uint64_t b) { return a == b; }, offer);
    for (auto& reader : readers)
      if (reader->failed()) Fail(reader->error());
  }

  // The pending keys into the store and its commit, `out` (when given)
  // committed with them. On success, the pending keys are gone; on a
  // failure the state is as before and this object is broken.
  void CommitPending(OutputFile* out, uint64_t digest_value) {
    std::vector<uint64_t> memory = pending.TakeSorted();
    pending = NewPending();
    std::string error;
    bool ok = store->BeginLookups(&error, memory.size() + spilled_keys,
                                  /*trusted=*/true);
    try {
      if (ok) EachPending(memory, [&](uint64_t key) { store->Offer(key); });
    } catch (const SeenStateError& e) {
      ok = false;
      error = e.what();
    }
    ok = ok && store->EndLookups(&error);
    if (ok && out) store->SetOutput(out->tmp(), out->path(), digest_value);
    // A merge made since the last commit is published by this one.
    std::map<std::string, RunPtr> made;
    for (Lane& lane : lanes) {
      if (!ok || !lane.ready) continue;
      ReadyMerge& r = *lane.ready;
      if (store->ReplaceWithMerged(r.plan, r.made)) {
        made[r.made.name] = r.view;
        ++merges;
      } else {  // its runs were moved to the shards meanwhile
        unlinkat(dir_fd, r.made.name.c_str(), 0);
      }
      lane.ready.reset();
      lane.plan.clear();
    }
    ok = ok && store->Commit(&error);
    if (out && store->published()) out->Keep();
    // The output in place before anything else (a reopening would find
    // it pending and put it in place itself).
    if (ok && out) ok = out->Publish(&error);
    if (!ok) {
      broken = true;
      Fail(error);
    }
    ++commits;
    DropSpills();
    new_rows.clear();
    ResetDigest();
    Reopen(std::move(made));
    WantMerges();
  }

  // A lane's ready merge published by a commit of its own (no commit came).
  void ApplyReady(Lane& lane) {
    std::unique_ptr<ReadyMerge> r = std::move(lane.ready);
    lane.plan.clear();
    std::string error;
    if (!store->ApplyMerge(r->plan, r->made, &error)) {
      if (!store->published()) unlinkat(dir_fd, r->made.name.c_str(), 0);
      Reopen();
      return;
    }
    ++merges;
    Reopen({{r->made.name, r->view}});
    WantMerges();
  }

  // ---- Background merges ----

  // One run's filter, built without `mu` (the run's file never changes).
  void BuildFilter(std::unique_lock<std::mutex>& lock) {
    RunPtr r = NextUnfiltered();
    if (!r) {
      want_filters = false;
      return;
    }
    if (!Room(r->keys)) {
      r->no_room = true;
      return;
    }
    const std::string path = r->path;
    const uint64_t keys = r->keys;
    bloom_bytes += RunFilter::BytesFor(keys);  // held for it meanwhile
    lock.unlock();
    std::unique_ptr<RunFilter> filter;
    std::string error;
    try {
      filter = FilterOf(path, keys);
    } catch (const SeenStateError& e) {
      error = e.what();
    }
    lock.lock();
    bloom_bytes -= RunFilter::BytesFor(keys);
    if (!filter) {  // a lookup that reads the run says so too
      r->no_room = true;
      return;
    }
    bloom_bytes += filter->bytes();
    r->bloom = std::move(filter);
  }

  // A run no MANIFEST names, removed a slice at a time: freeing a file of
  // gigabytes in one unlink() makes the file system's journal, and so the
  // next commit's fsync, wait for all of it.
  void Remove(const std::string& name) const {
    const int fd = openat(dir_fd, name.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
      constexpr off_t kSlice = off_t{32} << 20;
      for (off_t size = st.st_size; size > kSlice && !stop;) {
        size -= kSlice;
        if (ftruncate(fd, size) != 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }
    if (fd >= 0) close(fd);
    unlinkat(dir_fd, name.c_str(), 0);
  }

  // Where `lane` may plan: the runs [*first, *limit) of the store, around
  // the range the other lane is merging (or has ready): after it for the
  // small lane (which takes the newest runs), before it for the large one.
  void Bounds(int lane, size_t* first, size_t* limit) const {
    const std::vector<StateStore::Run>& runs = store->runs();
    *first = 0;
    *limit = runs.size();
    const Lane& other = lanes[1 - lane];
    if (other.plan.empty()) return;
    size_t at = 0;
    while (at < runs.size() && runs[at].name != other.plan.front().name) ++at;
    if (at == runs.size()) return;
    if (lane == 0) {
      *first = at + other.plan.size();
    } else {
      *limit = at;
    }
  }

  // A thread of the object: lane 0 builds filters first, then makes the
  // small merges; lane 1 the large ones (background_merges, not read_only).
  bool merges_here = false;
  void MergeLoop(int index) {
    Lane& lane = lanes[index];
    // Below the caller's threads: on a machine of few cores a merge or a
    // filter takes the time the caller's adds and commits leave.
    (void)setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
    std::unique_lock<std::mutex> lock(mu);
    for (;;) {
      cv.wait(lock, [&] {
        return stop || (index == 0 && (want_filters || !to_remove.empty())) ||
               (merges_here && lane.want && !lane.ready && !lane.merging);
      });
      if (stop) return;
      if (index == 0 && !to_remove.empty()) {
        const std::vector<std::string> names = std::move(to_remove);
        to_remove.clear();
        lock.unlock();
        for (const std::string& name : names) Remove(name);
        lock.lock();
        continue;
      }
      if (index == 0 && want_filters) {
        BuildFilter(lock);
        continue;
      }
      lane.want = false;
      if (broken || !merge_error.empty()) continue;
      size_t first = 0, limit = 0;
      Bounds(index, &first, &limit);
      const std::vector<StateStore::Run> plan = store->PlanMerge(first, limit);
      if (plan.empty()) continue;
      uint64_t keys = 0, freed = 0;
      for (const StateStore::Run& r : plan) keys += r.keys;
      // URISCAN_TEST_LARGE_MERGE_KEYS lowers the bound (tests reach both
      // lanes with small states).
      const char* test_bound = std::getenv("URISCAN_TEST_LARGE_MERGE_KEYS");
      const uint64_t large =
          test_bound ? std::strtoull(test_bound, nullptr, 10) : kLargeMergeKeys;
      if ((keys > large) != (index == 1)) {
        // The other lane's kind: it plans the same, and takes it.
        lanes[1 - index].want = true;
        cv.notify_all();
        continue;
      }
      const std::string name = store->ReserveRunName();
      next_run_floor = store->next_run();
      for (RunPtr& r : places[0])
        for (const StateStore::Run& p : plan)
          if (r->path == p.name && r->bloom) freed += r->bloom->bytes();
      const bool filter = bloom_bytes - std::min(bloom_bytes, freed) +
                              RunFilter::BytesFor(keys) <=
                          options.memory / 2;
      lane.merging = true;
      lane.plan = plan;
      lock.unlock();
      StateStore::Run made{name, 0, 0};
      RunPtr view = std::make_shared<RunView>();
      std::string error;
      const bool ok = Merge(plan, filter, &made, view.get(), &error);
      lock.lock();
      lane.merging = false;
      if (stop || !ok) {
        unlinkat(dir_fd, name.c_str(), 0);
        lane.plan.clear();
        if (!stop) merge_error = error;
        continue;
      }
      view->path = name;
      view->keys = made.keys;
      view->bytes = made.bytes;
      lane.ready = std::make_unique<ReadyMerge>(ReadyMerge{plan, made, view});
    }
  }

  // `plan`'s runs merged into `made` (named in the directory, synced, in
  // no MANIFEST yet), with `view`'s Bloom filter. Reads only files no one
  // changes: the merged runs stay until the MANIFEST no longer names them.
  bool Merge(const std::vector<StateStore::Run>& plan, bool filter,
             StateStore::Run* made, RunView* view, std::string* error) {
    std::vector<std::unique_ptr<KeyRunReader>> readers;
    std::vector<MergeSource<KeyRunReader>> sources;
    for (const StateStore::Run& r : plan) {
      readers.push_back(std::make_unique<KeyRunReader>());
      if (!readers.back()->Open(dir_fd, r.name, dir + "/" + r.name,
                                identity.tag)) {
        *error = Damage(readers.back()->error());
        return false;
      }
    }
    for (auto& r : readers)
      sources.push_back(MergeSource<KeyRunReader>{r.get(), &stop});
    uint64_t keys = 0;
    for (const StateStore::Run& r : plan) keys += r.keys;
    if (filter) view->bloom = std::make_unique<RunFilter>(keys);
    const std::string tmp = made->name + ".tmp";
    KeyRunWriter out;
    if (!out.Open(dir_fd, tmp, dir + "/" + tmp, identity.tag)) {
      *error = out.error();
      unlinkat(dir_fd, tmp.c_str(), 0);
      return false;
    }
    out.WriteBehind(uint64_t{4} << 20);
    KWayMerge<uint64_t>(
        sources, [](uint64_t a, uint64_t b) { return a < b; },
        [](uint64_t a, uint64_t b) { return a == b; },
        [&](uint64_t key) {
          out.Add(key);
          if (view->bloom) view->bloom->Insert(key);
        });
    bool ok = !stop;
    for (auto& r : readers) {
      if (ok && r->failed()) {
        *error = Damage(r->error());
        ok = false;
      }
    }
    if (ok && !out.Finish(/*sync=*/true)) {
      *error = out.error();
      ok = false;
    }
    if (ok && durable::RenameNoReplace(dir_fd, tmp, dir_fd, made->name) != 0) {
      *error = "cannot rename " + dir + "/" + tmp + ": " + std::strerror(errno);
      ok = false;
    }
    if (!ok) {
      unlinkat(dir_fd, tmp.c_str(), 0);
      return false;
    }
    made->keys = out.keys();
    made->bytes = out.file_bytes();
    return true;
  }
};

// ---- SeenState ----

namespace {

StateStore::Identity KeysIdentity(const std::string& name) {
  StateStore::Identity id;
  id.profile = "keys:" + name;
  id.version = kProfileVersion;
  const std::string seed = "uriscan keys" + std::string(1, '\0') + name;
  id.tag = XXH3_64bits(seed.data(), seed.size());
  return id;
}

}  // namespace

SeenState::SeenState(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SeenState::~SeenState() = default;

std::unique_ptr<SeenState> SeenState::Open(const std::string& dir,
                                           const SeenStateOptions& options) {
  auto impl = std::make_unique<Impl>();
  Impl& s = *impl;
  s.dir = dir;
  s.options = options;
  if (s.options.memory == 0) s.Fail("SeenState: memory must be above 0");
  s.pending = s.NewPending();
  // What the state holds, when it exists (its identity wins).
  StateStore::Identity stored;
  bool exists = false;
  {
    StateStore peek;
    std::string ignored;
    exists = peek.OpenForReading(dir, &ignored, /*checksums=*/false,
                                 /*top_only=*/true) &&
             peek.exists();
    if (exists) stored = peek.identity();
  }
  if (!options.keys_of.empty()) {
    if (options.profile)
      s.Fail("SeenState: give a profile or keys_of, not both");
    for (char c : options.keys_of)
      if (c <= ' ' || c == ',' || c > '~')
        s.Fail("SeenState: keys_of '" + options.keys_of +
               "' must be printable ASCII without spaces or commas");
    s.identity = KeysIdentity(options.keys_of);
  } else if (!options.profile && exists &&
             stored.profile.rfind("keys:", 0) == 0) {
    s.identity = stored;  // keys the caller makes: Add*Keys() only
  } else {
    Profile profile = Profile::kScheme;
    NormalizeOptions normalize = options.normalize;
    if (options.profile) {
      profile = *options.profile;
    } else if (exists && !ProfileOfIdentity(stored, &profile, &normalize)) {
      s.Fail("state " + dir + " holds keys of profile '" + stored.profile +
             "', which this uriscan does not know");
    }
    s.fingerprinter = std::make_unique<Fingerprinter>(profile, normalize);
    s.identity = StateIdentityOf(*s.fingerprinter, normalize);
  }
  s.store = std::make_unique<StateStore>();
  std::string error;
  if (options.read_only) {
    if (!s.store->OpenForReading(dir, &error)) s.Fail(error);
    const StateStore::Identity& id = s.store->identity();
    if ((options.profile || !options.keys_of.empty()) && id.tag != s.identity.tag)
      s.Fail("state " + dir + " holds keys of profile " + id.Describe() +
             ", not of profile " + s.identity.Describe());
  } else {
    if (options.background_merges) s.store->DeferMerges();
    s.store->DeferRemovals();
    if (!s.store->OpenForUpdate(dir, s.identity, &error, options.shards))
      s.Fail(error);
  }
  s.lock_fd = s.store->lock_fd() >= 0
                  ? fcntl(s.store->lock_fd(), F_DUPFD_CLOEXEC, 0)
                  : -1;
  s.dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (s.dir_fd < 0 || (s.store->lock_fd() >= 0 && s.lock_fd < 0))
    s.Fail("cannot open state directory " + dir + ": " + std::strerror(errno));
  s.next_run_floor = s.store->next_run();
  s.ResetDigest();
  s.Refresh();
  s.merges_here = !options.read_only && options.background_merges;
  // An earlier process may have left merges due.
  s.lanes[0].want = s.lanes[1].want = s.merges_here;
  s.lanes[0].thread = std::thread([&s] { s.MergeLoop(0); });
  if (s.merges_here) s.lanes[1].thread = std::thread([&s] { s.MergeLoop(1); });
  return std::unique_ptr<SeenState>(new SeenState(std::move(impl)));
}

uint64_t SeenState::Key(std::string_view row) const {
  if (!impl_->fingerprinter)
    impl_->Fail("state " + impl_->dir + " holds keys of " +
                impl_->identity.profile +
                ": its keys are made by the caller (AddKeys)");
  return impl_->fingerprinter->Key64(row);
}

void SeenState::Add(const std::string_view* rows, size_t n, uint8_t* out) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.CheckWritable();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t key = Key(rows[i]);
    XXH3_64bits_update(s.digest, rows[i].data(), rows[i].size());
    XXH3_64bits_update(s.digest, "\n", 1);
    ++s.rows_added;
    out[i] = s.AddKey(key);
    if (out[i]) {
      s.new_rows.append(rows[i]);
      s.new_rows.push_back('\n');
    }
  }
}

std::vector<uint8_t> SeenState::Add(const std::vector<std::string_view>& rows) {
  std::vector<uint8_t> out(rows.size());
  Add(rows.data(), rows.size(), out.data());
  return out;
}

void SeenState::AddKeys(const uint64_t* keys, size_t n, uint8_t* out) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.CheckWritable();
  for (size_t i = 0; i < n; ++i) {
    XXH3_64bits_update(s.digest, &keys[i], sizeof keys[i]);
    ++s.rows_added;
    out[i] = s.AddKey(keys[i]);
  }
}

void SeenState::Contains(const std::string_view* rows, size_t n, uint8_t* out) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.Check();
  for (size_t i = 0; i < n; ++i) {
    const uint64_t key = Key(rows[i]);
    if (key == 0) ++s.invalid;
    out[i] = key != 0 && s.Seen(key);
  }
}

void SeenState::ContainsKeys(const uint64_t* keys, size_t n, uint8_t* out) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.Check();
  for (size_t i = 0; i < n; ++i) out[i] = keys[i] != 0 && s.Seen(keys[i]);
}

void SeenState::Commit() {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.CheckWritable();
  s.CommitPending(nullptr, 0);
}

SeenStateCommit SeenState::Commit(const std::string& output) {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.CheckWritable();
  SeenStateCommit result;
  OutputFile out;
  std::string error;
  if (!out.Resolve(output, &error)) s.Fail(error);
  const uint64_t sum = XXH3_64bits_digest(s.digest);
  const StateStore::Committed* c = s.store->FindCommitted(out.path());
  if (out.Exists()) {
    if (c && c->digest == sum) {  // these rows, committed to this output
      result.rerun = true;
      result.note = output + " was committed to " + s.dir +
                    " from these same rows; nothing to do";
      s.pending = s.NewPending();
      s.DropSpills();
      s.new_rows.clear();
      s.ResetDigest();
      return result;
    }
    s.Fail(c ? output + " was committed to " + s.dir + " at " +
                   StateStore::TimeText(c->time) +
                   " from other rows; nothing was written or added: give "
                   "these rows another output"
             : output + " exists; the rows go to a new file");
  }
  if (c)
    s.Fail(output + " was committed to " + s.dir + " at " +
           StateStore::TimeText(c->time) +
           " and is missing; nothing was written or added (restore it from "
           "a copy; its lines are in the state, so no commit writes them "
           "again)");
  if (const StateStore::Committed* same = s.store->FindCommittedInput(sum);
      same && s.new_rows.empty() && s.rows_added > 0) {
    result.rerun = true;
    result.note = "these rows were committed to " + s.dir + " at " +
                  StateStore::TimeText(same->time) + " into " + same->path +
                  "; no file was written";
    s.ResetDigest();
    return result;
  }
  if (!out.Open(&error, /*as_stdout=*/false) ||
      !out.Write(s.new_rows, &error) || !out.Sync(&error))
    s.Fail(error);
  result.written = static_cast<uint64_t>(
      std::count(s.new_rows.begin(), s.new_rows.end(), '\n'));
  s.CommitPending(&out, sum);
  return result;
}

void SeenState::Discard() {
  Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  s.pending = s.NewPending();
  s.DropSpills();
  s.new_rows.clear();
  s.ResetDigest();
}

void SeenState::WaitForMerges() {
  Impl& s = *impl_;
  std::unique_lock<std::mutex> lock(s.mu);
  while (s.merge_error.empty() && !s.broken) {
    bool busy = s.want_filters;
    for (Impl::Lane& lane : s.lanes) {
      if (lane.ready && !lane.merging) {
        s.ApplyReady(lane);
        busy = true;
      }
      busy = busy || (s.merges_here && (lane.want || lane.merging));
    }
    if (!busy) break;
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    lock.lock();
  }
  s.Check();
}

SeenStateStats SeenState::stats() const {
  const Impl& s = *impl_;
  std::lock_guard<std::mutex> lock(s.mu);
  SeenStateStats st;
  st.keys = s.store->keys();
  st.pending = s.pending.size() + s.spilled_keys;
  st.invalid = s.invalid;
  for (const auto& place : s.places) st.runs += place.size();
  st.shards = s.store->shards();
  for (const auto& place : s.places)
    for (const RunPtr& r : place) st.bytes += r->bytes;
  st.written_bytes = s.store->written_bytes();
  st.rewritten_bytes = s.store->rewritten_bytes();
  st.commits = s.commits;
  st.merges = s.merges;
  st.merging = s.lanes[0].merging || s.lanes[1].merging;
  st.memory_bytes = s.bloom_bytes + s.pending.bytes() + s.new_rows.size();
  st.disk_lookups = s.disk_lookups;
  return st;
}

std::string SeenState::identity() const {
  const StateStore::Identity& id = impl_->identity;
  return id.profile.rfind("keys:", 0) == 0 ? id.profile : id.Describe();
}

const std::string& SeenState::dir() const { return impl_->dir; }

}  // namespace uriscan
