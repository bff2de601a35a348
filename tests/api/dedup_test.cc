// SPDX-License-Identifier: MIT
// Seen-sets and Dedup: the exact set against std::unordered_set, its bytes
// per key, the Bloom filter's false-positive rate, and first occurrences
// over the corpora with injected near-duplicates against a reference
// (normalize + a set of strings), in memory and spilled to disk.
#include "uriscan/dedup.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/support/corpus.h"
#include "uriscan/fingerprint.h"

namespace uriscan {
namespace {

TEST(SeenSetTest, MatchesAnUnorderedSetAndStaysUnder16BytesPerKey) {
  SeenSet set;
  std::unordered_set<uint64_t> reference;
  std::mt19937_64 rng(1);
  for (int i = 0; i < 1'500'000; ++i) {
    // Some keys repeat: draw from a range about as big as the count.
    const uint64_t key = (rng() % 1'000'000) * 0x9E3779B97F4A7C15ull + 1;
    ASSERT_EQ(set.Insert(key), reference.insert(key).second);
    if (set.size() >= 100'000) {
      const double per_key = static_cast<double>(set.bytes()) / set.size();
      ASSERT_LE(per_key, 15.0 + 1e-9) << set.size();
      ASSERT_GE(per_key, 10.0 - 1e-9) << set.size();
    }
  }
  EXPECT_EQ(set.size(), reference.size());
  for (uint64_t key : reference) ASSERT_TRUE(set.Contains(key));
  EXPECT_FALSE(set.Contains(12345));
  const std::vector<uint64_t> sorted = set.TakeSorted();
  EXPECT_EQ(sorted.size(), reference.size());
  EXPECT_TRUE(std::is_sorted(sorted.begin(), sorted.end()));
  EXPECT_EQ(set.size(), 0u);
  EXPECT_TRUE(set.Insert(sorted[0]));  // usable again
}

TEST(BloomFilterTest, FalsePositiveRateWithinItsStatedBound) {
  for (double rate : {0.01, 0.001}) {
    const uint64_t n = 200'000;
    BloomFilter bloom(n, rate);
    std::mt19937_64 rng(7);
    std::vector<uint64_t> keys(n);
    for (uint64_t& k : keys) {
      k = rng();
      bloom.Insert(k);
    }
    for (uint64_t k : keys) ASSERT_TRUE(bloom.MaybeContains(k));  // no misses
    // The stated rate for n keys is the one asked for (rounding of m and k
    // aside), and what is measured on a million absent keys stays within it
    // and its sampling error.
    EXPECT_LE(bloom.ExpectedRate(), rate * 1.1);
    const int trials = 1'000'000;
    int positives = 0;
    for (int i = 0; i < trials; ++i) positives += bloom.MaybeContains(rng());
    const double measured = static_cast<double>(positives) / trials;
    const double sigma = std::sqrt(bloom.ExpectedRate() / trials);
    EXPECT_LE(measured, bloom.ExpectedRate() + 4 * sigma) << rate;
    EXPECT_GE(measured, bloom.ExpectedRate() - 4 * sigma) << rate;
    EXPECT_LE(bloom.bytes(), BloomFilter::BytesFor(n, rate));
  }
}

// A small filter at a low rate (a scalable filter's first layer): its
// probes must be independent. With double hashing, 100 keys at 5e-7 in
// 3,072 bits read 5e-5 of absent keys as present, 100 times the rate.
TEST(BloomFilterTest, SmallFilterAtALowRateKeepsItsRate) {
  for (const auto& [n, rate] : {std::pair<uint64_t, double>{100, 5e-7},
                                {100, 1e-4}, {1000, 1e-5}}) {
    BloomFilter bloom(n, rate);
    std::mt19937_64 rng(11);
    for (uint64_t i = 0; i < n; ++i) bloom.Insert(rng());
    const int trials = 2'000'000;
    int positives = 0;
    for (int i = 0; i < trials; ++i) positives += bloom.MaybeContains(rng());
    // At most the expected count and five of its standard deviations (or
    // a few, when that count is below one).
    const double expected = bloom.ExpectedRate() * trials;
    EXPECT_LE(positives, expected + 5 * std::sqrt(expected) + 3)
        << n << " keys at " << rate;
  }
}

// A corpus line made into a near-duplicate: equal to it under `profile`,
// different bytes.
bool NearDuplicate(const UriReference& u, int how, std::string* out) {
  if (!u.valid() || !u.scheme() || !u.authority() || u.userinfo() ||
      u.port() || u.host_kind() != HostKind::kRegName || u.host()->empty())
    return false;
  const std::string scheme(*u.scheme()), host(*u.host());
  std::string path(u.path());
  const std::string tail =
      (u.query() ? "?" + std::string(*u.query()) : std::string()) +
      (u.fragment() ? "#" + std::string(*u.fragment()) : std::string());
  auto upper = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
  };
  switch (how) {
    case 0:  // case of scheme and host
      *out = upper(scheme) + "://" + upper(host) + path + tail;
      return true;
    case 1: {  // an unreserved letter percent-encoded
      const size_t at = path.find_first_of("abcdefghijklmnopqrstuvwxyz");
      if (at == std::string::npos) return false;
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", path[at]);
      path.replace(at, 1, hex);
      *out = scheme + "://" + host + path + tail;
      return true;
    }
    case 2:  // dot segments
      if (path.empty() || path[0] != '/') return false;
      *out = scheme + "://" + host + "/x/.." + path + tail;
      return true;
    case 3:  // the default port
      if (scheme != "http" && scheme != "https") return false;
      *out = scheme + "://" + host + (scheme == "http" ? ":80" : ":443") +
             (path.empty() ? "/" : path) + tail;
      return true;
    default: {  // parameter order (crawler only)
      if (!u.query()) return false;
      std::string q(*u.query());
      const size_t amp = q.find('&');
      if (amp == std::string::npos) return false;
      const size_t amp2 = q.find('&', amp + 1);
      const std::string first = q.substr(0, amp);
      const std::string second = q.substr(amp + 1, amp2 == std::string::npos
                                                       ? std::string::npos
                                                       : amp2 - amp - 1);
      if (first == second || first.substr(0, first.find('=')) ==
                                 second.substr(0, second.find('=')))
        return false;  // same name: their order matters
      q = second + "&" + first +
          (amp2 == std::string::npos ? "" : q.substr(amp2));
      *out = scheme + "://" + host + path + "?" + q +
             (u.fragment() ? "#" + std::string(*u.fragment()) : "");
      return true;
    }
  }
}

// Every corpus line, and after about 30 % of them a repeat or a
// near-duplicate of an earlier line.
std::string StreamWithDuplicates(Profile profile, size_t* injected,
                                 size_t* near) {
  std::string out;
  std::vector<std::string> lines;
  std::mt19937 rng(3986);
  *injected = 0;
  *near = 0;
  for (const auto& corpus : test_corpus::LoadCorpora()) {
    size_t start = 0;
    while (start < corpus.bytes.size()) {
      size_t end = corpus.bytes.find('\n', start);
      if (end == std::string::npos) end = corpus.bytes.size();
      lines.emplace_back(corpus.bytes, start, end - start);
      start = end + 1;
    }
  }
  std::vector<std::string> seen;
  for (const std::string& line : lines) {
    out += line;
    out += '\n';
    seen.push_back(line);
    if (rng() % 10 < 3) {
      const std::string& earlier = seen[rng() % seen.size()];
      std::string dup = earlier;
      const int how = static_cast<int>(rng() % 6);  // 5: an exact repeat
      if (how < 5 && (how < 4 || profile == Profile::kCrawler)) {
        *near += NearDuplicate(ParseUriReference(earlier), how, &dup);
      }
      out += dup;
      out += '\n';
      ++*injected;
    }
  }
  return out;
}

// Row numbers of the first occurrences, the reference way.
std::vector<size_t> ReferenceFirsts(const OwnedBatch& batch, Profile profile) {
  std::unordered_set<std::string> seen;
  std::vector<size_t> firsts;
  for (size_t i = 0; i < batch.size(); ++i) {
    std::string normal;
    if (!Normalize(ParseUriReference(batch.view().Get(i)), profile, &normal))
      continue;
    if (seen.insert(normal).second) firsts.push_back(i);
  }
  return firsts;
}

std::vector<size_t> DedupFirsts(const OwnedBatch& batch, Profile profile,
                                Dedup& dedup) {
  ComponentSpans spans;
  Scan(batch.view(), &spans);
  std::vector<uint64_t> keys;
  Fingerprinter(profile).Batch64(batch.view(), spans, &keys);
  std::vector<size_t> firsts, deferred;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == 0) continue;
    switch (dedup.Add(keys[i])) {
      case Dedup::Verdict::kFirst: firsts.push_back(i); break;
      case Dedup::Verdict::kDuplicate: break;
      case Dedup::Verdict::kDeferred: deferred.push_back(i); break;
    }
  }
  std::vector<bool> first;
  std::string error;
  EXPECT_TRUE(dedup.Finish(&first, &error)) << error;
  EXPECT_EQ(first.size(), deferred.size());
  for (size_t j = 0; j < deferred.size(); ++j)
    if (first[j]) firsts.push_back(deferred[j]);
  EXPECT_EQ(dedup.distinct(), firsts.size());
  return firsts;
}

