// SPDX-License-Identifier: MIT
// KeyRunWriter and KeyRunReader: Golomb-Rice coded sorted key runs.
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
constexpr size_t kSlack = 32;  // zero bytes past the data: Peek never faults

void Store64(unsigned char* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}
uint64_t Load64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
inline uint64_t Mask(int width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

// The 40 bytes of the header before its checksum.
void EncodeHead(const KeyRunHeader& h, unsigned char* p) {
  std::memcpy(p, kMagic, 8);
  Store64(p + 8, kKeyRunFormat);  // format, then 4 reserved zero bytes
  Store64(p + 16, h.profile_tag);
  Store64(p + 24, h.keys);
  Store64(p + 32, h.payload_bytes);
}

// Bits the gaps take with Rice parameter r.
uint64_t RiceCost(const std::vector<uint64_t>& gaps, int r) {
  uint64_t bits = 0;
  for (uint64_t g : gaps) {
    const uint64_t q = g >> r;
    bits += q >= kKeyRunEscape ? kKeyRunEscape + 1 + 64 : q + 1 + r;
  }
  return bits;
}

}  // namespace

struct KeyRunWriter::Hash {
  XXH3_state_t* state = XXH3_createState();
  ~Hash() { XXH3_freeState(state); }
};
struct KeyRunReader::Hash {
  XXH3_state_t* state = XXH3_createState();
  ~Hash() { XXH3_freeState(state); }
};

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
  hash_ = std::make_unique<Hash>();
  XXH3_64bits_reset(hash_->state);
  const int fd = durable::OpenNew(dir_fd, name);
  f_ = fd < 0 ? nullptr : fdopen(fd, "wb");
  if (!f_ && fd >= 0) close(fd);
  if (!f_) {
    Fail("create");
    return false;
  }
  const unsigned char zeros[kKeyRunHeaderBytes] = {};
  if (durable::InjectedNoSpace(sizeof zeros) ||
      std::fwrite(zeros, 1, sizeof zeros, f_) != sizeof zeros) {
    Fail("write");
    return false;
  }
  gaps_.reserve(kKeyRunBlock);
  return true;
}

void KeyRunWriter::Emit(const void* bytes, size_t n) {
  if (!error_.empty() || n == 0) return;
  if (durable::InjectedNoSpace(n) || std::fwrite(bytes, 1, n, f_) != n) {
    Fail("write");
    return;
  }
  XXH3_64bits_update(hash_->state, bytes, n);
  header_.payload_bytes += n;
}

void KeyRunWriter::Put(uint64_t value, int width) {
  if (width == 0) return;
  acc_ |= value << acc_bits_;
  if (acc_bits_ + width >= 64) {
    const size_t at = out_.size();
    out_.resize(at + 8);
    Store64(out_.data() + at, acc_);
    acc_ = acc_bits_ ? value >> (64 - acc_bits_) : 0;
    acc_bits_ = acc_bits_ + width - 64;
    if (out_.size() >= (size_t{1} << 16)) {
      Emit(out_.data(), out_.size());
      out_.clear();
    }
  } else {
    acc_bits_ += width;
  }
}

void KeyRunWriter::Add(uint64_t key) {
  if (!error_.empty()) return;
  if (header_.keys++ == 0) {
    Put(key, 64);
  } else {
    gaps_.push_back(key - last_);
    if (gaps_.size() == kKeyRunBlock) FlushBlock();
  }
  last_ = key;
}

void KeyRunWriter::FlushBlock() {
  if (gaps_.empty()) return;
  // The mean gap's log2, then the best of its neighbours: for geometric gaps
  // the optimum lies within one of it.
  uint64_t sum = 0;  // the block's span: below 2^64 as the keys increase
  for (uint64_t g : gaps_) sum += g;
  const uint64_t mean = std::max<uint64_t>(sum / gaps_.size(), 1);
  const int guess = 63 - __builtin_clzll(mean);
  int best = guess;
  uint64_t best_cost = RiceCost(gaps_, guess);
  for (int r : {guess - 1, guess + 1}) {
    if (r < 0 || r > 63) continue;
    const uint64_t c = RiceCost(gaps_, r);
    if (c < best_cost) best = r, best_cost = c;
  }
  Put(static_cast<uint64_t>(best), 6);
  for (uint64_t g : gaps_) {
    const uint64_t q = g >> best;
    if (q >= kKeyRunEscape) {
      Put(uint64_t{1} << kKeyRunEscape, kKeyRunEscape + 1);
      Put(g, 64);
    } else {
      Put(uint64_t{1} << q, static_cast<int>(q) + 1);
      Put(g & Mask(best), best);
    }
  }
  gaps_.clear();
}

