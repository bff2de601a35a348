// SPDX-License-Identifier: MIT
// Sorted runs of 64-bit keys on disk, Golomb-Rice coded: the files of a
// persistent seen-set (seen_state.h), written and read as streams.
#ifndef URISCAN_SRC_STORE_KEY_RUNS_H_
#define URISCAN_SRC_STORE_KEY_RUNS_H_

#include <fcntl.h>  // AT_FDCWD

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace uriscan {

// A key-run file, all integers little-endian:
//
//   offset  size  field
//        0     8  magic "URISCANK"
//        8     4  format version (kKeyRunFormat)
//       12     4  zero (reserved)
//       16     8  profile tag: the fingerprint seed of the profile
//       24     8  key count n
//       32     8  payload bytes
//       40     8  checksum: XXH3_64bits of the payload, then bytes 0..39
//       48     -  payload
//
// The payload is a bit stream, least significant bit first. The n keys are
// nonzero and strictly increasing. The first is written raw (64 bits). The
// gaps between the others follow in blocks of kKeyRunBlock gaps; each block
// starts with its Rice parameter r (6 bits) and codes each gap g as
// q = g >> r in unary (q zero bits, then a one) and the low r bits of g.
// A quotient of kKeyRunEscape or more is written as kKeyRunEscape zeros and
// a one, then g in 64 raw bits, so no key costs more than 113 bits. For
// uniformly spread keys the gaps are about geometric with mean 2^64 / n, and
// the best r costs about 64 - log2(n) + 1.5 bits per key (Golomb 1966;
// Rice 1979): 4.9 bytes at 10^8 keys.
inline constexpr uint32_t kKeyRunFormat = 1;
inline constexpr size_t kKeyRunHeaderBytes = 48;
inline constexpr size_t kKeyRunBlock = 4096;
inline constexpr uint32_t kKeyRunEscape = 48;

struct KeyRunHeader {
  uint64_t profile_tag = 0;
  uint64_t keys = 0;
  uint64_t payload_bytes = 0;
  uint64_t checksum = 0;
};

// Writes one run to `path`: Add() keys in strictly increasing order, then
// Finish() writes the header, flushes and fsyncs. The file is created by
// Open(), which fails when `path` exists (a link planted there included).
// Errors (disk full, I/O) are kept: Add() becomes a no-op and Finish()
// returns false with error() set. With `dir_fd`, `name` is opened in that
// directory (openat) and `path` only names it in errors.
class KeyRunWriter {
 public:
  KeyRunWriter();
  ~KeyRunWriter();
  KeyRunWriter(const KeyRunWriter&) = delete;
  KeyRunWriter& operator=(const KeyRunWriter&) = delete;

  bool Open(const std::string& path, uint64_t profile_tag) {
    return Open(AT_FDCWD, path, path, profile_tag);
  }
  bool Open(int dir_fd, const std::string& name, const std::string& path,
            uint64_t profile_tag);
  void Add(uint64_t key);  // nonzero, above the previous key
  bool Finish();           // header, fflush, fsync, close
  uint64_t keys() const { return header_.keys; }
  uint64_t file_bytes() const {
    return kKeyRunHeaderBytes + header_.payload_bytes;
  }
  const std::string& error() const { return error_; }

 private:
  void FlushBlock();
  void Put(uint64_t value, int width);  // width 0..64, value < 2^width
  void Emit(const void* bytes, size_t n);
  void Fail(const char* what);

  std::FILE* f_ = nullptr;
  std::string path_, error_;
  KeyRunHeader header_;
  uint64_t last_ = 0;
  std::vector<uint64_t> gaps_;  // the current block
  uint64_t acc_ = 0;            // bits not yet written
  int acc_bits_ = 0;
  std::vector<unsigned char> out_;  // bytes not yet written
  struct Hash;
  std::unique_ptr<Hash> hash_;
};

// Reads one run as a stream of keys with a bounded buffer. Open() checks the
// magic, the format, the profile tag and that the file is exactly as long as
// its header says; Next() decodes and checks that keys increase; at the end
// (or from Finish(), which hashes the rest without decoding it) the checksum
// is compared. Any damage is an error, never an early end.
class KeyRunReader {
 public:
  KeyRunReader();
  ~KeyRunReader();
  KeyRunReader(const KeyRunReader&) = delete;
  KeyRunReader& operator=(const KeyRunReader&) = delete;

  // `buffer_bytes` is raised to 128 KiB at least (a whole block of codes
  // and room to read ahead) and rounded up to 4 KiB.
  // With `dir_fd`, as KeyRunWriter::Open().
  bool Open(const std::string& path, uint64_t profile_tag,
            size_t buffer_bytes) {
    return Open(AT_FDCWD, path, path, profile_tag, buffer_bytes);
  }
  bool Open(int dir_fd, const std::string& name, const std::string& path,
            uint64_t profile_tag, size_t buffer_bytes);
  // The next key; false at the end or on damage (then error() is set).
  // Keys are decoded a block at a time.
  bool Next(uint64_t* key) {
    if (pos_ < keys_.size()) {
      *key = keys_[pos_++];
      return true;
    }
    return NextBlock(key);
  }
  // Reads the rest without decoding it and checks the checksum.
  bool Finish();
  const KeyRunHeader& header() const { return header_; }
  const std::string& error() const { return error_; }
  bool failed() const { return !error_.empty(); }

 private:
  bool NextBlock(uint64_t* key);
  bool DecodeBlock();  // the next block into keys_
  // Keeps `need` bytes ahead of the bit position, or all that is left.
  bool Refill(size_t need);
  uint64_t Peek() const;
  uint64_t Get(int width);  // width 0..56
  uint64_t GetWide(int width);  // width 0..64
  bool Damaged(const char* what);
  bool CheckEnd();

  std::FILE* f_ = nullptr;
  std::string path_, error_;
  KeyRunHeader header_;
  unsigned char head_bytes_[40] = {};
  std::vector<unsigned char> buf_;  // plus 8 zero bytes of slack
  size_t size_ = 0;                 // valid bytes in buf_
  uint64_t bit_ = 0;                // bit position in buf_
  uint64_t consumed_ = 0;           // payload bytes dropped from buf_'s front
  uint64_t read_ = 0;               // payload bytes read from the file
  uint64_t decoded_ = 0, last_ = 0;
  std::vector<uint64_t> keys_;  // the decoded block
  size_t pos_ = 0;              // the next of keys_ to return
  bool done_ = false;
  struct Hash;
  std::unique_ptr<Hash> hash_;
};

// Bytes that n keys spread uniformly take at most, by the contract of the
// seen-set: ((66 - log2 n) / 8 + 1) * n.
double KeyRunBoundBytes(uint64_t n);

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_KEY_RUNS_H_
