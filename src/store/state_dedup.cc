// SPDX-License-Identifier: MIT
// DedupIntoState: a batch in memory against a seen-state (state_dedup.h),
// through SeenState: the Dask tasks and the long-running programs share
// one implementation.
#include "src/store/state_dedup.h"

#include "uriscan/seen_state.h"

namespace uriscan {

bool DedupIntoState(const std::vector<std::string_view>& lines,
                    const std::string& dir, Profile profile,
                    const NormalizeOptions& options, uint32_t shards,
                    const std::string& output, StateDedupResult* result,
                    std::string* error) {
  *result = StateDedupResult{};
  try {
    SeenStateOptions o;
    o.profile = profile;
    o.normalize = options;
    o.shards = shards;
    o.background_merges = false;  // one commit: its merges inline
    std::unique_ptr<SeenState> state = SeenState::Open(dir, o);
    const std::vector<uint8_t> fresh = state->Add(lines);
    if (output.empty()) {
      for (uint8_t f : fresh) result->written += f;
      state->Commit();
      return true;
    }
    const SeenStateCommit c = state->Commit(output);
    result->written = c.written;
    result->rerun = c.rerun;
    return true;
  } catch (const SeenStateError& e) {
    *error = e.what();
    return false;
  }
}

}  // namespace uriscan