bool KeyRunWriter::Finish() {
  if (!f_) return false;
  FlushBlock();
  const size_t at = out_.size();
  out_.resize(at + 8);
  Store64(out_.data() + at, acc_);
  out_.resize(at + (acc_bits_ + 7) / 8);
  acc_ = 0;
  acc_bits_ = 0;
  Emit(out_.data(), out_.size());
  out_.clear();
  unsigned char head[kKeyRunHeaderBytes];
  EncodeHead(header_, head);
  XXH3_64bits_update(hash_->state, head, 40);
  header_.checksum = XXH3_64bits_digest(hash_->state);
  Store64(head + 40, header_.checksum);
  if (error_.empty()) {
    if (std::fflush(f_) != 0 || std::fseek(f_, 0, SEEK_SET) != 0 ||
        std::fwrite(head, 1, sizeof head, f_) != sizeof head ||
        std::fflush(f_) != 0) {
      Fail("write");
    } else if (fsync(fileno(f_)) != 0) {
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
  if (f_) std::fclose(f_);
}

bool KeyRunReader::Damaged(const char* what) {
  if (error_.empty()) error_ = path_ + " is damaged: " + what;
  done_ = true;
  return false;
}

bool KeyRunReader::Open(int dir_fd, const std::string& name,
                        const std::string& path, uint64_t profile_tag,
                        size_t buffer_bytes) {
  path_ = path;
  const int fd = durable::OpenExisting(dir_fd, name, O_RDONLY);
  f_ = fd < 0 ? nullptr : fdopen(fd, "rb");
  if (!f_ && fd >= 0) close(fd);
  if (!f_) {
    error_ = "cannot open " + path + ": " + durable::ErrorText(errno);
    return false;
  }
  unsigned char head[kKeyRunHeaderBytes];
  if (std::fread(head, 1, sizeof head, f_) != sizeof head)
    return Damaged("shorter than its header");
  if (std::memcmp(head, kMagic, 8) != 0) return Damaged("not a key run");
  if (Load64(head + 8) != kKeyRunFormat)
    return Damaged("unknown format version");
  header_.profile_tag = Load64(head + 16);
  header_.keys = Load64(head + 24);
  header_.payload_bytes = Load64(head + 32);
  header_.checksum = Load64(head + 40);
  std::memcpy(head_bytes_, head, 40);
  if (header_.profile_tag != profile_tag)
    return Damaged("its keys are of another profile than the state's");
  struct stat st;
  if (fstat(fileno(f_), &st) != 0 ||
      static_cast<uint64_t>(st.st_size) !=
          kKeyRunHeaderBytes + header_.payload_bytes)
    return Damaged("truncated or extended (its size differs from its header)");
  if ((header_.keys > 0) != (header_.payload_bytes > 0) ||
      header_.payload_bytes > header_.keys * 15 + 8)
    return Damaged("key count and payload size disagree");
  const size_t cap =
      (std::max<size_t>(buffer_bytes, size_t{128} << 10) + 4095) / 4096 * 4096;
  buf_.assign(cap + kSlack, 0);
  hash_ = std::make_unique<Hash>();
  XXH3_64bits_reset(hash_->state);
  return true;
}

bool KeyRunReader::Refill(size_t need) {
  const size_t pos = static_cast<size_t>(bit_ >> 3);
  if (pos > size_) return Damaged("a code runs past the data");
  if (size_ - pos >= need || read_ == header_.payload_bytes) return true;
  std::memmove(buf_.data(), buf_.data() + pos, size_ - pos);
  size_ -= pos;
  consumed_ += pos;
  bit_ &= 7;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(
      buf_.size() - kSlack - size_, header_.payload_bytes - read_));
  const size_t n = std::fread(buf_.data() + size_, 1, want, f_);
  if (n != want) {
    error_ = "cannot read " + path_ + (std::ferror(f_)
                                           ? std::string(": ") +
                                                 std::strerror(errno)
                                           : ": it shrank while being read");
    done_ = true;
    return false;
  }
  XXH3_64bits_update(hash_->state, buf_.data() + size_, n);
  read_ += n;
  size_ += n;
  std::memset(buf_.data() + size_, 0, kSlack);
  return true;
}

uint64_t KeyRunReader::Peek() const {
  uint64_t v;
  std::memcpy(&v, buf_.data() + (bit_ >> 3), 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v >> (bit_ & 7);
}

uint64_t KeyRunReader::Get(int width) {
  const uint64_t v = Peek() & Mask(width);
  bit_ += static_cast<uint64_t>(width);
  return v;
}

uint64_t KeyRunReader::GetWide(int width) {
  if (width <= 56) return Get(width);
  const uint64_t low = Get(32);
  return low | Get(width - 32) << 32;
}

bool KeyRunReader::NextBlock(uint64_t* key) {
  if (done_ || !DecodeBlock()) return false;
  *key = keys_[pos_++];
  return true;
}

bool KeyRunReader::DecodeBlock() {
  keys_.clear();
  pos_ = 0;
  if (decoded_ == header_.keys) {
    CheckEnd();
    return false;
  }
  // The codes of a whole block are in the buffer before it is decoded: the
  // first key, the Rice parameter, and 4096 codes of at most 113 bits.
  constexpr size_t kBlockBytes = (64 + 6 + kKeyRunBlock * 113) / 8 + 2;
  if (!Refill(kBlockBytes)) return false;
  uint64_t last = last_;
  if (decoded_ == 0) {
    last = GetWide(64);
    if (last == 0) return Damaged("a zero key");
    keys_.push_back(last);
  }
  const uint64_t count = std::min<uint64_t>(
      kKeyRunBlock, header_.keys - decoded_ - keys_.size());
  const size_t base = keys_.size();
  keys_.resize(base + count);
  if (count > 0) {
    const int rice = static_cast<int>(Get(6));
    const uint64_t limit = rice > 0 ? ~uint64_t{0} >> rice : ~uint64_t{0};
    for (uint64_t i = 0; i < count; ++i) {
      uint64_t zeros;
      uint64_t p = Peek() & Mask(56);
      if (p != 0) {
        zeros = static_cast<uint64_t>(__builtin_ctzll(p));
        bit_ += zeros + 1;
      } else {  // 56 zeros: longer than any code
        return Damaged("a unary code too long");
      }
      uint64_t gap;
      if (zeros < kKeyRunEscape) {
        if (zeros > limit) return Damaged("a gap past 64 bits");
        gap = zeros << rice | GetWide(rice);
      } else if (zeros == kKeyRunEscape) {
        gap = GetWide(64);
      } else {
        return Damaged("a unary code too long");
      }
      const uint64_t k = last + gap;
      if (gap == 0 || k < last) return Damaged("keys out of order");
      keys_[base + i] = k;
      last = k;
      if ((bit_ >> 3) > size_) return Damaged("a code runs past the data");
    }
  }
  if (consumed_ + (bit_ + 7) / 8 > header_.payload_bytes)
    return Damaged("a code runs past the data");
  last_ = last;
  decoded_ += keys_.size();
  if (decoded_ == header_.keys && !CheckEnd()) {
    keys_.clear();
    return false;
  }
  return true;
}

bool KeyRunReader::CheckEnd() {
  if (consumed_ + (bit_ + 7) / 8 != header_.payload_bytes)
    return Damaged("its payload is longer than its keys");
  return Finish();
}

bool KeyRunReader::Finish() {
  if (!error_.empty()) return false;
  if (!f_) return true;
  std::vector<unsigned char> chunk(buf_.empty() ? 4096 : buf_.size());
  while (read_ < header_.payload_bytes) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(chunk.size(), header_.payload_bytes - read_));
    if (std::fread(chunk.data(), 1, want, f_) != want)
      return Damaged("shorter than its header says");
    XXH3_64bits_update(hash_->state, chunk.data(), want);
    read_ += want;
  }
  XXH3_64bits_update(hash_->state, head_bytes_, 40);
  if (XXH3_64bits_digest(hash_->state) != header_.checksum)
    return Damaged("bad checksum");
  std::fclose(f_);
  f_ = nullptr;
  done_ = true;
  return true;
}

}  // namespace uriscan
