// SPDX-License-Identifier: MIT
// A crawler's frontier loop on SeenState (uriscan/seen_state.h): a state
// of --keys keys, then --batches batches of --batch URLs (a tenth of each
// seen in an earlier batch), each added and committed, timed one by one:
// p50, p99 and max, with the merges made in the background meanwhile.
// tools/bench-state.sh runs it (the long-running row).
//
// usage: seen_state_loop --dir=DIR [--keys=N] [--batches=N] [--batch=N]
//                        [--inline] [--memory=BYTES]
// DIR is made with N random keys when it holds fewer (kept for reruns).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "uriscan/seen_state.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

bool Flag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0 || arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, value;
  uint64_t keys = 100000000, batches = 10000, batch = 1000;
  size_t memory = 0;
  bool inline_merges = false;
  for (int i = 1; i < argc; ++i) {
    if (Flag(argv[i], "--dir", &value)) {
      dir = value;
    } else if (Flag(argv[i], "--keys", &value)) {
      keys = std::strtoull(value.c_str(), nullptr, 10);
    } else if (Flag(argv[i], "--batches", &value)) {
      batches = std::strtoull(value.c_str(), nullptr, 10);
    } else if (Flag(argv[i], "--batch", &value)) {
      batch = std::strtoull(value.c_str(), nullptr, 10);
    } else if (Flag(argv[i], "--memory", &value)) {
      memory = std::strtoull(value.c_str(), nullptr, 10);
    } else if (std::strcmp(argv[i], "--inline") == 0) {
      inline_merges = true;
    } else {
      std::fprintf(stderr, "seen_state_loop: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (dir.empty() || batch == 0) {
    std::fprintf(stderr, "usage: seen_state_loop --dir=DIR [--keys=N] "
                         "[--batches=N] [--batch=N] [--inline]\n");
    return 2;
  }
  try {
    uriscan::SeenStateOptions options;
    options.profile = uriscan::Profile::kScheme;
    options.background_merges = !inline_merges;
    if (memory) options.memory = memory;
    // The state: random keys stand for the fingerprints of N distinct URLs
    // (XXH3 keys are uniform), added 10^6 at a time.
    {
      const auto start = Clock::now();
      auto state = uriscan::SeenState::Open(dir, options);
      uint64_t have = state->stats().keys;
      if (have < keys) {
        std::mt19937_64 rng(have + 1);
        std::vector<uint64_t> chunk;
        std::vector<uint8_t> out;
        while (have < keys) {
          chunk.resize(std::min<uint64_t>(1000000, keys - have));
          for (uint64_t& k : chunk) k = rng() | 1;
          out.resize(chunk.size());
          state->AddKeys(chunk.data(), chunk.size(), out.data());
          state->Commit();
          have = state->stats().keys;
        }
        state->WaitForMerges();
        std::fprintf(stderr, "built %llu keys in %.1f s\n",
                     static_cast<unsigned long long>(have), Seconds(start));
      }
    }
    const auto opening = Clock::now();
    auto state = uriscan::SeenState::Open(dir, options);
    const double open_seconds = Seconds(opening);
    // The steady state of a process that stays: its runs' filters built
    // (until then their keys are looked up on disk) and no merge due.
    const auto warming = Clock::now();
    state->WaitForMerges();
    const double warm_seconds = Seconds(warming);
    const uriscan::SeenStateStats before = state->stats();
    // Distinct URLs of a few thousand hosts; a tenth of each batch are
    // URLs of the batch before (links found again).
    std::mt19937_64 rng(before.keys);
    std::vector<std::string> urls(batch), last;
    std::vector<std::string_view> rows(batch);
    std::vector<uint8_t> fresh(batch);
    std::vector<double> times, add_times;
    times.reserve(batches);
    add_times.reserve(batches);
    uint64_t new_rows = 0;
    for (uint64_t b = 0; b < batches; ++b) {
      for (uint64_t i = 0; i < batch; ++i) {
        if (!last.empty() && i % 10 == 0) {
          urls[i] = last[rng() % last.size()];
        } else {
          char text[160];
          std::snprintf(text, sizeof text,
                        "https://www.host%u.example/section/%llx/page-%llu"
                        "?id=%llu",
                        static_cast<unsigned>(rng() % 5000),
                        static_cast<unsigned long long>(rng() % 4096),
                        static_cast<unsigned long long>(b * batch + i),
                        static_cast<unsigned long long>(rng() % 100000));
          urls[i] = text;
        }
        rows[i] = urls[i];
      }
      const auto start = Clock::now();
      state->Add(rows.data(), rows.size(), fresh.data());
      add_times.push_back(Seconds(start));
      state->Commit();
      times.push_back(Seconds(start));
      for (uint8_t f : fresh) new_rows += f;
      last = urls;
    }
    const uriscan::SeenStateStats after = state->stats();
    const auto waiting = Clock::now();
    state->WaitForMerges();
    const double drain = Seconds(waiting);
    {  // the slowest batches, for whoever looks at the tail
      std::vector<std::pair<double, size_t>> slow;
      for (size_t i = 0; i < times.size(); ++i) slow.emplace_back(times[i], i);
      std::sort(slow.rbegin(), slow.rend());
      for (size_t i = 0; i < std::min<size_t>(5, slow.size()); ++i)
        std::fprintf(stderr, "slow batch %zu: %.1f ms (add %.1f ms)\n",
                     slow[i].second, slow[i].first * 1e3,
                     add_times[slow[i].second] * 1e3);
    }
    std::sort(times.begin(), times.end());
    std::sort(add_times.begin(), add_times.end());
    const double add_p50 = add_times.empty() ? 0 : add_times[add_times.size() / 2];
    const double add_p99 = add_times.empty() ? 0 : add_times[add_times.size() * 99 / 100];
    auto at = [&](double q) {
      return times.empty() ? 0.0
                           : times[std::min(times.size() - 1,
                                            static_cast<size_t>(q * times.size()))];
    };
    std::printf(
        "{\"keys\": %llu, \"batches\": %llu, \"batch\": %llu, "
        "\"new_rows\": %llu, \"merges\": \"%s\", \"open_s\": %.3f, "
        "\"warm_s\": %.2f, "
        "\"p50_ms\": %.2f, \"p99_ms\": %.2f, \"max_ms\": %.2f, "
        "\"add_p50_ms\": %.2f, \"add_p99_ms\": %.2f, "
        "\"background_merges_done\": %llu, \"drain_s\": %.2f, "
        "\"runs\": %llu, \"memory_bytes\": %llu, \"disk_lookups\": %llu}\n",
        static_cast<unsigned long long>(before.keys),
        static_cast<unsigned long long>(batches),
        static_cast<unsigned long long>(batch),
        static_cast<unsigned long long>(new_rows),
        inline_merges ? "inline" : "background", open_seconds, warm_seconds,
        at(0.50) * 1e3, at(0.99) * 1e3, times.empty() ? 0 : times.back() * 1e3,
        add_p50 * 1e3, add_p99 * 1e3,
        static_cast<unsigned long long>(after.merges), drain,
        static_cast<unsigned long long>(state->stats().runs),
        static_cast<unsigned long long>(after.memory_bytes),
        static_cast<unsigned long long>(after.disk_lookups));
    // Each batch's new URLs must be in the state now (a check, not a
    // figure: a benchmark that answers wrongly measures nothing).
    std::vector<uint8_t> seen(batch);
    state->Contains(rows.data(), rows.size(), seen.data());
    for (uint8_t s : seen) {
      if (!s) {
        std::fprintf(stderr, "seen_state_loop: a committed URL is missing\n");
        return 1;
      }
    }
  } catch (const uriscan::SeenStateError& e) {
    std::fprintf(stderr, "seen_state_loop: %s\n", e.what());
    return 2;
  }
  return 0;
}
