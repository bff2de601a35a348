// SPDX-License-Identifier: MIT
// Sorted runs of 64-bit keys on disk, Golomb-Rice coded in indexed blocks:
// the files of a persistent seen-set (state_store.h), streamed or probed.
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

// A key-run file (format 2), all integers little-endian. The keys are
// nonzero and strictly increasing; they are cut into blocks of
// kKeyRunBlockKeys keys, and blocks into groups of kKeyRunPageEntries, each
// group followed by its index page:
//
//   offset  size  field
//        0     8  magic "URISCANK"
//        8     4  format version (kKeyRunFormat)
//       12     4  keys per block (kKeyRunBlockKeys)
//       16     8  profile tag: the fingerprint seed of the profile
//       24     8  key count n
//       32     8  body bytes: the groups, from offset 64
//       40     8  index pages P = ceil(ceil(n / 128) / 204)
//       48     8  XXH3_64bits of the fence
//       56     8  XXH3_64bits of bytes 0..55
//       64     -  the body: group 0, group 1, ... A group is its blocks,
//                 then its index page.
//   64 + body 16P the fence: per index page, the first key of its first
//                 block and the page's offset in the file.
//
// A block holds keys [128 b, 128 b + 128): its first key is in the index
// entry, the gaps to the others follow as Golomb-Rice codes: the block's
// Rice parameter r (6 bits), then each gap g as q = g >> r in unary (q zero
// bits, then a one) and the low r bits of g; a quotient of kKeyRunEscape or
// more is kKeyRunEscape zeros and a one, then g in 64 raw bits. Bits go
// least significant first; a block is padded with zero bits to a byte.
// An index page holds one 20-byte entry per block of its group (the
// block's first key: 8 bytes; its offset in the file: 6; its length: 2;
// the low 32 bits of XXH3_64bits of its bytes, seeded with b: 4), then
// XXH3_64bits of the entries, seeded with the page's number (8).
//
// So a lookup reads the header and the fence once (16 bytes per 26,112
// keys), then one index page and one block per key; damage to any of them
// fails its checksum. For uniformly spread keys a gap costs about
// 64 - log2(n) + 1.5 bits (Golomb 1966; Rice 1979) and the index 0.16 bytes
// a key (0.19 bits more for each block's raw first key): 5.0 bytes a key at
// 10^8 keys.
inline constexpr uint32_t kKeyRunFormat = 2;
inline constexpr size_t kKeyRunHeaderBytes = 64;
inline constexpr size_t kKeyRunBlockKeys = 128;
inline constexpr size_t kKeyRunPageEntries = 204;
inline constexpr size_t kKeyRunEntryBytes = 20;
inline constexpr size_t kKeyRunFenceBytes = 16;
inline constexpr uint32_t kKeyRunEscape = 48;

struct KeyRunHeader {
  uint64_t profile_tag = 0;
  uint64_t keys = 0;
  uint64_t body_bytes = 0;
  uint64_t pages = 0;
  uint64_t file_bytes() const {
    return kKeyRunHeaderBytes + body_bytes + pages * kKeyRunFenceBytes;
  }
};

// Writes one run to `path`: Add() keys in strictly increasing order, then
// Finish() writes the fence and the header, flushes and fsyncs. The file is
// created by Open(), which fails when `path` exists (a link planted there
// included). Errors (disk full, I/O) are kept: Add() becomes a no-op and
// Finish() returns false with error() set. With `dir_fd`, `name` is opened
// in that directory (openat) and `path` only names it in errors. Memory:
// one block, one index page and the fence.
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
  // Fence, header, fflush, fsync (unless `sync` is false: the caller then
  // syncs the file itself, as a sharded commit does for all its files at
  // once), close.
  bool Finish(bool sync = true);
  uint64_t keys() const { return header_.keys; }
  uint64_t file_bytes() const { return header_.file_bytes(); }
  const std::string& error() const { return error_; }
  // Writes the file back every `bytes` bytes as it is written (0: never).
  void WriteBehind(uint64_t bytes) { write_behind_ = bytes; }

 private:
  uint64_t write_behind_ = 0, written_back_ = 0;
  void FlushBlock();
  void FlushPage();
  void Emit(const void* bytes, size_t n);
  void Fail(const char* what);

  std::FILE* f_ = nullptr;
  std::string path_, error_;
  KeyRunHeader header_;
  uint64_t offset_ = 0;            // bytes written so far
  uint64_t blocks_ = 0, last_ = 0;
  std::vector<uint64_t> block_;    // the current block's keys
  std::vector<uint64_t> gaps_;     // and the gaps between them
  std::vector<unsigned char> code_, page_, fence_;
};

