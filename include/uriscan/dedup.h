// SPDX-License-Identifier: MIT
// Seen-sets of 64-bit fingerprints: an exact in-memory set, a Bloom filter,
// and Dedup, which streams first occurrences and spills sorted runs to disk
// when its memory budget runs out.
#ifndef URISCAN_DEDUP_H_
#define URISCAN_DEDUP_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "uriscan/export.h"

namespace uriscan {

// An exact set of nonzero 64-bit keys (fingerprints, which are uniformly
// distributed): open addressing, linear probing, one 8-byte slot per key.
// The table grows by 1.5x when 80 % full, so it holds between 8 / 0.8 = 10
// and 8 / (0.8 / 1.5) = 15 bytes per key once past its first table
// (65,536 slots, 512 KiB, by default). Growing needs the old and the new
// table at once (2.5x the old).
class URISCAN_EXPORT SeenSet {
 public:
  static constexpr size_t kInitialSlots = size_t{1} << 16;
  explicit SeenSet(size_t initial_slots = kInitialSlots);
  // Adds `key`; true when it was not there yet.
  bool Insert(uint64_t key);
  bool Contains(uint64_t key) const;
  // Asks the cache for the slot where `key` would start its probe: a
  // caller with the keys of a batch in hand prefetches a few keys ahead.
  void Prefetch(uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(slots_.data() + Home(key));
  }
  size_t size() const { return size_; }
  size_t capacity() const { return slots_.size(); }
  size_t bytes() const { return slots_.size() * sizeof(uint64_t); }
  // Bytes the next Insert of a new key may need (the table after growth
  // plus the one it replaces), or bytes() when it will not grow.
  size_t BytesToAddOne() const;
  // Every key, sorted, and the set left empty with its memory released.
  std::vector<uint64_t> TakeSorted();

 private:
  size_t Home(uint64_t key) const;
  void Grow();
  std::vector<uint64_t> slots_;  // 0 = empty
  size_t size_ = 0;
};

// A Bloom filter of 64-bit keys: m bits and k independent probes (each a
// SplitMix64 mix of the key and the probe's number), sized for `expected`
// keys at false-positive rate `rate`:
// m = -n ln(p) / ln(2)^2 and k = round(m / n ln 2). After n keys the chance
// that an absent key reads as present is about (1 - e^(-kn/m))^k, which
// ExpectedRate() gives for the keys inserted so far. Never a false negative.
class URISCAN_EXPORT BloomFilter {
 public:
  BloomFilter(uint64_t expected, double rate);
  // Adds `key`; true when it was (certainly) not there yet.
  bool Insert(uint64_t key);
  bool MaybeContains(uint64_t key) const;
  uint64_t bits() const { return bits_; }
  int probes() const { return probes_; }
  size_t bytes() const { return words_.size() * sizeof(uint64_t); }
  uint64_t inserted() const { return inserted_; }
  double ExpectedRate() const;
  // The bytes a filter for `expected` keys at `rate` takes.
  static uint64_t BytesFor(uint64_t expected, double rate);

 private:
  uint64_t bits_;
  int probes_;
  std::vector<uint64_t> words_;
  uint64_t inserted_ = 0;
};

// First occurrences of a stream of keys, in bounded memory. Keys are
// numbered in the order they are added. While the SeenSet fits in
// `memory_bytes`, each key is settled at once: kFirst or kDuplicate. When the
// next growth would not fit, the set's keys go to disk as a sorted run and
// every later key is kDeferred: its (key, number) pairs are buffered up to
// `memory_bytes`, sorted and spilled as further runs. Finish() merges the
// runs and says which deferred keys were first occurrences. Memory: the
// budget, plus one bit per deferred key and 1 MiB per run while merging.
// With Options::defer_all every key is deferred from the start, so that
// Finish() can also consult keys kept elsewhere (an earlier run's state)
// through its filter.
class URISCAN_EXPORT Dedup {
 public:
  enum class Verdict { kFirst, kDuplicate, kDeferred };
  struct Options {
    size_t memory_bytes = size_t{1} << 30;
    std::string temp_dir;  // empty: $TMPDIR, else /tmp
    bool defer_all = false;
  };
  // Called by Finish() once for each distinct deferred key, in increasing
  // key order: false when the key counts as seen already.
  using Filter = std::function<bool(uint64_t key)>;
  explicit Dedup(Options options);
  ~Dedup();
  Dedup(const Dedup&) = delete;
  Dedup& operator=(const Dedup&) = delete;

