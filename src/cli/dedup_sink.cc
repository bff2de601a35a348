// SPDX-License-Identifier: MIT
#include "src/cli/dedup_sink.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace uriscan {
namespace cli {
namespace {

constexpr char kKeyed = 'k';    // a deferred key: written if it came first
constexpr char kInvalid = 'i';  // an invalid row: always written

void AppendKey(uint64_t key, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  char text[17];
  for (int i = 15; i >= 0; --i, key >>= 4) text[i] = kHex[key & 15];
  text[16] = '\t';
  out->append(text, 17);
}

}  // namespace

DedupSink::DedupSink(const Config& config) : config_(config) {
  if (config_.bloom_expected > 0) {
    bloom_capacity_ = config_.bloom_expected;
    bloom_.push_back(std::make_unique<BloomFilter>(bloom_capacity_,
                                                   config_.fp_rate / 2));
    bloom_bytes_ = bloom_.back()->bytes();
  } else {
    Dedup::Options o;
    o.memory_bytes = config_.memory;
    o.temp_dir = config_.temp_dir;
    o.defer_all = config_.state != nullptr;
    // A quarter stays free for what a state run adds: the spool's buffer,
    // the state's readers and the new run's writer.
    if (o.defer_all) o.memory_bytes -= o.memory_bytes / 4;
    exact_ = std::make_unique<Dedup>(o);
    // With a state nothing is known before the end: every row waits.
    // Without one, the temporary directory is tried before any row is
    // written: a spill that fails later must not meet a half-written output.
    if (OpenSpool() && !config_.state) {
      std::fclose(spool_);
      spool_ = nullptr;
    }
  }
}

DedupSink::~DedupSink() {
  if (spool_) std::fclose(spool_);
}

uint64_t DedupSink::distinct() const {
  return exact_ ? exact_->distinct() : bloom_distinct_;
}

bool DedupSink::OpenSpool() {
  std::string path = exact_->temp_dir() + "/uriscan-spool-XXXXXX";
  const int fd = mkstemp(path.data());
  spool_ = fd < 0 ? nullptr : fdopen(fd, "w+b");
  if (!spool_) {
    error_ = "cannot create a temporary file in " + exact_->temp_dir() + ": " +
             std::strerror(errno);
    if (fd >= 0) close(fd);
    return false;
  }
  unlink(path.c_str());
  return true;
}

void DedupSink::Append(uint64_t key, std::string_view line, char tag,
                       std::string* out) {
  // With a state every row must wait; without a spool (it could not be
  // made: Finish reports that) none may be written early.
  if (config_.state && !spool_) return;
  std::string* to = out;
  if (spool_) {  // held back: a tag byte, then the row as it will be written
    to = &spool_buffer_;
    to->push_back(tag);
  }
  if (config_.keys) {  // two columns: a TAB in the line is escaped
    AppendKey(key, to);
    AppendPgText(line, to);
  } else {
    to->append(line);
  }
  to->push_back('\n');
  if (spool_ && spool_buffer_.size() >= (1u << 20)) FlushSpool();
}

void DedupSink::FlushSpool() {
  if (std::fwrite(spool_buffer_.data(), 1, spool_buffer_.size(), spool_) !=
          spool_buffer_.size() &&
      error_.empty()) {
    error_ = "cannot write to " + exact_->temp_dir() + ": " +
             std::strerror(errno);
  }
  spool_buffer_.clear();
}

bool DedupSink::failed() const {
  return !error_.empty() || (exact_ && !exact_->error().empty());
}

void DedupSink::Row(uint64_t key, std::string_view line, std::string* out) {
  // After a failure no row is written: any might be a duplicate.
  if (failed()) return;
  if (key == 0) {
    Append(0, line, kInvalid, out);
    return;
  }
  if (!bloom_.empty()) {
    if (!error_.empty()) return;  // the filter could not grow: stopped
    if (BloomInsert(key)) {
      ++bloom_distinct_;
      Append(key, line, kKeyed, out);
    } else if (error_.empty()) {
      ++duplicates_;
    }
    return;
  }
  switch (exact_->Add(key)) {
    case Dedup::Verdict::kFirst:
      Append(key, line, kKeyed, out);
      break;
    case Dedup::Verdict::kDuplicate:
      ++duplicates_;
      break;
    case Dedup::Verdict::kDeferred:
      if (!spool_ && error_.empty()) OpenSpool();
      if (!failed()) Append(key, line, kKeyed, out);
      break;
  }
}

// A scalable Bloom filter (Almeida, Baquero, Preguica and Hutchison, 2007):
// a key seen by any layer is a duplicate; a new one goes into the last
// layer, and when that holds its capacity a layer twice as large at half
// the rate follows, so the false-positive rate stays under fp_rate however
// many keys come.
bool DedupSink::BloomInsert(uint64_t key) {
  for (const auto& layer : bloom_)
    if (layer->MaybeContains(key)) return false;
  if (bloom_.back()->inserted() >= bloom_capacity_) {
    const double rate =
        config_.fp_rate / static_cast<double>(uint64_t{2} << bloom_.size());
    const uint64_t capacity = 2 * bloom_capacity_;
    const uint64_t bytes = BloomFilter::BytesFor(capacity, rate);
    if (bloom_bytes_ + bytes > config_.memory) {
      char text[200];
      std::snprintf(text, sizeof text,
                    "the Bloom filter holds %llu keys and needs %.1f MB more "
                    "to keep the false-positive rate under %g, past --memory; "
                    "raise --memory or --bloom, or drop --bloom for an exact "
                    "dedup",
                    static_cast<unsigned long long>(bloom_distinct_),
                    bytes / 1e6, config_.fp_rate);
      error_ = text;
      return false;
    }
    bloom_.push_back(std::make_unique<BloomFilter>(capacity, rate));
    bloom_capacity_ = capacity;
    bloom_bytes_ += bytes;
  }
  return bloom_.back()->Insert(key);
}

bool DedupSink::Finish(Writer* out, std::string* error) {
  if (!exact_) {
    *error = error_;
    return error_.empty();
  }
  std::vector<bool> first;
  StateStore* state = config_.state;
  if (state) {
    // The state's readers hold a group of blocks each (735 KB at most,
    // within the quarter of the budget kept free); the merge of this run's
    // keys, half (Dedup::Finish).
    if (!error_.empty()) {
      *error = error_;
      return false;
    }
    // The deferred rows bound the run's new keys: a small run of a sharded
    // state writes them to one run (state->one_writer()).
    if (!state->BeginLookups(error, exact_->deferred())) return false;
  }
  const auto start = std::chrono::steady_clock::now();
  if (state && state->shards() > 1 && !state->one_writer()) {
    // Each shard's keys on a thread of their own: shard i holds the keys
    // from i << (64 - log2 N) on.
    std::vector<uint64_t> starts;
    std::vector<Dedup::Filter> filters;
    const int bits = __builtin_ctz(state->shards());
    for (uint32_t i = 0; i < state->shards(); ++i) {
      StateStore* shard = state->shard(i);
      starts.push_back(i == 0 ? 0 : uint64_t{i} << (64 - bits));
      filters.push_back([shard](uint64_t key) { return shard->Offer(key); });
    }
    // A shard's files are open from its first key to its last (so a state
    // of 4096 shards runs under a limit of 1024 descriptors).
    if (!exact_->FinishByParts(&first, error, starts, filters,
                               std::max<size_t>(config_.threads, 1),
                               [state](size_t p) { state->EndShardLookups(p); }))
      return false;
  } else {
    Dedup::Filter filter;
    if (state) filter = [state](uint64_t key) { return state->Offer(key); };
    if (!exact_->Finish(&first, error, filter)) return false;
  }
  if (state && !state->EndLookups(error)) return false;
  lookup_seconds_ = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - start)
                        .count();
  if (spool_) {
    FlushSpool();
    if ((std::fflush(spool_) != 0 || std::fseek(spool_, 0, SEEK_SET) != 0) &&
        error_.empty()) {
      error_ = "cannot write to " + exact_->temp_dir() + ": " +
               std::strerror(errno);
    }
  }
  std::string().swap(spool_buffer_);  // its memory, not only its bytes
  if (!error_.empty()) {
    *error = error_;
    return false;
  }
  if (!spool_) return true;
  char* row = nullptr;
  size_t capacity = 0;
  size_t j = 0;  // deferred keys so far
  ssize_t n;
  while ((n = getline(&row, &capacity, spool_)) > 0) {
    if (row[0] == kKeyed) {
      if (j >= first.size()) break;  // cannot happen unless the file changed
      if (first[j++]) {
        out->buffer().append(row + 1, static_cast<size_t>(n) - 1);
      } else {
        ++duplicates_;
      }
    } else {
      out->buffer().append(row + 1, static_cast<size_t>(n) - 1);
    }
    out->MaybeFlush();
  }
  std::free(row);
  if (std::ferror(spool_) || j != first.size()) {
    *error = "cannot read back the rows held in " + exact_->temp_dir();
    return false;
  }
  return true;
}

