// SPDX-License-Identifier: MIT
// `uriscan dedup --state=DIR --output=FILE` for rows held in memory, on
// SeenState (uriscan/seen_state.h): the Python package's Dask tasks, one
// per shard of a sharded state.
#ifndef URISCAN_SRC_STORE_STATE_DEDUP_H_
#define URISCAN_SRC_STORE_STATE_DEDUP_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/normalize.h"

namespace uriscan {

struct StateDedupResult {
  uint64_t written = 0;  // lines written to FILE
  bool rerun = false;    // FILE was committed from these same rows: no-op
};

// Rows `lines` against the state `dir` (made new when missing, with
// `shards` shards; 0 takes what it has), their keys those of `profile`
// and `options`: the rows whose class is in no earlier run and not earlier
// here go, in order, to `output` (a new file), committed with their keys
// as the command commits (a crash leaves both or neither); with `output`
// empty, the keys alone are committed (`written` counts the new rows). An
// `output` that a commit of these same rows wrote is a no-op
// (result->rerun); another existing file is an error. Invalid rows are
// skipped. False with *error on any failure (the state is then as before).
bool DedupIntoState(const std::vector<std::string_view>& lines,
                    const std::string& dir, Profile profile,
                    const NormalizeOptions& options, uint32_t shards,
                    const std::string& output, StateDedupResult* result,
                    std::string* error);

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_STATE_DEDUP_H_
