// SPDX-License-Identifier: MIT
// The output side of `uriscan dedup`: keys in input order in, first
// occurrences out, with the rows after a spill held on disk until the
// sorted runs are merged.
#ifndef URISCAN_SRC_CLI_DEDUP_SINK_H_
#define URISCAN_SRC_CLI_DEDUP_SINK_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/output.h"
#include "uriscan/dedup.h"
#include "src/store/state_store.h"

namespace uriscan {
namespace cli {

class DedupSink {
 public:
  struct Config {
    bool keys = false;               // "KEY<TAB>" before each line
    size_t memory = size_t{1} << 30;  // for the seen-set and its runs
    // > 0: a scalable Bloom filter, not exact: a first layer for this many
    // keys, and a layer twice as large each time the last one is full, at
    // rates fp_rate/2, /4, ..., so the total stays under fp_rate. Past
    // `memory`, the run fails (Finish() says why).
    uint64_t bloom_expected = 0;
    double fp_rate = 0.001;
    std::string temp_dir;             // empty: Dedup's default
    // --state: classes of earlier runs count as seen, and every row waits
    // in the spool until the state has been consulted. Not owned.
    StateStore* state = nullptr;
    size_t threads = 1;  // a sharded state's lookups, shard by shard
  };
  explicit DedupSink(const Config& config);
  ~DedupSink();

  // One input row in order: its key, or 0 for an invalid row to echo.
  void Row(uint64_t key, std::string_view line, std::string* out);
  // A row's key some rows ahead of Row(): its slot of the seen-set is
  // asked for early (a lookup is a cache miss once the set outgrows L2).
  void Prefetch(uint64_t key) const {
    if (exact_ && key != 0) exact_->Prefetch(key);
  }
  // After the last row: the rows held back since the spill, in order.
  bool Finish(Writer* out, std::string* error);

  // True once the run has failed (a spill or the Bloom filter's growth):
  // Row() then writes nothing, and Finish() says why.
  bool failed() const;
  std::string error() const { return !error_.empty() ? error_ : exact_->error(); }
  uint64_t distinct() const;
  uint64_t duplicates() const { return duplicates_; }
  // --state: distinct classes of this run that an earlier run had seen.
  uint64_t seen_before() const { return exact_ ? exact_->filtered() : 0; }
  // How it was done: memory, bytes per URL, runs, or the Bloom filter.
  std::string Describe() const;
  // The same as JSON members (no braces): "method" and its numbers, and
  // "state" (null without one).
  void AppendJson(std::string* j) const;

 private:
  void Append(uint64_t key, std::string_view line, char tag, std::string* out);
  bool OpenSpool();
  bool BloomInsert(uint64_t key);  // true when new; may add a layer
  double BloomRate() const;  // the expected false-positive rate, all layers
  void FlushSpool();  // spool_buffer_ to spool_; a failure goes to error_

  Config config_;
  std::unique_ptr<Dedup> exact_;
  std::vector<std::unique_ptr<BloomFilter>> bloom_;  // oldest first
  uint64_t bloom_capacity_ = 0;  // of the last layer
  uint64_t bloom_bytes_ = 0;     // of all layers
  std::FILE* spool_ = nullptr;  // rows after the spill: tag byte + output
  std::string spool_buffer_;
  std::string error_;
  uint64_t duplicates_ = 0, bloom_distinct_ = 0;
  double lookup_seconds_ = 0;  // --state: the lookups in the state
};

}  // namespace cli
}  // namespace uriscan

#endif  // URISCAN_SRC_CLI_DEDUP_SINK_H_