double DedupSink::BloomRate() const {
  // A key is a false positive when any layer says so: at most the sum.
  double rate = 0;
  for (const auto& layer : bloom_) rate += layer->ExpectedRate();
  return rate;
}

void DedupSink::AppendJson(std::string* j) const {
  char text[512];
  if (!bloom_.empty()) {
    std::snprintf(text, sizeof text,
                  "\"method\":\"bloom\",\"bloom_bytes\":%llu,"
                  "\"bloom_layers\":%zu,\"expected_fp_rate\":%.6g",
                  static_cast<unsigned long long>(bloom_bytes_), bloom_.size(),
                  BloomRate());
  } else {
    std::snprintf(text, sizeof text,
                  "\"method\":\"exact\",\"peak_bytes\":%llu,"
                  "\"spilled_runs\":%zu",
                  static_cast<unsigned long long>(exact_->peak_bytes()),
                  exact_->runs());
  }
  *j += text;
  *j += ",\"state\":";
  if (!config_.state) {
    *j += "null";
    return;
  }
  const StateStore& state = *config_.state;
  *j += "{\"dir\":";
  AppendJsonString(state.dir(), j);
  std::snprintf(
      text, sizeof text,
      ",\"seen_before\":%llu,\"new\":%llu,\"lookup_seconds\":%.6f,"
      "\"lookup_bytes\":%llu,\"commit_seconds\":%.6f,\"keys\":%llu,"
      "\"shards\":%u,\"runs\":%zu}",
      static_cast<unsigned long long>(exact_->filtered()),
      static_cast<unsigned long long>(exact_->distinct()), lookup_seconds_,
      static_cast<unsigned long long>(state.lookup_bytes()),
      state.commit_seconds(), static_cast<unsigned long long>(state.keys()),
      state.shards(), state.runs().size());
  *j += text;
}

