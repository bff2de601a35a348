// SPDX-License-Identifier: MIT
// KeyRunReaderV1: the format-1 runs of earlier releases, read to convert a
// state to format 2 (key_runs.h).
#include "src/store/key_runs_v1.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
// Header-only, as in fingerprint.cc: xxHash is never a link dependency.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "src/store/durable.h"

namespace uriscan {
namespace {

constexpr char kMagic[8] = {'U', 'R', 'I', 'S', 'C', 'A', 'N', 'K'};
constexpr size_t kSlack = 32;  // zero bytes past the data: Peek never faults
constexpr size_t kHeaderBytes = 48;
constexpr uint64_t kEscape = 48;  // a quotient this large: a raw gap

uint64_t Load64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
inline uint64_t Mask(int width) {
  return width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

}  // namespace

struct KeyRunReaderV1::Hash {
  XXH3_state_t* state = XXH3_createState();
  ~Hash() { XXH3_freeState(state); }
};

KeyRunReaderV1::KeyRunReaderV1() = default;

KeyRunReaderV1::~KeyRunReaderV1() {
  if (f_) std::fclose(f_);
}

bool KeyRunReaderV1::Damaged(const char* what) {
  if (error_.empty()) error_ = path_ + " is damaged: " + what;
  done_ = true;
  return false;
}

bool KeyRunReaderV1::Open(int dir_fd, const std::string& name,
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
  unsigned char head[kHeaderBytes];
  if (std::fread(head, 1, sizeof head, f_) != sizeof head)
    return Damaged("shorter than its header");
  if (std::memcmp(head, kMagic, 8) != 0) return Damaged("not a key run");
  if (Load64(head + 8) != 1)
    return Damaged("unknown format version");
  const uint64_t profile = Load64(head + 16);
  keys_total_ = Load64(head + 24);
  payload_bytes_ = Load64(head + 32);
  checksum_ = Load64(head + 40);
  std::memcpy(head_bytes_, head, 40);
  if (profile != profile_tag)
    return Damaged("its keys are of another profile than the state's");
  struct stat st;
  if (fstat(fileno(f_), &st) != 0 ||
      static_cast<uint64_t>(st.st_size) !=
          kHeaderBytes + payload_bytes_)
    return Damaged("truncated or extended (its size differs from its header)");
  if ((keys_total_ > 0) != (payload_bytes_ > 0) ||
      payload_bytes_ > keys_total_ * 15 + 8)
    return Damaged("key count and payload size disagree");
  const size_t cap =
      (std::max<size_t>(buffer_bytes, size_t{128} << 10) + 4095) / 4096 * 4096;
  buf_.assign(cap + kSlack, 0);
  hash_ = std::make_unique<Hash>();
  XXH3_64bits_reset(hash_->state);
  return true;
}

bool KeyRunReaderV1::Refill(size_t need) {
  const size_t pos = static_cast<size_t>(bit_ >> 3);
  if (pos > size_) return Damaged("a code runs past the data");
  if (size_ - pos >= need || read_ == payload_bytes_) return true;
  std::memmove(buf_.data(), buf_.data() + pos, size_ - pos);
  size_ -= pos;
  consumed_ += pos;
  bit_ &= 7;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(
      buf_.size() - kSlack - size_, payload_bytes_ - read_));
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

uint64_t KeyRunReaderV1::Peek() const {
  uint64_t v;
  std::memcpy(&v, buf_.data() + (bit_ >> 3), 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v >> (bit_ & 7);
}

uint64_t KeyRunReaderV1::Get(int width) {
  const uint64_t v = Peek() & Mask(width);
  bit_ += static_cast<uint64_t>(width);
  return v;
}

uint64_t KeyRunReaderV1::GetWide(int width) {
  if (width <= 56) return Get(width);
  const uint64_t low = Get(32);
  return low | Get(width - 32) << 32;
}

bool KeyRunReaderV1::NextBlock(uint64_t* key) {
  if (done_ || !DecodeBlock()) return false;
  *key = keys_[pos_++];
  return true;
}

bool KeyRunReaderV1::DecodeBlock() {
  keys_.clear();
  pos_ = 0;
  if (decoded_ == keys_total_) {
    CheckEnd();
    return false;
  }
  // The codes of a whole block are in the buffer before it is decoded: the
  // first key, the Rice parameter, and 4096 codes of at most 113 bits.
  constexpr size_t kBlockBytes = (64 + 6 + kBlock * 113) / 8 + 2;
  if (!Refill(kBlockBytes)) return false;
  uint64_t last = last_;
  if (decoded_ == 0) {
    last = GetWide(64);
    if (last == 0) return Damaged("a zero key");
    keys_.push_back(last);
  }
  const uint64_t count = std::min<uint64_t>(
      kBlock, keys_total_ - decoded_ - keys_.size());
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
      if (zeros < kEscape) {
        if (zeros > limit) return Damaged("a gap past 64 bits");
        gap = zeros << rice | GetWide(rice);
      } else if (zeros == kEscape) {
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
  if (consumed_ + (bit_ + 7) / 8 > payload_bytes_)
    return Damaged("a code runs past the data");
  last_ = last;
  decoded_ += keys_.size();
  if (decoded_ == keys_total_ && !CheckEnd()) {
    keys_.clear();
    return false;
  }
  return true;
}

bool KeyRunReaderV1::CheckEnd() {
  if (consumed_ + (bit_ + 7) / 8 != payload_bytes_)
    return Damaged("its payload is longer than its keys");
  return Finish();
}

bool KeyRunReaderV1::Finish() {
  if (!error_.empty()) return false;
  if (!f_) return true;
  std::vector<unsigned char> chunk(buf_.empty() ? 4096 : buf_.size());
  while (read_ < payload_bytes_) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(chunk.size(), payload_bytes_ - read_));
    if (std::fread(chunk.data(), 1, want, f_) != want)
      return Damaged("shorter than its header says");
    XXH3_64bits_update(hash_->state, chunk.data(), want);
    read_ += want;
  }
  XXH3_64bits_update(hash_->state, head_bytes_, 40);
  if (XXH3_64bits_digest(hash_->state) != checksum_)
    return Damaged("bad checksum");
  std::fclose(f_);
  f_ = nullptr;
  done_ = true;
  return true;
}

}  // namespace uriscan