  // Key 0 is not a key (fingerprints of invalid rows); never pass it.
  Verdict Add(uint64_t key);
  // SeenSet::Prefetch() of the set Add() will look `key` up in, if any.
  void Prefetch(uint64_t key) const {
    if (!spilling_) set_.Prefetch(key);
  }
  bool spilling() const { return spilling_; }

  // After the last Add: (*first)[j] tells whether the j-th deferred key is
  // the first of its class. False with *error set on an I/O failure (disk
  // full, no temporary directory); Add reports those the same way through
  // error() and returns kDeferred; after one, Add keeps nothing more (its
  // memory stays within the budget) and the run can only fail.
  [[nodiscard]] bool Finish(std::vector<bool>* first, std::string* error,
                            const Filter& filter = nullptr);
  // Finish() with the key space cut into parts, settled on up to `threads`
  // threads at once: part p holds the keys from starts[p] (starts[0] is 0,
  // the others increase) to the next start, and filters[p] sees them, in
  // increasing order, from one thread at a time. The answer is Finish()'s
  // whatever the parts and threads (filters of different parts must not
  // share state). Each thread merges its range of every run with 1 MiB
  // per run. `part_done`, when given, is called with p on the thread that
  // settled part p, after its filter's last key (for every part, whether
  // or not its filter saw a key), so a part's resources can be let go.
  [[nodiscard]] bool FinishByParts(
      std::vector<bool>* first, std::string* error,
      const std::vector<uint64_t>& starts, const std::vector<Filter>& filters,
      size_t threads, const std::function<void(size_t)>& part_done = nullptr);
  const std::string& error() const { return error_; }
  // Where runs go: Options::temp_dir, or its default.
  const std::string& temp_dir() const { return options_.temp_dir; }

  uint64_t added() const { return added_; }
  uint64_t deferred() const { return deferred_; }
  // Distinct keys so far (all of them once Finish() has run), not counting
  // those the filter turned away.
  uint64_t distinct() const { return distinct_; }
  uint64_t filtered() const { return filtered_; }
  size_t runs() const { return runs_.size(); }
  uint64_t spilled_bytes() const { return spilled_bytes_; }
  // The most the set and buffers held at once, and the set's bytes per key
  // at its largest.
  size_t peak_bytes() const { return peak_bytes_; }
  double set_bytes_per_key() const { return set_bytes_per_key_; }

 private:
  // The layout of a 128-bit integer with `key` as its high half: a buffer
  // sorted as such integers (Highway's vectorized quicksort) is in (key,
  // number) order.
  struct alignas(16) Entry {
    uint64_t number;  // 0: seen before the spill began
    uint64_t key;
  };
  bool SpillSet();
  void SortBuffer();  // by (key, number)
  bool SpillBuffer();
  std::FILE* NewRun();  // an unlinked temporary file, added to runs_
  bool Put(std::FILE* run, std::vector<Entry>* piece);  // writes, clears
  bool EndRun(std::FILE* run);  // flushed and rewound for reading

  Options options_;
  SeenSet set_;
  bool spilling_ = false;
  std::vector<Entry> buffer_;
  size_t buffer_limit_ = 0;
  std::vector<std::FILE*> runs_;
  uint64_t added_ = 0, deferred_ = 0, distinct_ = 0, filtered_ = 0;
  uint64_t spilled_bytes_ = 0;
  size_t peak_bytes_ = 0;
  double set_bytes_per_key_ = 0;
  std::string error_;
};

}  // namespace uriscan

#endif  // URISCAN_DEDUP_H_
