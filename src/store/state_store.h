// SPDX-License-Identifier: MIT
// A persistent seen-set: the keys of every earlier run in a directory of
// sorted, indexed key runs (key_runs.h), updated atomically. A run's keys
// are looked up in increasing order, each run reading only the blocks
// they fall in (all of them, in order, for a large run of keys), so the
// work grows with the run's keys, not the state's, and memory stays
// bounded whatever its size.
#ifndef URISCAN_SRC_STORE_STATE_STORE_H_
#define URISCAN_SRC_STORE_STATE_STORE_H_

#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/store/key_runs.h"

namespace uriscan {

// The directory holds:
//   MANIFEST        the live files, the profile, the bytes written and
//                   rewritten so far and the outputs committed with the
//                   digests of their inputs, written to MANIFEST.tmp,
//                   fsynced and renamed over the old one (the commit point);
//                   its last line is an XXH3 checksum of the lines before
//   run-NNNNNN.keys key runs named by the manifest, never changed once there
//   LOCK            flock()ed: exclusive by an update, shared by a reader
// Files a killed run leaves (*.tmp, runs no manifest names) are removed by
// the next update. An update writes its new run beside the old ones, fsyncs
// it and renames it into place, merges runs by the policy of Compact(), then
// replaces the manifest and fsyncs the directory: until that rename the
// earlier state is untouched, after it the new one is whole. An update that
// ends without a commit (an error, or none asked for) removes what it made
// when it is destroyed: the directory is as it found it, so a run that
// failed never fixes a new state's profile. A new state's MANIFEST is first
// written by its first commit.
class StateStore {
 public:
  // What the keys are keys of: a state holds one profile's keys only.
  struct Identity {
    std::string profile;   // "syntax", "scheme", "crawler"
    uint32_t version = 0;  // the profile's version
    std::string tracking;  // crawler: the tracking parameters, comma-separated
    uint64_t tag = 0;      // the fingerprint seed of all the above
    std::string Describe() const;  // "crawler (version 1, tracking a,b)"
  };
  // What the top MANIFEST of a sharded state records of each shard.
  struct ShardRecord {
    uint64_t generation = 0, keys = 0, inode = 0, size = 0;
    int64_t mtime_ns = 0;
    bool operator==(const ShardRecord& o) const {
      return generation == o.generation && keys == o.keys &&
             inode == o.inode && size == o.size && mtime_ns == o.mtime_ns;
    }
  };
  struct Run {
    std::string name;
    uint64_t keys = 0, bytes = 0;
  };
  // An output a run committed (dedup --output=FILE), with the digest of
  // its input and options: the same again is a no-op, another an error.
  struct Committed {
    uint64_t digest = 0;
    uint64_t time = 0;  // seconds since 1970, UTC
    std::string path;   // absolute
  };

  StateStore();
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // Opens `dir` to update it: creates it when missing, takes the lock
  // without waiting (another run holds it: an error), reads the manifest,
  // checks every run's header, size and fence (its blocks are checked when
  // they are read), and removes what a killed run left. A
  // state of another identity is an error that names both. A directory
  // with key runs but no manifest is damaged, never read as empty. On any
  // error returns false with *error set; the state is not changed.
  //
  // Sharded states (docs/design.md): `shards` > 1 makes a new state of that
  // many shards, each a state of its own in DIR/shard-NNNN holding the keys
  // whose top log2(shards) bits are NNNN; 0 takes what DIR has (a new state
  // is unsharded). A count that differs from DIR's is an error. Every
  // shard is checked against the top MANIFEST's record of it: one whose
  // MANIFEST is the recorded file (inode, size, time) by one fstatat(), any
  // other by reading it (the state's id, the generation it committed the
  // shard at): a missing, emptied, stale or foreign shard is damage. No descriptor is held per
  // shard: the top's lock covers them all, and a shard's files are opened
  // when a key of it is looked up, and closed when its lookups end.
  //
  // DIR/shard-NNNN opened by itself (as a Dask task does) is that shard
  // alone: the top's lock is taken shared (no run of the whole state
  // meanwhile) and its own exclusively, and it is checked against the top
  // as above.
  bool OpenForUpdate(const std::string& dir, const Identity& identity,
                     std::string* error, uint32_t shards = 0);
  // Opens an existing state to read it (a shared lock; no cleanup), checking
  // every run's header, size and fence, and with `checksums` every index
  // page's and block's checksum too (`uriscan state`). A directory without
  // a manifest is not a state: an error. A state of format 1 (an earlier
  // release) is an error that says how to convert it (Upgrade()).

