// SPDX-License-Identifier: MIT
// A persistent seen-set that a long-running program embeds: the state
// directory of `uriscan dedup --state=DIR` (docs/design.md, "The state"),
// opened once and then asked, batch after batch, which URLs are new.
#ifndef URISCAN_SEEN_STATE_H_
#define URISCAN_SEEN_STATE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/export.h"
#include "uriscan/normalize.h"

namespace uriscan {

// Every failure of a SeenState: its message is the command's for the same
// case ("state DIR is in use: ...", "state DIR is damaged: ...").
class URISCAN_EXPORT SeenStateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct SeenStateOptions {
  // What a row's key is: a profile and its options (NormalizeOptions'
  // tracking_params and fold_www, for the crawler profile), or keys the
  // caller makes itself, named by `keys_of` (a state of "keys:NAME"; only
  // AddKeys() and ContainsKeys() then). These, `shards` and the state's
  // id are fixed when the state is made: an existing state's identity
  // wins, and another one asked for is an error naming both. Without a
  // profile (nor keys_of) an existing state's is taken, and a new state is
  // made with the scheme profile.
  std::optional<Profile> profile;
  NormalizeOptions normalize;
  std::string keys_of;
  uint32_t shards = 0;  // a new state's shards (0: none)
  // Bytes for what is held in memory: the keys added since the last
  // commit (past a quarter of it they spill to a run on disk) and a Bloom
  // filter of each run (those that do not fit are read from disk).
  size_t memory = size_t{1} << 30;
  // The state's shared lock: Contains*() only; any number of readers, no
  // writer meanwhile.
  bool read_only = false;
  // Merges on a thread of their own (no Add or Commit waits for one);
  // false: each commit makes its merges before it returns, as the command.
  bool background_merges = true;
};

struct SeenStateStats {
  uint64_t keys = 0;         // committed
  uint64_t pending = 0;      // new since the last commit
  uint64_t invalid = 0;      // rows added or asked that are no URI reference
  uint64_t runs = 0;         // key runs, in every shard
  uint32_t shards = 1;
  uint64_t bytes = 0;        // of the key runs
  uint64_t written_bytes = 0, rewritten_bytes = 0;  // since the state began
  uint64_t commits = 0;      // by this object
  uint64_t merges = 0;       // made in the background by this object
  bool merging = false;      // one is under way
  uint64_t memory_bytes = 0; // pending keys and Bloom filters
  uint64_t disk_lookups = 0; // run lookups a Bloom filter did not settle
};

// What Commit(output) did.
struct SeenStateCommit {
  uint64_t written = 0;  // lines in the output
  // The same rows committed before: to this output (nothing was done), or
  // to another file (the note names it; no file was written).
  bool rerun = false;
  std::string note;
};

// The seen-set of a state directory. Add() says which rows are new (1):
// the first of their class since the last commit and absent from the
// state; Commit() makes them part of the state, durably, all or nothing. What was
// added and not committed is seen by later adds here and lost by a crash
// or by destroying the object. The state's lock is held from Open() to
// the end: another process (the command included) is refused meanwhile.
// One thread at a time may call a SeenState.
class URISCAN_EXPORT SeenState {
 public:
  // Opens (or makes) the state `dir`. Throws SeenStateError.
  static std::unique_ptr<SeenState> Open(const std::string& dir,
                                         const SeenStateOptions& options = {});
  ~SeenState();  // discards what was not committed; a merge is cut short
  SeenState(const SeenState&) = delete;
  SeenState& operator=(const SeenState&) = delete;

  // out[i] = 1 when rows[i] (or keys[i]) is new; invalid rows (key 0) are
  // 0 and counted.
  void Add(const std::string_view* rows, size_t n, uint8_t* out);
  std::vector<uint8_t> Add(const std::vector<std::string_view>& rows);
  void AddKeys(const uint64_t* keys, size_t n, uint8_t* out);
  // out[i] = 1 when rows[i] (or keys[i]) was added before (committed or
  // not); nothing is added.
  void Contains(const std::string_view* rows, size_t n, uint8_t* out);
  void ContainsKeys(const uint64_t* keys, size_t n, uint8_t* out);
  // A row's key under the state's profile (0: an invalid row).
  uint64_t Key(std::string_view row) const;

  // Makes what was added since the last commit part of the state.
  void Commit();
  // The same, with the new rows (those Add(rows) returned 1 for, in order)
  // written to `output`, a new file that appears whole together with the
  // commit (as `uriscan dedup --state=DIR --output=FILE`): after a crash,
  // both or neither. An output the state committed earlier is never
  // written again: the same rows again are a no-op; a committed output
  // that is gone is an error naming it.
  SeenStateCommit Commit(const std::string& output);
  // Forgets what was added since the last commit.
  void Discard();
  // Returns once no background merge is due or under way (a benchmark's
  // or a test's steady state; never needed for correct answers).
  void WaitForMerges();

  SeenStateStats stats() const;
  // "crawler (version 4, tracking utm_*)", "keys:scrapy-2.7", ...
  std::string identity() const;
  const std::string& dir() const;

  struct Impl;

 private:
  explicit SeenState(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace uriscan

#endif  // URISCAN_SEEN_STATE_H_
