// SPDX-License-Identifier: MIT
// uriscan state DIR: a report on the seen-set that dedup --state=DIR keeps
// (docs/design.md, "The state"), which it can verify and compact.
#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "src/cli/command_run.h"
#include "src/cli/options.h"
#include "src/store/key_runs.h"
#include "src/store/state_store.h"

namespace uriscan {
namespace cli {
namespace {

constexpr char kHelp[] =
    "  state DIR [--verify]        a state's profile, keys, bytes on disk,\n"
    "      [--compact]             runs by level and bytes rewritten by\n"
    "      [--upgrade]             compaction; every block's checksum is\n"
    "                              checked (exit 2 when DIR has no MANIFEST\n"
    "                              or is damaged); --verify decodes every\n"
    "                              run too; --compact first merges all runs\n"
    "                              into one; --upgrade first converts a state\n"
    "                              of an earlier release in place (format 1,\n"
    "                              or shards that do not record their state);\n"
    "                              the last outputs committed (dedup\n"
    "                              --output) are listed, and those gone\n";

// Merges every run of `dir` into one, under the exclusive lock.
bool Compact(const std::string& dir, std::string* error) {
  StateStore::Identity identity;
  {
    StateStore reading;
    if (!reading.OpenForReading(dir, error)) return false;
    identity = reading.identity();
  }
  StateStore state;
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

// Converts a state of format 1 in place, under the exclusive lock.
bool Upgrade(const std::string& dir, std::string* error) {
  StateStore state;
  const auto start = std::chrono::steady_clock::now();
  if (!state.Upgrade(dir, error)) return false;
  if (!state.upgraded()) {
    std::printf("upgraded  nothing to do: %s is of the current format\n",
                dir.c_str());
  } else if (state.shards() > 1) {
    std::printf("upgraded  %u shards now record state %s, %.2f s\n",
                state.shards(), state.id().c_str(),
                std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count());
  } else {
    std::printf("upgraded  to format 2: %llu keys in one run, %.2f s\n",
                static_cast<unsigned long long>(state.keys()),
                std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count());
  }
  return true;
}

// The profile, the key count, the bytes on disk and the runs of a state.
void PrintState(const std::string& dir, const StateStore& state) {
  const uint64_t keys = state.keys();
  const uint64_t bytes = state.run_bytes() + state.manifest_bytes();
  const double per_key = keys ? static_cast<double>(bytes) / keys : 0;
  const double bound = keys ? KeyRunBoundBytes(keys) / keys : 0;
  std::printf("state     %s\n", dir.c_str());
  std::printf("profile   %s\n", state.identity().Describe().c_str());
  if (!state.id().empty())
    std::printf("id        %s, generation %llu\n", state.id().c_str(),
                static_cast<unsigned long long>(state.generation()));
  std::printf("keys      %llu\n", static_cast<unsigned long long>(keys));
  std::printf("bytes     %llu on disk (key runs %llu, MANIFEST %llu): "
              "%.2f bytes per key, bound %.2f\n",
              static_cast<unsigned long long>(bytes),
              static_cast<unsigned long long>(state.run_bytes()),
              static_cast<unsigned long long>(state.manifest_bytes()),
              per_key, bound);
  const uint64_t written = state.written_bytes();
  std::printf("written   %llu bytes of new runs, %llu rewritten by "
              "compaction: write amplification %.2f\n",
              static_cast<unsigned long long>(written),
              static_cast<unsigned long long>(state.rewritten_bytes()),
              written ? static_cast<double>(written + state.rewritten_bytes()) /
                            static_cast<double>(written)
                      : 1.0);
  // The runs of the state, or of each of its shards.
  std::vector<std::pair<std::string, StateStore::Run>> runs;
  // A sharded state's top holds the keys of its small runs (docs/design.md).
  if (state.shards() > 1)
    for (const StateStore::Run& r : state.runs()) runs.emplace_back("", r);
  for (uint32_t i = 0; i < state.shards(); ++i) {
    const StateStore& s = state.shards() > 1 ? *state.shard(i) : state;
    const std::string prefix = state.shards() > 1 ? s.dir().substr(s.dir().rfind('/') + 1) + "/" : "";
    for (const StateStore::Run& r : s.runs()) runs.emplace_back(prefix, r);
  }
  if (state.shards() > 1) {
    std::printf("shards    %u (keys by their top %d bits)\n", state.shards(),
                __builtin_ctz(state.shards()));
    for (uint32_t i = 0; i < state.shards(); ++i) {
      const StateStore& s = *state.shard(i);
      std::printf("  %s  %llu keys  %zu runs  %llu bytes\n",
                  s.dir().substr(s.dir().rfind('/') + 1).c_str(),
                  static_cast<unsigned long long>(s.keys()), s.runs().size(),
                  static_cast<unsigned long long>(s.run_bytes() + s.manifest_bytes()));
    }
  }
  std::map<int, int> per_level;
  for (const auto& [prefix, r] : runs) ++per_level[StateStore::Level(r.keys)];
  std::string levels;
  for (const auto& [level, n] : per_level)
    levels += (levels.empty() ? " (" : ", ") + std::string("level ") +
              std::to_string(level) + ": " + std::to_string(n);
  std::printf("runs      %zu%s\n", runs.size(),
              levels.empty() ? "" : (levels + ")").c_str());
  for (const auto& [prefix, r] : runs) {
    std::printf("  %s%s  level %d  %llu keys  %llu bytes  %.2f bytes per key\n",
                prefix.c_str(), r.name.c_str(), StateStore::Level(r.keys),
                static_cast<unsigned long long>(r.keys),
                static_cast<unsigned long long>(r.bytes),
                r.keys ? static_cast<double>(r.bytes) / r.keys : 0.0);
  }
  // The outputs of dedup --output=FILE committed with the state, the last
  // ten of them, and whether each is still there.
  const std::vector<StateStore::Committed>& outputs = state.committed();
  constexpr size_t kListed = 10;
  std::printf("outputs   %zu committed%s\n", outputs.size(),
              outputs.size() > kListed ? " (the last 10, newest last)"
              : outputs.empty()        ? ""
                                       : " (newest last)");
  for (size_t i = outputs.size() - std::min(outputs.size(), kListed);
       i < outputs.size(); ++i) {
    struct stat st;
    const bool there = ::lstat(outputs[i].path.c_str(), &st) == 0;
    std::printf("  %s  %s%s\n", StateStore::TimeText(outputs[i].time).c_str(),
                outputs[i].path.c_str(), there ? "" : "  (gone)");
  }
  std::fflush(stdout);
}

// Reads no input files: its one argument is the state's directory.
class StateRun : public CommandRun {
 public:
  using CommandRun::CommandRun;

  void AddOptions(CLI::App* app) override {
    AddFlag(app, "--verify", [this] { verify_ = true; });
    AddFlag(app, "--compact", [this] { compact_ = true; });
    AddFlag(app, "--upgrade", [this] { upgrade_ = true; });
  }
  int Check() override {
    if (opt_.files.size() != 1) return Usage("state takes one directory");
    return -1;
  }

  // Exit status 2, with nothing on stdout but what --compact did, when DIR
  // is not a state or the state is damaged or in use.
  int Main() override {
    const std::string& dir = opt_.files[0];
    StateStore state;
    std::string error;
    if (upgrade_ && !Upgrade(dir, &error)) {
      std::fprintf(stderr, "uriscan: state --upgrade: %s\n", error.c_str());
      return 2;
    }
    if (compact_ && !Compact(dir, &error)) {
      std::fprintf(stderr, "uriscan: state --compact: %s\n", error.c_str());
      return 2;
    }
    // Every run's checksum, as an update checks before it reads input: a
    // state reported healthy is one the next run takes.
    if (!state.OpenForReading(dir, &error, /*checksums=*/true)) {
      std::fprintf(stderr, "uriscan: state: %s\n", error.c_str());
      return 2;
    }
    if (verify_ && !state.Verify(&error)) {
      std::fprintf(stderr, "uriscan: state: %s\n", error.c_str());
      return 2;
    }
    PrintState(dir, state);
    for (const StateStore::Unlisted& f : state.UnlistedFiles()) {
      std::printf("unlisted  %s  %llu bytes (%s)\n", f.name.c_str(),
                  static_cast<unsigned long long>(f.bytes),
                  f.leftover ? "left by a killed run: the next update "
                               "removes it"
                             : "not the state's: left as it is");
    }
    if (verify_) {
      size_t runs = state.runs().size();
      for (uint32_t i = 0; state.shards() > 1 && i < state.shards(); ++i)
        runs += state.shard(i)->runs().size();
      std::printf("verified  %zu runs: key order, counts and checksums\n",
                  runs);
    }
    // A report that could not be written (a full disk, a closed stdout) is
    // an error like any other output.
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      return OutputError(errno);
    return 0;
  }

 private:
  bool verify_ = false;
  bool compact_ = false;
  bool upgrade_ = false;
};

}  // namespace

const CommandSpec kStateCommand = {
    "state", "DIR [--verify] [--compact] [--upgrade]", [] { return std::string(kHelp); },
    false, false, MakeRun<StateRun>};

}  // namespace cli
}  // namespace uriscan
