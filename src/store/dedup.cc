// SPDX-License-Identifier: MIT
// SeenSet, BloomFilter and Dedup (see dedup.h).
#include "uriscan/dedup.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <thread>
#include <utility>

#include "hwy/contrib/sort/vqsort.h"
#include "src/store/kway_merge.h"

namespace uriscan {
namespace {

// [0, n) from a uniformly distributed 64-bit value, without a division.
inline size_t Reduce(uint64_t x, uint64_t n) {
  return static_cast<size_t>((static_cast<unsigned __int128>(x) * n) >> 64);
}

constexpr size_t kMaxLoadPercent = 80;

}  // namespace

// ---- SeenSet ----

SeenSet::SeenSet(size_t initial_slots)
    : slots_(std::max<size_t>(initial_slots, 16), 0) {}

size_t SeenSet::Home(uint64_t key) const { return Reduce(key, slots_.size()); }

bool SeenSet::Contains(uint64_t key) const {
  const size_t n = slots_.size();
  for (size_t i = Home(key);; i = i + 1 == n ? 0 : i + 1) {
    if (slots_[i] == key) return true;
    if (slots_[i] == 0) return false;
  }
}

bool SeenSet::Insert(uint64_t key) {
  if (slots_.empty()) slots_.assign(16, 0);  // after TakeSorted
  size_t n = slots_.size();
  size_t i = Home(key);
  for (;; i = i + 1 == n ? 0 : i + 1) {
    if (slots_[i] == key) return false;
    if (slots_[i] == 0) break;
  }
  if ((size_ + 1) * 100 > n * kMaxLoadPercent) {
    Grow();
    n = slots_.size();
    for (i = Home(key); slots_[i] != 0; i = i + 1 == n ? 0 : i + 1) {
    }
  }
  slots_[i] = key;
  ++size_;
  return true;
}

size_t SeenSet::BytesToAddOne() const {
  const size_t n = std::max<size_t>(slots_.size(), 16);
  if ((size_ + 1) * 100 <= n * kMaxLoadPercent) return n * sizeof(uint64_t);
  return (n + n / 2 + n) * sizeof(uint64_t);
}

void SeenSet::Grow() {
  std::vector<uint64_t> old(slots_.size() + slots_.size() / 2, 0);
  old.swap(slots_);
  const size_t n = slots_.size();
  for (uint64_t key : old) {
    if (key == 0) continue;
    size_t i = Home(key);
    while (slots_[i] != 0) i = i + 1 == n ? 0 : i + 1;
    slots_[i] = key;
  }
}

std::vector<uint64_t> SeenSet::TakeSorted() {
  std::vector<uint64_t> keys;
  keys.swap(slots_);
  keys.erase(std::remove(keys.begin(), keys.end(), uint64_t{0}), keys.end());
  hwy::Sorter()(keys.data(), keys.size(), hwy::SortAscending());
  size_ = 0;
  return keys;
}

// ---- BloomFilter ----

uint64_t BloomFilter::BytesFor(uint64_t expected, double rate) {
  const double n = std::max<double>(1, static_cast<double>(expected));
  const double ln2 = std::log(2.0);
  const double m = std::ceil(-n * std::log(rate) / (ln2 * ln2));
  // Past 2^62 bits the conversion would overflow: the answer saturates,
  // so a caller comparing it with a budget refuses the filter.
  if (!(m < 0x1p62)) return uint64_t{1} << 59;
  return (static_cast<uint64_t>(m) + 63) / 64 * 8;
}

BloomFilter::BloomFilter(uint64_t expected, double rate)
    : bits_(BytesFor(expected, rate) * 8),
      words_(bits_ / 64, 0) {
  const double n = std::max<double>(1, static_cast<double>(expected));
  probes_ = std::max(1, static_cast<int>(std::lround(
                            static_cast<double>(bits_) / n * std::log(2.0))));
}

// Probe i: the SplitMix64 finalizer of key + (i + 1) times its increment,
// so the k probes are independent. Double hashing (h1 + i * h2), used
// before, is close to them only for large filters: a small first layer at
// a low rate (3,072 bits, 21 probes) gave false positives 100 times as
// often as its rate, and a scalable filter's dedup dropped new lines.
namespace {
inline uint64_t Probe(uint64_t* h) {
  *h += 0x9E3779B97F4A7C15ull;
  uint64_t z = *h;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

bool BloomFilter::MaybeContains(uint64_t key) const {
  uint64_t h = key;
  for (int i = 0; i < probes_; ++i) {
    const size_t bit = Reduce(Probe(&h), bits_);
    if (!(words_[bit / 64] >> (bit % 64) & 1)) return false;
  }
  return true;
}

bool BloomFilter::Insert(uint64_t key) {
  uint64_t h = key;
  bool added = false;
  for (int i = 0; i < probes_; ++i) {
    const size_t bit = Reduce(Probe(&h), bits_);
    uint64_t& w = words_[bit / 64];
    const uint64_t mask = uint64_t{1} << (bit % 64);
    added |= !(w & mask);
    w |= mask;
  }
  inserted_ += added;
  return added;
}

double BloomFilter::ExpectedRate() const {
  const double k = probes_;
  return std::pow(1 - std::exp(-k * static_cast<double>(inserted_) /
                               static_cast<double>(bits_)),
                  k);
}

// ---- Dedup ----

namespace {

constexpr size_t kMaxFanIn = 64;  // runs merged at once
constexpr size_t kPiece = size_t{1} << 12;  // entries written at a time

// Reads one sorted run back, a buffer at a time.
template <class Entry>
class RunReader {
 public:
  RunReader(std::FILE* f, size_t buffer_entries) : f_(f), buf_(buffer_entries) {}
  bool Next(Entry* e) {
    if (pos_ == n_) {
      n_ = std::fread(buf_.data(), sizeof(Entry), buf_.size(), f_);
      pos_ = 0;
      if (n_ == 0) return false;
    }
    *e = buf_[pos_++];
    return true;
  }

 private:
  std::FILE* f_;
  std::vector<Entry> buf_;
  size_t pos_ = 0, n_ = 0;
};

// A k-way merge of sorted runs by (key, number): calls first(e) with the
// first entry of each key, the one with its smallest number.
template <class Entry, class First>
void MergeRuns(const std::vector<std::FILE*>& runs, size_t buffer_bytes,
               First first) {
  if (runs.empty()) return;
  const size_t per_run =
      std::max<size_t>(buffer_bytes / runs.size(), 4096) / sizeof(Entry);
  std::vector<RunReader<Entry>> readers;
  for (std::FILE* f : runs) readers.emplace_back(f, per_run);
  KWayMerge<Entry>(
      readers,
      [](const Entry& a, const Entry& b) {
        return a.key != b.key ? a.key < b.key : a.number < b.number;
      },
      [](const Entry& a, const Entry& b) { return a.key == b.key; }, first);
}

// Reads the entries of one sorted run from `begin` to `end` (entry
// indexes) with pread, so threads read ranges of the same file at once.
template <class Entry>
class RangeReader {
 public:
  RangeReader(int fd, uint64_t begin, uint64_t end, size_t buffer_entries)
      : fd_(fd), next_(begin), end_(end), buf_(buffer_entries) {}
  bool Next(Entry* e) {
    if (pos_ == n_) {
      const uint64_t want = std::min<uint64_t>(buf_.size(), end_ - next_);
      if (want == 0) return false;
      const size_t bytes = static_cast<size_t>(want) * sizeof(Entry);
      size_t done = 0;
      while (done < bytes) {
        const ssize_t got =
            pread(fd_, reinterpret_cast<char*>(buf_.data()) + done,
                  bytes - done, static_cast<off_t>(next_ * sizeof(Entry) + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          failed_ = true;
          return false;
        }
        done += static_cast<size_t>(got);
      }
      next_ += want;
      n_ = static_cast<size_t>(want);
      pos_ = 0;
    }
    *e = buf_[pos_++];
    return true;
  }
  bool failed() const { return failed_; }

 private:
  int fd_;
  uint64_t next_, end_;
  std::vector<Entry> buf_;
  size_t pos_ = 0, n_ = 0;
  bool failed_ = false;
};

// The index of the first entry of a sorted run whose key is >= `key`
// (binary search with pread); `entries` on a read error too.
template <class Entry>
uint64_t LowerBound(int fd, uint64_t entries, uint64_t key) {
  uint64_t lo = 0, hi = entries;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    Entry e;
    if (pread(fd, &e, sizeof e, static_cast<off_t>(mid * sizeof e)) !=
        static_cast<ssize_t>(sizeof e))
      return entries;
    if (e.key < key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Calls first(e) for the first entry of each key of the sorted range
// [begin, end): the one with the smallest number.
template <class Entry, class First>
void FirstOfEachKey(const Entry* begin, const Entry* end, First first) {
  for (const Entry* e = begin; e != end; ++e)
    if (e == begin || e->key != e[-1].key) first(*e);
}

}  // namespace

Dedup::Dedup(Options options)
    : options_(std::move(options)),
      // A first table of at most 512 KiB, and at most half the budget.
      set_(std::min<size_t>(SeenSet::kInitialSlots,
                            options_.memory_bytes / sizeof(uint64_t) / 2)) {
  buffer_limit_ = std::max<size_t>(options_.memory_bytes / sizeof(Entry), 256);
  if (options_.temp_dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    options_.temp_dir = t && *t ? t : "/tmp";
  }
  if (options_.defer_all) {
    spilling_ = true;  // nothing settled in memory: every key is deferred
    set_ = SeenSet(16);
  }
}

Dedup::~Dedup() {
  for (std::FILE* f : runs_) std::fclose(f);
}

Dedup::Verdict Dedup::Add(uint64_t key) {
  ++added_;
  if (!error_.empty()) return Verdict::kDeferred;  // failed: keep nothing
  if (!spilling_) {
    if (set_.Contains(key)) return Verdict::kDuplicate;
    const size_t need = set_.BytesToAddOne();
    if (need <= options_.memory_bytes || set_.size() == 0) {
      set_.Insert(key);
      ++distinct_;
      peak_bytes_ = std::max(peak_bytes_, need);
      set_bytes_per_key_ = static_cast<double>(set_.bytes()) / set_.size();
      return Verdict::kFirst;
    }
    spilling_ = true;
    SpillSet();
    buffer_.reserve(buffer_limit_);  // in the set's place: the budget
  }
  // The whole budget at once, never grown by copying (old and new arrays
  // together would pass it); pages count only once they are filled.
  if (buffer_.capacity() < buffer_limit_) buffer_.reserve(buffer_limit_);
  buffer_.push_back(Entry{++deferred_, key});
  peak_bytes_ = std::max(peak_bytes_, buffer_.size() * sizeof(Entry));
  if (buffer_.size() >= buffer_limit_) SpillBuffer();
  return Verdict::kDeferred;
}

std::FILE* Dedup::NewRun() {
  if (!error_.empty()) return nullptr;
  std::string path = options_.temp_dir + "/uriscan-dedup-XXXXXX";
  const int fd = mkstemp(path.data());
  std::FILE* f = fd < 0 ? nullptr : fdopen(fd, "w+b");
  if (!f) {
    error_ = "cannot create a temporary file in " + options_.temp_dir + ": " +
             std::strerror(errno);
    if (fd >= 0) close(fd);
    return nullptr;
  }
  unlink(path.c_str());  // gone when closed, whatever happens
  runs_.push_back(f);
  return f;
}

bool Dedup::Put(std::FILE* run, std::vector<Entry>* piece) {
  if (std::fwrite(piece->data(), sizeof(Entry), piece->size(), run) !=
      piece->size()) {
    error_ = "cannot write a sorted run to " + options_.temp_dir + ": " +
             std::strerror(errno);
    return false;
  }
  spilled_bytes_ += piece->size() * sizeof(Entry);
  piece->clear();
  return true;
}

bool Dedup::EndRun(std::FILE* run) {
  if (std::fflush(run) != 0 || std::fseek(run, 0, SEEK_SET) != 0) {
    error_ = "cannot write a sorted run to " + options_.temp_dir + ": " +
             std::strerror(errno);
    return false;
  }
  return true;
}

bool Dedup::SpillSet() {
  const std::vector<uint64_t> keys = set_.TakeSorted();
  std::FILE* run = NewRun();
  if (!run) return false;
  std::vector<Entry> piece;  // in pieces: the set's memory is not doubled
  for (uint64_t key : keys) {
    piece.push_back(Entry{0, key});
    if (piece.size() == kPiece && !Put(run, &piece)) return false;
  }
  return Put(run, &piece) && EndRun(run);
}

void Dedup::SortBuffer() {
  // (key, number) order: a 128-bit sort, 3x std::sort's speed at 10^8.
  static_assert(sizeof(Entry) == sizeof(hwy::uint128_t) &&
                offsetof(Entry, key) == offsetof(hwy::uint128_t, hi));
  hwy::Sorter()(reinterpret_cast<hwy::uint128_t*>(buffer_.data()),
                buffer_.size(), hwy::SortAscending());
}

bool Dedup::SpillBuffer() {
  if (buffer_.empty() || !error_.empty()) return error_.empty();
  SortBuffer();
  std::FILE* run = NewRun();
  if (!run) return false;
  std::vector<Entry> piece;  // within a run, a key once, with its first number
  for (size_t i = 0; i < buffer_.size(); ++i) {
    if (i > 0 && buffer_[i].key == buffer_[i - 1].key) continue;
    piece.push_back(buffer_[i]);
    if (piece.size() == kPiece && !Put(run, &piece)) return false;
  }
  buffer_.clear();
  if (!Put(run, &piece) || !EndRun(run)) return false;
  if (runs_.size() < kMaxFanIn) return true;
  // Too many runs to merge at once: merge them into one now.
  std::vector<std::FILE*> in;
  in.swap(runs_);
  std::FILE* merged = NewRun();
  bool ok = merged != nullptr;
  if (ok) {
    MergeRuns<Entry>(in, options_.memory_bytes / 2, [&](const Entry& e) {
      piece.push_back(e);
      if (ok && piece.size() == kPiece) ok = Put(merged, &piece);
    });
    ok = ok && Put(merged, &piece) && EndRun(merged);
  }
  for (std::FILE* f : in) std::fclose(f);
  return ok;
}

bool Dedup::Finish(std::vector<bool>* first, std::string* error,
                   const Filter& filter) {
  first->assign(deferred_, false);
  // Number 0: the key was settled before the spill. Otherwise the smallest
  // number is the deferred key that comes first.
  auto settle = [&](const Entry& e) {
    if (e.number == 0) return;
    if (filter && !filter(e.key)) {
      ++filtered_;
      return;
    }
    (*first)[e.number - 1] = true;
    ++distinct_;
  };
  if (spilling_ && runs_.empty() && error_.empty()) {
    // Everything deferred is still in memory: settled from the sorted
    // buffer itself, never written to a run and read back.
    SortBuffer();
    FirstOfEachKey(buffer_.data(), buffer_.data() + buffer_.size(), settle);
    buffer_ = std::vector<Entry>();
    return true;
  }
  if (spilling_) SpillBuffer();
  if (!error_.empty()) {
    *error = error_;
    return false;
  }
  if (!spilling_) return true;
  buffer_ = std::vector<Entry>();  // its memory back before merging
  MergeRuns<Entry>(runs_, std::min<size_t>(options_.memory_bytes / 2,
                                           runs_.size() << 20),
                   settle);
  for (std::FILE* f : runs_) {
    if (std::ferror(f)) {
      *error = "cannot read a sorted run back from " + options_.temp_dir;
      return false;
    }
  }
  return true;
}

bool Dedup::FinishByParts(std::vector<bool>* first, std::string* error,
                          const std::vector<uint64_t>& starts,
                          const std::vector<Filter>& filters,
                          size_t threads,
                          const std::function<void(size_t)>& part_done) {
  if (starts.size() <= 1 || threads <= 1 || !spilling_) {
    // One thread: Finish() with a filter that picks the part by key (keys
    // come in increasing order, so parts end in turn).
    size_t part = 0;
    const bool finished = Finish(first, error, [&](uint64_t key) {
      const size_t p = static_cast<size_t>(
          std::upper_bound(starts.begin(), starts.end(), key) -
          starts.begin() - 1);
      for (; part < p; ++part) {
        if (part_done) part_done(part);
      }
      return filters[p](key);
    });
    for (; part < starts.size(); ++part) {
      if (part_done) part_done(part);
    }
    return finished;
  }
  first->assign(deferred_, false);
  // Everything deferred still in memory: the parts are ranges of the sorted
  // buffer, never written to a run and read back.
  const bool in_memory = runs_.empty() && error_.empty();
  if (in_memory) {
    SortBuffer();
  } else {
    SpillBuffer();
    buffer_ = std::vector<Entry>();
  }
  if (!error_.empty()) {
    *error = error_;
    return false;
  }
  std::vector<const Entry*> memory_bounds;
  for (size_t p = 0; in_memory && p < starts.size(); ++p) {
    memory_bounds.push_back(
        p == 0 ? buffer_.data()
               : std::lower_bound(buffer_.data(),
                                  buffer_.data() + buffer_.size(), starts[p],
                                  [](const Entry& e, uint64_t key) {
                                    return e.key < key;
                                  }));
  }
  memory_bounds.push_back(buffer_.data() + buffer_.size());
  // Run r's entries and its descriptor; the parts' first entries in it.
  std::vector<int> fds;
  std::vector<uint64_t> sizes;
  for (std::FILE* f : runs_) {
    std::fflush(f);
    fds.push_back(fileno(f));
    sizes.push_back(static_cast<uint64_t>(lseek(fileno(f), 0, SEEK_END)) /
                    sizeof(Entry));
  }
  const size_t parts = starts.size();
  std::vector<std::vector<uint64_t>> bounds(runs_.size());
  for (size_t r = 0; r < runs_.size(); ++r) {
    for (size_t p = 0; p < parts; ++p)
      bounds[r].push_back(p == 0 ? 0 : LowerBound<Entry>(fds[r], sizes[r], starts[p]));
    bounds[r].push_back(sizes[r]);
  }
  // Bytes, not bits: threads set the flags of different numbers at once.
  std::vector<uint8_t> flags(deferred_, 0);
  std::vector<uint64_t> kept(parts, 0), turned(parts, 0);
  std::vector<char> failed(parts, 0);
  std::atomic<size_t> next{0};
  const size_t per_run = std::max<size_t>(
      std::min<size_t>(options_.memory_bytes / 2 / threads /
                           std::max<size_t>(runs_.size(), 1),
                       size_t{1} << 20) /
          sizeof(Entry),
      256);
  auto work = [&] {
    for (size_t p; (p = next.fetch_add(1)) < parts;) {
      auto settle = [&](const Entry& e) {
        if (e.number == 0) return;
        if (!filters[p](e.key)) {
          ++turned[p];
          return;
        }
        flags[e.number - 1] = 1;
        ++kept[p];
      };
      if (in_memory) {
        FirstOfEachKey(memory_bounds[p], memory_bounds[p + 1], settle);
        if (part_done) part_done(p);
        continue;
      }
      std::vector<RangeReader<Entry>> readers;
      for (size_t r = 0; r < runs_.size(); ++r)
        readers.emplace_back(fds[r], bounds[r][p], bounds[r][p + 1], per_run);
      KWayMerge<Entry>(
          readers,
          [](const Entry& a, const Entry& b) {
            return a.key != b.key ? a.key < b.key : a.number < b.number;
          },
          [](const Entry& a, const Entry& b) { return a.key == b.key; },
          settle);
      for (const auto& r : readers) failed[p] |= r.failed();
      if (part_done) part_done(p);
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < std::min(threads, parts); ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (size_t p = 0; p < parts; ++p) {
    if (failed[p]) {
      *error = "cannot read a sorted run back from " + options_.temp_dir;
      return false;
    }
    distinct_ += kept[p];
    filtered_ += turned[p];
  }
  for (size_t j = 0; j < flags.size(); ++j) (*first)[j] = flags[j] != 0;
  buffer_ = std::vector<Entry>();
  return true;
}

}  // namespace uriscan