  // With `top_only`, the top MANIFEST alone is read (a state's profile).
  bool OpenForReading(const std::string& dir, std::string* error,
                      bool checksums = false, bool top_only = false);
  // The files of the directory that its MANIFEST does not name (but LOCK),
  // with their sizes; `leftover` for what a killed run left (a temporary
  // file, a run the MANIFEST does not list), which the next update removes.
  struct Unlisted {
    std::string name;
    uint64_t bytes = 0;
    bool leftover = false;
  };
  std::vector<Unlisted> UnlistedFiles() const;

  // Shards: 1 for a state that has none. For a sharded state, shard(i) is
  // shard i (opened as the state was), ShardOf() a key's shard; the
  // lookups may be done through the shards themselves, each from one
  // thread (Offer() on shard(ShardOf(key)), keys increasing per shard),
  // or through Offer() here. A shard opened alone (DIR/shard-NNNN, as a
  // Dask task does) refuses keys of other shards.
  uint32_t shards() const { return shard_count_; }
  StateStore* shard(size_t i) { return shards_[i].get(); }
  const StateStore* shard(size_t i) const { return shards_[i].get(); }
  size_t ShardOf(uint64_t key) const {
    return shard_count_ > 1 ? static_cast<size_t>(key >> (64 - shard_bits_)) : 0;
  }
  // "shard S of N" for a shard, "" otherwise.
  std::string ShardName() const;

  // The lookups of one run: Offer() keys in strictly increasing order; it
  // is true when the key is in no earlier run, and the key then goes to the
  // new run. Each run's reader holds one group of blocks at most (735 KB).
  // `expected`: at most how many keys will be offered (a sharded state
  // then writes a small run's keys in its top directory alone).
  // `trusted`: the caller has looked every key up itself (SeenState, which
  // holds the lock across commits): no run is read, every key is new.
  bool BeginLookups(std::string* error, uint64_t expected = ~uint64_t{0},
                    bool trusted = false);
  // Offer() may be called from one thread only (a small sharded run's
  // keys go to one new run), not shard by shard.
  bool one_writer() const { return top_mode_; }
  bool Offer(uint64_t key);
  // Fails when a block or index page read was damaged (the run's answers
  // are then never used); names the new run and makes the merges of the
  // policy (Compact()), so that damage a merge meets is found here, before
  // the caller writes any line: Commit() then only publishes.
  bool EndLookups(std::string* error);
  // A sharded state's lookups may end shard by shard (keys of shard i all
  // offered): its new run is written and its merges made, its files
  // closed. An error is kept for EndLookups(). Safe to call from the thread
  // that offered the shard's keys, for different shards at once.
  void EndShardLookups(size_t i);
  // Makes the run's keys part of the state (see the class comment). On an
  // error, published() says whether the new manifest was already in place
  // (only its directory's fsync, or the removal of merged runs, failed).
  bool Commit(std::string* error);
  bool published() const { return published_; }

  // `dedup --output=FILE` with a state: the run's lines are in `tmp` (a
  // file beside `final`, both absolute paths) when Commit() is called; its
  // MANIFEST then names both, so that the output is part of the commit:
  // the caller renames `tmp` to `final` after it, and an update that
  // opens the state after a crash between the two does that rename
  // (OpenForUpdate). A Commit() with an output writes a MANIFEST even when
  // the run added no key.
  // `digest` is that of the run's input and options; the MANIFEST keeps
  // the last kMaxCommitted outputs with theirs.
  void SetOutput(const std::string& tmp, const std::string& final,
                 uint64_t digest);
  // Before an Open: a lock another run holds is waited for up to this
  // many seconds (polled every 20 ms) rather than refused at once.
  void set_lock_wait(double seconds) { lock_wait_ = seconds; }
  // The outputs committed, oldest first (at most kMaxCommitted).
  const std::vector<Committed>& committed() const { return committed_; }
  // The committed output at `path` (absolute), or null.
  const Committed* FindCommitted(const std::string& path) const;
  // The last output committed from input of this digest, or null.
  const Committed* FindCommittedInput(uint64_t digest) const;
  // A pending output that OpenForUpdate() could not complete because its
  // temporary file is gone and FILE with it: what to tell the user, or "".
  const std::string& lost_output() const { return lost_output_; }
  // "2026-12-01T22:00:00Z" for a Committed::time.
  static std::string TimeText(uint64_t seconds);

