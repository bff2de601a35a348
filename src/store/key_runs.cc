// SPDX-License-Identifier: MIT
// KeyRunWriter and KeyRunReader: Golomb-Rice coded sorted key runs in
// indexed, checksummed blocks (key_runs.h).
#include "src/store/key_runs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
// Header-only, as in fingerprint.cc: xxHash is never a link dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

#include "src/store/durable.h"

namespace uriscan {
namespace {

constexpr char kMagic[8] = {'U', 'R', 'I', 'S', 'C', 'A', 'N', 'K'};
constexpr size_t kSlack = 32;  // zero bytes past a block: Peek never faults
// The longest block: a 6-bit parameter and 255 codes of at most 113 bits.
constexpr size_t kMaxBlockBytes = (6 + (kKeyRunBlockKeys - 1) * 113 + 7) / 8;
constexpr uint64_t kMaxOffset = uint64_t{1} << 48;
// Lookups that read this many blocks of a group read the next one whole
// (a group is up to 204 blocks: a whole read costs about 16 block reads).
constexpr size_t kDenseBlocks = 16;

void Store(unsigned char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint64_t Load(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
inline uint64_t Mask(int width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

uint64_t Checksum(const unsigned char* p, size_t n, uint64_t seed) {
  return XXH3_64bits_withSeed(p, n, seed);
}

// Bits the gaps take with Rice parameter r.
uint64_t RiceCost(const uint64_t* gaps, size_t n, int r) {
  uint64_t bits = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t q = gaps[i] >> r;
    bits += q >= kKeyRunEscape ? kKeyRunEscape + 1 + 64 : q + 1 + r;
  }
  return bits;
}

// Bits appended least significant first, 64 at a time; Finish() writes
// the last ones, padded with zero bits to a byte.
class BitWriter {
 public:
  explicit BitWriter(std::vector<unsigned char>* out) : out_(out) {}
  void Put(uint64_t value, int width) {  // width 0..64, value < 2^width
    if (width == 0) return;
    acc_ |= value << used_;
    if (used_ + width < 64) {
      used_ += width;
      return;
    }
    unsigned char bytes[8];
    Store(bytes, acc_, 8);
    out_->insert(out_->end(), bytes, bytes + 8);
    acc_ = used_ ? value >> (64 - used_) : 0;
    used_ = used_ + width - 64;
  }
  void Zeros(uint64_t n) {  // a unary code's zeros
    while (n >= 32) Put(0, 32), n -= 32;
    Put(0, static_cast<int>(n));
  }
  void Finish() {
    for (int b = 0; b < used_; b += 8)
      out_->push_back(static_cast<unsigned char>(acc_ >> b));
    acc_ = 0;
    used_ = 0;
  }

 private:
  std::vector<unsigned char>* out_;
  uint64_t acc_ = 0;  // bits not yet appended
  int used_ = 0;      // how many
};

// Bits read least significant first from a block with kSlack zero bytes
// after its end.
class BitReader {
 public:
  BitReader(const unsigned char* p, size_t bytes) : p_(p), bytes_(bytes) {}
  uint64_t Peek() const {
    uint64_t v;
    std::memcpy(&v, p_ + (bit_ >> 3), 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v >> (bit_ & 7);
  }
  uint64_t Get(int width) {  // width 0..56
    const uint64_t v = Peek() & Mask(width);
    bit_ += static_cast<uint64_t>(width);
    return v;
  }
  uint64_t GetWide(int width) {  // width 0..64
    if (width <= 56) return Get(width);
    const uint64_t low = Get(32);
    return low | Get(width - 32) << 32;
  }
  void Skip(uint64_t bits) { bit_ += bits; }
  bool Past() const { return bit_ > 8 * bytes_; }
  uint64_t bit() const { return bit_; }

 private:
  const unsigned char* p_;
  size_t bytes_;
  uint64_t bit_ = 0;
};

}  // namespace

double KeyRunBoundBytes(uint64_t n) {
  if (n == 0) return 0;
  const double dn = static_cast<double>(n);
  return ((66 - std::log2(dn)) / 8 + 1) * dn;
}

// ---- KeyRunWriter ----

KeyRunWriter::KeyRunWriter() = default;

KeyRunWriter::~KeyRunWriter() {
  if (f_) std::fclose(f_);
}

void KeyRunWriter::Fail(const char* what) {
  if (error_.empty())
    error_ = std::string("cannot ") + what + " " + path_ + ": " +
             std::strerror(errno);
}

bool KeyRunWriter::Open(int dir_fd, const std::string& name,
                        const std::string& path, uint64_t profile_tag) {
  path_ = path;
  header_ = KeyRunHeader{};
  header_.profile_tag = profile_tag;
  const int fd = durable::OpenNew(dir_fd, name);
  f_ = fd < 0 ? nullptr : fdopen(fd, "wb");
  if (!f_ && fd >= 0) close(fd);
  if (!f_) {
    Fail("create");
    return false;
  }
  block_.reserve(kKeyRunBlockKeys);
  const unsigned char zeros[kKeyRunHeaderBytes] = {};
  Emit(zeros, sizeof zeros);  // the header, written last
  return error_.empty();
}

void KeyRunWriter::Emit(const void* bytes, size_t n) {
  if (!error_.empty() || n == 0) return;
  if (durable::InjectedNoSpace(n) || std::fwrite(bytes, 1, n, f_) != n) {
    Fail("write");
    return;
  }
  offset_ += n;
  // Written back as it goes (a long merge beside small commits): the
  // final fsync then has little left, and the commits' fsyncs never wait
  // behind a file's worth of dirty pages. Advice only: errors are the
  // fsync's to report.
  if (write_behind_ > 0 && offset_ - written_back_ >= write_behind_) {
    if (std::fflush(f_) == 0)
      (void)sync_file_range(fileno(f_), static_cast<off64_t>(written_back_),
                            static_cast<off64_t>(offset_ - written_back_),
                            SYNC_FILE_RANGE_WAIT_BEFORE |
                                SYNC_FILE_RANGE_WRITE |
                                SYNC_FILE_RANGE_WAIT_AFTER);
    written_back_ = offset_;
  }
}

void KeyRunWriter::Add(uint64_t key) {
  if (!error_.empty()) return;
  block_.push_back(key);
  ++header_.keys;
  if (block_.size() == kKeyRunBlockKeys) FlushBlock();
}

void KeyRunWriter::FlushBlock() {
  if (block_.empty() || !error_.empty()) return;
  // The gaps in place, then the mean gap's log2 and the best of its
  // neighbours: for geometric gaps the optimum lies within one of it.
  const size_t n = block_.size() - 1;
  std::vector<uint64_t>& gaps = gaps_;
  gaps.resize(n);
  for (size_t i = 0; i < n; ++i) gaps[i] = block_[i + 1] - block_[i];
  int best = 0;
  if (n > 0) {
    const uint64_t mean =
        std::max<uint64_t>((block_.back() - block_.front()) / n, 1);
    const int guess = 63 - __builtin_clzll(mean);
    best = guess;
    uint64_t best_cost = RiceCost(gaps.data(), n, guess);
    for (int r : {guess - 1, guess + 1}) {
      if (r < 0 || r > 63) continue;
      const uint64_t c = RiceCost(gaps.data(), n, r);
      if (c < best_cost) best = r, best_cost = c;
    }
  }
  code_.clear();
  BitWriter bits(&code_);
  bits.Put(static_cast<uint64_t>(best), 6);
  for (uint64_t g : gaps) {
    const uint64_t q = g >> best;
    if (q >= kKeyRunEscape) {
      bits.Zeros(kKeyRunEscape);
      bits.Put(1, 1);
      bits.Put(g, 64);
    } else {
      bits.Zeros(q);
      bits.Put(1, 1);
      bits.Put(g & Mask(best), best);
    }
  }
  bits.Finish();
  if (offset_ >= kMaxOffset) {
    errno = EFBIG;
    Fail("write");
    return;
  }
  unsigned char entry[kKeyRunEntryBytes];
  Store(entry, block_.front(), 8);
  Store(entry + 8, offset_, 6);
  Store(entry + 14, code_.size(), 2);
  Store(entry + 16, Checksum(code_.data(), code_.size(), blocks_), 4);
  if (page_.empty()) {  // the fence: the page's first key
    unsigned char first[8];
    Store(first, block_.front(), 8);
    fence_.insert(fence_.end(), first, first + 8);
  }
  page_.insert(page_.end(), entry, entry + sizeof entry);
  Emit(code_.data(), code_.size());
  ++blocks_;
  last_ = block_.back();
  block_.clear();
  if (page_.size() == kKeyRunPageEntries * kKeyRunEntryBytes) FlushPage();
}

void KeyRunWriter::FlushPage() {
  if (page_.empty() || !error_.empty()) return;
  unsigned char where[8], sum[8];
  Store(where, offset_, 8);
  fence_.insert(fence_.end(), where, where + 8);
  Store(sum, Checksum(page_.data(), page_.size(), header_.pages), 8);
  page_.insert(page_.end(), sum, sum + 8);
  Emit(page_.data(), page_.size());
  ++header_.pages;
  page_.clear();
}

bool KeyRunWriter::Finish(bool sync) {
  if (!f_) return false;
  FlushBlock();
  FlushPage();
  header_.body_bytes = offset_ - kKeyRunHeaderBytes;
  Emit(fence_.data(), fence_.size());
  unsigned char head[kKeyRunHeaderBytes];
  std::memcpy(head, kMagic, 8);
  Store(head + 8, kKeyRunFormat, 4);
  Store(head + 12, kKeyRunBlockKeys, 4);
  Store(head + 16, header_.profile_tag, 8);
  Store(head + 24, header_.keys, 8);
  Store(head + 32, header_.body_bytes, 8);
  Store(head + 40, header_.pages, 8);
  Store(head + 48, Checksum(fence_.data(), fence_.size(), 0), 8);
  Store(head + 56, Checksum(head, 56, 0), 8);
  if (error_.empty()) {
    if (std::fflush(f_) != 0 || std::fseek(f_, 0, SEEK_SET) != 0 ||
        std::fwrite(head, 1, sizeof head, f_) != sizeof head ||
        std::fflush(f_) != 0) {
      Fail("write");
    } else if (sync && fsync(fileno(f_)) != 0) {
      Fail("sync");
    }
  }
  if (std::fclose(f_) != 0) Fail("close");
  f_ = nullptr;
  return error_.empty();
}

// ---- KeyRunReader ----

KeyRunReader::KeyRunReader() = default;

KeyRunReader::~KeyRunReader() {
  if (fd_ >= 0) close(fd_);
}

bool KeyRunReader::Damaged(const std::string& what) {
  if (error_.empty()) error_ = path_ + " is damaged: " + what;
  keys_.clear();
  pos_ = 0;
  return false;
}

uint64_t KeyRunReader::Blocks() const {
  return (header_.keys + kKeyRunBlockKeys - 1) / kKeyRunBlockKeys;
}

uint64_t KeyRunReader::GroupStart(uint64_t page) const {
  return page == 0 ? kKeyRunHeaderBytes
                   : fence_offset_[page - 1] + PageBytes(page - 1);
}

uint64_t KeyRunReader::PageBytes(uint64_t page) const {
  const uint64_t entries =
      std::min<uint64_t>(kKeyRunPageEntries, Blocks() - page * kKeyRunPageEntries);
  return entries * kKeyRunEntryBytes + 8;
}

bool KeyRunReader::ReadAt(uint64_t offset, size_t n, unsigned char* to) {
  if (whole_file_) {  // a small run, read at Open()
    if (offset > file_.size() || n > file_.size() - offset) {
      error_ = "cannot read " + path_ + ": it shrank while being read";
      return false;
    }
    if (n > 0) std::memcpy(to, file_.data() + offset, n);  // `to` may be null
    return true;
  }
  size_t done = 0;
  while (done < n) {
    const ssize_t got = pread(fd_, to + done, n - done,
                              static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      error_ = "cannot read " + path_ + ": " +
               (got < 0 ? std::strerror(errno)
                        : std::string("it shrank while being read"));
      return false;
    }
    done += static_cast<size_t>(got);
  }
  bytes_read_ += n;
  return true;
}

bool KeyRunReader::Open(int dir_fd, const std::string& name,
                        const std::string& path, uint64_t profile_tag) {
  path_ = path;
  fd_ = durable::OpenExisting(dir_fd, name, O_RDONLY);
  if (fd_ < 0) {
    error_ = "cannot open " + path + ": " + durable::ErrorText(errno);
    return false;
  }
  struct stat st;
  if (fstat(fd_, &st) != 0) {
    error_ = "cannot read " + path + ": " + std::strerror(errno);
    return false;
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  // A small run (the shards' and the newest runs) is read in one call,
  // and its descriptor let go at once.
  if (size <= kWholeFileBytes) {
    file_.resize(size);
    if (!ReadAt(0, size, file_.data())) return false;
    whole_file_ = true;
    close(fd_);
    fd_ = -1;
  }
  unsigned char head[kKeyRunHeaderBytes];
  if (size < 16) return Damaged("shorter than its header");
  if (!ReadAt(0, 16, head)) return false;
  if (std::memcmp(head, kMagic, 8) != 0) return Damaged("not a key run");
  if (Load(head + 8, 4) != kKeyRunFormat) {
    return Load(head + 8, 4) == 1
               ? Damaged("a run of format 1, written by an earlier uriscan "
                         "(convert the state with uriscan state DIR "
                         "--upgrade)")
               : Damaged("unknown format version");
  }
  if (size < kKeyRunHeaderBytes) return Damaged("shorter than its header");
  if (!ReadAt(16, kKeyRunHeaderBytes - 16, head + 16)) return false;
  if (Load(head + 56, 8) != Checksum(head, 56, 0))
    return Damaged("bad header checksum");
  if (Load(head + 12, 4) != kKeyRunBlockKeys)
    return Damaged("unknown block size");
  header_.profile_tag = Load(head + 16, 8);
  header_.keys = Load(head + 24, 8);
  header_.body_bytes = Load(head + 32, 8);
  header_.pages = Load(head + 40, 8);
  if (header_.profile_tag != profile_tag)
    return Damaged("its keys are of another profile than the state's");
  if (header_.pages !=
          (Blocks() + kKeyRunPageEntries - 1) / kKeyRunPageEntries ||
      header_.body_bytes > kMaxOffset ||
      header_.body_bytes < header_.pages * 8 + Blocks() * (kKeyRunEntryBytes + 1) ||
      header_.body_bytes > header_.keys * 15 + header_.pages * 8 + Blocks() * 32)
    return Damaged("key count and sizes disagree");
  if (size != header_.file_bytes())
    return Damaged("truncated or extended (its size differs from its header)");
  std::vector<unsigned char> fence(header_.pages * kKeyRunFenceBytes);
  if (!ReadAt(kKeyRunHeaderBytes + header_.body_bytes, fence.size(),
              fence.data()))
    return false;
  if (Load(head + 48, 8) != Checksum(fence.data(), fence.size(), 0))
    return Damaged("bad fence checksum");
  fence_first_.resize(header_.pages);
  fence_offset_.resize(header_.pages);
  for (uint64_t p = 0; p < header_.pages; ++p) {
    fence_first_[p] = Load(fence.data() + p * 16, 8);
    fence_offset_[p] = Load(fence.data() + p * 16 + 8, 8);
    // Each group holds its blocks (a byte at least each) before its page.
    const uint64_t blocks = std::min<uint64_t>(
        kKeyRunPageEntries, Blocks() - p * kKeyRunPageEntries);
    if (fence_first_[p] == 0 || (p > 0 && fence_first_[p] <= fence_first_[p - 1]) ||
        fence_offset_[p] < GroupStart(p) + blocks ||
        fence_offset_[p] - GroupStart(p) > blocks * kMaxBlockBytes)
      return Damaged("a bad fence");
  }
  if (header_.pages > 0 &&
      GroupStart(header_.pages) != kKeyRunHeaderBytes + header_.body_bytes)
    return Damaged("a bad fence");
  return true;
}

bool KeyRunReader::LoadPage(uint64_t page, bool whole) {
  const uint64_t start = GroupStart(page), at = fence_offset_[page];
  const size_t bytes = static_cast<size_t>(PageBytes(page));
  const unsigned char* p;
  whole_ = whole;
  entry_ = ~size_t{0};
  page_ = ~uint64_t{0};
  if (whole) {
    group_.resize(static_cast<size_t>(at - start) + bytes + kSlack);
    if (!ReadAt(start, static_cast<size_t>(at - start) + bytes, group_.data()))
      return false;
    std::memset(group_.data() + (at - start) + bytes, 0, kSlack);
    p = group_.data() + (at - start);
  } else {
    page_bytes_.resize(bytes);  // reused: no allocation per page read
    if (!ReadAt(at, bytes, page_bytes_.data())) return false;
    p = page_bytes_.data();
  }
  const size_t n = (bytes - 8) / kKeyRunEntryBytes;
  if (Load(p + bytes - 8, 8) != Checksum(p, bytes - 8, page))
    return Damaged("bad checksum of index page " + std::to_string(page));
  entries_.resize(n);
  uint64_t next = start;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char* e = p + i * kKeyRunEntryBytes;
    Entry& entry = entries_[i];
    entry.first = Load(e, 8);
    entry.offset = Load(e + 8, 6);
    entry.length = static_cast<uint32_t>(Load(e + 14, 2));
    entry.checksum = static_cast<uint32_t>(Load(e + 16, 4));
    if ((i == 0 ? entry.first != fence_first_[page]
                : entry.first <= entries_[i - 1].first) ||
        (page + 1 < header_.pages && entry.first >= fence_first_[page + 1]) ||
        entry.offset != next || entry.length == 0 ||
        entry.length > kMaxBlockBytes)
      return Damaged("a bad entry in index page " + std::to_string(page));
    next += entry.length;
  }
  if (next != at)
    return Damaged("a bad entry in index page " + std::to_string(page));
  page_ = page;
  return true;
}

bool KeyRunReader::LoadBlock(size_t i, bool decode) {
  const Entry& e = entries_[i];
  const uint64_t b = page_ * kKeyRunPageEntries + i;
  const unsigned char* p;
  entry_ = ~size_t{0};
  if (whole_) {
    p = group_.data() + (e.offset - GroupStart(page_));
  } else {
    block_bytes_.resize(e.length + kSlack);
    if (!ReadAt(e.offset, e.length, block_bytes_.data())) return false;
    std::memset(block_bytes_.data() + e.length, 0, kSlack);
    p = block_bytes_.data();
  }
  if (static_cast<uint32_t>(Checksum(p, e.length, b)) != e.checksum)
    return Damaged("bad checksum of block " + std::to_string(b));
  if (!decode) return true;
  // Decoded as far as lookups need (Decode()): the first key is the
  // entry's, then the Rice parameter.
  code_ = p;
  code_bit_ = 6;
  rice_ = static_cast<int>(p[0] & 63);
  count_ = std::min<uint64_t>(kKeyRunBlockKeys,
                              header_.keys - b * kKeyRunBlockKeys);
  keys_.assign(1, e.first);
  pos_ = 0;
  entry_ = i;
  return true;
}

bool KeyRunReader::Decode(uint64_t until) {
  if (keys_.size() >= count_ || keys_.back() >= until) return true;
  const Entry& e = entries_[entry_];
  BitReader bits(code_, e.length);
  bits.Skip(code_bit_);
  const int rice = rice_;
  const uint64_t limit = rice > 0 ? ~uint64_t{0} >> rice : ~uint64_t{0};
  uint64_t last = keys_.back();
  while (keys_.size() < count_ && last < until) {
    const uint64_t p56 = bits.Peek() & Mask(56);
    if (p56 == 0) return Damaged("a unary code too long");  // 56 zeros
    const uint64_t zeros = static_cast<uint64_t>(__builtin_ctzll(p56));
    bits.Skip(zeros + 1);
    uint64_t gap;
    if (zeros < kKeyRunEscape) {
      if (zeros > limit) return Damaged("a gap past 64 bits");
      gap = zeros << rice | bits.GetWide(rice);
    } else if (zeros == kKeyRunEscape) {
      gap = bits.GetWide(64);
    } else {
      return Damaged("a unary code too long");
    }
    const uint64_t key = last + gap;
    if (gap == 0 || key < last) return Damaged("keys out of order");
    if (bits.Past()) return Damaged("a code runs past its block");
    keys_.push_back(last = key);
  }
  code_bit_ = bits.bit();
  if (keys_.size() < count_) return true;
  // The whole block: its codes fill it but for its last byte's padding, and
  // its last key is below the next block's first.
  const uint64_t next_first =
      entry_ + 1 < entries_.size() ? entries_[entry_ + 1].first
      : page_ + 1 < header_.pages  ? fence_first_[page_ + 1]
                                   : 0;
  if ((bits.bit() + 7) / 8 != e.length ||
      (next_first != 0 && last >= next_first))
    return Damaged("block " +
                   std::to_string(page_ * kKeyRunPageEntries + entry_) +
                   " disagrees with its index");
  return true;
}

bool KeyRunReader::NextBlock(uint64_t* key) {
  if (failed()) return false;
  // The block after the current one: the next entry, or the next page.
  size_t i = entry_ == ~size_t{0} ? 0 : entry_ + 1;
  if (page_ == ~uint64_t{0} || i >= entries_.size()) {
    const uint64_t page = page_ == ~uint64_t{0} ? 0 : page_ + 1;
    if (page >= header_.pages) return false;
    if (!LoadPage(page, /*whole=*/true)) return false;
    i = 0;
  }
  if (!LoadBlock(i, /*decode=*/true) || !Decode(~uint64_t{0})) return false;
  *key = keys_[pos_++];
  return true;
}

bool KeyRunReader::Contains(uint64_t key) {
  if (failed() || header_.pages == 0 || key < fence_first_[0]) return false;
  // The page whose first key is the last at or below `key`.
  const uint64_t page = static_cast<uint64_t>(
      std::upper_bound(fence_first_.begin(), fence_first_.end(), key) -
      fence_first_.begin() - 1);
  if (page != page_) {
    // Lookups that needed many blocks of a group read the next group
    // whole: a large run of keys reads the run once, in order; scattered
    // ones an index page and a block each.
    const bool dense = page_ != ~uint64_t{0} && page == page_ + 1 &&
                       blocks_in_page_ >= kDenseBlocks;
    if (!LoadPage(page, dense)) return false;
    blocks_in_page_ = 0;
  }
  const size_t i = static_cast<size_t>(
      std::upper_bound(entries_.begin(), entries_.end(), key,
                       [](uint64_t k, const Entry& e) { return k < e.first; }) -
      entries_.begin() - 1);
  if (i != entry_) {
    if (!LoadBlock(i, /*decode=*/true)) return false;
    ++blocks_in_page_;
  }
  if (!Decode(key)) return false;
  const auto at = std::lower_bound(keys_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                   keys_.end(), key);
  pos_ = static_cast<size_t>(at - keys_.begin());
  return at != keys_.end() && *at == key;
}

bool KeyRunReader::CheckAll() {
  for (uint64_t page = 0; page < header_.pages; ++page) {
    if (!LoadPage(page, /*whole=*/true)) return false;
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (!LoadBlock(i, /*decode=*/false)) return false;
    }
  }
  page_ = ~uint64_t{0};
  entry_ = ~size_t{0};
  return !failed();
}

}  // namespace uriscan