// Reads one run. Open() reads the header and the fence and checks them
// (magic, format, profile tag, size, checksums); then the keys are either
// streamed with Next() (a group at a time) or looked up with Contains()
// (an index page and a block per key, or the whole group when lookups
// needed many blocks of the group before). Each index page and block read is checked
// against its checksum and decoded with every check of order and bounds:
// damage is an error (failed(), error()), never an early end or an answer.
class KeyRunReader {
 public:
  KeyRunReader();
  ~KeyRunReader();
  KeyRunReader(const KeyRunReader&) = delete;
  KeyRunReader& operator=(const KeyRunReader&) = delete;

  // Reads take one group at most (735 KB). With `dir_fd`, as
  // KeyRunWriter::Open().
  bool Open(const std::string& path, uint64_t profile_tag) {
    return Open(AT_FDCWD, path, path, profile_tag);
  }
  bool Open(int dir_fd, const std::string& name, const std::string& path,
            uint64_t profile_tag);
  // The next key; false at the end or on damage (then error() is set).
  bool Next(uint64_t* key) {
    if (pos_ < keys_.size()) {
      *key = keys_[pos_++];
      return true;
    }
    return NextBlock(key);
  }
  // Whether `key` is in the run; keys must be asked in increasing order
  // (and not mixed with Next()). False on damage too: check failed().
  bool Contains(uint64_t key);
  // Lets Contains() start again from any key (the fence, and the index
  // page last read, stay in memory): point lookups in any order.
  void Rewind() {
    entry_ = ~size_t{0};
    keys_.clear();
    pos_ = 0;
  }
  // Reads every index page and block and checks its checksum, without
  // decoding: what `uriscan state` checks.
  bool CheckAll();
  const KeyRunHeader& header() const { return header_; }
  const std::string& error() const { return error_; }
  bool failed() const { return !error_.empty(); }
  uint64_t bytes_read() const { return bytes_read_; }

 private:
  struct Entry {
    uint64_t first = 0, offset = 0;
    uint32_t length = 0, checksum = 0;
  };
  bool NextBlock(uint64_t* key);
  uint64_t Blocks() const;
  uint64_t GroupStart(uint64_t page) const;
  uint64_t PageBytes(uint64_t page) const;
  // Page `page` as the current one; with `whole`, its group's blocks too.
  bool LoadPage(uint64_t page, bool whole);
  // Block `b` of the current page (`i` its entry), checked; with `decode`,
  // ready for Decode(), its first key in keys_.
  bool LoadBlock(size_t i, bool decode);
  // Decodes the current block's keys into keys_ until one is >= `until`
  // or the block ends (then checks that the block ends as its index says).
  bool Decode(uint64_t until);
  bool ReadAt(uint64_t offset, size_t n, unsigned char* to);
  bool Damaged(const std::string& what);

  int fd_ = -1;
  std::string path_, error_;
  KeyRunHeader header_;
  std::vector<uint64_t> fence_first_, fence_offset_;
  uint64_t page_ = ~uint64_t{0};  // the current page
  std::vector<Entry> entries_;    // its entries
  std::vector<unsigned char> group_;  // its group's bytes, when read whole
  bool whole_ = false;
  std::vector<unsigned char> page_bytes_;  // an index page read alone
  std::vector<unsigned char> block_bytes_;
  size_t blocks_in_page_ = 0;     // blocks Contains() read of this page
  size_t entry_ = ~size_t{0};     // the decoded block: its entry, its keys
  std::vector<uint64_t> keys_;
  size_t pos_ = 0;
  const unsigned char* code_ = nullptr;  // the current block's codes
  uint64_t code_bit_ = 0, count_ = 0;    // where decoding stopped; keys
  int rice_ = 0;
  uint64_t bytes_read_ = 0;
  static constexpr uint64_t kWholeFileBytes = 16384;
  std::vector<unsigned char> file_;  // a small run's bytes, all of them
  bool whole_file_ = false;
};

// Bytes that n keys spread uniformly take at most, by the contract of the
// seen-set: ((66 - log2 n) / 8 + 1) * n.
double KeyRunBoundBytes(uint64_t n);

}  // namespace uriscan

#endif  // URISCAN_SRC_STORE_KEY_RUNS_H_