  // Merges every run into one and commits that (after OpenForUpdate).
  bool CompactAll(std::string* error);
  // Converts a state of format 1 in place: its runs merged into one run of
  // format 2, then a MANIFEST of format 2 committed (a kill leaves the old
  // state whole). True, doing nothing, for a state of format 2; upgraded()
  // tells which.
  bool Upgrade(const std::string& dir, std::string* error);
  bool upgraded() const { return upgraded_; }
  int format() const { return format_; }

  // A long-running SeenState (include/uriscan/seen_state.h) keeps the lock
  // across commits and opens a fresh StateStore for each: AdoptLock() takes
  // its descriptor (already locked) instead of taking one, KeepLeftovers()
  // leaves the files its background merge is writing, and SetNextRunFloor()
  // keeps the run numbers it reserved. DeferMerges(): EndLookups() makes no
  // merge (they are made by MergeRuns() and ApplyMerge() on another thread).
  // All before OpenForUpdate() / OpenForReading().
  void AdoptLock(int fd) { adopted_lock_ = fd; }
  void KeepLeftovers() { keep_leftovers_ = true; }
  void SetNextRunFloor(uint64_t n) { next_run_floor_ = n; }
  void DeferMerges() { defer_merges_ = true; }
  // The runs a commit merged away are not removed by it but listed for
  // TakeRemoved() (a SeenState removes them on its own thread: removing a
  // file of gigabytes takes a commit's time).
  void DeferRemovals() { defer_removals_ = true; }
  std::vector<std::string> TakeRemoved() { return std::move(removed_); }
  int lock_fd() const { return lock_fd_; }
  // Reads shard i's MANIFEST (one known by its record too), so that
  // shard(i)->runs() is what it holds; the records the top MANIFEST has.
  bool LoadShardRun(size_t i, std::string* error);
  const std::vector<ShardRecord>& shard_records() const { return records_; }
  // A shard opened alone: its top (whose runs hold keys of every shard
  // while the top writes small runs); null otherwise.
  const StateStore* top() const { return top_; }
  // "shard-NNNN": shard i's directory under the top.
  static std::string ShardDirName(uint32_t i);
  // The merge the level policy of Compact() would make now among the runs
  // [first, limit) (oldest first), as if they were all the state's: the
  // newest of them while the run before them is of their level or a lower
  // one (none: nothing to merge). ReserveRunName() names its output.
  std::vector<Run> PlanMerge(size_t first, size_t limit) const;
  std::string ReserveRunName() { return RunName(next_run_++); }
  uint64_t next_run() const { return next_run_; }
  // Replaces `inputs` (as PlanMerge() gave them, still in this state) by
  // `merged`, a run already named in the directory: ReplaceWithMerged()
  // for the next Commit() to publish (false, changing nothing, when the
  // inputs are no longer runs of this state), ApplyMerge() publishing now.
  bool ReplaceWithMerged(const std::vector<Run>& inputs, const Run& merged);
  bool ApplyMerge(const std::vector<Run>& inputs, const Run& merged,
                  std::string* error);

  // Decodes every run: order, counts and checksums.
  bool Verify(std::string* error);

