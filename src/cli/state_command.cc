// SPDX-License-Identifier: MIT
// `dedup --state=DIR` setup and the `uriscan state` command.
#include "src/cli/state_command.h"

#include <chrono>
#include <cstdio>

namespace uriscan {
namespace cli {

SeenState::Identity StateIdentity(const Fingerprinter& fingerprinter,
                                  const NormalizeOptions& options) {
  SeenState::Identity id;
  id.profile = ProfileName(fingerprinter.profile());
  id.version = kProfileVersion;
  if (fingerprinter.profile() == Profile::kCrawler) {
    for (const std::string& p : options.tracking_params) {
      if (!id.tracking.empty()) id.tracking += ',';
      id.tracking += p;
    }
  }
  id.tag = fingerprinter.seed();
  return id;
}

std::unique_ptr<SeenState> OpenDedupState(const std::string& dir,
                                          const Fingerprinter& fingerprinter,
                                          const NormalizeOptions& options) {
  auto state = std::make_unique<SeenState>();
  std::string error;
  if (!state->OpenForUpdate(dir, StateIdentity(fingerprinter, options),
                            &error)) {
    std::fprintf(stderr, "uriscan: dedup --state: %s\n", error.c_str());
    return nullptr;
  }
  return state;
}

// Merges every run of `dir` into one, under the exclusive lock.
bool Compact(const std::string& dir, std::string* error) {
  SeenState::Identity identity;
  {
    SeenState reading;
    if (!reading.OpenForReading(dir, error)) return false;
    if (!reading.exists()) return true;
    identity = reading.identity();
  }
  SeenState state;
  const auto start = std::chrono::steady_clock::now();
  if (!state.OpenForUpdate(dir, identity, error)) return false;
  const size_t runs = state.runs().size();
  if (!state.CompactAll(error)) return false;
  std::printf("compacted %zu runs into one of %llu keys in %.2f s\n", runs,
              static_cast<unsigned long long>(state.keys()),
              std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                            start)
                  .count());
  return true;
}

int RunStateCommand(const std::string& dir, bool verify, bool compact) {
  SeenState state;
  std::string error;
  if (compact && !Compact(dir, &error)) {
    std::fprintf(stderr, "uriscan: state --compact: %s\n", error.c_str());
    return 2;
  }
  if (!state.OpenForReading(dir, &error)) {
    std::fprintf(stderr, "uriscan: state: %s\n", error.c_str());
    return 2;
  }
  const uint64_t keys = state.keys();
  const uint64_t bytes = state.run_bytes() + state.manifest_bytes();
  const double per_key = keys ? static_cast<double>(bytes) / keys : 0;
  const double bound = keys ? KeyRunBoundBytes(keys) / keys : 0;
  std::printf("state     %s\n", dir.c_str());
  std::printf("profile   %s\n",
              state.exists() ? state.identity().Describe().c_str()
                             : "none yet (no run has finished)");
  std::printf("keys      %llu\n", static_cast<unsigned long long>(keys));
  std::printf("bytes     %llu on disk (key runs %llu, MANIFEST %llu): "
              "%.2f bytes per key, bound %.2f\n",
              static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(state.run_bytes()),
              static_cast<unsigned long long>(state.manifest_bytes()),
              per_key, bound);
  std::printf("runs      %zu\n", state.runs().size());
  for (const SeenState::Run& r : state.runs()) {
    std::printf("  %s  %llu keys  %llu bytes  %.2f bytes per key\n",
                r.name.c_str(), static_cast<unsigned long long>(r.keys),
                static_cast<unsigned long long>(r.bytes),
                r.keys ? static_cast<double>(r.bytes) / r.keys : 0.0);
  }
  std::fflush(stdout);
  if (verify) {
    if (!state.Verify(&error)) {
      std::fprintf(stderr, "uriscan: state: %s\n", error.c_str());
      return 2;
    }
    std::printf("verified  %zu runs: key order, counts and checksums\n",
                state.runs().size());
  }
  return 0;
}

}  // namespace cli
}  // namespace uriscan