std::string DedupSink::Describe() const {
  char text[256];
  if (!bloom_.empty()) {
    std::snprintf(text, sizeof text,
                  "approximate: Bloom filter of %.1f MB in %zu layer%s, "
                  "expected false-positive rate %.2g at %llu distinct",
                  bloom_bytes_ / 1e6, bloom_.size(),
                  bloom_.size() == 1 ? "" : "s", BloomRate(),
                  static_cast<unsigned long long>(bloom_distinct_));
    return text;
  }
  if (config_.state) {
    std::snprintf(text, sizeof text,
                  "exact: keys sorted in %.1f MB at most, %zu runs in %s",
                  exact_->peak_bytes() / 1e6, exact_->runs(),
                  exact_->temp_dir().c_str());
    const StateStore& state = *config_.state;
    std::string s = text;
    s += "; state " + state.dir() + ": " + std::to_string(exact_->filtered()) +
         " classes seen in earlier runs, " +
         std::to_string(exact_->distinct()) + " new";
    std::snprintf(text, sizeof text, "; lookups %.2f s, %.1f MB read",
                  lookup_seconds_, state.lookup_bytes() / 1e6);
    s += text;
    if (state.commit_seconds() > 0) {
      std::snprintf(text, sizeof text, ", commit %.2f s",
                    state.commit_seconds());
      s += text;
      if (state.compacted_keys() > 0)
        s += " (runs merged into one of " +
             std::to_string(state.compacted_keys()) + " keys)";
      s += ", " + std::to_string(state.keys()) + " keys in " +
           (state.shards() > 1
                ? std::to_string(state.shards()) + " shards and " +
                      std::to_string(state.runs().size()) + " runs of the top"
                : std::to_string(state.runs().size()) + " runs");
    }
    return s;
  }
  int len = std::snprintf(text, sizeof text, "exact: seen-set %.1f MB at most",
                          exact_->peak_bytes() / 1e6);
  if (exact_->distinct() >= 100000) {  // past the first table: meaningful
    len += std::snprintf(text + len, sizeof text - len,
                         ", %.1f bytes per distinct URL",
                         exact_->set_bytes_per_key());
  }
  if (exact_->spilling()) {
    std::snprintf(text + len, sizeof text - len,
                  "; spilled %zu sorted runs (%.1f MB) to %s", exact_->runs(),
                  exact_->spilled_bytes() / 1e6, exact_->temp_dir().c_str());
  }
  return text;
}

}  // namespace cli
}  // namespace uriscan