  const std::string& dir() const { return dir_; }
  // The id made when the state was created (16 hex digits), which every
  // shard's MANIFEST repeats; "" for a state of an earlier release that
  // has none yet. The generation counts a state's (or a shard's) commits.
  const std::string& id() const { return id_; }
  uint64_t generation() const { return generation_; }
  bool exists() const { return exists_; }  // a manifest was there
  const Identity& identity() const { return identity_; }
  const std::vector<Run>& runs() const { return runs_; }
  uint64_t keys() const;
  uint64_t run_bytes() const;       // the key runs' files
  uint64_t manifest_bytes() const { return manifest_bytes_; }
  uint64_t new_keys() const { return new_keys_; }
  // Bytes of new runs and of merged runs written since the state began:
  // their sum over the first is the write amplification of compaction.
  uint64_t written_bytes() const;
  uint64_t rewritten_bytes() const;
  // Bytes the last run's lookups read from the runs.
  uint64_t lookup_bytes() const { return lookup_bytes_; }
  uint64_t compacted_keys() const { return compacted_keys_; }
  double commit_seconds() const { return commit_seconds_; }

  // Runs are kept at strictly falling levels (Compact()); runs past
  // kMaxRuns are merged whatever their sizes.
  static constexpr uint64_t kLevelFactor = 5;
  static constexpr size_t kMaxRuns = 24;
  static constexpr size_t kMaxCommitted = 4096;
  static constexpr uint64_t kMaxShards = 4096;
  // A sharded run of up to kTopRunKeys keys writes them in the top
  // directory while it holds fewer than kTopKeys.
  static constexpr uint64_t kTopRunKeys = uint64_t{1} << 20;
  static constexpr uint64_t kTopKeys = uint64_t{1} << 24;
  // A run's level: 0 up to kLevelBase keys, then one more for each factor
  // kLevelFactor (the sizes the policy keeps runs at).
  static constexpr uint64_t kLevelBase = 4096;
  static int Level(uint64_t keys);

 private:
  bool CheckOwnership(std::string* error) const;
  int adopted_lock_ = -1;
  bool keep_leftovers_ = false, defer_merges_ = false, trusted_ = false;
  bool defer_removals_ = false;
  std::vector<std::string> removed_;
  uint64_t next_run_floor_ = 0;
  bool Lock(bool exclusive, std::string* error);
  bool ReadManifest(std::string* error);
  bool ReadManifestFile(const char* file, std::string* error);
  // Each run's header and size against the manifest; with `checksums`, its
  // checksum too (a read of the whole file).
  bool CheckRuns(bool checksums, std::string* error);
  bool IsLeftover(const std::string& name) const;
  void RemoveLeftovers();
  void Clean();  // RemoveLeftovers(), once, before a shard is changed
  bool cleaned_ = false;
  void Abandon();  // an update without a commit: see the class comment
  std::string Manifest(bool with_output = true) const;
  std::string RunName(uint64_t number) const;
  bool Compact(bool all, std::string* error);
  template <class Reader>
  bool MergeInto(std::vector<std::unique_ptr<Reader>>* readers,
                 const std::string& name, uint64_t* keys, uint64_t* bytes,
                 std::string* error);
  void ReplaceRuns(size_t from, const Run& merged);
  bool CheckFormat(std::string* error) const;
  // Sharded states: the shards opened under this state (each known by its
  // record, or read and checked); a sharded commit (each shard it changed
  // prepared, all synced at once, then the top MANIFEST, then their
  // MANIFEST.next put in place); a shard's MANIFEST.next taken when its
  // generation is the one the top records (CheckAgainstTop()).
  bool OpenShards(bool checksums, std::string* error);
  bool LoadShard(bool checksums, std::string* error);
  bool JoinTop(std::string* error);  // a shard opened alone: its top
  // This shard's MANIFEST against what its top records: present once
  // committed, of the same state, not older than the top's record, a
  // decided MANIFEST.next taken.
  bool CheckAgainstTop(std::string* error);
  uint64_t Recorded() const;  // the top's record of this shard's generation
  const ShardRecord* RecordOf() const;
  bool Enter(std::string* error);  // a shard's directory, opened (made)
  void Leave();                    // and closed again
  bool EndShard(std::string* error);
  bool PrepareShard(std::string* error);  // MANIFEST.next, not yet synced
  bool CommitShards(std::string* error);
  bool Apply(std::string* error);
  void RecordOutput();  // output_ into committed_
  bool FirstManifest(std::string* error);
  bool NameNewRun(std::string* error);
  bool out_of_shard_ = false;  // a key of another shard was offered
  bool Publish(std::string* error);  // the manifest: the commit point
  bool Damaged(const std::string& what, std::string* error) const;