class DedupTest : public ::testing::TestWithParam<Profile> {};

TEST_P(DedupTest, FirstOccurrencesEqualTheReferenceInMemoryAndSpilled) {
  const Profile profile = GetParam();
  size_t injected = 0, near = 0;
  OwnedBatch batch;
  ASSERT_TRUE(
      BatchFromLines(StreamWithDuplicates(profile, &injected, &near), &batch));
  ASSERT_GT(injected, 50000u);
  ASSERT_GT(near, 20000u);
  const std::vector<size_t> want = ReferenceFirsts(batch, profile);
  ASSERT_LT(want.size() + injected / 2, batch.size());  // many were caught

  Dedup::Options big;
  Dedup in_memory(big);
  EXPECT_EQ(DedupFirsts(batch, profile, in_memory), want);
  EXPECT_FALSE(in_memory.spilling());
  EXPECT_EQ(in_memory.runs(), 0u);

  // 1 MiB: the set spills at its first growth, then runs of 65,536 entries.
  Dedup::Options small;
  small.memory_bytes = size_t{1} << 20;
  Dedup spilled(small);
  EXPECT_EQ(DedupFirsts(batch, profile, spilled), want);
  EXPECT_TRUE(spilled.spilling());
  EXPECT_GT(spilled.runs(), 1u);

  // 4 KiB: runs of 256 entries, far more than are merged at once, so runs
  // are merged into runs while spilling.
  Dedup::Options tiny;
  tiny.memory_bytes = 4096;
  Dedup many(tiny);
  EXPECT_EQ(DedupFirsts(batch, profile, many), want);
  EXPECT_GT(many.spilled_bytes(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Profiles, DedupTest,
                         ::testing::Values(Profile::kScheme, Profile::kCrawler),
                         [](const auto& param_info) {
                           return std::string(ProfileName(param_info.param));
                         });

TEST(DedupErrors, AnUnwritableTemporaryDirectoryIsAnError) {
  Dedup::Options o;
  o.memory_bytes = 4096;
  o.temp_dir = "/nonexistent/uriscan";
  Dedup dedup(o);
  for (uint64_t k = 1; k < 100000; ++k) dedup.Add(k * 0x9E3779B97F4A7C15ull);
  // After the failed spill nothing more is kept: memory stays bounded.
  EXPECT_FALSE(dedup.error().empty());
  EXPECT_LE(dedup.peak_bytes(), o.memory_bytes);
  std::vector<bool> first;
  std::string error;
  EXPECT_FALSE(dedup.Finish(&first, &error));
  EXPECT_NE(error.find("/nonexistent/uriscan"), std::string::npos) << error;
}

}  // namespace
}  // namespace uriscan
