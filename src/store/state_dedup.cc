// SPDX-License-Identifier: MIT
// DedupIntoState: a batch in memory against a seen-state (state_dedup.h).
#include "src/store/state_dedup.h"

// Header-only, as in fingerprint.cc: xxHash is never a link dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <utility>

#include "src/store/output_file.h"

namespace uriscan {

bool DedupIntoState(const std::vector<std::string_view>& lines,
                    const std::vector<uint64_t>& keys, const std::string& dir,
                    const StateStore::Identity& identity, uint32_t shards,
                    const std::string& output, StateDedupResult* result,
                    std::string* error) {
  *result = StateDedupResult{};
  StateStore state;
  if (!state.OpenForUpdate(dir, identity, error, shards)) return false;
  OutputFile out;
  if (!output.empty() && !out.Resolve(output, error)) return false;
  // The digest of the rows and of what shapes the output (the keys' seed).
  XXH3_state_t* digest = XXH3_createState();
  XXH3_64bits_reset_withSeed(digest, identity.tag);
  for (std::string_view line : lines) {
    XXH3_64bits_update(digest, line.data(), line.size());
    XXH3_64bits_update(digest, "\n", 1);
  }
  const uint64_t sum = XXH3_64bits_digest(digest);
  XXH3_freeState(digest);
  if (!output.empty() && out.Exists()) {
    const StateStore::Committed* c = state.FindCommitted(out.path());
    if (c && c->digest == sum) {
      result->rerun = true;
      return true;
    }
    *error = c ? output + " was committed to " + dir +
                     " from other rows: give these rows another output"
               : output + " exists; the rows go to a new file";
    return false;
  }
  // The distinct valid keys in increasing order, each with its first row.
  std::vector<std::pair<uint64_t, size_t>> order;
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] != 0) order.emplace_back(keys[i], i);
  std::sort(order.begin(), order.end());
  std::vector<char> first(lines.size(), 0);
  if (!state.BeginLookups(error, order.size())) return false;
  for (size_t j = 0; j < order.size(); ++j) {
    if (j > 0 && order[j].first == order[j - 1].first) continue;
    if (state.Offer(order[j].first)) first[order[j].second] = 1;
  }
  if (!state.EndLookups(error)) return false;
  if (output.empty()) {  // the state alone
    for (char f : first) result->written += f;
    return state.Commit(error);
  }
  if (!out.Open(error, /*as_stdout=*/false)) return false;
  std::string text;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!first[i]) continue;
    text.append(lines[i]);
    text.push_back('\n');
    ++result->written;
    if (text.size() >= (1u << 20)) {
      if (!out.Write(text, error)) return false;
      text.clear();
    }
  }
  if (!out.Write(text, error) || !out.Sync(error)) return false;
  state.SetOutput(out.tmp(), out.path(), sum);
  const bool committed = state.Commit(error);
  // Once a MANIFEST names the temporary file it is the state's.
  if (state.published()) out.Keep();
  if (!committed) return false;
  return out.Publish(error);
}

}  // namespace uriscan