  std::string dir_;  // as given: messages only
  int dir_fd_ = -1;  // the directory, opened once: every file is under it
  int lock_fd_ = -1;
  bool exists_ = false, update_ = false, upgrading_ = false, upgraded_ = false;
  std::vector<std::unique_ptr<StateStore>> shards_;
  // A shard's top: the state that loaded it, or the one JoinTop() read
  // (own_top_, which holds the top's shared lock) for a shard alone.
  StateStore* top_ = nullptr;
  std::unique_ptr<StateStore> own_top_;
  bool loaded_ = false;  // opened through top_: descriptors only in use
  uint32_t place_ = 0;   // a shard's number, as its top knows it
  std::string id_;
  // The top's record of each shard at its last commit: its generation and
  // keys, and its MANIFEST's inode, size and time, so that a shard that is
  // as recorded costs one fstatat() to open. A shard found newer (committed
  // alone since) is recorded again by the next commit.
  std::vector<ShardRecord> records_;
  bool records_stale_ = false;
  ShardRecord record_;         // a shard's, as the next commit records it
  bool manifest_read_ = true;  // false: known by its record alone
  bool StatRecord(const char* file);  // record_'s inode, size and time
  struct stat manifest_stat_ = {};  // of the MANIFEST read last
  bool manifest_stat_valid_ = false;
  bool ReadShard(std::string* error);  // the MANIFEST of a shard known so
  // Small commits of a sharded state write one run in the top directory
  // (top mode: no shard is written); larger ones, or once the top holds
  // kTopKeys, write each shard's keys to the shard and move the top's
  // keys there too (Flush()).
  bool top_mode_ = false;
  bool Flush(std::string* error);
  std::vector<std::unique_ptr<KeyRunReader>> top_readers_;  // a shard's
  bool Seen(uint64_t key);  // in this shard's runs or its top's (range)
  // A shard's part in a run: its lookups begun (touched_), still open,
  // its MANIFEST.next written (prepared_) and the files to sync with it.
  bool touched_ = false, lookups_open_ = false, prepared_ = false;
  bool made_next_ = false, force_prepare_ = false, merge_all_ = false;
  bool flushed_ = false;  // given keys of the top (Flush())
  std::vector<std::string> unsynced_;
  std::string shard_error_;
  size_t current_shard_ = 0;  // sequential Offer() through the top
  bool any_offered_ = false;
  uint32_t shard_count_ = 1;  // this state's shards (1: none)
  int shard_bits_ = 0;
  // A shard's place: "shard S N" in its MANIFEST (shard_of_ 0: not one).
  uint32_t shard_index_ = 0, shard_of_ = 0;
  uint64_t generation_ = 0;  // commits of a sharded state, or of a shard
  int format_ = 2;
  // What an update made, for Abandon(): the directory, LOCK, a new
  // state's first MANIFEST, and the runs it named.
  bool made_dir_ = false, made_lock_ = false, made_manifest_ = false;
  std::vector<std::string> made_runs_;
  Identity identity_;
  std::vector<Run> runs_;
  uint64_t next_run_ = 1, manifest_bytes_ = 0;
  // One run's lookups.
  std::vector<std::unique_ptr<KeyRunReader>> readers_;
  std::unique_ptr<KeyRunWriter> writer_;
  std::string pending_;  // the new run's final name
  std::vector<std::string> obsolete_;  // merged away: removed after commit
  uint64_t new_keys_ = 0, compacted_keys_ = 0;
  uint64_t written_bytes_ = 0, rewritten_bytes_ = 0, lookup_bytes_ = 0;
  std::vector<Committed> committed_;
  double lock_wait_ = 0;  // set_lock_wait()
  double commit_seconds_ = 0;
  bool lookup_failed_ = false;
  bool published_ = false;
  // The output named by the MANIFEST read, and by this run's commit.
  std::string committed_output_, committed_output_tmp_;
  std::string output_, output_tmp_;
  std::string lost_output_;
  uint64_t output_digest_ = 0;
  bool CompleteOutput(std::string* error);  // the rename a crash skipped
};

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_STATE_STORE_H_
